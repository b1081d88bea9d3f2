import FleetBroker
import FleetTestKit
import Foundation
import GATTProfiles
import Testing

@Suite struct PayloadTests {
    static let schemaPath = BuildProducts.repositoryRoot + "/docs/mqtt-reading.schema.json"

    static func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: schemaPath))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func object(_ payload: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    let reading = BrokerReading(cursor: 1042, device: "mfr-0059-0a1b2c", characteristic: "00002a37-0000-1000-8000-00805f9b34fb",
                                sequence: 42, epoch: 4711, kind: .indication, monotonicNanoseconds: 5_123_456_789,
                                wallTime: Date(timeIntervalSince1970: 1_740_830_400.1237), session: 3, value: [0x06, 0x48, 0xff])

    @Test func readingPayloadCarriesEveryDocumentedMember() throws {
        let text = String(decoding: reading.jsonPayload, as: UTF8.self)
        #expect(text == #"{"device":"mfr-0059-0a1b2c","characteristic":"00002a37-0000-1000-8000-00805f9b34fb","seq":42,"epoch":4711,"cursor":1042,"kind":"indication","monotonicNs":5123456789,"wallTime":"2025-03-01T12:00:00.123Z","session":3,"value":"0648ff"}"#)
        var withoutClock = reading
        withoutClock.monotonicNanoseconds = nil
        withoutClock.value = []
        let object = try Self.object(withoutClock.jsonPayload)
        #expect(object["monotonicNs"] == nil)
        #expect(object["value"] as? String == "")
    }

    @Test func stringsAreEscaped() throws {
        var odd = reading
        odd.device = "bed \"12\" \\ south"
        odd.characteristic = "é✓"
        let object = try Self.object(odd.jsonPayload)
        #expect(object["device"] as? String == "bed \"12\" \\ south")
        #expect(object["characteristic"] as? String == "é✓")
    }

    @Test func wallTimeIsRFC3339UTCWithMilliseconds() throws {
        for (seconds, expected) in [(0.0, "1970-01-01T00:00:00.000Z"), (951_782_400.999_9, "2000-02-29T00:00:00.999Z"),
                                    (4_102_444_799.5, "2099-12-31T23:59:59.500Z")] {
            var dated = reading
            dated.wallTime = Date(timeIntervalSince1970: seconds)
            #expect(try Self.object(dated.jsonPayload)["wallTime"] as? String == expected)
        }
    }

    /// The schema and the encoder agree: the required members are present, no member is undocumented, and each
    /// string matches the schema's own pattern.
    @Test(arguments: BrokerReading.Kind.allCases)
    func payloadsConformToTheSchemaFile(kind: BrokerReading.Kind) throws {
        let schema = try Self.schema()
        let properties = try #require(schema["properties"] as? [String: [String: Any]])
        let required = try #require(schema["required"] as? [String])
        var sample = reading
        sample.kind = kind
        for variant in [sample, { var r = sample; r.monotonicNanoseconds = nil; return r }()] {
            let object = try Self.object(variant.jsonPayload)
            #expect(Set(required).isSubset(of: object.keys))
            #expect(Set(object.keys).isSubset(of: properties.keys), "undocumented members: \(Set(object.keys).subtracting(properties.keys))")
            for (key, value) in object {
                let property = try #require(properties[key])
                if let pattern = property["pattern"] as? String, let text = value as? String {
                    let regex = try NSRegularExpression(pattern: pattern)
                    #expect(regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil, "\(key)=\(text) !~ \(pattern)")
                }
                if let choices = property["enum"] as? [String] { #expect(choices.contains(value as? String ?? "")) }
                if property["type"] as? String == "integer" { #expect(value is NSNumber) }
            }
        }
        let kinds = try #require(properties["kind"]?["enum"] as? [String])
        #expect(Set(kinds) == Set(BrokerReading.Kind.allCases.map(\.rawValue)))
    }

    @Test func deviceStateAndStatusPayloads() throws {
        let state = RetainedDeviceState(device: "dev-1", state: "connected", wallTime: Date(timeIntervalSince1970: 0))
        #expect(String(decoding: state.jsonPayload, as: UTF8.self) == #"{"device":"dev-1","state":"connected","wallTime":"1970-01-01T00:00:00.000Z"}"#)
        let definitions = try #require(try Self.schema()["$defs"] as? [String: [String: Any]])
        #expect(Set(try #require(definitions["deviceState"]?["required"] as? [String])) == Set(try Self.object(state.jsonPayload).keys))
        #expect(try #require(definitions["gatewayStatus"]?["enum"] as? [String]) == ["online", "offline"])
        #expect(GatewayStatus.offline.payload == Array("offline".utf8))
    }

    /// A decoded reading's `observations` (or `decodeError`) follow the hex, and every member they carry is in the
    /// schema's definitions.
    @Test func decodedReadingsCarryDocumentedObservationsOrTheirError() throws {
        let definitions = try #require(try Self.schema()["$defs"] as? [String: [String: Any]])
        func documented(_ object: [String: Any], _ definition: String) throws {
            let properties = try #require(definitions[definition]?["properties"] as? [String: Any])
            let required = try #require(definitions[definition]?["required"] as? [String])
            #expect(Set(required).isSubset(of: object.keys), "\(definition) lacks \(Set(required).subtracting(object.keys))")
            #expect(Set(object.keys).isSubset(of: properties.keys), "\(definition) undocumented: \(Set(object.keys).subtracting(properties.keys))")
        }
        var decoder = ObservationDecoder()
        // Heart Rate Measurement (HRS v1.0 §3.1.1): flags 0x06 = contact supported and detected, uint8 rate 0x48 = 72 bpm.
        var good = reading
        good.value = [0x06, 0x48]
        good.decoded = decoder.decode(device: good.device, characteristic: good.characteristic, value: good.value)
        let object = try Self.object(good.jsonPayload)
        #expect(object["value"] as? String == "0648")
        let observation = try #require(object["observation"] as? [String: Any])
        #expect(object["observations"] == nil, "one record: no observations array")
        try documented(observation, "observation")
        let quantity = try #require((observation["quantities"] as? [[String: Any]])?.first)
        try documented(quantity, "quantity")
        #expect(quantity["value"] as? Int == 72 && quantity["metric"] as? String == "heart-rate" && quantity["mdc"] as? Int == 147_842)
        #expect(String(decoding: good.jsonPayload, as: UTF8.self).hasPrefix(String(decoding: reading.jsonPayload.dropLast(), as: UTF8.self)
            .replacingOccurrences(of: "0648ff", with: "0648")), "the flat members come first, unchanged")
        // Flags 0x01 announce a uint16 rate at offset 1, but one byte follows: too short, and the raw value still goes.
        var bad = reading
        bad.value = [0x01, 0x48]
        bad.decoded = decoder.decode(device: bad.device, characteristic: bad.characteristic, value: bad.value)
        let failed = try Self.object(bad.jsonPayload)
        #expect(failed["value"] as? String == "0148" && failed["observation"] == nil)
        let error = try #require(failed["decodeError"] as? [String: Any])
        try documented(error, "decodeError")
        #expect(error["problem"] as? String == "too-short" && error["offset"] as? Int == 1)
    }

    /// The hand-written observations decode, with GATTProfiles' own Codable form, into exactly what was published:
    /// specials, reserved patterns, a missing device time and exact decimals included, and an error likewise.
    @Test func publishedObservationsDecodeBackExactly() throws {
        let observations = [
            Observation(profile: .glucose, characteristic: AssignedNumber(0x2A18),
                        quantities: [Quantity(.glucoseCapillaryWholeBlood, DecimalNumber(mantissa: 54, exponent: -1), .millimolesPerLitre),
                                     Quantity(.heartRate, .notAtThisResolution, .beatsPerMinute),
                                     Quantity(.heartRate, .reserved(raw: 0x0801), .beatsPerMinute),
                                     Quantity(.rrInterval, DecimalNumber(numerator: 850, powerOfTwo: 10), .seconds)],
                        deviceTime: DeviceTime(year: 2026, month: 12, day: 6, hours: 8, minutes: 12, seconds: 0), record: 42,
                        flags: ["sensor-temperature-too-high"], details: [ObservationDetail("sample-type", "capillary \"whole\" blood")],
                        summary: "5.4 mmol/L, record 42"),
            Observation(profile: .battery, characteristic: AssignedNumber(0x2A19), summary: "97 %"),
        ]
        var reading = self.reading
        reading.decoded = .observations(observations)
        let text = String(decoding: reading.jsonPayload, as: UTF8.self)
        #expect(text.contains(#""value":5.4,"#) && text.contains(#""value":0.830078125,"#), "exact decimal text: \(text)")
        let object = try Self.object(reading.jsonPayload)
        let nested = try JSONSerialization.data(withJSONObject: try #require(object["observations"]))
        #expect(try JSONDecoder().decode([Observation].self, from: nested) == observations, "several records: all of them")
        let first = try JSONSerialization.data(withJSONObject: try #require(object["observation"]))
        #expect(try JSONDecoder().decode(Observation.self, from: first) == observations[0])

        let failure = ProfileDecodeError(characteristic: AssignedNumber(0x2AA7), field: "e2e-crc", offset: 13,
                                         problem: .crcMismatch(sent: 0x1234, computed: 0xABCD))
        reading.decoded = .failure(failure)
        let failed = try Self.object(reading.jsonPayload)
        let error = try JSONSerialization.data(withJSONObject: try #require(failed["decodeError"]))
        #expect(try JSONDecoder().decode(ProfileDecodeError.self, from: error) == failure)
    }
}
