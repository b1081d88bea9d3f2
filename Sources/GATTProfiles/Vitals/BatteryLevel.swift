/// Battery Level (0x2A19), Battery Service v1.0 §3.1 and GSS "Battery Level": one uint8, percent of full charge,
/// 0-100.
public enum BatteryLevel {
    public static let characteristic = AssignedNumber(0x2A19)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let level = try reader.uint8("battery-level")
        // GSS gives the range 0-100 and no meaning to 101-255: a level of 150 % cannot be read as a charge.
        if level > 100 { throw reader.error("battery-level", .outOfRange(value: Int64(level)), at: 0) }
        try reader.finish()
        return [Observation(profile: .battery, characteristic: characteristic,
                            quantities: [Quantity(.batteryLevel, DecimalNumber(Int(level)), .percent)],
                            summary: "\(level) %")]
    }
}
