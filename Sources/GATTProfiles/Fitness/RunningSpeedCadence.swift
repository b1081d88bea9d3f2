/// RSC Measurement (0x2A53), notified about once a second (RSCS v1.0 §3.1; GSS "RSC Measurement"): Flags (uint8),
/// Instantaneous Speed (uint16, 1/256 m/s), Instantaneous Cadence (uint8, steps per minute), Instantaneous Stride
/// Length (uint16, 1/100 m, flag bit 0), Total Distance (uint32, 1/10 m, flag bit 1). Flag bit 2 is the walking (0)
/// or running (1) status.
public enum RSCMeasurement {
    public static let characteristic = AssignedNumber(0x2A53)
    /// RSC Feature, whose bit 2 says whether the sensor reports walking or running status.
    static let featureCharacteristic = AssignedNumber(0x2A54)

    // Flags, RSCS v1.0 §3.1; bits 3-7 reserved for future use (ignored).
    static let strideLengthPresent: UInt8 = 0x01   // bit 0
    static let totalDistancePresent: UInt8 = 0x02  // bit 1
    static let running: UInt8 = 0x04               // bit 2: 0 walking, 1 running
    /// RSC Feature bit 2, "Walking or Running Status Supported".
    static let statusSupported: UInt8 = 0x04

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint8("flags")
        let speedRaw = try reader.uint16("instantaneous-speed")
        let cadenceRaw = try reader.uint8("instantaneous-cadence")
        let strideRaw: UInt16? = flags & strideLengthPresent != 0 ? try reader.uint16("instantaneous-stride-length") : nil
        let distanceRaw: UInt32? = flags & totalDistancePresent != 0 ? try reader.uint32("total-distance") : nil
        try reader.finish()

        // 1/256 m/s is a binary fraction: exact as a decimal (raw × 5⁸ × 10⁻⁸), shown to 0.01 m/s.
        let speed = Quantity(.runningSpeed, DecimalNumber(numerator: Int64(speedRaw), powerOfTwo: 8), .metresPerSecond)
        let cadence = Quantity(.runningCadence, DecimalNumber(Int(cadenceRaw)), .stepsPerMinute)
        var quantities = [speed, cadence]
        var parts = [speed.text(places: 2), cadence.text()]
        if let strideRaw {
            // GSS: unit metre, resolution 1/100 m: raw × 10⁻² m, kept in metres as the characteristic defines it.
            let stride = Quantity(.strideLength, DecimalNumber(mantissa: Int64(strideRaw), exponent: -2), .metres)
            quantities.append(stride)
            parts.append("stride " + stride.text())
        }
        if let distanceRaw {
            // GSS: unit metre, resolution 1/10 m: raw × 10⁻¹ m.
            let distance = Quantity(.totalDistance, DecimalNumber(mantissa: Int64(distanceRaw), exponent: -1), .metres)
            quantities.append(distance)
            parts.append("total " + distance.text())
        }

        // RSCS v1.0 §3.1: bit 2 "shall be used only if the Server supports Walking or Running Status". When the
        // RSC Feature read on this link says it does not, the bit carries nothing and no status flag is given; with
        // no feature value at hand the bit is reported as sent.
        var flagNames: [String] = []
        let feature = context.features[featureCharacteristic]
        if feature?.first.map({ $0 & statusSupported != 0 }) ?? true {
            flagNames.append(flags & running != 0 ? "running" : "walking")
        }
        return [Observation(profile: .runningSpeedCadence, characteristic: characteristic, quantities: quantities, flags: flagNames,
                            summary: FitnessText.withFlags(parts.joined(separator: ", "), flagNames))]
    }
}
