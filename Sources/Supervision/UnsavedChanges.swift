/// What may have changed in the state fleetd saves (`FleetSnapshot`: devices, identities, evictions) since the
/// driver last saved it: the devices and identities to look at again, or everything. It lets a save cost what
/// changed instead of the fleet's size (a device's change in a fleet of 10 000 compared all 10 000 devices and
/// identities).
///
/// A superset: a device named here may turn out unchanged (the save compares before it writes), but a device
/// or identity whose saved values changed is always named, or `everything` is set. The eviction log is short and
/// compared whole by the save, so it is not tracked here.
///
/// Two sources fill it: the state machine notes what each event is about (the device it names, the owner of the
/// path it names, an identity it records; everything for a restore, a reload or an adapter's change), and the
/// driver adds every device named by the actions it performs (`note(_:)`), which covers what an event does to
/// other devices (admission, eviction).
public struct UnsavedChanges: Sendable, Equatable {
    /// Devices whose saved values may have changed (or that may have gone).
    public private(set) var devices: Set<DeviceID> = []
    /// Identity registry entries (by stable id) that may have changed (or gone).
    public private(set) var identities: Set<String> = []
    /// Anything may have changed: the save compares the whole state.
    public private(set) var everything = false

    public init() {}

    /// Compare everything: after a restore or an import, and as the last save before exit.
    public static var all: UnsavedChanges {
        var changes = UnsavedChanges()
        changes.everything = true
        return changes
    }

    public var isEmpty: Bool { !everything && devices.isEmpty && identities.isEmpty }

    public mutating func insert(device id: DeviceID) {
        if !everything { devices.insert(id) }
    }

    public mutating func insert(identity stableID: String) {
        if !everything { identities.insert(stableID) }
    }

    /// Marks everything; the sets are dropped, everything covers them.
    public mutating func insertEverything() {
        everything = true
        devices = []
        identities = []
    }

    public mutating func formUnion(_ other: UnsavedChanges) {
        if other.everything { insertEverything() }
        guard !everything else { return }
        devices.formUnion(other.devices)
        identities.formUnion(other.identities)
    }

    /// Notes every device `actions` name: how the driver learns which other devices an event changed (a device
    /// admitted, a victim evicted).
    public mutating func note(_ actions: [FleetAction]) {
        guard !everything else { return }
        for action in actions {
            if let id = action.device { devices.insert(id) }
        }
    }
}

extension FleetAction {
    /// The device the action is about, if any.
    var device: DeviceID? {
        switch self {
        case .connect(let device, _, _, _, _), .disconnect(let device, _), .removeDevice(let device, _, _), .pair(let device, _, _, _),
             .cancelPairing(let device, _), .unpair(let device, _, _), .setUp(let device, _, _, _, _, _, _):
            device
        case .schedule(let timer, _), .cancel(let timer):
            timer.device
        case .event(let event):
            event.device
        case .outcome(let outcome):
            outcome.device
        case .startDiscovery, .persist:
            nil
        }
    }
}

extension FleetOutcome {
    var device: DeviceID {
        switch self {
        case .connectFailed(let id, _), .evicted(let id, _), .reconnected(let id, _): id
        }
    }
}
