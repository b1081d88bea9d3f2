/// Reads a characteristic value field by field, little-endian as GATT sends it, checking the remaining length
/// before every read (BlueZ's `profiles/heartrate` discipline) and naming the field in every error.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    public let characteristic: AssignedNumber
    public private(set) var offset: Int

    public init(_ bytes: [UInt8], characteristic: AssignedNumber, offset: Int = 0) {
        self.bytes = bytes
        self.characteristic = characteristic
        self.offset = offset
    }

    public var remaining: Int { bytes.count - offset }
    public var isAtEnd: Bool { offset >= bytes.count }

    /// The error for `field` at the current offset (or at `offset` when given).
    public func error(_ field: String, _ problem: ProfileDecodeError.Problem, at offset: Int? = nil) -> ProfileDecodeError {
        ProfileDecodeError(characteristic: characteristic, field: field, offset: offset ?? self.offset, problem: problem)
    }

    private mutating func take(_ count: Int, _ field: String) throws(ProfileDecodeError) -> Int {
        guard remaining >= count else { throw error(field, .tooShort(needed: count, available: max(0, remaining))) }
        let start = offset
        offset += count
        return start
    }

    public mutating func uint8(_ field: String) throws(ProfileDecodeError) -> UInt8 {
        let at = try take(1, field)
        return bytes[at]
    }

    public mutating func int8(_ field: String) throws(ProfileDecodeError) -> Int8 {
        Int8(bitPattern: try uint8(field))
    }

    public mutating func uint16(_ field: String) throws(ProfileDecodeError) -> UInt16 {
        let at = try take(2, field)
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    public mutating func int16(_ field: String) throws(ProfileDecodeError) -> Int16 {
        Int16(bitPattern: try uint16(field))
    }

    public mutating func uint24(_ field: String) throws(ProfileDecodeError) -> UInt32 {
        let at = try take(3, field)
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
    }

    public mutating func uint32(_ field: String) throws(ProfileDecodeError) -> UInt32 {
        let at = try take(4, field)
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    public mutating func int32(_ field: String) throws(ProfileDecodeError) -> Int32 {
        Int32(bitPattern: try uint32(field))
    }

    /// A 16-bit IEEE 11073 SFLOAT.
    public mutating func sfloat(_ field: String) throws(ProfileDecodeError) -> MeasurementValue {
        MeasurementValue.sfloat(try uint16(field))
    }

    /// A 32-bit IEEE 11073 FLOAT.
    public mutating func float(_ field: String) throws(ProfileDecodeError) -> MeasurementValue {
        MeasurementValue.float(try uint32(field))
    }

    /// `count` raw bytes.
    public mutating func bytes(_ count: Int, _ field: String) throws(ProfileDecodeError) -> [UInt8] {
        let at = try take(count, field)
        return Array(bytes[at..<(at + count)])
    }

    /// Everything left.
    public mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return offset < bytes.count ? Array(bytes[offset...]) : []
    }

    /// A Date Time (0x2A08 layout, 7 bytes: year uint16, month, day, hours, minutes, seconds), each field checked
    /// against the range the GATT Specification Supplement gives it (0 = unknown for year, month and day).
    public mutating func dateTime(_ field: String) throws(ProfileDecodeError) -> DeviceTime {
        let start = offset
        let year = try uint16(field + ".year")
        let month = try uint8(field + ".month")
        let day = try uint8(field + ".day")
        let hours = try uint8(field + ".hours")
        let minutes = try uint8(field + ".minutes")
        let seconds = try uint8(field + ".seconds")
        if year != 0 && !(1582...9999).contains(year) { throw error(field + ".year", .outOfRange(value: Int64(year)), at: start) }
        if month > 12 { throw error(field + ".month", .outOfRange(value: Int64(month)), at: start + 2) }
        if day > 31 { throw error(field + ".day", .outOfRange(value: Int64(day)), at: start + 3) }
        if hours > 23 { throw error(field + ".hours", .outOfRange(value: Int64(hours)), at: start + 4) }
        if minutes > 59 { throw error(field + ".minutes", .outOfRange(value: Int64(minutes)), at: start + 5) }
        if seconds > 59 { throw error(field + ".seconds", .outOfRange(value: Int64(seconds)), at: start + 6) }
        return DeviceTime(year: Int(year), month: Int(month), day: Int(day), hours: Int(hours), minutes: Int(minutes), seconds: Int(seconds))
    }

    /// Throws `trailingBytes` when anything is left: the flags announced fewer fields than the value holds.
    public func finish() throws(ProfileDecodeError) {
        if remaining > 0 { throw error("end", .trailingBytes(count: remaining)) }
    }
}
