import Foundation
import Testing
import Identity

@Suite struct IdentityRuleConfigTests {
    @Test func fifteenByteIRKIsATypedErrorNamingTheProblem() {
        do {
            _ = try IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d", label: "watch")
            Issue.record("a 15-byte IRK was accepted")
        } catch {
            #expect(error.code == .invalidResolvingKey)
            #expect(error.message.contains("15 bytes"))
            #expect(error.message.contains("watch"))
        }
    }

    @Test(arguments: ["", "zz0234a357c8ad05341010a60a397d9b", "ec0234a357c8ad05341010a60a397d9", "ec0234a357c8ad05341010a60a397d9b00"])
    func malformedIRKHexIsRejected(_ hex: String) {
        #expect(throws: IdentityError.self) { try IdentityResolvingKey(hex: hex, label: "x") }
    }

    @Test func irkAcceptsCommonSeparators() throws {
        let k = try IdentityResolvingKey(hex: "EC:02:34:A3:57:C8:AD:05:34:10:10:A6:0A:39:7D:9B", label: "a")
        #expect(k == (try IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b", label: "a")))
    }

    @Test(arguments: ["", "has space", "slash/label", String(repeating: "a", count: 65), "ümlaut"])
    func badLabelsAreRejected(_ label: String) {
        #expect(throws: IdentityError.self) { try IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b", label: label) }
    }

    @Test func duplicateLabelsAcrossRulesAreRejected() throws {
        let a = try IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b", label: "pump")
        let b = try IdentityResolvingKey(hex: "00000000000000000000000000000001", label: "pump")
        #expect(throws: IdentityError.self) { try IdentityResolver(rules: [.resolvingKeys([a]), .resolvingKeys([b])]) }
    }

    @Test(arguments: [(-1, 4), (3, 3), (0, 255), (200, 300), (0, 17)])
    func badByteRangesAreRejected(_ bounds: (Int, Int)) {
        #expect(throws: IdentityError.self) { try ManufacturerDataRule(companyID: 0x59, byteRange: bounds.0..<bounds.1) }
        #expect(throws: IdentityError.self) { try ServiceDataRule(uuid: "180d", byteRange: bounds.0..<bounds.1) }
    }

    @Test func patternsMustBeConsistent() {
        #expect(throws: IdentityError.self) { try BytePattern(offset: 2, hex: "0215", maskHex: "ff") }
        #expect(throws: IdentityError.self) { try BytePattern(offset: 2, hex: "") }
        #expect(throws: IdentityError.self) { try BytePattern(offset: -1, hex: "02") }
        #expect(throws: IdentityError.self) { try BytePattern(offset: 254, hex: "02") }
        #expect(throws: IdentityError.self) { try BytePattern(offset: 0, hex: "0g") }
    }

    @Test func rulesRoundTripThroughJSONAndDecodingValidates() throws {
        let rules: [IdentityRule] = [
            .manufacturerData(try ManufacturerDataRule(companyID: 0x0059, byteRange: 2..<8, expected: BytePattern(offset: 2, hex: "01", maskHex: "0f"))),
            .serviceData(try ServiceDataRule(uuid: "180d", byteRange: 0..<4)),
            .resolvingKeys([try IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b", label: "spec")]),
            .identityAddress,
        ]
        let data = try JSONEncoder().encode(rules)
        #expect(try JSONDecoder().decode([IdentityRule].self, from: data) == rules)

        // The stored shape is flat, as snapshots written by earlier builds have it.
        let stored = #"{"companyID":89,"start":2,"end":8}"#
        #expect(try JSONDecoder().decode(ManufacturerDataRule.self, from: Data(stored.utf8)) == ManufacturerDataRule(companyID: 0x59, byteRange: 2..<8))
        let service = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ServiceDataRule(uuid: "180d", byteRange: 0..<4))) as? [String: Any]
        #expect(Set(service?.keys ?? [:].keys) == ["uuid", "start", "end"])

        let bad = #"{"companyID":89,"start":5,"end":2}"#
        #expect(throws: IdentityError.self) { try JSONDecoder().decode(ManufacturerDataRule.self, from: Data(bad.utf8)) }
        let short = #"{"label":"x","key":"ec0234a357c8ad05341010a60a397d"}"#
        #expect(throws: IdentityError.self) { try JSONDecoder().decode(IdentityResolvingKey.self, from: Data(short.utf8)) }
    }

    @Test func stableIDsRoundTrip() throws {
        let ids: [FleetIdentity] = [
            .manufacturer(companyID: 0x0059, key: [0x0A, 0x1B, 0x2C, 0x3D, 0x4E, 0x5F]),
            .service(uuid: try ServiceUUID("180d"), key: [1, 2, 3, 4]),
            .service(uuid: try ServiceUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e"), key: [9]),
            .resolvingKey(label: "ward-3.pump-7"),
            .address(try BluetoothAddress("AA:BB:CC:DD:EE:FF", type: .public)),
        ]
        #expect(ids.map(\.stableID) == [
            "mfr-0059-0a1b2c3d4e5f", "svc-180d-01020304", "svc-6e400001b5a3f393e0a9e50e24dcca9e-09", "irk-ward-3.pump-7",
            "addr-AABBCCDDEEFF",
        ])
        for id in ids { #expect(try FleetIdentity(stableID: id.stableID) == id) }
    }

    @Test func identityKeysHoldAtMostSixteenBytes() throws {
        #expect(IdentityKey(Array(repeating: UInt8(7), count: 16))?.count == 16)
        #expect(IdentityKey(Array(repeating: UInt8(7), count: 17)) == nil)
        #expect(throws: IdentityError.self) { try FleetIdentity(stableID: "mfr-0059-" + String(repeating: "ab", count: 17)) }
        let longest = FleetIdentity.manufacturer(companyID: 1, key: IdentityKey(Array(repeating: UInt8(0xAB), count: 16))!)
        #expect(try FleetIdentity(stableID: longest.stableID) == longest)
    }

    @Test(arguments: ["", "mfr", "mfr-0059", "mfr-59-01", "mfr-0x59-01", "mfr-0059-", "mfr-0059-0g", "svc-18-01", "irk-", "irk-a b",
                      "addr-AABBCCDDEE", "addr-0xAABBCCDDEE", "addr-AA:BBCCDDEE", "dev-01"])
    func malformedStableIDsAreTypedErrors(_ id: String) {
        #expect(throws: IdentityError.self) { try FleetIdentity(stableID: id) }
    }
}
