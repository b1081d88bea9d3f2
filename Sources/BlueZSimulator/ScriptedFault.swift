/// A fault a scenario schedules: what happens, to whom, at what simulated time, and whether it repeats.
public struct ScriptedFault: Sendable, Hashable {
    public var at: Duration
    /// When set, the fault happens again this long after each occurrence.
    public var every: Duration?
    public var action: FaultAction

    public init(at: Duration, every: Duration? = nil, action: FaultAction) {
        self.at = at
        self.every = every
        self.action = action
    }
}

/// The faults the simulator can inject, from a scenario timeline or the test-control interface.
/// Devices are named by scenario label or address.
public enum FaultAction: Sendable, Hashable {
    /// The link drops as on a supervision timeout.
    case dropLink(device: String)
    /// The adapter powers off, and on again after `offFor` (nil: stays off).
    case powerCycle(adapter: Int, offFor: Duration?)
    case setPowered(adapter: Int, Bool)
    case connectBehaviour(device: String, ConnectBehaviour)
    /// The device leaves: its Device1 objects are removed at once.
    case removeDevice(device: String)
    case rotateAddress(device: String)
    /// GATT replies and connect completion take this much longer.
    case responseDelay(device: String, Duration)
    /// The peripheral forgets its bonds (Scenario+Security.swift).
    case forgetBond(device: String)
    /// A stored-record meter's fault (SimulatorWorld+Records.swift).
    case records(device: String, RecordFault)
}
