/// Any JSON document as a value: for the parts of a varlink message that have no fixed shape (an error's
/// parameters, a reply a client prints as it came, or a test's ad-hoc call).
///
/// Coded through Foundation's `JSONEncoder`/`JSONDecoder` like every typed value of the protocol. Numbers are
/// kept as `Double` because varlink `int` and `float` share JSON's one number type; `intValue` checks that a
/// number is integral and in range.
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

    /// The number as an integer, or nil when it is not a number, not integral or beyond 2^53 (where a
    /// `Double` stops holding every integer).
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

    /// Wraps an integer.
    public static func int(_ number: Int) -> JSONValue { .number(Double(number)) }
}

extension JSONValue: Codable {
    /// Nesting deeper than this is refused, so decoding a hostile document cannot exhaust a thread's stack.
    public static let maximumDepth = 64

    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count < Self.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "nesting deeper than \(Self.maximumDepth)"))
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        // JSON has no NaN or infinity; an error's parameters must still go out, so such a number is null.
        case .number(let number): if number.isFinite { try container.encode(number) } else { try container.encodeNil() }
        case .string(let text): try container.encode(text)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}

extension JSONValue {
    /// The compact JSON text, object members sorted so output is reproducible (`fleetctl watch --json`).
    public var serialized: String { String(decoding: VarlinkJSON.encodeNeverFailing(self), as: UTF8.self) }

    /// An indented rendering with sorted members, for humans (`fleetctl --json`).
    public var prettyPrinted: String { String(decoding: VarlinkJSON.encodeNeverFailing(self, pretty: true), as: UTF8.self) }
}
