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

    @Test func agentCapabilityOverridesTheDerivedOneAndRefusesOneThatCannotTypeAPasskey() throws {
        let meter = "[device \"addr-aabbccddeeff\"]\npairing = passkey required\npasskey = 123456\n"
        #expect(try FleetConfiguration.parse(meter, file: "p.conf").agentRegistration?.capability == .keyboardDisplay, "auto")
        let keyboard = try FleetConfiguration.parse("[daemon]\nagent-capability = keyboard-only\n" + meter, file: "p.conf")
        #expect(keyboard.agentCapability == .keyboardOnly && keyboard.agentRegistration?.capability == .keyboardOnly)
        let justWorks = "[device \"addr-aabbccddeeff\"]\npairing = just-works\n"
        #expect(try FleetConfiguration.parse("[daemon]\nagent-capability = keyboard-display\n" + justWorks, file: "p.conf").agentRegistration?.capability == .keyboardDisplay)
        #expect(try FleetConfiguration.parse("[daemon]\nagent-capability = auto\n" + justWorks, file: "p.conf").agentRegistration?.capability == .noInputNoOutput)
        #expect(try FleetConfiguration.parse("[daemon]\nagent-capability = keyboard-only\n", file: "p.conf").agentRegistration == nil,
                "a capability alone registers no agent when nothing pairs")

        do {
            _ = try FleetConfiguration.parse("[daemon]\nagent-capability = no-input-no-output\n" + meter, file: "p.conf")
            Issue.record("a no-input-no-output agent with a passkey device was accepted")
        } catch {
            #expect(error.line == 2 && error.key == "agent-capability" && error.code == .invalidValue, "\(error)")
            #expect(error.message.contains("no-input-no-output cannot enter the passkey [device \"addr-AABBCCDDEEFF\"] pairs with"), "\(error)")
        }
        do {
            _ = try FleetConfiguration.parse("[daemon]\nagent-capability = display-only\n", file: "p.conf")
            Issue.record("display-only accepted")
        } catch {
            #expect(error.message.contains("is not one of auto, keyboard-display, keyboard-only, no-input-no-output"), "\(error)")
        }
    }
}
