/// One change in BlueZ's tree of adapters and devices, as the state machine takes it. The BlueZ room turns
/// each signal (and a successful Connect reply) into these exactly once, so the machine never compares two
/// readings of an object to find out what happened.
public enum TreeChange: Sendable, Hashable {
    case adapterAppeared(AdapterID, powered: Bool)
    case adapterPowered(AdapterID, Bool)
    case adapterRemoved(AdapterID)
    /// A Device1 object appeared, in the link state it has then.
    case deviceAppeared(DeviceReport, LinkState)
    /// Something other than its link changed on a Device1 object: RSSI, advertised data, name.
    case deviceUpdated(DeviceReport)
    /// The link to a Device1 object came up or went down.
    case link(DevicePath, up: Bool)
    /// BlueZ finished (true) or forgot (false) resolving the services of a linked Device1 object.
    case servicesResolved(DevicePath, Bool)
    /// The Device1 object went away (BlueZ expired it, or it was removed).
    case deviceRemoved(DevicePath)
}

/// How far the link of a Device1 object is, as it appears: none, up, or up with its services resolved.
public enum LinkState: Sendable, Hashable {
    case down
    case up
    case resolved
}
