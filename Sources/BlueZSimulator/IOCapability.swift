/// An SMP IO capability, numbered as the Core specification and the kernel's SMP tables index it.
public enum IOCapability: Int, Sendable, Hashable, CaseIterable {
    case displayOnly = 0
    case displayYesNo = 1
    case keyboardOnly = 2
    case noInputNoOutput = 3
    case keyboardDisplay = 4

    /// `parse_io_capability` (src/agent.c 5.66): the empty string means KeyboardDisplay; anything else
    /// unknown is nil, which RegisterAgent answers with InvalidArguments.
    public init?(agentCapability text: String) {
        switch text {
        case "", "KeyboardDisplay": self = .keyboardDisplay
        case "DisplayOnly": self = .displayOnly
        case "DisplayYesNo": self = .displayYesNo
        case "KeyboardOnly": self = .keyboardOnly
        case "NoInputNoOutput": self = .noInputNoOutput
        default: return nil
        }
    }

    /// The spelling in scenario files: `display-only`, `display-yes-no`, `keyboard-only`,
    /// `no-input-no-output`, `keyboard-display`.
    public init?(scenarioName text: String) {
        guard let match = Self.allCases.first(where: { $0.scenarioName == text }) else { return nil }
        self = match
    }

    public var scenarioName: String {
        switch self {
        case .displayOnly: "display-only"
        case .displayYesNo: "display-yes-no"
        case .keyboardOnly: "keyboard-only"
        case .noInputNoOutput: "no-input-no-output"
        case .keyboardDisplay: "keyboard-display"
        }
    }
}

/// What a link must have before a peripheral serves an attribute: nothing, encryption (an unauthenticated
/// key is enough: BlueZ's `encrypt-read`), or encryption with a key made with MITM protection
/// (`encrypt-authenticated-read`). Ordered like BT_ATT_SECURITY_LOW < MEDIUM < HIGH.
public enum SecurityLevel: Int, Sendable, Hashable, Comparable, CaseIterable {
    case none = 0
    case encrypt = 1
    case authenticate = 2

    public static func < (a: SecurityLevel, b: SecurityLevel) -> Bool { a.rawValue < b.rawValue }

    public init?(scenarioName text: String) {
        switch text {
        case "none": self = .none
        case "encrypt": self = .encrypt
        case "authenticate": self = .authenticate
        default: return nil
        }
    }

    public var scenarioName: String {
        switch self {
        case .none: "none"
        case .encrypt: "encrypt"
        case .authenticate: "authenticate"
        }
    }
}

/// The pairing side of a simulated peripheral: its IO capability, the passkey it shows (a glucose meter's
/// printed PIN), whether it speaks LE Secure Connections, and what each characteristic requires.
public struct PeripheralSecurity: Sendable, Hashable {
    public var ioCapability: IOCapability
    /// The passkey the device displays whenever it is the displaying side; nil: a fresh random one each time.
    public var passkey: UInt32?
    public var secureConnections: Bool
    /// The level every characteristic requires unless `characteristics` names it.
    public var defaultLevel: SecurityLevel
    /// Per characteristic UUID (128-bit lower-case form).
    public var characteristics: [String: SecurityLevel]

    public init(ioCapability: IOCapability = .noInputNoOutput, passkey: UInt32? = nil, secureConnections: Bool = true,
                defaultLevel: SecurityLevel = .none, characteristics: [String: SecurityLevel] = [:]) {
        self.ioCapability = ioCapability
        self.passkey = passkey
        self.secureConnections = secureConnections
        self.defaultLevel = defaultLevel
        self.characteristics = characteristics
    }

    public func level(for uuid: String) -> SecurityLevel { characteristics[uuid] ?? defaultLevel }
}
