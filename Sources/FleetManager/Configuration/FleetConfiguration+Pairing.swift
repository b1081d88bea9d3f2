import Pairing
import Supervision

/// The pairing keys of a `[device]` section:
///
/// | key | values | default |
/// | --- | --- | --- |
/// | `pairing` | `none`, `just-works`, `passkey`, each optionally followed by `required`; `required` alone | `none` |
/// | `passkey` | one to six digits (the PIN printed on the device) | — |
/// | `passkey-file` | an absolute path to a file holding the passkey, mode 0600 or 0400 | — |
/// | `numeric-comparison` | `allow`, `refuse` | `refuse` |
/// | `re-pair` | `auto`, `manual` | `manual` |
/// | `re-pair-elsewhere` | a boolean: may it pair through an adapter that does not hold its bond | `no` |
///
/// `required` pairs before set-up on every link that is not yet bonded; without it fleetd pairs when a read
/// or StartNotify is refused for lack of security. `required` alone means `passkey required` when a passkey
/// is given, else `just-works required`.
extension FleetConfiguration {
    static func pairing(_ r: ConfigSectionReader) throws(ConfigError) -> DevicePairing? {
        let passkeyText = try r.text("passkey")
        let passkeyFile = try r.path("passkey-file")
        if passkeyText != nil, passkeyFile != nil {
            throw r.fail(.incompleteSection, r.entry("passkey-file"), "give either passkey or passkey-file, not both")
        }
        var passkey: PasskeySource?
        if let passkeyText {
            guard let value = Passkey(text: passkeyText) else {
                throw r.fail(.invalidValue, r.entry("passkey"), "\"\(passkeyText)\" is not a passkey (one to six digits, e.g. 012345)")
            }
            passkey = .value(value)
        } else if let passkeyFile {
            passkey = .file(path: passkeyFile)
        }
        var method = "none"
        var required = false
        if let (text, entry) = try r.rawText("pairing") {
            let words = ConfigValue.words(text)
            let methods = ["none", "just-works", "passkey"]
            switch words.count {
            case 1 where words[0] == "required":
                method = passkey == nil ? "just-works" : "passkey"
                required = true
            case 1 where methods.contains(words[0]):
                method = words[0]
            case 2 where methods.contains(words[0]) && words[0] != "none" && words[1] == "required":
                method = words[0]
                required = true
            default:
                throw r.fail(.invalidValue, entry,
                             "\"\(text)\" is not one of none, just-works, passkey (each but none optionally followed by required), or required")
            }
        }
        let numericComparison = try r.choice("numeric-comparison", of: Permission.allCases.map(\.rawValue)).flatMap(Permission.init)
        let rePair = try r.choice("re-pair", of: RePair.allCases.map(\.rawValue)).flatMap(RePair.init)
        let elsewhere = try r.bool("re-pair-elsewhere")
        let policyMethod: PairingPolicy.Method
        switch method {
        case "passkey":
            guard let passkey else {
                throw r.fail(.incompleteSection, r.entry("pairing"), "pairing = passkey needs passkey = or passkey-file =")
            }
            policyMethod = .passkey(passkey)
        case "just-works":
            policyMethod = .justWorks
        default:
            policyMethod = .none
        }
        if passkey != nil, case .passkey = policyMethod {} else if passkey != nil {
            let key = passkeyText != nil ? "passkey" : "passkey-file"
            throw r.fail(.incompleteSection, r.entry(key), "a passkey is used only with pairing = passkey (this device has pairing = \(method))")
        }
        guard case .none = policyMethod else {
            return DevicePairing(policy: PairingPolicy(method: policyMethod, numericComparison: numericComparison ?? .refuse, rePair: rePair ?? .manual),
                                 required: required, rePairElsewhere: elsewhere ?? false)
        }
        for key in ["numeric-comparison", "re-pair", "re-pair-elsewhere"] where r.has(key) {
            throw r.fail(.incompleteSection, r.entry(key), "\(key) is used only with pairing = just-works or passkey")
        }
        return nil
    }

    /// The pairing of every configured device that pairs, by id, for the state machine.
    public var pairing: [DeviceID: DevicePairing] {
        var out: [DeviceID: DevicePairing] = [:]
        for device in devices { if let pairing = device.pairing { out[DeviceID(device.id)] = pairing } }
        return out
    }

    /// How fleetd's agent registers: the configured `agent-capability`, or (`auto`) KeyboardDisplay when a
    /// device types a passkey, else NoInputNoOutput; nil when no device pairs and no default agent was asked
    /// for (no agent is registered).
    public var agentRegistration: AgentRegistration? {
        let policies = devices.compactMap { $0.pairing?.policy }
        guard !policies.isEmpty || agentDefault else { return nil }
        return AgentRegistration.plan(for: policies, requestDefault: agentDefault, capability: agentCapability)
    }

    /// The devices whose passkey comes from a file, with the file: checked at start and on reload.
    public var passkeyFiles: [(device: String, path: String)] {
        devices.compactMap { device in
            guard case .passkey(.file(let path))? = device.pairing?.policy.method else { return nil }
            return (device.id, path)
        }
    }
}
