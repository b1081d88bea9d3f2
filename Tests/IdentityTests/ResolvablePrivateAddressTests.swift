import Policy
import Testing
import Identity

/// Core spec Vol 3 Part H Appendix D.7: `ah` with k = ec0234a3 57c8ad05 341010a6 0a397d9b (MSB first) and
/// r = 708194; r' = 0…0 || r; AES-128 gives 159d5fb7 2ebe2311 a48c1bdc c40dfbaa, whose low 24 bits are 0dfbaa.
@Suite struct ResolvablePrivateAddressTests {
    let irk: IdentityResolvingKey

    init() throws {
        irk = try IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b", label: "spec")
    }

    @Test func specSampleHash() throws {
        #expect(try irk.hash(prand: 0x708194) == 0x0DFBAA)
    }

    @Test func rpaFromTheSampleResolvesWithTheKeyAndTheResolver() throws {
        let rpa = try BluetoothAddress("70:81:94:0D:FB:AA", type: .random)
        #expect(rpa.kind == .resolvablePrivate)
        #expect(try irk.resolves(rpa))
        #expect(try irk.resolvablePrivateAddress(prand: 0x708194) == rpa)

        var resolver = try IdentityResolver(rules: [.resolvingKeys([irk])])
        let r = resolver.resolve(Observation(address: rpa), now: .zero)
        #expect(r.identity == .resolvingKey(label: "spec"))
        #expect(r.identity.stableID == "irk-spec")
        #expect(r.matchedRule == RuleMatch(index: 0, kind: .resolvingKeys))
        #expect(r.matchedRule.flatMap(resolver.rule(for:)) == .resolvingKeys([irk]))
        #expect(r.isNewAddress)
    }

    @Test func wrongHashDoesNotResolve() throws {
        for wrong in ["70:81:94:0D:FB:AB", "70:81:94:8D:FB:AA", "70:81:95:0D:FB:AA"] {
            let address = try BluetoothAddress(wrong, type: .random)
            #expect(!(try irk.resolves(address)), "\(wrong)")
            var resolver = try IdentityResolver(rules: [.resolvingKeys([irk])])
            let r = resolver.resolve(Observation(address: address), now: .zero)
            #expect(r.identity == .address(address))
            #expect(r.matchedRule == nil)
        }
    }

    @Test func theRightBitsUnderAPublicTypeAreNotAnRPA() throws {
        let address = try BluetoothAddress("70:81:94:0D:FB:AA", type: .public)
        #expect(!(try irk.resolves(address)))
    }

    @Test func generatedRPAsResolveOnlyToTheirOwnKey() throws {
        var rng = SplitMix64(seed: 7)
        let keys = try (0..<20).map { try IdentityResolvingKey(key: rng.bytes(16), label: "k\($0)") }
        var resolver = try IdentityResolver(rules: [.resolvingKeys(keys)])
        for _ in 0..<200 {
            let owner = Int.random(in: 0..<keys.count, using: &rng)
            let rpa = try keys[owner].resolvablePrivateAddress(prand: UInt32.random(in: 0...0xFF_FFFF, using: &rng))
            #expect(rpa.kind == .resolvablePrivate)
            #expect(resolver.resolve(Observation(address: rpa), now: .zero).identity == .resolvingKey(label: "k\(owner)"))
        }
    }
}
