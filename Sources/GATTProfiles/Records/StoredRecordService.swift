/// A service whose device keeps records and hands them over through the RACP: where the records come, how each is
/// keyed, and the RACP filter type that selects by that key.
public struct StoredRecordService: Sendable, Hashable, CustomStringConvertible {
    public var service: AssignedNumber
    /// The characteristic the records are notified on.
    public var measurement: AssignedNumber
    /// A characteristic that may follow a record with more about it (GLS: Glucose Measurement Context).
    public var context: AssignedNumber?
    /// The RACP filter type that selects by this service's record key.
    public var filterType: UInt8
    /// `glucose` or `cgm`, as `fleetctl records` and the store name it.
    public var name: String

    /// GLS v1.0.1: records on Glucose Measurement 0x2A18, keyed by Sequence Number (GLS §3.4.1 filter type 0x01), a
    /// Glucose Measurement Context 0x2A34 with the same sequence number after a record whose flag bit 4 is set.
    public static let glucose = StoredRecordService(service: AssignedNumber(0x1808), measurement: GlucoseMeasurement.characteristic,
                                                    context: AssignedNumber(0x2A34), filterType: 0x01, name: "glucose")
    /// CGMS v1.0.1: records on CGM Measurement 0x2AA7, keyed by Time Offset (minutes since the session start; CGMS
    /// §3.8.1 filter type 0x01), several records to a value, no context.
    public static let continuousGlucose = StoredRecordService(service: AssignedNumber(0x181F), measurement: AssignedNumber(0x2AA7),
                                                              context: nil, filterType: 0x01, name: "cgm")

    public static let all = [glucose, continuousGlucose]

    public var description: String { name }

    /// The records in one notified value of `characteristic` (the measurement or the context), each with its key.
    /// A value too short to hold its key is a typed error naming the field; the raw value is delivered regardless.
    public func records(in bytes: [UInt8], on characteristic: AssignedNumber) throws(ProfileDecodeError) -> [StoredRecord] {
        if characteristic == context {
            // GLS §3.4 / GSS "Glucose Measurement Context": Flags (uint8), Sequence Number (uint16), …
            var reader = ByteReader(bytes, characteristic: characteristic)
            _ = try reader.uint8("flags")
            return [StoredRecord(key: try reader.uint16("sequence-number"), isContext: true, contextFollows: false, bytes: bytes)]
        }
        guard characteristic == measurement else { return [] }
        if self == .glucose {
            // GSS "Glucose Measurement": Flags (uint8; bit 4 context follows), Sequence Number (uint16), …
            var reader = ByteReader(bytes, characteristic: characteristic)
            let flags = try reader.uint8("flags")
            let key = try reader.uint16("sequence-number")
            return [StoredRecord(key: key, isContext: false, contextFollows: flags & GlucoseMeasurement.contextFollows != 0, bytes: bytes)]
        }
        // GSS "CGM Measurement": one or more records, each Size (uint8, the record's own length), Flags (uint8),
        // Glucose Concentration (SFLOAT), Time Offset (uint16), …
        var records: [StoredRecord] = []
        var start = 0
        repeat {
            var reader = ByteReader(bytes, characteristic: characteristic, offset: start)
            let size = Int(try reader.uint8("size"))
            guard size >= 6 else { throw reader.error("size", .outOfRange(value: Int64(size)), at: start) }
            guard start + size <= bytes.count else {
                throw reader.error("size", .tooShort(needed: size, available: bytes.count - start), at: start)
            }
            _ = try reader.uint8("flags")
            _ = try reader.uint16("glucose-concentration")
            let key = try reader.uint16("time-offset")
            records.append(StoredRecord(key: key, isContext: false, contextFollows: false, bytes: Array(bytes[start..<(start + size)])))
            start += size
        } while start < bytes.count
        return records
    }
}

/// One record as a device sent it: its key, and its own bytes (an anchor to recognise it by on the next sync).
public struct StoredRecord: Sendable, Hashable {
    /// Sequence number (glucose) or time offset (CGM).
    public var key: UInt16
    /// A Glucose Measurement Context, not a measurement.
    public var isContext: Bool
    /// The measurement says a context with the same key follows (GLS flag bit 4).
    public var contextFollows: Bool
    public var bytes: [UInt8]

    public init(key: UInt16, isContext: Bool, contextFollows: Bool, bytes: [UInt8]) {
        self.key = key
        self.isContext = isContext
        self.contextFollows = contextFollows
        self.bytes = bytes
    }
}
