import Foundation
import Identity
import Pairing
import Policy
import Supervision
import Testing
#if canImport(FleetManager)
import FleetManager
#else
import FleetConfig
#endif

@Suite struct ConfigurationTests {
    @Test func anEmptyFileIsTheDefaults() throws {
        #expect(try FleetConfiguration.parse("", file: "empty.conf") == .defaults)
        #expect(try FleetConfiguration.parse("# nothing\n\n; nothing either\n", file: "empty.conf") == .defaults)
    }

    @Test func defaultsAreTheDocumentedValues() {
        let d = FleetConfiguration.defaults
        #expect(d.resolvedStorePath == "/var/lib/fleetd/fleetd.db")
        #expect(d.resolvedSnapshotPath == "/var/lib/fleetd/snapshot.json", "where fleetd before the store wrote its JSON")
        #expect(d.resolvedOutboxPath == d.resolvedStorePath, "one file for state and readings")
        #expect(d.controlSocket == "/run/fleetd/io.fleetd.sock")
        #expect(d.leaveLinksOnExit)
        #expect(d.defaultCapacity == 5)
        #expect(d.identityRules == [.identityAddress])
        #expect(d.duplicateData == false)
        #expect(d.policy.normal.retryBudget == 10)
        #expect(d.policy.critical.retryBudget == nil)
        #expect(d.policy.critical.backoff.recoveryWindow == .seconds(5))
        #expect((try? d.policy.validated()) != nil)
    }

    @Test func theShippedExampleIsExactlyTheDefaults() throws {
        let config = try FleetConfiguration.load(path: ConfigurationExampleFile.path)
        #expect(config == .defaults)
    }

    @Test func theShippedExamplesParseWhenEnabled() throws {
        let config = try FleetConfiguration.parse(ConfigurationExampleFile.enabledText(), file: "fleetd.conf")
        var expected = FleetConfiguration.defaults
        expected.capacity = ["hci1": 3]
        expected.outboxPath = "/var/lib/fleetd/readings.db"  // the commented path line, enabled
        expected.storePath = "/var/lib/fleetd/fleetd.db"
        expected.snapshotPath = "/var/lib/fleetd/snapshot.json"
        expected.deprecatedKeys = ["[daemon] snapshot"]
        var broker = BrokerSettings(host: "broker.example.net")
        broker.port = 8883
        broker.protocolVersion = .mqtt5
        broker.gatewayID = "ward-3"
        broker.topicPrefix = "hospital/fleetd"
        broker.caFile = "/etc/fleetd/broker-ca.pem"
        broker.certificateFile = "/etc/fleetd/ward-3.pem"
        broker.keyFile = "/etc/fleetd/ward-3.key"
        broker.credentialsFile = "/etc/fleetd/broker.credentials"
        expected.broker = broker
        expected.identityRules = [
            .manufacturerData(try ManufacturerDataRule(companyID: 0x0059, byteRange: 2..<8,
                                                       expected: BytePattern(offset: 0, bytes: [0x59, 0x00], mask: [0xff, 0xff]))),
            .serviceData(try ServiceDataRule(uuid: "180d", byteRange: 0..<6)),
            .resolvingKeys([
                try IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b", label: "ward3"),
                try IdentityResolvingKey(hex: "00112233445566778899aabbccddeeff", label: "ward4"),
            ]),
            .identityAddress,
        ]
        expected.duplicateData = true  // auto, with payload rules present
        expected.devices = [
            ConfiguredDevice(id: "mfr-0059-010203040506", name: "Strap 1", policyClass: .critical,
                             subscribe: ["00002a37-0000-1000-8000-00805f9b34fb"], read: ["00002a38-0000-1000-8000-00805f9b34fb"]),
            ConfiguredDevice(id: "addr-C0FFEE000001", name: "Glucose meter", subscribe: ["00002a18-0000-1000-8000-00805f9b34fb"],
                             read: ["00002a51-0000-1000-8000-00805f9b34fb"],
                             pairing: DevicePairing(policy: PairingPolicy(method: .passkey(.file(path: "/etc/fleetd/meter.passkey"))), required: true)),
            ConfiguredDevice(id: "addr-C0FFEE000002", pairing: DevicePairing(policy: PairingPolicy(method: .passkey(.value(Passkey(123456)!))))),
            ConfiguredDevice(id: "irk-ward3", policyClass: .opportunistic),
        ]
        #expect(config == expected)
        // The resolver accepts what the parser built.
        #expect((try? IdentityResolver(rules: config.identityRules)) != nil)
    }

    /// The example documents every key: the set it uses (with its examples enabled) is the set the parser knows.
    @Test func theShippedExampleListsEveryKey() throws {
        let document = try ConfigDocument.parse(ConfigurationExampleFile.enabledText(), file: "fleetd.conf")
        var inExample = Set<String>()
        var kinds = Set<ConfigSection>()
        for section in document.sections {
            let kind = try ConfigSection.of(section, file: "fleetd.conf")
            kinds.insert(kind)
            for entry in section.entries { inExample.insert("\(kind) \(entry.key)") }
        }
        let known = Set(ConfigSection.allCases.flatMap { kind in kind.keys.map { "\(kind) \($0)" } })
        #expect(inExample == known, "missing from deploy/fleetd.conf: \(known.subtracting(inExample).sorted()); unknown: \(inExample.subtracting(known).sorted())")
        #expect(kinds == Set(ConfigSection.allCases))
    }

    @Test func theReferenceDocumentsEveryKey() throws {
        let docs = URL(fileURLWithPath: ConfigurationExampleFile.path).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/configuration.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for kind in ConfigSection.allCases {
            for key in kind.keys {
                #expect(text.contains("`\(key)`"), "docs/configuration.md does not describe \(kind) \(key)")
            }
        }
    }

    @Test func fileNameAndLineAppearInTheMessage() {
        let text = "[daemon]\nlog-level = info\n\n[policy \"critical\"]\nbackoff-cap = 6O s\n"
        #expect {
            try FleetConfiguration.parse(text, file: "fleetd.conf")
        } throws: { error in
            (error as? ConfigError)?.description == #"fleetd.conf:5: [policy "critical"] backoff-cap: "6O s" is not a duration (e.g. 500ms, 30s, 5min, 1h)"#
        }
    }

    @Test func anUnreadableFileIsAConfigError() {
        let path = "/nonexistent-\(UUID().uuidString)/fleetd.conf"
        do {
            _ = try FleetConfiguration.load(path: path)
            Issue.record("loading a missing file succeeded")
        } catch {
            #expect(error.code == .unreadableFile)
            #expect(error.file == path)
            #expect(error.description.hasPrefix(path + ": "))
        }
    }

    @Test func nonUTF8FileIsAConfigError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fleetd-\(UUID().uuidString).conf").path
        try Data([0x5b, 0xff, 0xfe, 0x5d]).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ConfigError.self) { try FleetConfiguration.load(path: path) }
    }
}
