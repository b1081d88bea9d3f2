/// Which of two events reaches bluetoothd 5.66 first when an LE link it asked for comes up, and so whether
/// a client sees `PropertiesChanged(Connected=true)` (src/device.c 5.66).
///
/// - The kernel's mgmt Device Connected event → adapter.c `connected_callback` → `device_add_connection`,
///   which sets `le_state.connected` and signals `Connected`.
/// - The ATT socket's connect callback `att_connect_cb`, which sets `le_state.connected = true` with no
///   signal, attaches ATT, starts the GATT client and answers the Connect.
///
/// Whichever runs second finds the state set already: `device_add_connection` logs "Device … is already
/// connected" and returns before its signal.
public enum LinkUpOrder: String, Sendable, Hashable, CaseIterable {
    /// The mgmt event first, as on real controllers: `Connected=true` is signalled, then the Connect reply,
    /// the GATT objects and `ServicesResolved=true`. Clients that wait for the signal (bleak) work.
    case signalled
    /// `att_connect_cb` first, as under btvirt in the QEMU guest: `Connected` turns true without a signal;
    /// the Connect reply, the GATT objects and `ServicesResolved=true` follow.
    case quiet
}
