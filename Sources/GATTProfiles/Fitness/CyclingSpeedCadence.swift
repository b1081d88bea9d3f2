/// Speed and cadence from two readings of cumulative revolution counters and their event times, as CSCS v1.0 §3.1
/// and CPS v1.1 (Cycling Power Measurement)-5 describe: the sensor sends the count of revolutions so far and the time of the last one;
/// the client takes the difference between two values. All arithmetic is integer and exact until one final rounding.
///
/// Wrap-around: counters and event times roll over ("this value is intended to roll over", CSCS §3.1). Every
/// difference is therefore taken modulo 2^bits: Δ = (current − previous) mod 2^bits, which is right whenever fewer
/// than 2^bits units passed between the two readings. For the 16-bit event times that is 64 s at 1/1024 s (32 s at
/// Cycling Power's 1/2048 s wheel time): a gap longer than that between two notifications cannot be told from a
/// wrap, and the derived value is then wrong; sensors notify every second, so the caller should pass `previous` only
/// for consecutive notifications. No time elapsed (Δt = 0: the sensor repeats its last event when the wheel or crank
/// has not turned since) gives no derived quantity, never a division by zero.
enum RevolutionRates {
    /// (current − previous) mod 2^bits.
    static func delta(_ current: UInt32, _ previous: UInt32, bits: Int) -> UInt64 {
        let modulus = UInt64(1) << UInt64(bits)
        return (UInt64(current) &+ modulus &- UInt64(previous)) % modulus
    }

    /// Speed in km/h, rounded half up to 0.01 km/h.
    ///
    /// distance = Δrevolutions × circumference mm = Δrev × C / 10⁶ km; time = Δticks / ticksPerSecond s =
    /// Δticks / (tps × 3600) h; so speed = Δrev × C × tps × 3600 / (Δticks × 10⁶) km/h, and in hundredths of a km/h
    /// (× 100): Δrev × C × tps × 36 / (Δticks × 100). Example (CSC, tps 1024): 4 revolutions of a 2105 mm wheel in
    /// 1024 ticks (1 s) = 8.42 m/s = 30.312 km/h: 4 × 2105 × 1024 × 36 = 310 394 880, / (1024 × 100) = 3031.2 →
    /// 3031 hundredths = 30.31 km/h.
    static func speed(revolutions: UInt64, ticks: UInt64, ticksPerSecond: UInt64, circumferenceMillimetres: Int) -> DecimalNumber? {
        guard ticks > 0, circumferenceMillimetres > 0,
              let numerator = FitnessText.product(revolutions, UInt64(circumferenceMillimetres), ticksPerSecond, 36),
              let denominator = FitnessText.product(ticks, 100),
              let hundredths = FitnessText.roundedQuotient(numerator, denominator),
              hundredths <= UInt64(Int64.max) else { return nil }
        return DecimalNumber(mantissa: Int64(hundredths), exponent: -2)
    }

    /// Cadence in revolutions per minute, rounded half up to 0.1 /min.
    ///
    /// cadence = Δrev / (Δticks / tps) s × 60 = Δrev × 60 × tps / Δticks /min, and in tenths (× 10):
    /// Δrev × 600 × tps / Δticks. Example: 2 crank revolutions in 1365 ticks (1.333 s at 1/1024 s) →
    /// 2 × 600 × 1024 / 1365 = 900.2 → 900 tenths = 90 /min.
    static func cadence(revolutions: UInt64, ticks: UInt64, ticksPerSecond: UInt64) -> DecimalNumber? {
        guard ticks > 0, let numerator = FitnessText.product(revolutions, 600, ticksPerSecond),
              let tenths = FitnessText.roundedQuotient(numerator, ticks), tenths <= UInt64(Int64.max) else { return nil }
        return DecimalNumber(mantissa: Int64(tenths), exponent: -1)
    }
}

/// CSC Measurement (0x2A5B), notified about once a second (CSCS v1.0 §3.1; GSS "CSC Measurement"): Flags (uint8),
/// Cumulative Wheel Revolutions (uint32) and Last Wheel Event Time (uint16, 1/1024 s) when bit 0 is set, Cumulative
/// Crank Revolutions (uint16) and Last Crank Event Time (uint16, 1/1024 s) when bit 1 is set. Speed and cadence are
/// not in the value: they are derived from `context.previous` (the previous value of this characteristic from the
/// same device) with ``RevolutionRates``, and the wheel circumference from the context.
public enum CSCMeasurement {
    public static let characteristic = AssignedNumber(0x2A5B)

    // Flags, CSCS v1.0 §3.1; bits 2-7 reserved for future use (ignored).
    static let wheelRevolutionDataPresent: UInt8 = 0x01   // bit 0
    static let crankRevolutionDataPresent: UInt8 = 0x02   // bit 1

    struct Fields {
        var wheel: (revolutions: UInt32, eventTime: UInt16)?
        var crank: (revolutions: UInt16, eventTime: UInt16)?
    }

    static func read(_ bytes: [UInt8]) throws(ProfileDecodeError) -> Fields {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint8("flags")
        var fields = Fields()
        if flags & wheelRevolutionDataPresent != 0 {
            fields.wheel = (try reader.uint32("cumulative-wheel-revolutions"), try reader.uint16("last-wheel-event-time"))
        }
        if flags & crankRevolutionDataPresent != 0 {
            fields.crank = (try reader.uint16("cumulative-crank-revolutions"), try reader.uint16("last-crank-event-time"))
        }
        try reader.finish()
        return fields
    }

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        let current = try read(bytes)
        // A previous value that does not decode is no basis for a difference: no derived quantity, no error.
        let previous = context.previous.flatMap { try? read($0) }
        var quantities: [Quantity] = []
        var derived: [String] = []
        var counts: [String] = []

        if let wheel = current.wheel {
            quantities.append(Quantity(.wheelRevolutions, DecimalNumber(Int(wheel.revolutions)), .revolutions))
            quantities.append(Quantity(.lastWheelEventTime, DecimalNumber(numerator: Int64(wheel.eventTime), powerOfTwo: 10), .seconds))
            counts.append("wheel \(wheel.revolutions) rev")
            if let before = previous?.wheel,
               let speed = RevolutionRates.speed(
                   revolutions: RevolutionRates.delta(wheel.revolutions, before.revolutions, bits: 32),
                   ticks: RevolutionRates.delta(UInt32(wheel.eventTime), UInt32(before.eventTime), bits: 16),
                   ticksPerSecond: 1024, circumferenceMillimetres: context.wheelCircumferenceMillimetres) {
                let q = Quantity(.cyclingSpeed, speed, .kilometresPerHour)
                quantities.append(q)
                derived.append(q.text())
            }
        }
        if let crank = current.crank {
            quantities.append(Quantity(.crankRevolutions, DecimalNumber(Int(crank.revolutions)), .revolutions))
            quantities.append(Quantity(.lastCrankEventTime, DecimalNumber(numerator: Int64(crank.eventTime), powerOfTwo: 10), .seconds))
            counts.append("crank \(crank.revolutions) rev")
            if let before = previous?.crank,
               let cadence = RevolutionRates.cadence(
                   revolutions: RevolutionRates.delta(UInt32(crank.revolutions), UInt32(before.revolutions), bits: 16),
                   ticks: RevolutionRates.delta(UInt32(crank.eventTime), UInt32(before.eventTime), bits: 16),
                   ticksPerSecond: 1024) {
                let q = Quantity(.cyclingCadence, cadence, .revolutionsPerMinute)
                quantities.append(q)
                derived.append("cadence " + q.text())
            }
        }
        let countText = counts.isEmpty ? "no revolution data" : counts.joined(separator: ", ")
        let summary = derived.isEmpty ? countText : derived.joined(separator: ", ") + " (" + countText + ")"
        return [Observation(profile: .cyclingSpeedCadence, characteristic: characteristic, quantities: quantities, summary: summary)]
    }
}
