import FleetManager
import Pairing
import Testing

/// The pairing keys' refusals: each names the file, line, section and key that is wrong.
@Suite struct ConfigurationPairingTests {
    static func error(_ body: String) -> ConfigError? {
        do { _ = try FleetConfiguration.parse("[device \"addr-aabbccddeeff\"]\n" + body, file: "p.conf"); return nil } catch { return error }
    }

    @Test func badPairingValuesNameTheKey() {
        let cases: [(String, String, ConfigError.Code, String)] = [
            ("pairing = pin", "pairing", .invalidValue, "\"pin\" is not one of none, just-works, passkey"),
            ("pairing = none required", "pairing", .invalidValue, "is not one of"),
            ("pairing = passkey", "pairing", .incompleteSection, "pairing = passkey needs passkey = or passkey-file ="),
            ("pairing = passkey\npasskey = 1234567", "passkey", .invalidValue, "\"1234567\" is not a passkey"),
            ("pairing = passkey\npasskey = 123456\npasskey-file = /etc/p", "passkey-file", .incompleteSection, "give either passkey or passkey-file, not both"),
            ("pairing = just-works\npasskey = 123456", "passkey", .incompleteSection, "a passkey is used only with pairing = passkey"),
            ("pairing = passkey\npasskey-file = meter.passkey", "passkey-file", .invalidValue, "is not an absolute path"),
            ("re-pair = auto", "re-pair", .incompleteSection, "re-pair is used only with pairing = just-works or passkey"),
            ("pairing = just-works\nre-pair = sometimes", "re-pair", .invalidValue, "\"sometimes\" is not one of auto, manual"),
            ("pairing = just-works\nnumeric-comparison = maybe", "numeric-comparison", .invalidValue, "is not one of allow, refuse"),
        ]
        for (body, key, code, message) in cases {
            let error = Self.error(body)
            #expect(error?.key == key && error?.code == code && error?.message.contains(message) == true, "\(body): \(String(describing: error))")
            #expect(error?.description.hasPrefix("p.conf:") == true)
        }
    }

    @Test func requiredAloneTakesTheMethodFromThePasskey() throws {
        let withPasskey = try FleetConfiguration.parse("[device \"addr-aabbccddeeff\"]\npairing = required\npasskey = 1", file: "p.conf")
        #expect(withPasskey.devices.first?.pairing?.policy.needsPasskeyEntry == true && withPasskey.devices.first?.pairing?.required == true)
        let without = try FleetConfiguration.parse("[device \"addr-aabbccddeeff\"]\npairing = required", file: "p.conf")
        #expect(without.devices.first?.pairing?.policy.method == .justWorks)
        #expect(without.agentRegistration?.capability == .noInputNoOutput)
        #expect(FleetConfiguration.defaults.agentRegistration == nil, "no agent when nothing pairs")
    }
}
