internal import CDBus

/// Conversion between `DBusValue` and libdbus's `DBusMessageIter`, in both directions.
enum DBusMarshal {
    // MARK: Appending

    static func append(_ value: DBusValue, to iter: inout DBusMessageIter) throws(DBusError) {
        switch value {
        case .byte(let v): try basic(&iter, FLEET_DBUS_TYPE_BYTE, v)
        case .boolean(let v): try basic(&iter, FLEET_DBUS_TYPE_BOOLEAN, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): try basic(&iter, FLEET_DBUS_TYPE_INT16, v)
        case .uint16(let v): try basic(&iter, FLEET_DBUS_TYPE_UINT16, v)
        case .int32(let v): try basic(&iter, FLEET_DBUS_TYPE_INT32, v)
        case .uint32(let v): try basic(&iter, FLEET_DBUS_TYPE_UINT32, v)
        case .int64(let v): try basic(&iter, FLEET_DBUS_TYPE_INT64, v)
        case .uint64(let v): try basic(&iter, FLEET_DBUS_TYPE_UINT64, v)
        case .double(let v): try basic(&iter, FLEET_DBUS_TYPE_DOUBLE, v)
        case .unixFD(let v): try basic(&iter, FLEET_DBUS_TYPE_UNIX_FD, v)
        case .string(let s):
            try DBusName.validate(utf8: s)
            try text(&iter, FLEET_DBUS_TYPE_STRING, s)
        case .objectPath(let s):
            try DBusName.validate(path: s)
            try text(&iter, FLEET_DBUS_TYPE_OBJECT_PATH, s)
        case .signature(let s):
            _ = try DBusType.parseSignature(s)
            try text(&iter, FLEET_DBUS_TYPE_SIGNATURE, s)
        case .bytes(let bytes):
            try container(&iter, FLEET_DBUS_TYPE_ARRAY, "y") { (sub) throws(DBusError) in
                let ok = bytes.withUnsafeBufferPointer { buffer -> Bool in
                    var base = buffer.baseAddress
                    return withUnsafeMutablePointer(to: &base) {
                        dbus_message_iter_append_fixed_array(&sub, FLEET_DBUS_TYPE_BYTE, $0, Int32(buffer.count)) != 0
                    }
                }
                guard ok else { throw DBusError(.outOfMemory, "append_fixed_array failed") }
            }
        case .array(let element, let items):
            try container(&iter, FLEET_DBUS_TYPE_ARRAY, element.description) { (sub) throws(DBusError) in
                for item in items {
                    guard item.type == element else {
                        throw DBusError(.invalidArgument, "array of '\(element)' holds a '\(item.type)' value")
                    }
                    try append(item, to: &sub)
                }
            }
        case .dictionary(let key, let valueType, let entries):
            guard key.isBasic else { throw DBusError(.invalidArgument, "dictionary key type '\(key)' is not basic") }
            try container(&iter, FLEET_DBUS_TYPE_ARRAY, "{\(key)\(valueType)}") { (sub) throws(DBusError) in
                for entry in entries {
                    guard entry.key.type == key, entry.value.type == valueType else {
                        throw DBusError(.invalidArgument, "dictionary a{\(key)\(valueType)} holds an entry of '\(entry.key.type)' → '\(entry.value.type)'")
                    }
                    try container(&sub, FLEET_DBUS_TYPE_DICT_ENTRY, nil) { (pair) throws(DBusError) in
                        try append(entry.key, to: &pair)
                        try append(entry.value, to: &pair)
                    }
                }
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw DBusError(.invalidArgument, "a struct needs at least one field") }
            try container(&iter, FLEET_DBUS_TYPE_STRUCT, nil) { (sub) throws(DBusError) in
                for field in fields { try append(field, to: &sub) }
            }
        case .variant(let inner):
            try container(&iter, FLEET_DBUS_TYPE_VARIANT, inner.type.description) { (sub) throws(DBusError) in
                try append(inner, to: &sub)
            }
        }
    }

    private static func basic<T: BitwiseCopyable>(_ iter: inout DBusMessageIter, _ type: Int32, _ value: T) throws(DBusError) {
        var copy = value
        guard dbus_message_iter_append_basic(&iter, type, &copy) != 0 else {
            throw DBusError(.outOfMemory, "append_basic failed")
        }
    }

    private static func text(_ iter: inout DBusMessageIter, _ type: Int32, _ value: String) throws(DBusError) {
        let ok = value.withCString { cString -> Bool in
            var pointer: UnsafePointer<CChar>? = cString
            return dbus_message_iter_append_basic(&iter, type, &pointer) != 0
        }
        guard ok else { throw DBusError(.outOfMemory, "append_basic(string) failed") }
    }

    private static func container(_ iter: inout DBusMessageIter, _ type: Int32, _ signature: String?,
                                  _ body: (inout DBusMessageIter) throws(DBusError) -> Void) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) != 0 }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub) != 0
        }
        guard opened else { throw DBusError(.outOfMemory, "open_container failed") }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else {
            throw DBusError(.outOfMemory, "close_container failed")
        }
    }

    // MARK: Reading

    /// Decodes every value under the iterator. Strings go through `strings` (the connection's table of names it
    /// keeps receiving).
    /// `expected` bounds how many there are (a message's signature length, which is at least its count of
    /// top-level values): room made for them at once, as an array grown from empty by appending took a malloc
    /// per doubling — three for PropertiesChanged's three arguments, on every signal (issue 18).
    static func decodeAll(_ iter: inout DBusMessageIter, strings: DBusStringTable, expected: Int = 0) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        guard dbus_message_iter_get_arg_type(&iter) != FLEET_DBUS_TYPE_INVALID else { return values }
        values.reserveCapacity(min(expected, DBusMarshal.reservedValuesLimit))
        // `next` says whether it moved onto a value: asking the type again before each one cost a second walk of
        // the signature per value (libdbus's `_dbus_first_type_in_signature`, 2–3 % of fleetd's samples).
        repeat {
            values.append(try decodeOne(&iter, strings: strings))
        } while dbus_message_iter_next(&iter) != 0
        return values
    }

    /// The most room `decodeAll` makes ahead: a longer signature is a container-heavy one, where its length
    /// says little about the count.
    static let reservedValuesLimit = 8

    private static func get<T: BitwiseCopyable>(_ iter: inout DBusMessageIter, _ zero: T) -> T {
        var value = zero
        dbus_message_iter_get_basic(&iter, &value)
        return value
    }

    private static func getText(_ iter: inout DBusMessageIter, _ strings: DBusStringTable) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iter, &pointer)
        return strings.string(pointer) ?? ""
    }

    /// The full signature of the value under the iterator, used only when it cannot be inferred (empty containers).
    private static func currentType(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusType {
        guard let raw = dbus_message_iter_get_signature(&iter) else { throw DBusError(.outOfMemory, "get_signature failed") }
        defer { dbus_free(raw) }
        return try DBusType.parse(String(cString: raw))
    }

    static func decodeOne(_ iter: inout DBusMessageIter, strings: DBusStringTable) throws(DBusError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case FLEET_DBUS_TYPE_BYTE: return .byte(get(&iter, UInt8(0)))
        case FLEET_DBUS_TYPE_BOOLEAN: return .boolean(get(&iter, dbus_bool_t(0)) != 0)
        case FLEET_DBUS_TYPE_INT16: return .int16(get(&iter, Int16(0)))
        case FLEET_DBUS_TYPE_UINT16: return .uint16(get(&iter, UInt16(0)))
        case FLEET_DBUS_TYPE_INT32: return .int32(get(&iter, Int32(0)))
        case FLEET_DBUS_TYPE_UINT32: return .uint32(get(&iter, UInt32(0)))
        case FLEET_DBUS_TYPE_INT64: return .int64(get(&iter, Int64(0)))
        case FLEET_DBUS_TYPE_UINT64: return .uint64(get(&iter, UInt64(0)))
        case FLEET_DBUS_TYPE_DOUBLE: return .double(get(&iter, Double(0)))
        case FLEET_DBUS_TYPE_UNIX_FD: return .unixFD(get(&iter, Int32(-1)))
        case FLEET_DBUS_TYPE_STRING: return .string(getText(&iter, strings))
        case FLEET_DBUS_TYPE_OBJECT_PATH: return .objectPath(getText(&iter, strings))
        case FLEET_DBUS_TYPE_SIGNATURE: return .signature(getText(&iter, strings))
        case FLEET_DBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try decodeOne(&sub, strings: strings))
        case FLEET_DBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(try decodeAll(&sub, strings: strings))
        case FLEET_DBUS_TYPE_ARRAY:
            return try decodeArray(&iter, strings)
        default:
            throw DBusError(.invalidArgument, "unsupported D-Bus type code \(type)")
        }
    }

    private static func decodeArray(_ iter: inout DBusMessageIter, _ strings: DBusStringTable) throws(DBusError) -> DBusValue {
        let elementCode = dbus_message_iter_get_element_type(&iter)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        if elementCode == FLEET_DBUS_TYPE_BYTE {
            var base: UnsafeMutableRawPointer? = nil
            var count: Int32 = 0
            if dbus_message_iter_get_arg_type(&sub) != FLEET_DBUS_TYPE_INVALID {
                dbus_message_iter_get_fixed_array(&sub, &base, &count)
            }
            guard let base, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: Int(count))))
        }
        let empty = dbus_message_iter_get_arg_type(&sub) == FLEET_DBUS_TYPE_INVALID
        if elementCode == FLEET_DBUS_TYPE_DICT_ENTRY {
            var entries: [DBusDictEntry] = []
            if !empty {
                repeat {
                    var pair = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &pair)
                    let key = try decodeOne(&pair, strings: strings)
                    guard dbus_message_iter_next(&pair) != 0 else { throw DBusError(.invalidArgument, "dict entry without a value") }
                    let value = try decodeOne(&pair, strings: strings)
                    entries.append(DBusDictEntry(key, value))
                } while dbus_message_iter_next(&sub) != 0
            }
            if let first = entries.first, !needsSignature(first.value) {
                return .dictionary(key: first.key.type, value: first.value.type, entries)
            }
            guard case .dictionary(let k, let v) = try currentType(&iter) else {
                throw DBusError(.invalidArgument, "dict array without a dict signature")
            }
            return .dictionary(key: k, value: v, entries)
        }
        // An empty array of a basic type (PropertiesChanged's invalidated `as`, on every property signal) is
        // typed from its element code: asking libdbus for the signature costs a malloc, a string and a parse.
        if empty, let element = basicType(code: elementCode) { return .array(element, []) }
        let items = try decodeAll(&sub, strings: strings)
        if !empty, let first = items.first, !needsSignature(first) {
            return .array(first.type, items)
        }
        guard case .array(let element) = try currentType(&iter) else {
            throw DBusError(.invalidArgument, "array without an array signature")
        }
        return .array(element, items)
    }

    /// The basic type a type code names; nil for containers and variants.
    private static func basicType(code: Int32) -> DBusType? {
        switch code {
        case FLEET_DBUS_TYPE_BYTE: .byte
        case FLEET_DBUS_TYPE_BOOLEAN: .boolean
        case FLEET_DBUS_TYPE_INT16: .int16
        case FLEET_DBUS_TYPE_UINT16: .uint16
        case FLEET_DBUS_TYPE_INT32: .int32
        case FLEET_DBUS_TYPE_UINT32: .uint32
        case FLEET_DBUS_TYPE_INT64: .int64
        case FLEET_DBUS_TYPE_UINT64: .uint64
        case FLEET_DBUS_TYPE_DOUBLE: .double
        case FLEET_DBUS_TYPE_UNIX_FD: .unixFD
        case FLEET_DBUS_TYPE_STRING: .string
        case FLEET_DBUS_TYPE_OBJECT_PATH: .objectPath
        case FLEET_DBUS_TYPE_SIGNATURE: .signature
        default: nil
        }
    }

    /// Whether a decoded value's inferred type may differ from the declared one (an empty nested container).
    private static func needsSignature(_ value: DBusValue) -> Bool {
        switch value {
        case .array(_, let items): items.isEmpty || items.contains(where: needsSignature)
        case .dictionary(_, _, let entries): entries.isEmpty
        case .structure(let fields): fields.contains(where: needsSignature)
        default: false
        }
    }
}
