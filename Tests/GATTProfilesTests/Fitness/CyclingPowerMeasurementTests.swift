import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct CyclingPowerMeasurementTests {
    let decode: CharacteristicDecoder.Decode = CyclingPowerMeasurement.decode
    static let characteristic = AssignedNumber(0x2A63)

    /// The optional fields of CPS v1.1 "Cycling Power Measurement" in wire order: flag bit, fields (error name, size),
    /// the bytes sent, the quantities expected (metric name, value). Derivations:
    /// - bit 0 Pedal Power Balance 0x65 = 101 × 1/2 % = 50.5 %
    /// - bit 2 Accumulated Torque 0x0140 = 320 × 1/32 N·m = 10 N·m
    /// - bit 4 Wheel: revolutions 0x00010000 = 65536; Last Wheel Event Time 0x1000 = 4096 × 1/2048 s = 2 s
    /// - bit 5 Crank: revolutions 0x0102 = 258; Last Crank Event Time 0x0800 = 2048 × 1/1024 s = 2 s
    /// - bit 6 Extreme Force: maximum 0x015E = 350 N, minimum 0xFF88 = −120 N (sint16)
    /// - bit 7 Extreme Torque: maximum 0x0280 = 640/32 = 20 N·m, minimum 0xFFE0 = −32/32 = −1 N·m
    /// - bit 8 Extreme Angles uint24 0x10E05A: maximum = low 12 bits 0x05A = 90°, minimum = high 12 bits 0x10E = 270°
    /// - bit 9 Top Dead Spot 0x000A = 10°; bit 10 Bottom Dead Spot 0x00BE = 190°; bit 11 Accumulated Energy 0x0123 = 291 kJ
    static let optional: [(bit: Int, fields: [(String, Int)], bytes: [UInt8], quantities: [(String, DecimalNumber)])] = [
        (0, [("pedal-power-balance", 1)], [0x65], [("pedal-power-balance", fitDec(505, -1))]),
        (2, [("accumulated-torque", 2)], fitLE16(UInt16(0x0140)), [("accumulated-torque", fitDec(10))]),
        (4, [("cumulative-wheel-revolutions", 4), ("last-wheel-event-time", 2)], fitLE32(0x0001_0000) + fitLE16(UInt16(0x1000)),
         [("wheel-revolutions", fitDec(65536)), ("last-wheel-event-time", fitDec(2))]),
        (5, [("cumulative-crank-revolutions", 2), ("last-crank-event-time", 2)], fitLE16(UInt16(0x0102)) + fitLE16(UInt16(0x0800)),
         [("crank-revolutions", fitDec(258)), ("last-crank-event-time", fitDec(2))]),
        (6, [("maximum-force-magnitude", 2), ("minimum-force-magnitude", 2)], fitLE16(Int16(350)) + fitLE16(Int16(-120)),
         [("maximum-force-magnitude", fitDec(350)), ("minimum-force-magnitude", fitDec(-120))]),
        (7, [("maximum-torque-magnitude", 2), ("minimum-torque-magnitude", 2)], fitLE16(Int16(640)) + fitLE16(Int16(-32)),
         [("maximum-torque-magnitude", fitDec(20)), ("minimum-torque-magnitude", fitDec(-1))]),
        (8, [("extreme-angles", 3)], fitLE24(0x10E05A), [("maximum-angle", fitDec(90)), ("minimum-angle", fitDec(270))]),
        (9, [("top-dead-spot-angle", 2)], fitLE16(UInt16(10)), [("top-dead-spot-angle", fitDec(10))]),
        (10, [("bottom-dead-spot-angle", 2)], fitLE16(UInt16(190)), [("bottom-dead-spot-angle", fitDec(190))]),
        (11, [("accumulated-energy", 2)], fitLE16(UInt16(0x0123)), [("accumulated-energy", fitDec(291))]),
    ]

    /// A previous value with wheel and crank data (flags 0x0030): wheel 65532 rev at 0x0800 = 2048 → Δrev 4 in
    /// Δt 4096 − 2048 = 2048 ticks of 1/2048 s = 1 s → 4 × 2.105 m/s × 3.6 = 30.312 → 30.31 km/h; crank 256 rev at
    /// 0x02AB = 683 → Δrev 2 in 2048 − 683 = 1365 ticks of 1/1024 s → 2 × 600 × 1024 / 1365 = 900.2 tenths → 90 rpm.
    static let previous: [UInt8] = fitLE16(UInt16(0x0030)) + fitLE16(Int16(200)) + fitLE32(65532) + fitLE16(UInt16(0x0800))
        + fitLE16(UInt16(256)) + fitLE16(UInt16(0x02AB))

    /// All 8192 combinations of the 13 defined flag bits (0-12; bits 1, 3 and 12 change no layout), with the
    /// reserved bits 13-15 clear, and set for a sample; each with and without a previous value.
    @Test func everyFlagCombination() throws {
        for defined in UInt16(0)..<0x2000 {
            for reserved in [UInt16(0), 0xE000] where reserved == 0 || defined % 37 == 0 {
                let flags = defined | reserved
                // Instantaneous Power 0x00FA = 250 W.
                var bytes = fitLE16(flags) + fitLE16(Int16(250))
                var layout = [FitField("flags", 0, 2), FitField("instantaneous-power", 2, 2)]
                var expected: [(String, DecimalNumber)] = [("instantaneous-power", fitDec(250))]
                for field in Self.optional where flags & (1 << UInt16(field.bit)) != 0 {
                    var at = bytes.count
                    for (name, size) in field.fields {
                        layout.append(FitField(name, at, size))
                        at += size
                    }
                    #expect(at - bytes.count == field.bytes.count)
                    bytes += field.bytes
                    expected += field.quantities
                }
                fitExpectTooShortAtEveryField(decode, bytes, layout, characteristic: Self.characteristic)

                let o = try #require(fitDecode(decode, bytes))
                #expect(o.profile == .cyclingPower && o.characteristic == Self.characteristic)
                #expect(o.quantities.map(\.metric.name) == expected.map(\.0), "flags \(flags)")
                for (name, value) in expected { #expect(o.quantity(name)?.value == .number(value), "\(name) flags \(flags)") }

                // Bit 1 pedal power balance reference and bit 3 torque source are details only with their field.
                #expect(o.detail("pedal-power-balance-reference")
                        == (flags & 0x01 == 0 ? nil : flags & 0x02 != 0 ? "left" : "unknown"))
                #expect(o.detail("accumulated-torque-source")
                        == (flags & 0x04 == 0 ? nil : flags & 0x08 != 0 ? "crank-based" : "wheel-based"))
                // Bit 12 offset compensation indicator.
                #expect(o.flags == (flags & 0x1000 != 0 ? ["offset-compensation-indicator"] : []))

                // Summary: power, then balance and energy, then the flag words.
                var parts = ["250 W"]
                if flags & 0x01 != 0 { parts.append("balance 50.5 %" + (flags & 0x02 != 0 ? " left" : "")) }
                if flags & 0x0800 != 0 { parts.append("291 kJ") }
                let tail = flags & 0x1000 != 0 ? " — offset compensation indicator" : ""
                #expect(o.summary == parts.joined(separator: ", ") + tail, "flags \(flags)")

                // With the previous value: speed iff wheel data, cadence iff crank data; cadence first in the summary.
                let withPrevious = try #require(fitDecode(decode, bytes, DecodingContext(previous: Self.previous)))
                let hasWheel = flags & 0x10 != 0, hasCrank = flags & 0x20 != 0
                #expect(withPrevious.quantity("speed")?.value == (hasWheel ? .number(fitDec(3031, -2)) : nil))
                #expect(withPrevious.quantity("cadence")?.value == (hasCrank ? .number(fitDec(90)) : nil))
                var derivedParts = ["250 W"]
                if hasCrank { derivedParts.append("cadence 90 rpm") }
                if hasWheel { derivedParts.append("30.31 km/h") }
                derivedParts += parts.dropFirst()
                #expect(withPrevious.summary == derivedParts.joined(separator: ", ") + tail, "flags \(flags)")
            }
        }
    }

    @Test func handVectorAllFields() throws {
        // flags 0x1FFF: every defined bit (balance reference left, torque crank-based, offset compensation).
        // power 0xFF9C = −100 W; balance 0x64 = 100/2 = 50 %; torque 0x0010 = 16/32 = 0.5 N·m; wheel 0x00000004 rev
        // at 0x0800 = 2048/2048 = 1 s; crank 0x0003 at 0x0400 = 1 s; force 0x0064 = 100 N, 0x0000 = 0 N; torque
        // 0x0021 = 33/32 = 1.03125 N·m, 0xFFFF = −1/32 = −0.03125 N·m; angles 0x0FF000 → max 0x000 = 0°, min 0x0FF = 255°;
        // TDS 0x0168 = 360°; BDS 0x00B4 = 180°; energy 0xFFFF = 65535 kJ.
        let bytes: [UInt8] = [0xFF, 0x1F, 0x9C, 0xFF, 0x64, 0x10, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x08, 0x03, 0x00, 0x00, 0x04,
                              0x64, 0x00, 0x00, 0x00, 0x21, 0x00, 0xFF, 0xFF, 0x00, 0xF0, 0x0F, 0x68, 0x01, 0xB4, 0x00, 0xFF, 0xFF]
        let o = try #require(fitDecode(decode, bytes))
        #expect(o.quantity("instantaneous-power")?.value == .number(fitDec(-100)))
        #expect(o.quantity("instantaneous-power")?.unit == .watts)
        #expect(o.quantity("pedal-power-balance")?.value == .number(fitDec(50)))
        #expect(o.quantity("pedal-power-balance")?.unit == .percent)
        #expect(o.quantity("accumulated-torque")?.value == .number(fitDec(5, -1)))
        #expect(o.quantity("accumulated-torque")?.unit == .newtonMetres)
        #expect(o.quantity("last-wheel-event-time")?.value == .number(fitDec(1)))
        #expect(o.quantity("last-crank-event-time")?.value == .number(fitDec(1)))
        #expect(o.quantity("minimum-force-magnitude")?.value == .number(fitDec(0)))
        #expect(o.quantity("maximum-force-magnitude")?.unit == .newtons)
        #expect(o.quantity("maximum-torque-magnitude")?.value == .number(fitDec(103_125, -5)))
        #expect(o.quantity("minimum-torque-magnitude")?.value == .number(fitDec(-3125, -5)))
        #expect(o.quantity("maximum-angle")?.value == .number(fitDec(0)))
        #expect(o.quantity("minimum-angle")?.value == .number(fitDec(255)))
        #expect(o.quantity("minimum-angle")?.unit == .angleDegrees)
        #expect(o.quantity("top-dead-spot-angle")?.value == .number(fitDec(360)))
        #expect(o.quantity("bottom-dead-spot-angle")?.value == .number(fitDec(180)))
        #expect(o.quantity("accumulated-energy")?.value == .number(fitDec(65535)))
        #expect(o.quantity("accumulated-energy")?.unit == .kilojoules)
        #expect(o.details == [ObservationDetail("pedal-power-balance-reference", "left"), ObservationDetail("accumulated-torque-source", "crank-based")])
        #expect(o.summary == "-100 W, balance 50 % left, 65535 kJ — offset compensation indicator")
    }

    @Test func extremeAnglesPacking() throws {
        // flags 0x0100 angles only; power 0. The uint24 holds maximum in bits 0-11, minimum in bits 12-23
        // (CPS v1.1): bytes 0x21 0x43 0x65 = 0x654321 → maximum 0x321 = 801, minimum 0x654 = 1620.
        let o = try #require(fitDecode(decode, [0x00, 0x01, 0x00, 0x00, 0x21, 0x43, 0x65]))
        #expect(o.quantity("maximum-angle")?.value == .number(fitDec(801)))
        #expect(o.quantity("minimum-angle")?.value == .number(fitDec(1620)))
    }

    @Test func wheelTimeIsIn1Over2048Seconds() throws {
        // Wheel event time wraps at 16 bits in 1/2048 s: previous 0xFFFFFFFF rev at 0xF800 = 63488; current 3 rev at
        // 0x0000 → Δrev = 3 + 2^32 − (2^32 − 1) = 4, Δt = 0 + 65536 − 63488 = 2048 ticks = 1 s (it would be 2 s at the
        // CSC's 1/1024 s and give 15.16 km/h) → 4 × 2.105 m/s = 30.31 km/h.
        let previous = fitLE16(UInt16(0x0010)) + fitLE16(Int16(0)) + fitLE32(0xFFFF_FFFF) + fitLE16(UInt16(0xF800))
        let current = fitLE16(UInt16(0x0010)) + fitLE16(Int16(180)) + fitLE32(3) + fitLE16(UInt16(0x0000))
        let o = try #require(fitDecode(decode, current, DecodingContext(previous: previous)))
        #expect(o.quantity("speed")?.value == .number(fitDec(3031, -2)))
        #expect(o.summary == "180 W, 30.31 km/h")
        // The event time itself: 0xF800 = 63488/2048 = 31 s.
        #expect(fitDecode(decode, previous)?.quantity("last-wheel-event-time")?.value == .number(fitDec(31)))
    }

    @Test func crankWrapAroundAndNoElapsedTime() throws {
        // Crank 0xFFFF at 0xFC00 = 64512 → 0x0001 at 0x0155 = 341: Δrev 2, Δt 341 + 65536 − 64512 = 1365 → 90 rpm.
        let before = fitLE16(UInt16(0x0020)) + fitLE16(Int16(0)) + fitLE16(UInt16(0xFFFF)) + fitLE16(UInt16(0xFC00))
        let now = fitLE16(UInt16(0x0020)) + fitLE16(Int16(0)) + fitLE16(UInt16(0x0001)) + fitLE16(UInt16(0x0155))
        #expect(fitDecode(decode, now, DecodingContext(previous: before))?.quantity("cadence")?.value == .number(fitDec(90)))
        // Same event time: Δt = 0, no cadence.
        #expect(fitDecode(decode, before, DecodingContext(previous: before))?.quantity("cadence") == nil)
        // A previous value that does not decode: no cadence, no error.
        #expect(fitDecode(decode, now, DecodingContext(previous: [0x20]))?.quantity("cadence") == nil)
    }

    @Test func errors() {
        let c = Self.characteristic
        #expect(fitError(decode, [0x00]) == ProfileDecodeError(characteristic: c, field: "flags", offset: 0, problem: .tooShort(needed: 2, available: 1)))
        #expect(fitError(decode, [0x00, 0x00, 0xFA])
                == ProfileDecodeError(characteristic: c, field: "instantaneous-power", offset: 2, problem: .tooShort(needed: 2, available: 1)))
        // flags 0x0001 (balance) with none sent.
        #expect(fitError(decode, [0x01, 0x00, 0xFA, 0x00])
                == ProfileDecodeError(characteristic: c, field: "pedal-power-balance", offset: 4, problem: .tooShort(needed: 1, available: 0)))
        // flags 0x0000 with a balance byte: trailing at 4.
        #expect(fitError(decode, [0x00, 0x00, 0xFA, 0x00, 0x65])
                == ProfileDecodeError(characteristic: c, field: "end", offset: 4, problem: .trailingBytes(count: 1)))
        // flags 0x0100 angles with 2 of 3 bytes.
        #expect(fitError(decode, [0x00, 0x01, 0xFA, 0x00, 0x5A, 0xE0])
                == ProfileDecodeError(characteristic: c, field: "extreme-angles", offset: 4, problem: .tooShort(needed: 3, available: 2)))
    }
}
