/// A standard measurement a simulated peripheral sends, encoded as the Bluetooth SIG specifies it, from a ground
/// truth that is a pure function of the notification's number: a test recomputes ``truth(number:)`` for what it
/// received and compares it with what fleetd decoded, so the decoders are checked against values built here from
/// the spec's field layout, not against themselves.
///
/// Every stream carries its number in a field the decoder reports (a record number, a time stamp, a cumulative
/// count), so a consumer can tell which truth a reading belongs to even when some readings were lost.
public enum SimulatedMeasurement: String, Sendable, Hashable, CaseIterable {
    /// Heart Rate Measurement 0x2A37 (HRS v1.0 §3.1): contact detected, uint8 rate, one RR interval.
    case heartRate = "heart-rate"
    /// Blood Pressure Measurement 0x2A35 (BLS v1.1.1 §3.1): mmHg, time stamp, pulse rate, user 1, status.
    case bloodPressure = "blood-pressure"
    /// Temperature Measurement 0x2A1C (HTS v1.0 §3.1): °C as FLOAT, time stamp, type mouth.
    case temperature
    /// Glucose Measurement 0x2A18 (GLS v1.0.1 §3.106 of GSS): sequence number, base time, kg/L, capillary whole
    /// blood from a finger.
    case glucose
    /// PLX Continuous Measurement 0x2A5F (PLXS v1.0 §3.2): SpO2 and pulse rate, no optional fields.
    case pulseOximetry = "pulse-oximetry"
    /// Weight Measurement 0x2A9D (WSS v1.0 §3.2): SI, 0.005 kg resolution, time stamp.
    case weight
    /// CSC Measurement 0x2A5B (CSCS v1.0 §3.1): cumulative wheel and crank revolutions with event times, one
    /// second apart.
    case cyclingSpeedCadence = "cycling-speed-cadence"
    /// RSC Measurement 0x2A53 (RSCS v1.0 §3.1): speed in 1/256 m/s, cadence, stride length and total distance.
    case runningSpeedCadence = "running-speed-cadence"
    /// Cycling Power Measurement 0x2A63 (CPS v1.1 §3.2): flags 0, instantaneous power in W.
    case cyclingPower = "cycling-power"
    /// Body Composition Measurement 0x2A9C (BCS v1.0 §3.2): SI, body fat percentage in 0.1 % only.
    case bodyComposition = "body-composition"
    /// CGM Measurement 0x2AA7 (CGMS v1.0.1 §3.2): one record, mg/dL, time offset, E2E-CRC (the CGM Feature the
    /// service serves says it is supported, ``cgmFeature``).
    case continuousGlucose = "continuous-glucose"

    /// What reading number `n` (0-based) says, as a person reads it: each quantity's exact decimal text (the
    /// decoder's unit), its device time and record number where it has them, and the flags it sets.
    public func truth(number n: UInt64) -> MeasurementTruth {
        let n = Int(n % 100_000)
        switch self {
        case .heartRate:
            let rate = 60 + n * 7 % 40
            let rr = (60 * 1024 + rate / 2) / rate
            return MeasurementTruth(quantities: ["heart-rate": "\(rate)", "rr-interval": Self.fraction(rr, over: 1024)],
                                    flags: ["sensor-contact-detected"])
        case .bloodPressure:
            let (systolic, diastolic, pulse) = (110 + n % 30, 70 + n % 15, 60 + n % 25)
            return MeasurementTruth(quantities: ["systolic-pressure": "\(systolic)", "diastolic-pressure": "\(diastolic)",
                                                 "mean-arterial-pressure": "\(diastolic + (systolic - diastolic) / 3)", "pulse-rate": "\(pulse)"],
                                    deviceTime: MeasurementTruth.time(minutes: n),
                                    flags: n % 5 == 4 ? ["body-movement"] : [])
        case .temperature:
            let tenths = 365 + n % 20
            return MeasurementTruth(quantities: ["body-temperature": "\(tenths / 10).\(tenths % 10)"], deviceTime: MeasurementTruth.time(minutes: n))
        case .glucose:
            return MeasurementTruth(quantities: ["glucose-concentration": "\(Self.glucoseMilligramsPerDecilitre(n))"],
                                    deviceTime: MeasurementTruth.time(minutes: n), record: Int64(n + 1))
        case .pulseOximetry:
            return MeasurementTruth(quantities: ["spo2": "\(94 + n % 6)", "pulse-rate": "\(60 + n % 30)"])
        case .weight:
            let raw = 14_000 + n * 10
            return MeasurementTruth(quantities: ["body-weight": Self.fraction(raw * 5, over: 1000)], deviceTime: MeasurementTruth.time(minutes: n))
        case .cyclingSpeedCadence:
            return MeasurementTruth(quantities: ["wheel-revolutions": "\(n * 4)", "crank-revolutions": "\(n * 3 / 2)"])
        case .runningSpeedCadence:
            return MeasurementTruth(quantities: ["running-speed": Self.fraction(512 + n % 256, over: 256), "cadence": "\(80 + n % 40)",
                                                 "stride-length": Self.fraction(120 + n % 30, over: 100), "total-distance": Self.fraction(n * 25, over: 10)])
        case .cyclingPower:
            return MeasurementTruth(quantities: ["instantaneous-power": "\(150 + n % 100)"])
        case .bodyComposition:
            return MeasurementTruth(quantities: ["body-fat-percentage": Self.fraction(200 + n % 50, over: 10)])
        case .continuousGlucose:
            return MeasurementTruth(quantities: ["glucose-concentration": "\(100 + n % 80)"], record: Int64(n))
        }
    }

    /// The value's bytes as the spec lays them out.
    public func value(number n: UInt64) -> [UInt8] {
        let n = Int(n % 100_000)
        let truth = truth(number: UInt64(n))
        switch self {
        case .heartRate:
            let rate = 60 + n * 7 % 40
            let rr = (60 * 1024 + rate / 2) / rate
            // Flags 0x16: bits 1-2 = 0b11 sensor contact supported and detected, bit 4 RR present; bit 0 clear: uint8 rate.
            return [0x16, UInt8(rate)] + Self.le16(rr)
        case .bloodPressure:
            let (systolic, diastolic, pulse) = (110 + n % 30, 70 + n % 15, 60 + n % 25)
            let mean = diastolic + (systolic - diastolic) / 3
            // Flags 0x1E: bit 0 clear mmHg, bit 1 time stamp, bit 2 pulse rate, bit 3 user id, bit 4 measurement status.
            return [0x1E] + Self.sfloat(systolic) + Self.sfloat(diastolic) + Self.sfloat(mean) + truth.deviceTimeBytes
                + Self.sfloat(pulse) + [0x01] + Self.le16(n % 5 == 4 ? 0x0001 : 0x0000)
        case .temperature:
            // Flags 0x06: bit 0 clear °C, bit 1 time stamp, bit 2 temperature type. FLOAT: 24-bit mantissa, exponent −1.
            let tenths = 365 + n % 20
            return [0x06, UInt8(tenths & 0xFF), UInt8(tenths >> 8 & 0xFF), 0x00, 0xFF] + truth.deviceTimeBytes + [0x06]
        case .glucose:
            // Flags 0x02: type and sample location present; bit 2 clear: kg/L, so v mg/dL is v × 10⁻⁵ kg/L (SFLOAT
            // exponent −5 = 0xB). Type 1 capillary whole blood, location 1 finger: 0x11.
            let concentration = UInt16(0xB000) | UInt16(Self.glucoseMilligramsPerDecilitre(n))
            return [0x02] + Self.le16(n + 1) + truth.deviceTimeBytes + [UInt8(concentration & 0xFF), UInt8(concentration >> 8), 0x11]
        case .pulseOximetry:
            // Flags 0x00: only SpO2PR-Normal.
            return [0x00] + Self.sfloat(94 + n % 6) + Self.sfloat(60 + n % 30)
        case .weight:
            // Flags 0x02: SI, time stamp. Weight uint16 in 0.005 kg.
            return [0x02] + Self.le16(14_000 + n * 10) + truth.deviceTimeBytes
        case .cyclingSpeedCadence:
            // Flags 0x03: wheel and crank data. Event times in 1/1024 s, one second per value, wrapping at 64 s.
            let wheels = UInt32(n * 4)
            return [0x03, UInt8(wheels & 0xFF), UInt8(wheels >> 8 & 0xFF), UInt8(wheels >> 16 & 0xFF), UInt8(wheels >> 24)]
                + Self.le16(n * 1024 & 0xFFFF) + Self.le16(n * 3 / 2 & 0xFFFF) + Self.le16(n * 1024 & 0xFFFF)
        case .runningSpeedCadence:
            // Flags 0x03: stride length and total distance present; bit 2 clear: walking.
            let distance = UInt32(n * 25)
            return [0x03] + Self.le16(512 + n % 256) + [UInt8(80 + n % 40)] + Self.le16(120 + n % 30)
                + [UInt8(distance & 0xFF), UInt8(distance >> 8 & 0xFF), UInt8(distance >> 16 & 0xFF), UInt8(distance >> 24)]
        case .cyclingPower:
            // Flags 0x0000: instantaneous power (sint16) only.
            return [0x00, 0x00] + Self.le16(150 + n % 100)
        case .bodyComposition:
            // Flags 0x0000: SI, no optional field; body fat uint16 in 0.1 %.
            return [0x00, 0x00] + Self.le16(200 + n % 50)
        case .continuousGlucose:
            // Size 8 (6 + the E2E-CRC), flags 0, SFLOAT mg/dL exponent 0, time offset n minutes, then CRC-16/MCRF4XX
            // over the record before it (CGMS §3.2, E2E-CRC).
            let record = [0x08, 0x00] + Self.sfloat(100 + n % 80) + Self.le16(n & 0xFFFF)
            return record + Self.le16(Int(Self.mcrf4xx(record)))
        }
    }

    /// The CGM Feature 0x2AA8 the continuous-glucose service serves: features bit 12 (E2E-CRC supported), type
    /// interstitial fluid (9) at location subcutaneous tissue (5) = 0x59, and the CRC of those 4 octets (CGMS §3.3).
    public static var cgmFeature: [UInt8] {
        let octets: [UInt8] = [0x00, 0x10, 0x00, 0x59]
        return octets + le16(Int(mcrf4xx(octets)))
    }

    /// CRC-16/MCRF4XX: polynomial 0x1021 reflected (0x8408), initial 0xFFFF, no final XOR — the CRC CGMS names.
    static func mcrf4xx(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x8408 : crc >> 1 }
        }
        return crc
    }

    static func glucoseMilligramsPerDecilitre(_ n: Int) -> Int { 90 + n * 13 % 90 }

    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }

    /// A non-negative integer below 2048 as SFLOAT with exponent 0.
    static func sfloat(_ value: Int) -> [UInt8] { le16(value & 0x0FFF) }

    /// numerator/denominator as exact decimal text (the denominator a power of 2 or 10).
    static func fraction(_ numerator: Int, over denominator: Int) -> String {
        var digits = 0, scaled = numerator, d = denominator
        while d % 10 == 0 { d /= 10; digits += 1 }
        var pow2 = 0
        while d % 2 == 0 { d /= 2; pow2 += 1 }
        // n/2^k = n·5^k/10^k.
        for _ in 0..<pow2 { scaled *= 5 }
        digits += pow2
        let unit = (0..<digits).reduce(1) { r, _ in r * 10 }
        var fractional = String(scaled % unit)
        fractional = String(repeating: "0", count: digits - fractional.count) + fractional
        while fractional.hasSuffix("0") { fractional.removeLast() }
        return fractional.isEmpty ? "\(scaled / unit)" : "\(scaled / unit).\(fractional)"
    }
}

/// A reading's ground truth (see ``SimulatedMeasurement/truth(number:)``).
public struct MeasurementTruth: Sendable, Hashable {
    /// Metric name (fleetd's, `heart-rate`) → exact decimal text in the unit the device sends.
    public var quantities: [String: String]
    /// The device's time stamp as `YYYY-MM-DDTHH:MM:SS`, when the value carries one.
    public var deviceTime: String?
    public var record: Int64?
    public var flags: [String]

    public init(quantities: [String: String], deviceTime: String? = nil, record: Int64? = nil, flags: [String] = []) {
        self.quantities = quantities
        self.deviceTime = deviceTime
        self.record = record
        self.flags = flags
    }

    /// Reading `minutes` is stamped 2026-12-01 00:00 plus that many minutes (within December, wrapping every 30 days).
    static func time(minutes: Int) -> String {
        let m = minutes % (30 * 1440)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "2026-12-\(two(1 + m / 1440))T\(two(m / 60 % 24)):\(two(m % 60)):00"
    }

    /// The GSS Date Time layout (uint16 year, month, day, hours, minutes, seconds) of ``deviceTime``.
    var deviceTimeBytes: [UInt8] {
        guard let text = deviceTime else { return [] }
        let parts = text.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        return SimulatedMeasurement.le16(parts[0]) + parts.dropFirst().map { UInt8($0) }
    }
}
