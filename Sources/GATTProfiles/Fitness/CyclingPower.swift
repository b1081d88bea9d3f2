/// Cycling Power Measurement (0x2A63), notified about once a second (CPS v1.1, "Cycling Power Measurement"; GSS "Cycling Power
/// Measurement"). Flags (uint16), Instantaneous Power (sint16 W, always), then by flag bit in this order: Pedal Power
/// Balance (bit 0, uint8, 1/2 %), Accumulated Torque (bit 2, uint16, 1/32 N·m), Wheel Revolution Data (bit 4:
/// Cumulative Wheel Revolutions uint32, Last Wheel Event Time uint16 in **1/2048 s**), Crank Revolution Data (bit 5:
/// Cumulative Crank Revolutions uint16, Last Crank Event Time uint16 in 1/1024 s), Extreme Force Magnitudes (bit 6:
/// maximum, minimum sint16 N), Extreme Torque Magnitudes (bit 7: maximum, minimum sint16 1/32 N·m), Extreme Angles
/// (bit 8: uint24 packing two uint12 degrees, maximum in the low 12 bits), Top Dead Spot Angle (bit 9, uint16 °),
/// Bottom Dead Spot Angle (bit 10, uint16 °), Accumulated Energy (bit 11, uint16 kJ). Bit 1 is the pedal power
/// balance reference (0 unknown, 1 left), bit 3 the accumulated torque source (0 wheel, 1 crank), bit 12 the offset
/// compensation indicator; bits 13-15 are reserved for future use (ignored: the layout does not change).
public enum CyclingPowerMeasurement {
    public static let characteristic = AssignedNumber(0x2A63)

    static let pedalPowerBalancePresent: UInt16 = 1 << 0
    static let pedalPowerBalanceReferenceLeft: UInt16 = 1 << 1
    static let accumulatedTorquePresent: UInt16 = 1 << 2
    static let accumulatedTorqueSourceCrank: UInt16 = 1 << 3
    static let wheelRevolutionDataPresent: UInt16 = 1 << 4
    static let crankRevolutionDataPresent: UInt16 = 1 << 5
    static let extremeForceMagnitudesPresent: UInt16 = 1 << 6
    static let extremeTorqueMagnitudesPresent: UInt16 = 1 << 7
    static let extremeAnglesPresent: UInt16 = 1 << 8
    static let topDeadSpotAnglePresent: UInt16 = 1 << 9
    static let bottomDeadSpotAnglePresent: UInt16 = 1 << 10
    static let accumulatedEnergyPresent: UInt16 = 1 << 11
    static let offsetCompensationIndicator: UInt16 = 1 << 12

    struct Fields {
        var flags: UInt16
        var power: Int16
        var balance: UInt8?
        var torque: UInt16?
        var wheel: (revolutions: UInt32, eventTime: UInt16)?
        var crank: (revolutions: UInt16, eventTime: UInt16)?
        var force: (maximum: Int16, minimum: Int16)?
        var torqueMagnitudes: (maximum: Int16, minimum: Int16)?
        var angles: (maximum: UInt16, minimum: UInt16)?
        var topDeadSpot: UInt16?
        var bottomDeadSpot: UInt16?
        var energy: UInt16?
    }

    static func read(_ bytes: [UInt8]) throws(ProfileDecodeError) -> Fields {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint16("flags")
        var f = Fields(flags: flags, power: try reader.int16("instantaneous-power"))
        if flags & pedalPowerBalancePresent != 0 { f.balance = try reader.uint8("pedal-power-balance") }
        if flags & accumulatedTorquePresent != 0 { f.torque = try reader.uint16("accumulated-torque") }
        if flags & wheelRevolutionDataPresent != 0 {
            f.wheel = (try reader.uint32("cumulative-wheel-revolutions"), try reader.uint16("last-wheel-event-time"))
        }
        if flags & crankRevolutionDataPresent != 0 {
            f.crank = (try reader.uint16("cumulative-crank-revolutions"), try reader.uint16("last-crank-event-time"))
        }
        if flags & extremeForceMagnitudesPresent != 0 {
            f.force = (try reader.int16("maximum-force-magnitude"), try reader.int16("minimum-force-magnitude"))
        }
        if flags & extremeTorqueMagnitudesPresent != 0 {
            f.torqueMagnitudes = (try reader.int16("maximum-torque-magnitude"), try reader.int16("minimum-torque-magnitude"))
        }
        if flags & extremeAnglesPresent != 0 {
            // CPS v1.1 (Cycling Power Measurement): uint24 = maximum angle (uint12, LSO side) | minimum angle (uint12) << 12.
            let packed = try reader.uint24("extreme-angles")
            f.angles = (UInt16(packed & 0x0FFF), UInt16(packed >> 12))
        }
        if flags & topDeadSpotAnglePresent != 0 { f.topDeadSpot = try reader.uint16("top-dead-spot-angle") }
        if flags & bottomDeadSpotAnglePresent != 0 { f.bottomDeadSpot = try reader.uint16("bottom-dead-spot-angle") }
        if flags & accumulatedEnergyPresent != 0 { f.energy = try reader.uint16("accumulated-energy") }
        try reader.finish()
        return f
    }

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        let f = try read(bytes)
        let previous = context.previous.flatMap { try? read($0) }
        let power = Quantity(.instantaneousPower, DecimalNumber(Int(f.power)), .watts)
        var quantities = [power]
        var details: [ObservationDetail] = []
        var flagNames: [String] = []
        var parts: [String] = []

        if let balance = f.balance {
            // 1/2 % resolution: raw × 0.5 = raw × 5 × 10⁻¹ %.
            let q = Quantity(.pedalPowerBalance, DecimalNumber(mantissa: Int64(balance) * 5, exponent: -1), .percent)
            quantities.append(q)
            // CPS v1.1 (Cycling Power Measurement): bit 1 says which pedal the percentage is of; 0 means the reference is unknown.
            let left = f.flags & pedalPowerBalanceReferenceLeft != 0
            details.append(ObservationDetail("pedal-power-balance-reference", left ? "left" : "unknown"))
            parts.append("balance " + q.text() + (left ? " left" : ""))
        }
        if let torque = f.torque {
            quantities.append(Quantity(.accumulatedTorque, DecimalNumber(numerator: Int64(torque), powerOfTwo: 5), .newtonMetres))
            details.append(ObservationDetail("accumulated-torque-source",
                                             f.flags & accumulatedTorqueSourceCrank != 0 ? "crank-based" : "wheel-based"))
        }
        var derived: [String] = []
        if let wheel = f.wheel {
            quantities.append(Quantity(.wheelRevolutions, DecimalNumber(Int(wheel.revolutions)), .revolutions))
            // CPS v1.1 (Cycling Power Measurement): Last Wheel Event Time is in 1/2048 s (CSC's is 1/1024 s).
            quantities.append(Quantity(.lastWheelEventTime, DecimalNumber(numerator: Int64(wheel.eventTime), powerOfTwo: 11), .seconds))
            if let before = previous?.wheel,
               let speed = RevolutionRates.speed(
                   revolutions: RevolutionRates.delta(wheel.revolutions, before.revolutions, bits: 32),
                   ticks: RevolutionRates.delta(UInt32(wheel.eventTime), UInt32(before.eventTime), bits: 16),
                   ticksPerSecond: 2048, circumferenceMillimetres: context.wheelCircumferenceMillimetres) {
                let q = Quantity(.cyclingSpeed, speed, .kilometresPerHour)
                quantities.append(q)
                derived.append(q.text())
            }
        }
        if let crank = f.crank {
            quantities.append(Quantity(.crankRevolutions, DecimalNumber(Int(crank.revolutions)), .revolutions))
            quantities.append(Quantity(.lastCrankEventTime, DecimalNumber(numerator: Int64(crank.eventTime), powerOfTwo: 10), .seconds))
            if let before = previous?.crank,
               let cadence = RevolutionRates.cadence(
                   revolutions: RevolutionRates.delta(UInt32(crank.revolutions), UInt32(before.revolutions), bits: 16),
                   ticks: RevolutionRates.delta(UInt32(crank.eventTime), UInt32(before.eventTime), bits: 16),
                   ticksPerSecond: 1024) {
                let q = Quantity(.cyclingCadence, cadence, .revolutionsPerMinute)
                quantities.append(q)
                derived.insert("cadence " + q.text(), at: 0)
            }
        }
        if let force = f.force {
            quantities.append(Quantity(.maximumForceMagnitude, DecimalNumber(Int(force.maximum)), .newtons))
            quantities.append(Quantity(.minimumForceMagnitude, DecimalNumber(Int(force.minimum)), .newtons))
        }
        if let t = f.torqueMagnitudes {
            // 1/32 N·m, signed: exact binary fraction.
            quantities.append(Quantity(.maximumTorqueMagnitude, DecimalNumber(numerator: Int64(t.maximum), powerOfTwo: 5), .newtonMetres))
            quantities.append(Quantity(.minimumTorqueMagnitude, DecimalNumber(numerator: Int64(t.minimum), powerOfTwo: 5), .newtonMetres))
        }
        if let a = f.angles {
            quantities.append(Quantity(.maximumAngle, DecimalNumber(Int(a.maximum)), .angleDegrees))
            quantities.append(Quantity(.minimumAngle, DecimalNumber(Int(a.minimum)), .angleDegrees))
        }
        if let top = f.topDeadSpot { quantities.append(Quantity(.topDeadSpotAngle, DecimalNumber(Int(top)), .angleDegrees)) }
        if let bottom = f.bottomDeadSpot { quantities.append(Quantity(.bottomDeadSpotAngle, DecimalNumber(Int(bottom)), .angleDegrees)) }
        if let energy = f.energy {
            let q = Quantity(.accumulatedEnergy, DecimalNumber(Int(energy)), .kilojoules)
            quantities.append(q)
            parts.append(q.text())
        }
        // CPS v1.1 (Cycling Power Measurement) bit 12: the sensor asks the client to perform an offset compensation (zero calibration).
        if f.flags & offsetCompensationIndicator != 0 { flagNames.append("offset-compensation-indicator") }

        let text = ([power.text()] + derived + parts).joined(separator: ", ")
        return [Observation(profile: .cyclingPower, characteristic: characteristic, quantities: quantities, flags: flagNames,
                            details: details, summary: FitnessText.withFlags(text, flagNames))]
    }
}
