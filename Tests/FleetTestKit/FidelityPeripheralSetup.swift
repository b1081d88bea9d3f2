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

    /// A stored-record glucose meter (GLS v1.0.1) served instead of a peripheral's own kind: the Glucose service
    /// alone, holding records 1…`records` (`GlucoseRecords.record(sequence:time:)` with the preloaded stamps), answering
    /// the RACP. The simulator's `profile=glucose-meter records=N`; the guest's `fidelity-peripheral.py --meter`.
    public struct Meter: Sendable, Hashable {
        public var records: Int
        /// The link drops from the meter's side one record pace after the K-th record of the first transfer that
        /// holds more than K (the simulator's `racp-drop-after DEV K`); nil: never.
        public var dropAfter: Int?

        public init(records: Int, dropAfter: Int? = nil) {
            self.records = records
            self.dropAfter = dropAfter
        }
    }

    /// Per peripheral label, what its 2A18 needs (a meter's RACP 2A52 too); peripherals not listed need nothing.
    public var secured: [String: Level]
    /// The peripheral side's agent, on every peripheral (one bluetoothd serves them all in the guest).
    public var agent: Agent?
    /// Per peripheral label, a stored-record meter it serves instead of its kind.
    public var meters: [String: Meter]

    public init(secured: [String: Level] = [:], agent: Agent? = nil, meters: [String: Meter] = [:]) {
        self.secured = secured
        self.agent = agent
        self.meters = meters
    }

    public static let plain = FidelityPeripheralSetup()

    /// The peripherals whose bonds must go when the scenario ends, so that the next one starts unpaired.
    public func mayBond(_ peripheral: FidelityPeripheral) -> Bool { secured[peripheral.label] != nil }

    /// The simulator device line's extra keys for `peripheral`.
    func simulatorKeys(_ peripheral: FidelityPeripheral) -> String {
        var keys: [String] = []
        if let meter = meters[peripheral.label] { keys.append("records=\(meter.records)") }
        if let level = secured[peripheral.label] {
            keys.append("security=2a18:\(level.rawValue)" + (meters[peripheral.label] != nil ? ",2a52:\(level.rawValue)" : ""))
        }
        if let agent {
            keys.append("io=\(agent.simulatorIO)")
            if let passkey = agent.passkey { keys.append("passkey=\(passkey)") }
        }
        return keys.map { " " + $0 }.joined()
    }

    /// The simulator's profile list for `peripheral` in this setup: a meter's, or its kind's.
    func simulatorProfiles(_ peripheral: FidelityPeripheral) -> String {
        meters[peripheral.label] != nil ? "glucose-meter" : peripheral.kind.simulatorProfiles
    }

    /// Scenario lines after the simulator's device lines: each meter's armed link drop.
    public var simulatorFaults: [String] {
        meters.sorted { $0.key < $1.key }.compactMap { label, meter in meter.dropAfter.map { "at 0 racp-drop-after \(label) \($0)" } }
    }

    /// fidelity-peripheral.py's arguments before the peripherals.
    var scriptArguments: [String] {
        var arguments: [String] = []
        for peripheral in FidelityPeripheral.all {
            if let level = secured[peripheral.label] { arguments += ["--secure", "hci\(peripheral.controller)=\(level.rawValue)"] }
        }
        if let agent { arguments += ["--agent", agent.capability + (agent.passkey.map { ":" + $0 } ?? "")] }
        for peripheral in FidelityPeripheral.all {
            if let meter = meters[peripheral.label] {
                arguments += ["--meter", "hci\(peripheral.controller)=\(meter.records)" + (meter.dropAfter.map { ":\($0)" } ?? "")]
            }
        }
        return arguments
    }
}
