/// The layout Temperature Measurement (0x2A1C) and Intermediate Temperature (0x2A1E) share, Health Thermometer Service
/// v1.0 §3.1 and §3.3 and GSS "Temperature Measurement": Flags (uint8), Temperature Measurement Value (IEEE 11073 FLOAT,
/// °C or °F by flag bit 0), Time Stamp (bit 1), Temperature Type (uint8, bit 2).
enum TemperatureLayout {
    static let unitsFahrenheit: UInt8 = 0x01       // bit 0: 0 °C, 1 °F
    static let timeStampPresent: UInt8 = 0x02      // bit 1
    static let temperatureTypePresent: UInt8 = 0x04   // bit 2 (bits 3-7 reserved: ignored)

    /// GSS "Temperature Type": 1 Armpit … 9 Tympanum (ear drum); 0 and 10-255 reserved for future use.
    static let typeNames = ["armpit", "body", "ear", "finger", "gastro-intestinal tract", "mouth", "rectum", "toe", "tympanum"]

    /// The site's words, or `reserved (0x0a)`.
    static func typeName(_ raw: UInt8) -> String {
        (1...9).contains(raw) ? typeNames[Int(raw) - 1] : VitalsText.reserved(raw)
    }

    static func decode(_ bytes: [UInt8], _ characteristic: AssignedNumber, _ context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint8("flags")
        // Units exactly as sent (HTS §3.1.1.1): a °F thermometer's value stays in °F.
        let unit: MeasurementUnit = flags & unitsFahrenheit != 0 ? .degreesFahrenheit : .degreesCelsius
        let value = try reader.float("temperature")
        var time: DeviceTime?
        if flags & timeStampPresent != 0 { time = try reader.dateTime("time-stamp") }
        var type: String?
        if flags & temperatureTypePresent != 0 { type = typeName(try reader.uint8("temperature-type")) }
        try reader.finish()
        // HTS v1.0 §3.1.1.3/§3.2: a thermometer whose site does not change exposes it once in the Temperature Type
        // characteristic (0x2A1D) and leaves it out of each measurement; use that value when it was read on the link.
        if type == nil, let fixed = context.features[TemperatureType.characteristic], fixed.count == 1 {
            type = typeName(fixed[0])
        }
        var summary = value.text() + " " + unit.symbol
        if let type { summary += " (" + type + ")" }
        summary += VitalsText.deviceTime(time)
        return [Observation(profile: .healthThermometer, characteristic: characteristic,
                            quantities: [Quantity(.bodyTemperature, value, unit)], deviceTime: time,
                            details: type.map { [ObservationDetail("temperature-type", $0)] } ?? [], summary: summary)]
    }
}

/// Temperature Measurement (0x2A1C), indicated once per stable measurement (HTS v1.0 §3.1).
public enum TemperatureMeasurement {
    public static let characteristic = AssignedNumber(0x2A1C)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        try TemperatureLayout.decode(bytes, characteristic, context)
    }
}

/// Intermediate Temperature (0x2A1E), notified while a measurement settles (HTS v1.0 §3.3): same layout.
public enum IntermediateTemperature {
    public static let characteristic = AssignedNumber(0x2A1E)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        try TemperatureLayout.decode(bytes, characteristic, context)
    }
}

/// Temperature Type (0x2A1D), read once (HTS v1.0 §3.2, GSS "Temperature Type"): one uint8 naming the body site.
public enum TemperatureType {
    public static let characteristic = AssignedNumber(0x2A1D)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let type = TemperatureLayout.typeName(try reader.uint8("temperature-type"))
        try reader.finish()
        return [Observation(profile: .healthThermometer, characteristic: characteristic,
                            details: [ObservationDetail("temperature-type", type)], summary: "\(type) (temperature type)")]
    }
}
