/// How the suite's peripherals guard their characteristics and answer pairing during one scenario. The
/// default, `.plain`, is every scenario's before issue 15: nothing needs security and the peripheral side
/// has no agent. Both backends build the same world from it: the simulator's device lines (`security=`,
/// `io=`, `passkey=`) and the peripheral script's `--secure` / `--agent` arguments.
public struct FidelityPeripheralSetup: Sendable, Hashable {
    /// What Glucose Measurement 2A18 needs before it may be read or its notifications armed.
    public enum Level: String, Sendable, Hashable {
        /// An encrypted link (encrypt-read, encrypt-notify; the simulator's `security=2a18:encrypt`).
        case encrypt
        /// An encrypted link with an authenticated (MITM-protected) key.
        case authenticate
    }

    /// The peripheral side's agent: the IO capability it registers with (BlueZ's names: DisplayOnly,
    /// DisplayYesNo, KeyboardOnly, NoInputNoOutput, KeyboardDisplay) and the passkey it types when asked.
    public struct Agent: Sendable, Hashable {
        public var capability: String
        public var passkey: String?

        public init(capability: String, passkey: String? = nil) {
            self.capability = capability
            self.passkey = passkey
        }

        /// The simulator's `io=` for the capability.
        var simulatorIO: String {
            switch capability {
            case "DisplayOnly": "display-only"
            case "DisplayYesNo": "display-yes-no"
            case "KeyboardOnly": "keyboard-only"
            case "KeyboardDisplay": "keyboard-display"
            default: "no-input-no-output"
            }
        }
    }

    /// Per peripheral label, what its 2A18 needs; peripherals not listed need nothing.
    public var secured: [String: Level]
    /// The peripheral side's agent, on every peripheral (one bluetoothd serves them all in the guest).
    public var agent: Agent?

    public init(secured: [String: Level] = [:], agent: Agent? = nil) {
        self.secured = secured
        self.agent = agent
    }

    public static let plain = FidelityPeripheralSetup()

    /// The peripherals whose bonds must go when the scenario ends, so that the next one starts unpaired.
    public func mayBond(_ peripheral: FidelityPeripheral) -> Bool { secured[peripheral.label] != nil }

    /// The simulator device line's extra keys for `peripheral`.
    func simulatorKeys(_ peripheral: FidelityPeripheral) -> String {
        var keys: [String] = []
        if let level = secured[peripheral.label] { keys.append("security=2a18:\(level.rawValue)") }
        if let agent {
            keys.append("io=\(agent.simulatorIO)")
            if let passkey = agent.passkey { keys.append("passkey=\(passkey)") }
        }
        return keys.map { " " + $0 }.joined()
    }

    /// fidelity-peripheral.py's arguments before the peripherals.
    var scriptArguments: [String] {
        var arguments: [String] = []
        for peripheral in FidelityPeripheral.all {
            if let level = secured[peripheral.label] { arguments += ["--secure", "hci\(peripheral.controller)=\(level.rawValue)"] }
        }
        if let agent { arguments += ["--agent", agent.capability + (agent.passkey.map { ":" + $0 } ?? "")] }
        return arguments
    }
}
