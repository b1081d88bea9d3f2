/// The records a stored-record glucose meter (GLS v1.0.1) holds, as bytes a test can recompute: each is a Glucose
/// Measurement 0x2A18 (GSS §3.106) laid out as ``SimulatedMeasurement/glucose`` lays it out, with the record's
/// sequence number and the base time the meter's clock read when it was taken.
///
/// Record `k` of a meter loaded with `records=N` is stamped ``preloadEpoch`` + (k − 1) minutes (+ any clock drift),
/// so without drift its bytes are exactly `SimulatedMeasurement.glucose.value(number: k − 1)`.
public enum GlucoseRecords {
    /// 2026-12-01T00:00:00 as Unix seconds: the stamp of preloaded record 1 (the stream's reading 0).
    public static let preloadEpoch: Int64 = days(2026, 12, 1) * 86_400
    /// 2026-01-01T00:00:00 as Unix seconds: where a meter's clock starts after a battery change (`sequence-reset`).
    public static let factoryClock: Int64 = days(2026, 1, 1) * 86_400

    /// The 0x2A18 value of the record with this sequence number, stamped `time` (Unix seconds, the meter's clock).
    /// Flags 0x02 (type and sample location present, kg/L), sequence number uint16 LE (octets 1–2), base time
    /// (octets 3–9, GSS Date Time), concentration SFLOAT kg/L, type/location 0x11: the concentration is the
    /// stream's for reading `sequence − 1`.
    public static func record(sequence: UInt16, time: Int64) -> [UInt8] {
        let reading = Int(sequence == 0 ? 0 : sequence - 1)
        let concentration = UInt16(0xB000) | UInt16(SimulatedMeasurement.glucoseMilligramsPerDecilitre(reading % 100_000))
        return [0x02] + SimulatedMeasurement.le16(Int(sequence)) + dateTime(time)
            + [UInt8(concentration & 0xFF), UInt8(concentration >> 8), 0x11]
    }

    /// The CGM Measurement 0x2AA7 (CGMS v1.0.1 §3.2) a CGM with `records=` sends for the record at this time offset
    /// in its `session` (0 until the first `sequence-reset`): ``SimulatedMeasurement/continuousGlucose``'s layout
    /// (size 8, flags 0, SFLOAT mg/dL, time offset uint16 LE at octets 4–5, E2E-CRC), the concentration that of
    /// reading `timeOffset + 7 × session`, so session 0's record at offset k is `continuousGlucose.value(number: k)`
    /// and a new session's records differ from the old ones at the same offsets.
    public static func cgmRecord(timeOffset: UInt16, session: Int) -> [UInt8] {
        let n = Int(timeOffset) + 7 * session
        let record = [0x08, 0x00] + SimulatedMeasurement.sfloat(100 + n % 80) + SimulatedMeasurement.le16(Int(timeOffset))
        return record + SimulatedMeasurement.le16(Int(SimulatedMeasurement.mcrf4xx(record)))
    }

    /// The stamp of preloaded record `sequence` with the meter's clock `drift` seconds off.
    public static func preloadedTime(sequence: UInt16, drift: Int64 = 0) -> Int64 {
        preloadEpoch + Int64(max(0, Int(sequence) - 1)) * 60 + drift
    }

    /// GSS Date Time (uint16 LE year, month, day, hours, minutes, seconds) of Unix seconds, proleptic Gregorian.
    public static func dateTime(_ unix: Int64) -> [UInt8] {
        let day = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let second = unix - day * 86_400
        let (y, m, d) = civil(day)
        return SimulatedMeasurement.le16(y) + [UInt8(m), UInt8(d), UInt8(second / 3600), UInt8(second / 60 % 60), UInt8(second % 60)]
    }

    // Howard Hinnant's days_from_civil / civil_from_days: exact for every date, no Foundation calendar.
    static func days(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return Int64(era * 146_097 + doe - 719_468)
    }

    static func civil(_ days: Int64) -> (Int, Int, Int) {
        let z = Int(days) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

/// A meter's stored-record settings (device keys `records=`, `record-every=`, `record-pace=`, `racp=`, `clock-drift=`).
public struct StoredRecordsSpec: Sendable, Hashable {
    /// Records 1…count are held when the device appears.
    public var count: Int
    /// A new record is taken this often (simulator time), linked or not.
    public var every: Duration?
    /// The gap between records of a Report Stored Records transfer (and before the first).
    public var pace: Duration
    public var quirks: Set<RACPQuirk>
    /// Seconds the meter's clock runs ahead of (negative: behind) the simulator's.
    public var clockDrift: Int64

    public init(count: Int = 0, every: Duration? = nil, pace: Duration = .milliseconds(20), quirks: Set<RACPQuirk> = [], clockDrift: Int64 = 0) {
        self.count = count
        self.every = every
        self.pace = pace
        self.quirks = quirks
        self.clockDrift = clockDrift
    }
}

/// Ways real meters get RACP wrong (xDrip+'s field notes), each a `racp=` flag.
public enum RACPQuirk: String, Sendable, Hashable, CaseIterable {
    /// "≥" is answered Operator Not Supported (0x04).
    case noGreaterOrEqual = "no-greater-or-equal"
    /// Report Number of Stored Records is answered Op Code Not Supported (0x02).
    case noCount = "no-count"
    /// A "≥" report sends every stored record, then success.
    case wholeHistory = "whole-history"

    /// `a,b,c` or `none`.
    public static func list(_ text: String) -> Set<RACPQuirk>? {
        if text == "none" || text.isEmpty { return [] }
        var out: Set<RACPQuirk> = []
        for item in text.split(separator: ",") {
            guard let quirk = RACPQuirk(rawValue: String(item)) else { return nil }
            out.insert(quirk)
        }
        return out
    }
}
