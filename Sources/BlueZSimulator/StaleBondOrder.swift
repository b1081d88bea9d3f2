/// In which order bluetoothd 5.66 answers a Connect and signals the link when a bonded device's peripheral has
/// lost its keys: the link comes up, the LTK request is answered negatively, Encryption Change fails "PIN or
/// Key Missing" and the kernel disconnects, all within ~10 ms (docs/bluez-fidelity.md, Pairing).
public enum StaleBondOrder: String, Sendable, Hashable, CaseIterable {
    /// What the rig showed under btmon (2026-12-01, pairing-passkey-stale-bond): bluetoothd had mgmt Device
    /// Connected and Disconnected queued but dispatched the ATT socket's error first. att_connect_cb (src/device.c)
    /// answers the Connect `Failed "le-connection-abort-by-local"` (every socket error but ECONNABORTED maps
    /// to it); device_add_connection then signals Connected=true and device_remove_connection Connected=false.
    case replyFirst = "reply-first"
    /// The order the source allows when the mgmt events are handled first: Connected=true
    /// (device_add_connection), the still pending Connect answered `Failed "br-connection-canceled"` by
    /// device_remove_connection, then Connected=false.
    case signalsFirst = "signals-first"
}
