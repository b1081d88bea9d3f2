import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct CSCMeasurementTests {
    let decode: CharacteristicDecoder.Decode = CSCMeasurement.decode
    static let characteristic = AssignedNumber(0x2A5B)

    /// A CSC Measurement value (CSCS v1.0 §3.1): flags, then wheel data (uint32 revolutions, uint16 1/1024 s event time)
    /// when given, then crank data (uint16 revolutions, uint16 1/1024 s event time) when given. The flag bits follow
    /// from the data unless `flags` says otherwise (extra reserved bits OR'd in).
    static func value(wheel: (UInt32, UInt16)? = nil, crank: (UInt16, UInt16)? = nil, reserved: UInt8 = 0) -> [UInt8] {
        var flags = reserved
        if wheel != nil { flags |= 0x01 }
        if crank != nil { flags |= 0x02 }
        var bytes = [flags]
        if let wheel { bytes += fitLE32(wheel.0) + fitLE16(wheel.1) }
        if let crank { bytes += fitLE16(crank.0) + fitLE16(crank.1) }
        return bytes
    }

    /// Every combination of the two defined flag bits (bit 0 wheel data, bit 1 crank data), each with the reserved
    /// bits 2-7 clear and set (CSCS v1.0 §3.1: reserved, the layout does not change), each with a previous value of
    /// every combination too.
    @Test func everyFlagCombination() throws {
        // Current: wheel 0x12345678 = 305419896 rev at 0x0C00 = 3072/1024 = 3 s; crank 0x0102 = 258 rev at
        // 0x0800 = 2048/1024 = 2 s.
        let wheelNow: (UInt32, UInt16) = (0x1234_5678, 0x0C00)
        let crankNow: (UInt16, UInt16) = (0x0102, 0x0800)
        // Previous: wheel 0x12345674 at 0x0800 → Δrev 4, Δt 1024 ticks = 1 s: 4 × 2105 mm = 8.42 m/s = 30.312 km/h →
        // 30.31 km/h; crank 0x0100 at 0x02AB = 683 → Δrev 2, Δt 2048 − 683 = 1365 ticks: 2 × 600 × 1024 / 1365 =
        // 900.2 tenths → 90 rpm.
        let wheelBefore: (UInt32, UInt16) = (0x1234_5674, 0x0800)
        let crankBefore: (UInt16, UInt16) = (0x0100, 0x02AB)
        for defined in UInt8(0)..<4 {
            for reserved in [UInt8(0x00), 0xFC] {
                let hasWheel = defined & 0x01 != 0, hasCrank = defined & 0x02 != 0
                let bytes = Self.value(wheel: hasWheel ? wheelNow : nil, crank: hasCrank ? crankNow : nil, reserved: reserved)
                #expect(bytes[0] == defined | reserved)
                var layout = [FitField("flags", 0, 1)]
                if hasWheel { layout += [FitField("cumulative-wheel-revolutions", 1, 4), FitField("last-wheel-event-time", 5, 2)] }
                if hasCrank {
                    let at = hasWheel ? 7 : 1
                    layout += [FitField("cumulative-crank-revolutions", at, 2), FitField("last-crank-event-time", at + 2, 2)]
                }
                fitExpectTooShortAtEveryField(decode, bytes, layout, characteristic: Self.characteristic)

                // First value: no previous, so counts and event times only, no speed or cadence.
                let first = try #require(fitDecode(decode, bytes))
                #expect(first.profile == .cyclingSpeedCadence && first.characteristic == Self.characteristic)
                var names: [String] = []
                if hasWheel { names += ["wheel-revolutions", "last-wheel-event-time"] }
                if hasCrank { names += ["crank-revolutions", "last-crank-event-time"] }
                #expect(first.quantities.map(\.metric.name) == names)
                if hasWheel {
                    #expect(first.quantity("wheel-revolutions")?.value == .number(fitDec(305_419_896)))
                    #expect(first.quantity("wheel-revolutions")?.unit == .revolutions)
                    #expect(first.quantity("last-wheel-event-time")?.value == .number(fitDec(3)))   // 3072/1024 s
                    #expect(first.quantity("last-wheel-event-time")?.unit == .seconds)
                }
                if hasCrank {
                    #expect(first.quantity("crank-revolutions")?.value == .number(fitDec(258)))
                    #expect(first.quantity("last-crank-event-time")?.value == .number(fitDec(2)))   // 2048/1024 s
                }
                let counts = (hasWheel ? ["wheel 305419896 rev"] : []) + (hasCrank ? ["crank 258 rev"] : [])
                #expect(first.summary == (counts.isEmpty ? "no revolution data" : counts.joined(separator: ", ")))
                #expect(first.flags.isEmpty && first.deviceTime == nil)

                // With a previous value of each combination: speed iff both carry wheel data, cadence iff both crank.
                for previousDefined in UInt8(0)..<4 {
                    let prevWheel = previousDefined & 0x01 != 0, prevCrank = previousDefined & 0x02 != 0
                    let previous = Self.value(wheel: prevWheel ? wheelBefore : nil, crank: prevCrank ? crankBefore : nil)
                    let o = try #require(fitDecode(decode, bytes, DecodingContext(previous: previous)))
                    let speed = o.quantity("speed"), cadence = o.quantity("cadence")
                    #expect((speed != nil) == (hasWheel && prevWheel))
                    #expect((cadence != nil) == (hasCrank && prevCrank))
                    if let speed {
                        #expect(speed.value == .number(fitDec(3031, -2)) && speed.unit == .kilometresPerHour)
                        #expect(speed.metric.mdc == 8_454_254)
                    }
                    if let cadence {
                        #expect(cadence.value == .number(fitDec(90)) && cadence.unit == .revolutionsPerMinute)
                    }
                    var derived: [String] = []
                    if speed != nil { derived.append("30.31 km/h") }
                    if cadence != nil { derived.append("cadence 90 rpm") }
                    let countText = counts.isEmpty ? "no revolution data" : counts.joined(separator: ", ")
                    #expect(o.summary == (derived.isEmpty ? countText : derived.joined(separator: ", ") + " (" + countText + ")"))
                }
            }
        }
    }

    @Test func handVectorSpeedAndCadence() throws {
        // Previous: flags 0x03 wheel+crank; wheel 0x00000064 = 100 rev at 0x0400 = 1024 (1 s); crank 0x000A = 10 rev
        // at 0x0400 (1 s).
        let previous: [UInt8] = [0x03, 0x64, 0x00, 0x00, 0x00, 0x00, 0x04, 0x0A, 0x00, 0x00, 0x04]
        // Current: wheel 0x68 = 104 rev at 0x0800 = 2048 (2 s); crank 0x0C = 12 rev at 0x0955 = 2389.
        let bytes: [UInt8] = [0x03, 0x68, 0x00, 0x00, 0x00, 0x00, 0x08, 0x0C, 0x00, 0x55, 0x09]
        let o = try #require(fitDecode(decode, bytes, DecodingContext(previous: previous)))
        // Speed: Δrev 4 in Δt 1024/1024 s; 4 × 2.105 m = 8.42 m/s × 3.6 = 30.312 km/h → 30.31.
        #expect(o.quantity("speed")?.value == .number(fitDec(3031, -2)))
        // Cadence: Δrev 2 in Δt 2389 − 1024 = 1365/1024 s = 1.333 s → 2 × 60 × 1024 / 1365 = 90.02 → 90.0 rpm.
        #expect(o.quantity("cadence")?.value == .number(fitDec(900, -1)))
        // Crank event time 2389/1024 s = 2.3330078125 s exactly.
        #expect(o.quantity("last-crank-event-time")?.value == .number(fitDec(23_330_078_125, -10)))
        #expect(o.quantities.map(\.metric.name)
                == ["wheel-revolutions", "last-wheel-event-time", "speed", "crank-revolutions", "last-crank-event-time", "cadence"])
        #expect(o.summary == "30.31 km/h, cadence 90 rpm (wheel 104 rev, crank 12 rev)")
    }

    @Test func wheelRevolutionsAndEventTimeWrapAround() throws {
        // Previous wheel 0xFFFFFFFE rev at 0xFF00 = 65280; current 0x00000002 at 0x0300 = 768.
        // Δrev = 2 + 2^32 − 0xFFFFFFFE = 4; Δt = 768 + 65536 − 65280 = 1024 ticks = 1 s → 30.31 km/h as above.
        let previous = Self.value(wheel: (0xFFFF_FFFE, 0xFF00))
        let bytes = Self.value(wheel: (0x0000_0002, 0x0300))
        let o = try #require(fitDecode(decode, bytes, DecodingContext(previous: previous)))
        #expect(o.quantity("speed")?.value == .number(fitDec(3031, -2)))
        #expect(o.summary == "30.31 km/h (wheel 2 rev)")
        // Only the event time wraps: 1000 → 1004 rev, 0xFE00 = 65024 → 0x0200 = 512: Δt = 512 + 65536 − 65024 = 1024.
        let timeOnly = try #require(fitDecode(decode, Self.value(wheel: (1004, 0x0200)),
                                              DecodingContext(previous: Self.value(wheel: (1000, 0xFE00)))))
        #expect(timeOnly.quantity("speed")?.value == .number(fitDec(3031, -2)))
    }

    @Test func crankRevolutionsAndEventTimeWrapAround() throws {
        // Previous crank 0xFFFF rev at 0xFC00 = 64512; current 0x0001 at 0x0155 = 341.
        // Δrev = 1 + 65536 − 65535 = 2; Δt = 341 + 65536 − 64512 = 1365 → 2 × 600 × 1024 / 1365 = 900.2 tenths → 90 rpm.
        let o = try #require(fitDecode(decode, Self.value(crank: (0x0001, 0x0155)),
                                       DecodingContext(previous: Self.value(crank: (0xFFFF, 0xFC00)))))
        #expect(o.quantity("cadence")?.value == .number(fitDec(90)))
        #expect(o.summary == "cadence 90 rpm (crank 1 rev)")
    }

    @Test func roundingHalfUpAndCircumference() throws {
        // 1000 mm wheel, 1 rev in 1024 ticks = 1 m/s = 3.6 km/h exactly.
        let metre = DecodingContext(previous: Self.value(wheel: (0, 0)), wheelCircumferenceMillimetres: 1000)
        #expect(fitDecode(decode, Self.value(wheel: (1, 1024)), metre)?.quantity("speed")?.value == .number(fitDec(36, -1)))
        // 1 rev in 16384 ticks = 16 s: 1 m / 16 s = 0.0625 m/s = 0.225 km/h → half up to 0.23 km/h.
        #expect(fitDecode(decode, Self.value(wheel: (1, 16384)), metre)?.quantity("speed")?.value == .number(fitDec(23, -2)))
        // 1 crank rev in 16384 ticks = 16 s: 60/16 = 3.75 rpm → half up to 3.8 rpm.
        let crank = try #require(fitDecode(decode, Self.value(crank: (1, 16384)), DecodingContext(previous: Self.value(crank: (0, 0)))))
        #expect(crank.quantity("cadence")?.value == .number(fitDec(38, -1)))
        // 1 crank rev in 1000 ticks: 600 × 1024 / 1000 = 614.4 tenths → 61.4 rpm (rounds down).
        let down = try #require(fitDecode(decode, Self.value(crank: (1, 1000)), DecodingContext(previous: Self.value(crank: (0, 0)))))
        #expect(down.quantity("cadence")?.value == .number(fitDec(614, -1)))
        // The default circumference is 2105 mm: 1 rev/s = 2.105 m/s × 3.6 = 7.578 km/h → 7.58.
        let defaultWheel = try #require(fitDecode(decode, Self.value(wheel: (1, 1024)), DecodingContext(previous: Self.value(wheel: (0, 0)))))
        #expect(defaultWheel.quantity("speed")?.value == .number(fitDec(758, -2)))
    }

    @Test func noDerivedValueWithoutElapsedTime() throws {
        // Same event time as the previous value (the sensor repeats its last event when nothing turned): Δt = 0, so
        // no speed and no cadence, and no division by zero — even with revolutions that differ.
        let previous = Self.value(wheel: (100, 0x0400), crank: (10, 0x0400))
        let o = try #require(fitDecode(decode, Self.value(wheel: (104, 0x0400), crank: (12, 0x0400)), DecodingContext(previous: previous)))
        #expect(o.quantity("speed") == nil && o.quantity("cadence") == nil)
        #expect(o.summary == "wheel 104 rev, crank 12 rev")
        // Time passed but no revolution: a standing wheel, 0 km/h and 0 rpm.
        let stopped = try #require(fitDecode(decode, Self.value(wheel: (100, 0x0800), crank: (10, 0x0800)), DecodingContext(previous: previous)))
        #expect(stopped.quantity("speed")?.value == .number(fitDec(0)))
        #expect(stopped.quantity("cadence")?.value == .number(fitDec(0)))
        #expect(stopped.summary == "0 km/h, cadence 0 rpm (wheel 100 rev, crank 10 rev)")
    }

    @Test func undecodablePreviousGivesNoDerivedValue() throws {
        // A previous value cut short (flags 0x01 announce 6 bytes, 1 sent) is no basis for a difference: no speed, no error.
        let o = try #require(fitDecode(decode, Self.value(wheel: (104, 0x0800)), DecodingContext(previous: [0x01, 0x64])))
        #expect(o.quantity("speed") == nil)
        #expect(o.summary == "wheel 104 rev")
        // An empty previous value likewise.
        #expect(fitDecode(decode, Self.value(wheel: (104, 0x0800)), DecodingContext(previous: []))?.quantity("speed") == nil)
    }

    @Test func zeroCircumferenceGivesNoSpeed() throws {
        // A circumference of 0 mm (unset) gives no speed rather than 0 km/h.
        let o = try #require(fitDecode(decode, Self.value(wheel: (104, 0x0800)),
                                       DecodingContext(previous: Self.value(wheel: (100, 0x0400)), wheelCircumferenceMillimetres: 0)))
        #expect(o.quantity("speed") == nil)
    }

    @Test func errors() {
        let c = Self.characteristic
        #expect(fitError(decode, []) == ProfileDecodeError(characteristic: c, field: "flags", offset: 0, problem: .tooShort(needed: 1, available: 0)))
        // flags 0x01 (wheel) with 3 bytes of the 4-byte revolutions.
        #expect(fitError(decode, [0x01, 0x01, 0x02, 0x03])
                == ProfileDecodeError(characteristic: c, field: "cumulative-wheel-revolutions", offset: 1, problem: .tooShort(needed: 4, available: 3)))
        // flags 0x02 (crank) but wheel-sized value: 6 bytes after flags, crank data is 4 → 2 trailing at offset 5.
        #expect(fitError(decode, [0x02, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00])
                == ProfileDecodeError(characteristic: c, field: "end", offset: 5, problem: .trailingBytes(count: 2)))
        // flags 0x00 with data: everything after the flags is trailing.
        #expect(fitError(decode, [0x00, 0x01]) == ProfileDecodeError(characteristic: c, field: "end", offset: 1, problem: .trailingBytes(count: 1)))
    }
}
