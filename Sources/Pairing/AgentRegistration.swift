/// How fleetd registers its agent with AgentManager1.
public struct AgentRegistration: Sendable, Hashable {
    /// The capability string RegisterAgent gets.
    public var capability: AgentCapability
    /// Whether to call RequestDefaultAgent (`agent-default = yes`). BlueZ 5.66 makes the first agent
    /// registered the default anyway when there is none (agent_create).
    public var requestDefault: Bool

    public init(capability: AgentCapability, requestDefault: Bool) {
        self.capability = capability
        self.requestDefault = requestDefault
    }

    /// `capability` when the configuration names one (`[daemon] agent-capability`); otherwise (`auto`)
    /// KeyboardDisplay when any wanted device types a passkey (it must be able to enter one; with a
    /// display-only device the kernel then asks RequestPasskey), else NoInputNoOutput, with which the
    /// kernel uses Just Works for every device and never asks the agent.
    public static func plan(for policies: [PairingPolicy], requestDefault: Bool, capability: AgentCapability? = nil) -> AgentRegistration {
        AgentRegistration(capability: capability ?? (policies.contains(where: \.needsPasskeyEntry) ? .keyboardDisplay : .noInputNoOutput),
                          requestDefault: requestDefault)
    }
}

/// The capabilities an agent registers with (doc/agent-api.txt).
public enum AgentCapability: String, Sendable, Hashable, CaseIterable {
    case displayOnly = "DisplayOnly"
    case displayYesNo = "DisplayYesNo"
    case keyboardOnly = "KeyboardOnly"
    case noInputNoOutput = "NoInputNoOutput"
    case keyboardDisplay = "KeyboardDisplay"

    /// The capabilities fleetd can register with by configuration: a headless agent can enter a configured
    /// passkey or do nothing, but it has no display for a passkey or a yes/no to show.
    public static let configurable: [AgentCapability] = [.keyboardDisplay, .keyboardOnly, .noInputNoOutput]

    /// The spelling in fleetd.conf (`agent-capability = keyboard-only`).
    public var configName: String {
        switch self {
        case .displayOnly: "display-only"
        case .displayYesNo: "display-yes-no"
        case .keyboardOnly: "keyboard-only"
        case .noInputNoOutput: "no-input-no-output"
        case .keyboardDisplay: "keyboard-display"
        }
    }

    /// Whether the kernel can ask an agent with this capability for a passkey (RequestPasskey): only a
    /// keyboard can type one. With the others a passkey device's pairing cannot succeed.
    public var canEnterPasskey: Bool { self == .keyboardOnly || self == .keyboardDisplay }
}

/// The permission rule for a `passkey-file`: only its owner may read or write it. A file others can read
/// leaks the passkey; one others can write lets them choose it.
public enum PasskeyFileMode {
    /// Nil when `mode` (st_mode's permission bits) is acceptable, else what is wrong.
    public static func problem(mode: UInt32) -> String? {
        let open = mode & 0o077
        guard open != 0 else { return nil }
        var who: [String] = []
        if mode & 0o040 != 0 { who.append("group-readable") }
        if mode & 0o004 != 0 { who.append("world-readable") }
        if mode & 0o020 != 0 { who.append("group-writable") }
        if mode & 0o002 != 0 { who.append("world-writable") }
        if who.isEmpty { who.append("open to group or others") }
        return who.joined(separator: ", ") + "; it must be 0600 or 0400"
    }
}
