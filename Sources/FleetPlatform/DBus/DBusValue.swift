/// A D-Bus value of any type BlueZ uses, as a Sendable Swift value.
///
/// Decoding always yields `.bytes` for `ay` (the hot type: ManufacturerData, characteristic values).
/// Arrays and dictionaries carry their element types so that empty ones marshal correctly.
/// Only `variant` is boxed (the one case that holds a `DBusValue` directly); the others sit inline, so decoding a
/// signal does not allocate a box per value (issue 18: an `indirect enum` cost six mallocs per RSSI signal).
public enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor. A received one is owned by the receiver, who must close it.
    case unixFD(Int32)
    case bytes([UInt8])
    case array(DBusType, [DBusValue])
    case dictionary(key: DBusType, value: DBusType, [DBusDictEntry])
    case structure([DBusValue])
    indirect case variant(DBusValue)

    /// The value's D-Bus type.
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .bytes: .array(.byte)
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .structure(let fields): .structure(fields.map(\.type))
        case .variant: .variant
        }
    }
}

/// One key/value pair of a D-Bus dictionary (`a{..}`), kept in wire order.
public struct DBusDictEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue
    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}
