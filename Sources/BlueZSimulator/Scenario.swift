/// A whole simulated ward: adapters, their connection pools, devices and a fault timeline.
/// The text format is documented in docs/simulator.md and parsed by `Scenario.parse`.
public struct Scenario: Sendable, Hashable {
    public var adapters: Int
    public var capacity: Int
    public var temporaryTimeout: Duration
    /// `link-up-order signalled|quiet`: see `LinkUpOrder`.
    public var linkUpOrder: LinkUpOrder
    /// `stale-bond-order reply-first|signals-first`: see `StaleBondOrder`.
    public var staleBondOrder: StaleBondOrder = .replyFirst
    public var devices: [PeripheralSpec]
    public var faults: [ScriptedFault]

    public init(adapters: Int = 1, capacity: Int = 5, temporaryTimeout: Duration = .seconds(30), linkUpOrder: LinkUpOrder = .signalled,
                devices: [PeripheralSpec] = [], faults: [ScriptedFault] = []) {
        self.adapters = adapters
        self.capacity = capacity
        self.temporaryTimeout = temporaryTimeout
        self.linkUpOrder = linkUpOrder
        self.devices = devices
        self.faults = faults
    }
}

/// A scenario file or device definition that cannot be read: which line and what was wrong with it.
public struct ScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable { case syntax, unknownKeyword, badValue, unknownDevice, duplicateDevice }
    public var code: Code
    public var line: Int
    public var message: String
    public init(_ code: Code, line: Int, _ message: String) {
        self.code = code
        self.line = line
        self.message = message
    }
    public var description: String { "scenario line \(line): \(message)" }
}
