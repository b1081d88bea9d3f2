import Testing
#if canImport(FleetManager)
import FleetManager
#else
import FleetConfig
#endif

/// Each mistake an operator can make is refused with the file, line and key that need fixing.
@Suite struct ConfigurationErrorTests {
    struct BadFile: Sendable, CustomTestStringConvertible {
        let text: String
        let code: ConfigError.Code
        let line: Int
        let key: String?
        let says: String

        init(_ text: String, _ code: ConfigError.Code, line: Int, key: String?, says: String) {
            self.text = text
            self.code = code
            self.line = line
            self.key = key
            self.says = says
        }

        var testDescription: String { "line \(line) \(key ?? "-"): \(says)" }
    }

    static let irk = "ec0234a357c8ad05341010a60a397d9b"
    static let mfr = "[identity \"m\"]\nmanufacturer = 0x59\nbytes = 2..<8\n"

    static let cases: [BadFile] = [
        // Syntax
        BadFile("capacity = 3", .syntax, line: 1, key: "capacity", says: "outside any section"),
        BadFile("# ok\n[daemon", .syntax, line: 2, key: nil, says: "malformed section header"),
        BadFile("[daemon] log-level = info", .syntax, line: 1, key: nil, says: "after the section header"),
        BadFile("[adapter \"hci0]", .syntax, line: 1, key: nil, says: "no closing quote"),
        BadFile("[daemon]\n= info", .syntax, line: 2, key: nil, says: "expected `key = value`"),
        BadFile("[daemon]\nlog_level = info", .syntax, line: 2, key: "log", says: "expected `=`"),
        BadFile("[daemon]\nsnapshot = \"/var/lib/x", .syntax, line: 2, key: "snapshot", says: "unclosed double quote"),
        BadFile("[daemon]\nsnapshot = /a\\", .syntax, line: 2, key: "snapshot", says: "backslash"),
        BadFile("[daemon]\nsnapshot = /a\\q", .syntax, line: 2, key: "snapshot", says: "unknown escape"),
        // Sections and keys
        BadFile("[deamon]", .unknownSection, line: 1, key: nil, says: "unknown section"),
        BadFile("[daemon \"main\"]", .unknownSection, line: 1, key: nil, says: "takes no name"),
        BadFile("[adapter]\ncapacity = 2", .unknownSection, line: 1, key: nil, says: "needs a name"),
        BadFile("[adapter \"usb0\"]\ncapacity = 2", .unknownSection, line: 1, key: nil, says: "not an adapter name"),
        BadFile("[policy \"vip\"]", .unknownSection, line: 1, key: nil, says: "not a policy class"),
        BadFile("[daemon]\n[scan]\n[daemon]", .duplicateSection, line: 3, key: nil, says: "line 1"),
        BadFile("[daemon]\nlog-levl = info", .unknownKey, line: 2, key: "log-levl", says: "unknown key"),
        BadFile("[device \"addr-AABBCCDDEEFF\"]\nsubscribe = 2a37\nclass = normal\nsubscribe = 2a38", .duplicateKey, line: 4, key: "subscribe", says: "line 2"),
        // [daemon] values
        BadFile("[daemon]\nlog-level = loud", .invalidValue, line: 2, key: "log-level", says: "not one of"),
        BadFile("[daemon]\nlog-target = syslog", .invalidValue, line: 2, key: "log-target", says: "not one of"),
        BadFile("[daemon]\nsnapshot = state.json", .invalidValue, line: 2, key: "snapshot", says: "absolute path"),
        BadFile("[daemon]\nsnapshot =", .invalidValue, line: 2, key: "snapshot", says: "needs a value"),
        BadFile("[daemon]\nsnapshot", .invalidValue, line: 2, key: "snapshot", says: "needs `= value`"),
        BadFile("[daemon]\ncontrol-socket = /run/" + String(repeating: "s", count: 120), .invalidValue, line: 2, key: "control-socket", says: "107 bytes"),
        BadFile("[daemon]\ncontrol-group = Bt Ops", .invalidValue, line: 2, key: "control-group", says: "not a group name"),
        BadFile("[daemon]\nleave-links-on-exit = maybe", .invalidValue, line: 2, key: "leave-links-on-exit", says: "not a boolean"),
        BadFile("[daemon]\nsetup-timeout = 0s", .invalidValue, line: 2, key: "setup-timeout", says: "longer than 0"),
        BadFile("[daemon]\neviction-hold-off = -5s", .invalidValue, line: 2, key: "eviction-hold-off", says: "not a duration"),
        BadFile("[daemon]\neviction-hold-off = 5 minutes", .invalidValue, line: 2, key: "eviction-hold-off", says: "not a duration"),
        BadFile("[daemon]\nmetrics-textfile = /tmp/fleetd.txt", .invalidValue, line: 2, key: "metrics-textfile", says: ".prom"),
        // Adapters and scan
        BadFile("[adapters]\nuse = hci0 wlan0", .invalidValue, line: 2, key: "use", says: "wlan0"),
        BadFile("[adapters]\nuse = hci0 hci0", .invalidValue, line: 2, key: "use", says: "twice"),
        BadFile("[adapters]\ncapacity = 0", .invalidValue, line: 2, key: "capacity", says: "outside 1…64"),
        BadFile("[adapter \"hci1\"]\ncapacity = many", .invalidValue, line: 2, key: "capacity", says: "whole number"),
        BadFile("[scan]\nservice-uuids = 180d heart", .invalidValue, line: 2, key: "service-uuids", says: "'heart'"),
        BadFile("[scan]\nduplicate-data = sometimes", .invalidValue, line: 2, key: "duplicate-data", says: "not one of"),
        // Policy, including values only Policy can judge as a whole
        BadFile("[policy \"normal\"]\nretry-budget = 0", .invalidValue, line: 2, key: "retry-budget", says: "forever"),
        BadFile("[policy \"normal\"]\nbackoff-factor = two", .invalidValue, line: 2, key: "backoff-factor", says: "not a number"),
        BadFile("[policy \"normal\"]\nbackoff-factor = 0.5", .invalidValue, line: 2, key: "backoff-factor", says: ">= 1"),
        BadFile("[policy \"normal\"]\nbackoff-cap = 40s\nbackoff-base = 50s", .invalidValue, line: 3, key: "backoff-base", says: "below its base"),
        BadFile("[policy \"normal\"]\nbackoff-base = 2min", .invalidValue, line: 2, key: "backoff-base", says: "below its base"),
        BadFile("[policy \"critical\"]\nrecovery-window = 2min", .invalidValue, line: 2, key: "recovery-window", says: "recoveryWindow"),
        BadFile("[policy \"critical\"]\nconnect-timeout = 0", .invalidValue, line: 2, key: "connect-timeout", says: "connectTimeout"),
        BadFile("[policy \"critical\"]\nbackoff-floor = 5s", .invalidValue, line: 2, key: "backoff-floor", says: "floor"),
        BadFile("[policy \"normal\"]\njitter = some", .invalidValue, line: 2, key: "jitter", says: "not one of"),
        // Identity rules
        BadFile("[identity \"x\"]", .incompleteSection, line: 1, key: nil, says: "needs one of"),
        BadFile("[identity \"x\"]\nmanufacturer = 0x0059", .incompleteSection, line: 1, key: nil, says: "needs `bytes"),
        BadFile("[identity \"x\"]\nmanufacturer = 0x10000\nbytes = 2..<8", .invalidValue, line: 2, key: "manufacturer", says: "outside"),
        BadFile("[identity \"x\"]\nmanufacturer = 0x59\nbytes = 2...7", .invalidValue, line: 3, key: "bytes", says: "2..<8"),
        BadFile("[identity \"x\"]\nmanufacturer = 0x59\nbytes = 2..<30", .invalidValue, line: 3, key: "bytes", says: "at most 16 bytes"),
        BadFile("[identity \"x\"]\nservice = 180d\nbytes = 4..<4", .invalidValue, line: 3, key: "bytes", says: "non-empty"),
        BadFile("[identity \"x\"]\nmanufacturer = 0x59\nbytes = 2..<8\nexpect = zz", .invalidValue, line: 4, key: "expect", says: "not hex"),
        BadFile("[identity \"x\"]\nmanufacturer = 0x59\nbytes = 2..<8\nexpect = 5900\nexpect-mask = ff", .invalidValue, line: 5, key: "expect-mask", says: "mask"),
        BadFile("[identity \"x\"]\nmanufacturer = 0x59\nbytes = 2..<8\nexpect-offset = 254\nexpect = 59", .invalidValue, line: 4, key: "expect-offset", says: "offset 254"),
        BadFile("[identity \"x\"]\nmanufacturer = 0x59\nbytes = 2..<8\nexpect-mask = ff", .incompleteSection, line: 4, key: "expect-mask", says: "needs `expect"),
        BadFile("[identity \"x\"]\nmanufacturer = 0x59\nirk = a:\(irk)", .incompleteSection, line: 3, key: "irk", says: "one rule per section"),
        BadFile("[identity \"x\"]\nirk = a:\(irk)\nbytes = 0..<2", .incompleteSection, line: 3, key: "bytes", says: "not to irk"),
        BadFile("[identity \"x\"]\nirk = ward3:ec02", .invalidValue, line: 2, key: "irk", says: "16 bytes"),
        BadFile("[identity \"x\"]\nirk = \(irk)", .invalidValue, line: 2, key: "irk", says: "<label>:"),
        BadFile("[identity \"x\"]\nirk = bad label:\(irk)", .invalidValue, line: 2, key: "irk", says: "label"),
        BadFile("[identity \"a\"]\nirk = k:\(irk)\n[identity \"b\"]\nirk = k:00112233445566778899aabbccddeeff", .invalidValue, line: 4, key: "irk", says: "line 2"),
        BadFile("[identity \"x\"]\nservice = 18z\nbytes = 0..<2", .invalidValue, line: 2, key: "service", says: "service UUID"),
        BadFile("[identity]\nidentity-address = no\n[identity \"y\"]\nidentity-address = yes", .invalidValue, line: 4, key: "identity-address", says: "line 2"),
        BadFile("[identity \"y\"]\nidentity-address = yes\n[identity]\nidentity-address = no", .invalidValue, line: 4, key: "identity-address", says: "line 2"),
        BadFile("[identity \"y\"]\nidentity-address = no", .invalidValue, line: 2, key: "identity-address", says: "only be yes"),
        // Devices
        BadFile("[device \"mfr-59-0102\"]", .unknownSection, line: 1, key: nil, says: "not a stable identity id"),
        BadFile("[device \"strap-1\"]", .unknownSection, line: 1, key: nil, says: "not a stable identity id"),
        BadFile("[device \"mfr-0059-010203040506\"]\nclass = critical", .unreachableDevice, line: 1, key: nil, says: "company 0x0059"),
        BadFile(mfr + "[device \"mfr-0059-0102030405\"]", .unreachableDevice, line: 4, key: nil, says: "5 bytes"),
        BadFile("[identity \"s\"]\nservice = 180d\nbytes = 0..<6\n[device \"svc-180d-01020304\"]", .unreachableDevice, line: 4, key: nil, says: "service 180d"),
        BadFile("[device \"irk-nobody\"]", .unreachableDevice, line: 1, key: nil, says: "'nobody'"),
        BadFile("[device \"addr-AABBCCDDEEFF\"]\nclass = vip", .invalidValue, line: 2, key: "class", says: "not one of"),
        BadFile("[device \"addr-AABBCCDDEEFF\"]\nsubscribe = 2a37 2A37", .invalidValue, line: 2, key: "subscribe", says: "twice"),
        BadFile("[device \"addr-AABBCCDDEEFF\"]\nread = 2a3g", .invalidValue, line: 2, key: "read", says: "2a3g"),
        BadFile("[device \"addr-AABBCCDDEEFF\"]\nname =", .invalidValue, line: 2, key: "name", says: "needs a value"),
        BadFile("[device \"addr-AABBCCDDEEFF\"]\n\n[device \"addr-aabbccddeeff\"]", .duplicateSection, line: 3, key: nil, says: "same device"),
        BadFile("[mqtt]\nport = 1883", .incompleteSection, line: 2, key: "port", says: "needs host"),
        BadFile("[mqtt]\nhost = a b", .invalidValue, line: 2, key: "host", says: "not a host name"),
        BadFile("[mqtt]\nhost = b\nport = 70000", .invalidValue, line: 3, key: "port", says: "outside 1…65535"),
        BadFile("[mqtt]\nhost = b\nprotocol = 3", .invalidValue, line: 3, key: "protocol", says: "not one of 3.1.1, 5"),
        BadFile("[mqtt]\nhost = b\ngateway-id = ward/3", .invalidValue, line: 3, key: "gateway-id", says: "'/'"),
        BadFile("[mqtt]\nhost = b\ngateway-id = ward+", .invalidValue, line: 3, key: "gateway-id", says: "wildcard"),
        BadFile("[mqtt]\nhost = b\ntopic-prefix = $SYS", .invalidValue, line: 3, key: "topic-prefix", says: "'$'"),
        BadFile("[mqtt]\nhost = b\nkeep-alive = 2s", .invalidValue, line: 3, key: "keep-alive", says: "5s…65535s"),
        BadFile("[mqtt]\nhost = b\nkeep-alive = 10.5s", .invalidValue, line: 3, key: "keep-alive", says: "whole seconds"),
        BadFile("[mqtt]\nhost = b\nca-file = ca.pem", .invalidValue, line: 3, key: "ca-file", says: "absolute path"),
        BadFile("[mqtt]\nhost = b\nca-file = /ca.pem\ncert-file = /c.pem", .incompleteSection, line: 4, key: "cert-file", says: "both cert-file and key-file"),
        BadFile("[mqtt]\nhost = b\nkey-file = /c.key", .incompleteSection, line: 3, key: "key-file", says: "both cert-file and key-file"),
        BadFile("[mqtt]\nhost = b\ncert-file = /c.pem\nkey-file = /c.key", .incompleteSection, line: 3, key: "cert-file", says: "set ca-file"),
        BadFile("[mqtt]\nhost = b\nusername = x", .unknownKey, line: 3, key: "username", says: "credentials-file"),
        BadFile("[mqtt \"x\"]\nhost = b", .unknownSection, line: 1, key: nil, says: "takes no name"),
    ]

    @Test(arguments: cases)
    func refusedWithFileLineAndKey(_ bad: BadFile) {
        do {
            let config = try FleetConfiguration.parse(bad.text, file: "test.conf")
            Issue.record("accepted: \(config)")
        } catch {
            #expect(error.code == bad.code)
            #expect(error.file == "test.conf")
            #expect(error.line == bad.line)
            #expect(error.key == bad.key)
            #expect(error.message.contains(bad.says), "message: \(error.message)")
            #expect(error.description.hasPrefix("test.conf:\(bad.line): "))
            if let key = bad.key { #expect(error.description.contains(" \(key): ") || error.description.contains(": \(key): ")) }
        }
    }

    @Test func errorsNameTheSectionAsWritten() {
        do {
            _ = try FleetConfiguration.parse("[policy \"critical\"]\nbackoff-cap = 6O s", file: "fleetd.conf")
            Issue.record("accepted a bad duration")
        } catch {
            #expect(error.section == "[policy \"critical\"]")
            #expect(error.description.hasPrefix("fleetd.conf:2: [policy \"critical\"] backoff-cap: \"6O s\" is not a duration"))
        }
    }
}
