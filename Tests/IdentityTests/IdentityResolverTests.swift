import Policy
import Testing
import Identity

@Suite struct IdentityResolverTests {
    let seedRule = IdentityRule.manufacturerData(try! ManufacturerDataRule(companyID: 0x0059, byteRange: 2..<8))
    let specKey = try! IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b", label: "spec")

    func randomAddress(_ rng: inout SplitMix64) -> BluetoothAddress {
        BluetoothAddress(UInt64.random(in: 0...BluetoothAddress.mask, using: &rng), type: .random)
    }

    @Test func seedCaseGivesOneIdentityUnderAHundredAddresses() throws {
        var resolver = try IdentityResolver(rules: [seedRule])
        var rng = SplitMix64(seed: 1)
        var addresses: Set<BluetoothAddress> = []
        for i in 0..<100 {
            var address = randomAddress(&rng)
            while addresses.contains(address) { address = randomAddress(&rng) }
            addresses.insert(address)
            let mfr = ManufacturerData(payload: [0x59, 0x00, 1, 2, 3, 4, 5, 6])!
            let r = resolver.resolve(Observation(address: address, manufacturerData: [mfr]), now: .seconds(i))
            #expect(r.identity == .manufacturer(companyID: 0x0059, key: [1, 2, 3, 4, 5, 6]))
            #expect(r.identity.stableID == "mfr-0059-010203040506")
            #expect(r.matchedRule.flatMap(resolver.rule(for:)) == seedRule)
            #expect(r.isNewAddress)
        }
        #expect(addresses.count == 100)
    }

    @Test func blueZFormIsTheValueAfterTheCompanyID() throws {
        var resolver = try IdentityResolver(rules: [seedRule])
        let o = try Observation(bluezAddress: "4A:11:22:33:44:55", addressType: "random", manufacturerData: [0x0059: [1, 2, 3, 4, 5, 6]])
        #expect(o.manufacturerData == [ManufacturerData(payload: [0x59, 0x00, 1, 2, 3, 4, 5, 6])!])
        #expect(resolver.resolve(o, now: .zero).identity == .manufacturer(companyID: 0x0059, key: [1, 2, 3, 4, 5, 6]))
    }

    @Test func aRuleMatchingNothingLeavesTheDeviceKeyedByAddress() throws {
        var resolver = try IdentityResolver(rules: [seedRule])
        let address = try BluetoothAddress("4A:11:22:33:44:55", type: .random)
        let other = ManufacturerData(companyID: 0x004C, value: [1, 2, 3, 4, 5, 6])
        let r = resolver.resolve(Observation(address: address, manufacturerData: [other]), now: .zero)
        #expect(r.identity == .address(address))
        #expect(r.identity.stableID == "addr-4A1122334455")
        #expect(r.matchedRule == nil)
        #expect(r.isNewAddress)
        #expect(!resolver.resolve(Observation(address: address), now: .seconds(1)).isNewAddress)
    }

    @Test(arguments: [[], [0x59], [0x59, 0x00], [0x59, 0x00, 1, 2, 3, 4, 5]] as [[UInt8]])
    func shortPayloadsAreNoMatch(_ payload: [UInt8]) throws {
        var resolver = try IdentityResolver(rules: [seedRule])
        let address = try BluetoothAddress("4A:11:22:33:44:55", type: .random)
        let mfr = ManufacturerData(payload: payload).map { [$0] } ?? []
        #expect((ManufacturerData(payload: payload) == nil) == (payload.count < 2))
        #expect(resolver.resolve(Observation(address: address, manufacturerData: mfr), now: .zero).identity == .address(address))
    }

    @Test func expectedPatternSelectsTheProductLine() throws {
        let rule = IdentityRule.manufacturerData(try ManufacturerDataRule(
            companyID: 0x004C, byteRange: 4..<8, expected: BytePattern(offset: 2, hex: "0215")))
        var resolver = try IdentityResolver(rules: [rule])
        let beacon = ManufacturerData(companyID: 0x004C, value: [0x02, 0x15, 9, 8, 7, 6])
        let other = ManufacturerData(companyID: 0x004C, value: [0x10, 0x05, 9, 8, 7, 6])
        let a = try BluetoothAddress("4A:11:22:33:44:55", type: .random)
        #expect(resolver.resolve(Observation(address: a, manufacturerData: [beacon]), now: .zero).identity == .manufacturer(companyID: 0x004C, key: [9, 8, 7, 6]))
        let b = try BluetoothAddress("4A:11:22:33:44:56", type: .random)
        #expect(resolver.resolve(Observation(address: b, manufacturerData: [other]), now: .zero).identity == .address(b))
    }

    @Test func maskIgnoresTheBitsItClears() throws {
        let rule = IdentityRule.manufacturerData(try ManufacturerDataRule(
            companyID: 0x0059, byteRange: 3..<5, expected: BytePattern(offset: 2, hex: "a0", maskHex: "f0")))
        var resolver = try IdentityResolver(rules: [rule])
        let a = try BluetoothAddress("4A:11:22:33:44:55", type: .random)
        #expect(resolver.ruleMatching(Observation(address: a, manufacturerData: [ManufacturerData(companyID: 0x59, value: [0xA7, 1, 2])]), now: .zero) == rule)
        let b = try BluetoothAddress("4A:11:22:33:44:57", type: .random)
        #expect(resolver.resolve(Observation(address: b, manufacturerData: [ManufacturerData(companyID: 0x59, value: [0xB7, 1, 2])]), now: .zero).matchedRule == nil)
    }

    @Test func serviceDataMatchesWhicheverUUIDSpellingBlueZUses() throws {
        let rule = IdentityRule.serviceData(try ServiceDataRule(uuid: "180D", byteRange: 1..<3))
        var resolver = try IdentityResolver(rules: [rule])
        let o = try Observation(bluezAddress: "4A:11:22:33:44:55", addressType: "random",
                                serviceData: ["0000180d-0000-1000-8000-00805f9b34fb": [0xFF, 0xAB, 0xCD]])
        let r = resolver.resolve(o, now: .zero)
        #expect(r.identity.stableID == "svc-180d-abcd")
        #expect(r.matchedRule.flatMap(resolver.rule(for:)) == rule)
        let short = try Observation(bluezAddress: "4A:11:22:33:44:56", addressType: "random", serviceData: ["180d": [0xFF]])
        #expect(resolver.resolve(short, now: .zero).matchedRule == nil)
    }

    @Test func payloadRulesComeBeforeIRKs() throws {
        var resolver = try IdentityResolver(rules: [.resolvingKeys([specKey]), seedRule])
        let rpa = try specKey.resolvablePrivateAddress(prand: 0x708194)
        let mfr = ManufacturerData(payload: [0x59, 0x00, 1, 2, 3, 4, 5, 6])!
        #expect(resolver.ruleMatching(Observation(address: rpa, manufacturerData: [mfr]), now: .zero) == seedRule)
    }

    @Test func identityAddressRuleNamesPublicAndStaticAddresses() throws {
        var resolver = try IdentityResolver(rules: [.identityAddress])
        let pub = try BluetoothAddress("00:1B:DC:01:02:03", type: .public)
        let stat = try BluetoothAddress("C4:01:02:03:04:05", type: .random)
        let nrpa = try BluetoothAddress("04:01:02:03:04:05", type: .random)
        #expect(resolver.ruleMatching(Observation(address: pub), now: .zero) == .identityAddress)
        #expect(resolver.ruleMatching(Observation(address: stat), now: .zero) == .identityAddress)
        #expect(resolver.resolve(Observation(address: nrpa), now: .zero).matchedRule == nil)
    }

    @Test func addressCacheKeepsTheIdentityWhenAnAdvertLacksThePayload() throws {
        var resolver = try IdentityResolver(rules: [seedRule], cachePolicy: .init(addressLifetime: .seconds(60)))
        let a = try BluetoothAddress("4A:11:22:33:44:55", type: .random)
        let mfr = ManufacturerData(payload: [0x59, 0x00, 1, 2, 3, 4, 5, 6])!
        let first = resolver.resolve(Observation(address: a, manufacturerData: [mfr]), now: .zero)
        let bare = resolver.resolve(Observation(address: a), now: .seconds(59))
        #expect(bare.identity == first.identity)
        #expect(bare.matchedRule.flatMap(resolver.rule(for:)) == seedRule)
        #expect(!bare.isNewAddress)
        // Each sighting extends the lifetime; after a silent minute the address is forgotten.
        #expect(resolver.resolve(Observation(address: a), now: .seconds(118)).identity == first.identity)
        #expect(resolver.resolve(Observation(address: a), now: .seconds(180)).identity == .address(a))
    }

    @Test func aResolvedRPAIsScannedOnceAndAStrangerOnce() throws {
        var rng = SplitMix64(seed: 3)
        let keys = try (0..<50).map { try IdentityResolvingKey(key: rng.bytes(16), label: "k\($0)") } + [specKey]
        var resolver = try IdentityResolver(rules: [.resolvingKeys(keys)])
        let rpa = try specKey.resolvablePrivateAddress(prand: 0x708194)
        let stranger = try BluetoothAddress("70:81:94:0D:FB:AB", type: .random)
        for t in 0..<10 {
            #expect(resolver.resolve(Observation(address: rpa), now: .seconds(t)).identity == .resolvingKey(label: "spec"))
            #expect(resolver.resolve(Observation(address: stranger), now: .seconds(t)).identity == .address(stranger))
        }
        #expect(resolver.statistics.keyScans == 2)
        #expect(resolver.statistics.cacheHits == 18)
    }

    @Test func negativeCacheLapses() throws {
        var resolver = try IdentityResolver(rules: [.resolvingKeys([specKey])], cachePolicy: .init(negativeLifetime: .seconds(10)))
        let stranger = try BluetoothAddress("70:81:94:0D:FB:AB", type: .random)
        #expect(resolver.resolve(Observation(address: stranger), now: .zero).isNewAddress)
        #expect(!resolver.resolve(Observation(address: stranger), now: .seconds(9)).isNewAddress)
        #expect(resolver.statistics.keyScans == 1)
        #expect(resolver.resolve(Observation(address: stranger), now: .seconds(20)).isNewAddress)
        #expect(resolver.statistics.keyScans == 2)
    }

    @Test func changingRulesInvalidatesBothCaches() throws {
        var resolver = try IdentityResolver(rules: [.resolvingKeys([try IdentityResolvingKey(key: Array(repeating: 1, count: 16), label: "other")])])
        let rpa = try specKey.resolvablePrivateAddress(prand: 0x708194)
        #expect(resolver.resolve(Observation(address: rpa), now: .zero).identity == .address(rpa))
        try resolver.replaceRules([.resolvingKeys([specKey])])
        let r = resolver.resolve(Observation(address: rpa), now: .seconds(1))
        #expect(r.identity == .resolvingKey(label: "spec"))
        #expect(r.isNewAddress)
        try resolver.replaceRules([])
        #expect(resolver.resolve(Observation(address: rpa), now: .seconds(2)).identity == .address(rpa))
    }

    @Test func aRejectedRuleChangeKeepsTheOldRules() throws {
        var resolver = try IdentityResolver(rules: [.resolvingKeys([specKey])])
        #expect(throws: IdentityError.self) { try resolver.replaceRules([.resolvingKeys([specKey, specKey])]) }
        #expect(resolver.rules == [.resolvingKeys([specKey])])
        let rpa = try specKey.resolvablePrivateAddress(prand: 0x708194)
        #expect(resolver.resolve(Observation(address: rpa), now: .zero).identity == .resolvingKey(label: "spec"))
    }

    @Test func movingToANewAddressIsReportedOnce() throws {
        var resolver = try IdentityResolver(rules: [seedRule])
        let mfr = ManufacturerData(payload: [0x59, 0x00, 1, 2, 3, 4, 5, 6])!
        let a = try BluetoothAddress("4A:11:22:33:44:55", type: .random)
        let b = try BluetoothAddress("5B:11:22:33:44:55", type: .random)
        #expect(resolver.resolve(Observation(address: a, manufacturerData: [mfr]), now: .zero).isNewAddress)
        #expect(!resolver.resolve(Observation(address: a, manufacturerData: [mfr]), now: .seconds(1)).isNewAddress)
        #expect(resolver.resolve(Observation(address: b, manufacturerData: [mfr]), now: .seconds(2)).isNewAddress)
        #expect(!resolver.resolve(Observation(address: b, manufacturerData: [mfr]), now: .seconds(3)).isNewAddress)
    }

    @Test func strangersCannotEvictTheFleet() throws {
        var resolver = try IdentityResolver(rules: [.resolvingKeys([specKey])], cachePolicy: .init(capacity: 64))
        let rpa = try specKey.resolvablePrivateAddress(prand: 0x708194)
        _ = resolver.resolve(Observation(address: rpa), now: .zero)
        var rng = SplitMix64(seed: 9)
        for _ in 0..<1000 {
            let stranger = BluetoothAddress(0x4000_0000_0000 | UInt64.random(in: 0...0x3FFF_FFFF_FFFF, using: &rng), type: .random)
            _ = resolver.resolve(Observation(address: stranger), now: .seconds(1))
        }
        let scans = resolver.statistics.keyScans
        #expect(!resolver.resolve(Observation(address: rpa), now: .seconds(2)).isNewAddress)
        #expect(resolver.statistics.keyScans == scans)
    }
}
