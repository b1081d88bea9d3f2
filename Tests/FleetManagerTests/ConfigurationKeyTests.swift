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

/// Every key, set to a value other than its default, lands in the model field it documents.
@Suite struct ConfigurationKeyTests {
    struct KeyCase: Sendable {
        let kind: ConfigSection
        let keys: [String]
        let text: String
        /// False for the one spelling that restates a default (a named identity-address rule).
        var changesDefaults = true
        let check: @Sendable (FleetConfiguration) -> Bool
    }

    static let irkHex = "ec0234a357c8ad05341010a60a397d9b"

    static let cases: [KeyCase] = [
        KeyCase(kind: .daemon, keys: ["snapshot"], text: "[daemon]\nsnapshot = /srv/fleet/state.json") { $0.snapshotPath == "/srv/fleet/state.json" },
        KeyCase(kind: .daemon, keys: ["store"], text: "[daemon]\nstore = /srv/fleet/fleet.db") { $0.storePath == "/srv/fleet/fleet.db" },
        KeyCase(kind: .daemon, keys: ["control-socket"], text: "[daemon]\ncontrol-socket = /run/x/ctl.sock") { $0.controlSocket == "/run/x/ctl.sock" },
        KeyCase(kind: .daemon, keys: ["control-group"], text: "[daemon]\ncontrol-group = bt-ops") { $0.controlGroup == "bt-ops" },
        KeyCase(kind: .daemon, keys: ["log-level"], text: "[daemon]\nlog-level = debug") { $0.logLevel == "debug" },
        KeyCase(kind: .daemon, keys: ["log-target"], text: "[daemon]\nlog-target = stderr") { $0.logTarget == "stderr" },
        KeyCase(kind: .daemon, keys: ["leave-links-on-exit"], text: "[daemon]\nleave-links-on-exit = off") { !$0.leaveLinksOnExit },
        KeyCase(kind: .daemon, keys: ["eviction-hold-off"], text: "[daemon]\neviction-hold-off = 5min") { $0.evictionHoldOff == .seconds(300) },
        KeyCase(kind: .daemon, keys: ["setup-timeout"], text: "[daemon]\nsetup-timeout = 1500ms") { $0.setUpTimeout == .milliseconds(1500) },
        KeyCase(kind: .daemon, keys: ["metrics-textfile"], text: "[daemon]\nmetrics-textfile = /var/lib/node_exporter/fleetd.prom") {
            $0.metricsTextfile == "/var/lib/node_exporter/fleetd.prom"
        },
        KeyCase(kind: .daemon, keys: ["agent-default"], text: "[daemon]\nagent-default = yes") { $0.agentDefault && $0.agentRegistration?.requestDefault == true },
        KeyCase(kind: .daemon, keys: ["agent-capability"], text: "[daemon]\nagent-default = yes\nagent-capability = keyboard-only") {
            $0.agentCapability == .keyboardOnly && $0.agentRegistration?.capability == .keyboardOnly
        },
        KeyCase(kind: .device, keys: ["pairing", "passkey", "numeric-comparison", "re-pair", "re-pair-elsewhere"],
                text: "[device \"addr-aabbccddeeff\"]\npairing = passkey required\npasskey = 012345\nnumeric-comparison = allow\nre-pair = auto\nre-pair-elsewhere = yes") {
            $0.devices.first?.pairing == DevicePairing(policy: PairingPolicy(method: .passkey(.value(Passkey(12345)!)), numericComparison: .allow, rePair: .auto),
                                                       required: true, rePairElsewhere: true)
                && $0.agentRegistration == AgentRegistration(capability: .keyboardDisplay, requestDefault: false)
        },
        KeyCase(kind: .device, keys: ["passkey-file"], text: "[device \"addr-aabbccddeeff\"]\npairing = required\npasskey-file = /etc/fleetd/meter.passkey") {
            $0.devices.first?.pairing == DevicePairing(policy: PairingPolicy(method: .passkey(.file(path: "/etc/fleetd/meter.passkey"))), required: true)
        },
        KeyCase(kind: .outbox, keys: ["path"], text: "[outbox]\npath = /srv/fleet/readings.db") {
            $0.outboxPath == "/srv/fleet/readings.db" && $0.resolvedOutboxPath == "/srv/fleet/readings.db"
        },
        KeyCase(kind: .outbox, keys: ["commit-delay"], text: "[outbox]\ncommit-delay = 20ms") { $0.outboxCommitDelay == .milliseconds(20) },
        KeyCase(kind: .outbox, keys: ["max-age"], text: "[outbox]\nmax-age = 0") { $0.outboxMaxAge == nil },
        KeyCase(kind: .outbox, keys: ["max-rows"], text: "[outbox]\nmax-rows = 5000") { $0.outboxMaxRows == 5000 },
        KeyCase(kind: .outbox, keys: ["racp-delete"], text: "[outbox]\nracp-delete = yes") { $0.racpDelete },
        KeyCase(kind: .mqtt, keys: ["host"], text: "[mqtt]\nhost = broker.example.net") {
            $0.broker == BrokerSettings(host: "broker.example.net") && $0.broker?.resolvedPort == 1883
        },
        KeyCase(kind: .mqtt, keys: ["port"], text: "[mqtt]\nhost = b\nport = 11883") { $0.broker?.resolvedPort == 11883 },
        KeyCase(kind: .mqtt, keys: ["protocol"], text: "[mqtt]\nhost = b\nprotocol = 5") { $0.broker?.protocolVersion == .mqtt5 },
        KeyCase(kind: .mqtt, keys: ["gateway-id"], text: "[mqtt]\nhost = b\ngateway-id = ward-3") {
            $0.broker?.resolvedGatewayID(hostName: "ignored.example.net") == "ward-3"
        },
        KeyCase(kind: .mqtt, keys: ["topic-prefix"], text: "[mqtt]\nhost = b\ntopic-prefix = site/a") { $0.broker?.topicPrefix == "site/a" },
        KeyCase(kind: .mqtt, keys: ["keep-alive"], text: "[mqtt]\nhost = b\nkeep-alive = 1min") { $0.broker?.keepAlive == .seconds(60) },
        KeyCase(kind: .mqtt, keys: ["ca-file", "cert-file", "key-file"],
                text: "[mqtt]\nhost = b\nca-file = /etc/ca.pem\ncert-file = /etc/c.pem\nkey-file = /etc/c.key") {
            $0.broker?.caFile == "/etc/ca.pem" && $0.broker?.certificateFile == "/etc/c.pem" && $0.broker?.keyFile == "/etc/c.key"
                && $0.broker?.resolvedPort == 8883
        },
        KeyCase(kind: .mqtt, keys: ["credentials-file"], text: "[mqtt]\nhost = b\nca-file = /etc/ca.pem\ncredentials-file = /etc/fleetd/broker.credentials") {
            $0.broker?.credentialsFile == "/etc/fleetd/broker.credentials"
        },
        KeyCase(kind: .mqtt, keys: ["allow-plaintext-password"],
                text: "[mqtt]\nhost = localhost\ncredentials-file = /etc/fleetd/broker.credentials\nallow-plaintext-password = yes") {
            $0.broker?.allowPlaintextPassword == true
        },
        KeyCase(kind: .adapters, keys: ["use"], text: "[adapters]\nuse = hci1\thci0") { $0.adapters == ["hci1", "hci0"] },
        KeyCase(kind: .adapters, keys: ["capacity"], text: "[adapters]\ncapacity = 7") { $0.defaultCapacity == 7 && $0.capacity.isEmpty },
        KeyCase(kind: .adapter, keys: ["capacity"], text: "[adapter \"hci2\"]\ncapacity = 2") { $0.capacity == ["hci2": 2] && $0.defaultCapacity == 5 },
        KeyCase(kind: .scan, keys: ["service-uuids"], text: "[scan]\nservice-uuids = 180D 0x180f 6E400001-B5A3-F393-E0A9-E50E24DCCA9E") {
            $0.scanServiceUUIDs == ["0000180d-0000-1000-8000-00805f9b34fb", "0000180f-0000-1000-8000-00805f9b34fb",
                                    "6e400001-b5a3-f393-e0a9-e50e24dcca9e"]
        },
        KeyCase(kind: .scan, keys: ["duplicate-data"], text: "[scan]\nduplicate-data = yes") { $0.duplicateData },
        KeyCase(kind: .identity, keys: ["identity-address"], text: "[identity]\nidentity-address = no") { $0.identityRules.isEmpty },
        KeyCase(kind: .identityRule, keys: ["manufacturer", "bytes", "expect", "expect-offset", "expect-mask"],
                text: "[identity \"beacon\"]\nmanufacturer = 76\nbytes = 4..<20\nexpect = 02 15\nexpect-offset = 2\nexpect-mask = ff 0f") {
            guard let rule = try? ManufacturerDataRule(companyID: 0x004C, byteRange: 4..<20,
                                                       expected: BytePattern(offset: 2, bytes: [0x02, 0x15], mask: [0xff, 0x0f]))
            else { return false }
            return $0.identityRules == [.manufacturerData(rule), .identityAddress] && $0.duplicateData
        },
        KeyCase(kind: .identityRule, keys: ["service"], text: "[identity \"s\"]\nservice = 0x180D\nbytes = 0..<4") {
            guard let rule = try? ServiceDataRule(uuid: "180d", byteRange: 0..<4) else { return false }
            return $0.identityRules == [.serviceData(rule), .identityAddress] && $0.duplicateData
        },
        KeyCase(kind: .identityRule, keys: ["irk"], text: "[identity \"k\"]\nirk = pump-7:\(irkHex)\nirk = watch:EC:02:34:A3:57:C8:AD:05:34:10:10:A6:0A:39:7D:9C") {
            guard let a = try? IdentityResolvingKey(hex: irkHex, label: "pump-7"),
                let b = try? IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9c", label: "watch")
            else { return false }
            // IRKs need no adverts, so auto leaves duplicate data off.
            return $0.identityRules == [.resolvingKeys([a, b]), .identityAddress] && !$0.duplicateData
        },
        KeyCase(kind: .identityRule, keys: ["identity-address"], text: "[identity \"addr\"]\nidentity-address = yes", changesDefaults: false) {
            $0.identityRules == [.identityAddress]
        },
        KeyCase(kind: .policy, keys: ["connect-timeout"], text: "[policy \"opportunistic\"]\nconnect-timeout = 12s") {
            $0.policy.opportunistic.connectTimeout == .seconds(12) && $0.policy.normal == FleetConfiguration.defaults.policy.normal
        },
        KeyCase(kind: .policy, keys: ["backoff-base"], text: "[policy \"opportunistic\"]\nbackoff-base = 2s") { $0.policy.opportunistic.backoff.base == .seconds(2) },
        KeyCase(kind: .policy, keys: ["backoff-factor"], text: "[policy \"opportunistic\"]\nbackoff-factor = 1.5") { $0.policy.opportunistic.backoff.factor == 1.5 },
        KeyCase(kind: .policy, keys: ["backoff-cap"], text: "[policy \"opportunistic\"]\nbackoff-cap = 2min") { $0.policy.opportunistic.backoff.cap == .seconds(120) },
        KeyCase(kind: .policy, keys: ["backoff-floor"], text: "[policy \"opportunistic\"]\nbackoff-floor = 100ms") { $0.policy.opportunistic.backoff.floor == .milliseconds(100) },
        KeyCase(kind: .policy, keys: ["jitter"], text: "[policy \"opportunistic\"]\njitter = none") { $0.policy.opportunistic.backoff.jitter == .none },
        KeyCase(kind: .policy, keys: ["stable-after"], text: "[policy \"opportunistic\"]\nstable-after = 1h") { $0.policy.opportunistic.backoff.stableAfter == .seconds(3600) },
        KeyCase(kind: .policy, keys: ["recovery-window"], text: "[policy \"critical\"]\nrecovery-window = 10s") { $0.policy.critical.backoff.recoveryWindow == .seconds(10) },
        KeyCase(kind: .policy, keys: ["retry-budget"], text: "[policy \"normal\"]\nretry-budget = forever\n[policy \"critical\"]\nretry-budget = 3") {
            $0.policy.normal.retryBudget == nil && $0.policy.critical.retryBudget == 3
        },
        KeyCase(kind: .policy, keys: ["min-hold"], text: "[policy \"opportunistic\"]\nmin-hold = 0") { $0.policy.opportunistic.minimumHoldTime == .zero },
        KeyCase(kind: .device, keys: ["name", "class", "subscribe", "read"],
                text: "[device \"addr-aabbccddeeff\"]\nname = \"Pump #7\"  # quoted keeps the #\nclass = critical\nsubscribe = 2a37 2A38\nread = 2a19") {
            $0.devices == [ConfiguredDevice(id: "addr-AABBCCDDEEFF", name: "Pump #7", policyClass: .critical,
                                            subscribe: ["00002a37-0000-1000-8000-00805f9b34fb", "00002a38-0000-1000-8000-00805f9b34fb"],
                                            read: ["00002a19-0000-1000-8000-00805f9b34fb"])]
        },
        KeyCase(kind: .device, keys: ["profile"], text: "[device \"addr-aabbccddeeff\"]\nprofile = none") {
            $0.devices.first?.standardProfiles == false
        },
    ]

    @Test func everyKeyReachesItsField() throws {
        for c in Self.cases {
            let config = try FleetConfiguration.parse(c.text, file: "keys.conf")
            #expect(c.check(config), "\(c.kind) \(c.keys) did not set its field")
            #expect(!c.changesDefaults || config != .defaults, "\(c.kind) \(c.keys) left the defaults unchanged")
        }
    }

    @Test func everyKnownKeyHasACase() {
        let covered = Set(Self.cases.flatMap { c in c.keys.map { "\(c.kind) \($0)" } })
        let known = Set(ConfigSection.allCases.flatMap { kind in kind.keys.map { "\(kind) \($0)" } })
        #expect(covered == known, "untested keys: \(known.subtracting(covered).sorted())")
    }

    @Test func theStoreHoldsTheOutboxAndDefaultsToTheDeprecatedSnapshotsDirectory() throws {
        let moved = try FleetConfiguration.parse("[daemon]\nsnapshot = /srv/fleet/state.json", file: "o.conf")
        #expect(moved.resolvedStorePath == "/srv/fleet/fleetd.db")
        #expect(moved.resolvedOutboxPath == "/srv/fleet/fleetd.db")
        #expect(moved.resolvedSnapshotPath == "/srv/fleet/state.json")
        #expect(moved.deprecatedKeys == ["[daemon] snapshot"], "fleetd warns about it at start")
        let store = try FleetConfiguration.parse("[daemon]\nstore = /data/fleet.db", file: "o.conf")
        #expect(store.resolvedStorePath == "/data/fleet.db" && store.resolvedOutboxPath == "/data/fleet.db")
        #expect(store.resolvedSnapshotPath == "/data/snapshot.json", "an older fleetd's JSON is looked for beside the store")
        #expect(store.deprecatedKeys.isEmpty)
        let split = try FleetConfiguration.parse("[daemon]\nstore = /data/fleet.db\n[outbox]\npath = /sd/readings.db", file: "o.conf")
        #expect(split.resolvedStorePath == "/data/fleet.db" && split.resolvedOutboxPath == "/sd/readings.db")
        #expect(FleetConfiguration.defaults.resolvedOutboxPath == "/var/lib/fleetd/fleetd.db")
    }

    @Test func aDeviceWithoutKeysGetsTheDocumentedDefaults() throws {
        let config = try FleetConfiguration.parse("[device \"addr-AABBCCDDEEFF\"]", file: "d.conf")
        #expect(config.devices == [ConfiguredDevice(id: "addr-AABBCCDDEEFF", name: nil, policyClass: .normal, subscribe: [], read: [])])
    }

    @Test func devicesKeepFileOrderAndCanonicalIDs() throws {
        let text = """
            [identity "m"]
            manufacturer = 0x0059
            bytes = 2..<8
            [device "mfr-0059-0A0B0C0D0E0F"]
            [device "addr-112233445566"]
            [device "mfr-0059-010203040506"]
            """
        let config = try FleetConfiguration.parse(text, file: "d.conf")
        #expect(config.devices.map(\.id) == ["mfr-0059-0a0b0c0d0e0f", "addr-112233445566", "mfr-0059-010203040506"])
    }

    @Test func rulesKeepFileOrderWithinAKind() throws {
        let text = """
            [identity "second-company"]
            manufacturer = 0x00e0
            bytes = 2..<6
            [identity "keys"]
            irk = a:\(Self.irkHex)
            [identity "first-company"]
            manufacturer = 0x0059
            bytes = 2..<8
            """
        let rules = try FleetConfiguration.parse(text, file: "r.conf").identityRules
        let companies = rules.compactMap { rule -> UInt16? in
            if case .manufacturerData(let m) = rule { m.companyID } else { nil }
        }
        #expect(companies == [0x00e0, 0x0059])
        #expect(rules.map(\.kind) == [.manufacturerData, .resolvingKeys, .manufacturerData, .identityAddress])
    }

    @Test func anEmptyControlGroupLeavesTheSocketToRoot() throws {
        #expect(try FleetConfiguration.parse("[daemon]\ncontrol-group =", file: "g.conf").controlGroup == "")
    }

    @Test func duplicateDataNoOverridesAuto() throws {
        let text = "[scan]\nduplicate-data = no\n[identity \"m\"]\nmanufacturer = 0x0059\nbytes = 2..<8"
        #expect(try FleetConfiguration.parse(text, file: "s.conf").duplicateData == false)
    }
}
