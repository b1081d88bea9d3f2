/// A JSON document as a value: what varlink messages are made of on the wire.
///
/// Numbers are kept as `Double` because varlink `int` and `float` share JSON's one number type;
/// integer accessors check that the value is integral and in range.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// The members of an object, or nil when this is not an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an array, or nil when this is not an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The text of a string, or nil when this is not a string.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The truth value of a bool, or nil when this is not a bool.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The number, or nil when this is not a number.
    public var doubleValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The number as an integer, or nil when it is not a number, not integral or out of `Int` range.
    public var intValue: Int? {
        guard case .number(let number) = self, number.rounded() == number,
              number >= -9.007_199_254_740_992e15, number <= 9.007_199_254_740_992e15 else { return nil }
        return Int(number)
    }

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Wraps an optional, using `.null` for nil.
    public static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// Wraps an optional number, using `.null` for nil.
    public static func optional(_ number: Double?) -> JSONValue { number.map(JSONValue.number) ?? .null }

    /// Wraps an optional integer, using `.null` for nil.
    public static func optional(_ number: Int?) -> JSONValue { number.map { .number(Double($0)) } ?? .null }

    /// Wraps an integer.
    public static func int(_ number: Int) -> JSONValue { .number(Double(number)) }
}
