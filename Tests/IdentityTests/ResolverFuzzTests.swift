import Policy
import Testing
import Identity

/// Random observations against a rule set full of edge cases: nothing may trap, and every answer must be
/// one the rules justify. The loops yield now and then: a synchronous test holds one of the two cooperative
/// threads for seconds, and with two such tests at once every socket test in the run starves (make test run
/// 7 of session 16: seventeen server tests timed out waiting for their answer).
@Suite struct ResolverFuzzTests {
    @Test func hundredThousandRandomObservations() async throws {
        var rng = SplitMix64(seed: 0xF1EE7D)
        let keys = try (0..<8).map { try IdentityResolvingKey(key: rng.bytes(16), label: "key\($0)") }
        let heart = try ServiceUUID("180d")
        let rules: [IdentityRule] = [
            .manufacturerData(try ManufacturerDataRule(companyID: 0x0059, byteRange: 2..<8)),
            .manufacturerData(try ManufacturerDataRule(companyID: 0x004C, byteRange: 4..<20, expected: BytePattern(offset: 2, hex: "0215"))),
            .manufacturerData(try ManufacturerDataRule(companyID: 0x00FF, byteRange: 250..<254)),
            .serviceData(try ServiceDataRule(uuid: heart, byteRange: 0..<4)),
            .resolvingKeys(keys),
            .identityAddress,
        ]
        var resolver = try IdentityResolver(rules: rules, cachePolicy: .init(addressLifetime: .seconds(5), negativeLifetime: .seconds(5), capacity: 512))
        let companies: [UInt16] = [0x0059, 0x004C, 0x00FF, 0x0006, 0xFFFF]
        let services = [heart, try ServiceUUID("feaa"), try ServiceUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")]
        var now = Duration.zero

        for run in 0..<100_000 {
            if run % 1_024 == 0 { await Task.yield() }
            now += .milliseconds(Int.random(in: 0...50, using: &rng))
            let keyOwner = Int.random(in: 0..<(keys.count * 4), using: &rng)
            let address: BluetoothAddress
            if keyOwner < keys.count {
                address = try keys[keyOwner].resolvablePrivateAddress(prand: UInt32.random(in: 0...0xFF_FFFF, using: &rng))
            } else {
                address = BluetoothAddress(UInt64.random(in: 0...BluetoothAddress.mask, using: &rng), type: Bool.random(using: &rng) ? .public : .random)
            }
            var mfr: [ManufacturerData] = []
            for _ in 0..<Int.random(in: 0...2, using: &rng) {
                let payload = rng.bytes(Int.random(in: 0...30, using: &rng))
                if let data = ManufacturerData(payload: payload) { mfr.append(data) }
                if let company = companies.randomElement(using: &rng) {
                    mfr.append(ManufacturerData(companyID: company, value: rng.bytes(Int.random(in: 0...24, using: &rng))))
                }
            }
            var svc: [ServiceData] = []
            if Bool.random(using: &rng), let uuid = services.randomElement(using: &rng) {
                svc.append(ServiceData(uuid: uuid, value: rng.bytes(Int.random(in: 0...8, using: &rng))))
            }
            let observation = Observation(address: address, manufacturerData: mfr, serviceData: svc, name: nil, rssi: Int16.random(in: -127...20, using: &rng))
            let r = resolver.resolve(observation, now: now)

            switch r.identity {
            case .manufacturer(let company, let key):
                guard case .manufacturerData(let rule)? = r.matchedRule.flatMap(resolver.rule(for:)) else { Issue.record("mfr identity without mfr rule"); return }
                #expect(rule.companyID == company && key.count == rule.byteRange.count)
            case .service(let uuid, let key):
                #expect(uuid == heart && key.count == 4)
            case .resolvingKey(let label):
                // Either this advert's RPA came from that key, or the address was cached from an earlier one.
                if keyOwner < keys.count, mfr.isEmpty, svc.isEmpty { #expect(label == keys[keyOwner].label) }
                #expect(address.kind == .resolvablePrivate)
            case .address(let a):
                #expect(a == address)
                #expect((r.matchedRule?.kind == .identityAddress) == address.isIdentityAddress)
                if keyOwner < keys.count { Issue.record("RPA of \(keys[keyOwner].label) was not resolved") }
            }
            #expect(r.identity.stableID.isEmpty == false)
        }
        #expect(resolver.statistics.resolutions == 100_000)
    }

    @Test func randomConfigTextNeverTraps() async {
        var rng = SplitMix64(seed: 42)
        let alphabet = Array("0123456789abcdefABCDEFxg:-_ /.".utf8)
        var accepted = 0
        for run in 0..<20_000 {
            if run % 512 == 0 { await Task.yield() }
            let text = String(decoding: (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }, as: UTF8.self)
            if (try? IdentityResolvingKey(hex: text, label: "x")) != nil { accepted += 1 }
            _ = try? ServiceUUID(text)
            _ = try? BluetoothAddress(text, type: .random)
            _ = try? BluetoothAddress(devicePath: "/org/bluez/hci0/dev_" + text, type: .random)
            _ = try? FleetIdentity(stableID: "mfr-" + text)
            _ = try? FleetIdentity(stableID: "addr-" + text)
            _ = try? BytePattern(offset: Int.random(in: -5...300, using: &rng), hex: text)
        }
        // Only texts that are 16 bytes of hex once separators are dropped may be keys.
        #expect(accepted < 20_000)
    }
}
