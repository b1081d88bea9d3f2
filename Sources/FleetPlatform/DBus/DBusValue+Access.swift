/// Typed accessors and builders for the shapes BlueZ uses. Accessors return nil on a type mismatch, and
/// the `require…` forms throw a `DBusError` naming what was expected, for validating replies.
extension DBusValue {
    /// The value inside a variant (or the value itself when it is not one).
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }

    public var bool: Bool? {
        if case .boolean(let b) = unwrapped { return b }
        return nil
    }

    /// Any integer type widened to Int64.
    public var integer: Int64? {
        switch unwrapped {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): v <= UInt64(Int64.max) ? Int64(v) : nil
        default: nil
        }
    }

    public var bytes: [UInt8]? {
        switch unwrapped {
        case .bytes(let b): return b
        case .array(.byte, let items):
            var out: [UInt8] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard case .byte(let b) = item else { return nil }
                out.append(b)
            }
            return out
        default: return nil
        }
    }

    /// The elements of an array of any element type.
    public var arrayItems: [DBusValue]? {
        switch unwrapped {
        case .array(_, let items): items
        case .bytes(let b): b.map { .byte($0) }
        default: nil
        }
    }

    public var stringArray: [String]? {
        guard let items = arrayItems else { return nil }
        var out: [String] = []
        for item in items {
            guard let s = item.string else { return nil }
            out.append(s)
        }
        return out
    }

    public var dictEntries: [DBusDictEntry]? {
        if case .dictionary(_, _, let entries) = unwrapped { return entries }
        return nil
    }

    /// An `a{s…}` dictionary keyed by string; variant values stay wrapped (use `.unwrapped`).
    public var stringKeyed: [String: DBusValue]? {
        guard let entries = dictEntries else { return nil }
        var out: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.string else { return nil }
            out[key] = entry.value
        }
        return out
    }

    /// An `a{q…}` dictionary keyed by UInt16 (BlueZ's ManufacturerData).
    public var uint16Keyed: [UInt16: DBusValue]? {
        guard let entries = dictEntries else { return nil }
        var out: [UInt16: DBusValue] = [:]
        for entry in entries {
            guard case .uint16(let key) = entry.key else { return nil }
            out[key] = entry.value
        }
        return out
    }

    /// Builds an `a{sv}` dictionary; keys are sorted so output is deterministic.
    public static func vardict(_ values: [String: DBusValue]) -> DBusValue {
        .dictionary(key: .string, value: .variant, values.keys.sorted().map { DBusDictEntry(.string($0), .variant(values[$0]!)) })
    }

    /// Builds an `as` array.
    public static func strings(_ values: [String]) -> DBusValue {
        .array(.string, values.map { .string($0) })
    }

    /// Builds an `ao` array.
    public static func objectPaths(_ values: [String]) -> DBusValue {
        .array(.objectPath, values.map { .objectPath($0) })
    }
}

extension Array where Element == DBusValue {
    /// The signature of these values laid end to end, as on the wire.
    public var signature: String { map(\.type.description).joined() }

    /// Throws unless these values have exactly the given signature: the check that keeps a malformed reply
    /// from being misread.
    public func require(signature expected: String, in context: String) throws(DBusError) -> [DBusValue] {
        let actual = signature
        guard actual == expected else {
            throw DBusError(.unexpectedSignature, "\(context): expected signature '\(expected)', got '\(actual)'")
        }
        return self
    }
}
