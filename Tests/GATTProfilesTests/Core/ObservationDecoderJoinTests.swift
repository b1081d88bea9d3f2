import GATTProfiles
import TestScheduling
import Testing

/// Records the spec splits over two characteristics, put back together by a consumer's decoder, in stream order.
@Suite(.offCooperativePool) struct ObservationDecoderJoinTests {
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    // Glucose Measurement (GLS §3.106 of GSS): flags 0x16 = type/location present, mol/L, context follows; sequence 42;
    // 2026-12-06 08:12:00; SFLOAT 0xC036 = 54 × 10⁻⁴ mol/L = 5.4 mmol/L; 0x11 capillary whole blood, finger.
    var measurement: [UInt8] { [0x16] + le16(42) + le16(2026) + [12, 6, 8, 12, 0] + [0x36, 0xC0, 0x11] }
    // Context: flags 0x03 = carbohydrate and meal present; sequence; carbohydrate id 1 (breakfast), SFLOAT 0xD032 =
    // 50 × 10⁻³ kg = 50 g; meal 1 (preprandial).
    func context(_ sequence: UInt16) -> [UInt8] { [0x03] + le16(sequence) + [0x01, 0x32, 0xD0, 0x01] }

    @Test func aContextCarriesItsMeasurement() throws {
        var decoder = ObservationDecoder()
        _ = decoder.decode(device: "meter", characteristic: "2a18", value: measurement)
        let joined = try #require(decoder.decode(device: "meter", characteristic: "2a34", value: context(42))?.observations.first)
        #expect(joined.characteristic == AssignedNumber(0x2A34) && joined.record == 42)
        #expect(joined.quantities.map(\.metric.name) == ["glucose-concentration", "carbohydrate"])
        #expect(joined.summary.hasPrefix("5.4 mmol/L capillary whole blood, record 42"), "\(joined.summary)")
        // Another record's context, or another device's, stays alone.
        let other = try #require(decoder.decode(device: "meter", characteristic: "2a34", value: context(43))?.observations.first)
        #expect(other.quantities.map(\.metric.name) == ["carbohydrate"])
        let stranger = try #require(decoder.decode(device: "other", characteristic: "2a34", value: context(42))?.observations.first)
        #expect(stranger.quantities.map(\.metric.name) == ["carbohydrate"])
    }

    // Weight Measurement (WSS §3.2): flags 0x0C = user id and BMI/height present, SI; 0x3886 = 14470 × 0.005 kg =
    // 72.35 kg; user 3; BMI 0x00EA = 234 × 0.1 = 23.4; height 0x06DC = 1756 × 0.001 m = 1.756 m.
    let weight: [UInt8] = [0x0C, 0x86, 0x38, 0x03, 0xEA, 0x00, 0xDC, 0x06]
    // Body Composition (BCS §3.2): flags 0x0004 = user id present; body fat 0x00D5 = 213 × 0.1 = 21.3 %; user 3.
    let composition: [UInt8] = [0x04, 0x00, 0xD5, 0x00, 0x03]

    @Test func aCompositionGainsTheWeightSentJustBeforeIt() throws {
        var decoder = ObservationDecoder()
        _ = decoder.decode(device: "scale", characteristic: "2a9d", value: weight)
        let merged = try #require(decoder.decode(device: "scale", characteristic: "2a9c", value: composition)?.observations.first)
        #expect(merged.quantity("body-weight")?.value == .number(DecimalNumber(mantissa: 7235, exponent: -2)))
        #expect(merged.quantity("body-fat-percentage")?.value == .number(DecimalNumber(mantissa: 213, exponent: -1)))
        // A value of the device in between (its battery) means the weight is not this composition's.
        _ = decoder.decode(device: "scale", characteristic: "2a9d", value: weight)
        _ = decoder.decode(device: "scale", characteristic: "2a19", value: [0x50])
        let alone = try #require(decoder.decode(device: "scale", characteristic: "2a9c", value: composition)?.observations.first)
        #expect(alone.quantity("body-weight") == nil)
    }
}
