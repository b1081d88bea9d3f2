import FoundationEssentials

/// The protocol's JSON codec for typed values: Foundation's `JSONEncoder` and `JSONDecoder`, chosen over a
/// hand-written codec by ControlBench's figures (`make bench`). Failures come back as the varlink errors a peer
/// should see. Untyped documents read as they came are parsed by hand (`JSONValue+Parsing`, and why).
enum VarlinkJSON {
    /// Sorted members make frames reproducible (tests compare them, people diff them); slashes stay as they are.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let prettyEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return encoder
    }()

    static let decoder = JSONDecoder()

    /// Encodes `value`; a value JSON cannot carry (a NaN or infinite float) is an `io.fleetd.Fleet.Failed` error.
    static func encode<Value: Encodable>(_ value: Value) throws(VarlinkError) -> [UInt8] {
        do {
            return Array(try encoder.encode(value))
        } catch {
            throw FleetControlError.failed("cannot encode \(Value.self) as JSON: \(error)").varlinkError
        }
    }

    /// Encodes a `JSONValue`, which cannot fail: its non-finite numbers are written as null.
    static func encodeNeverFailing(_ value: JSONValue, pretty: Bool = false) -> [UInt8] {
        do {
            return Array(try (pretty ? prettyEncoder : encoder).encode(value))
        } catch {
            preconditionFailure("JSONValue.encode(to:) writes only encodable values: \(error)")
        }
    }

    /// Decodes `bytes`. A member of the wrong type, missing or unusable is `InvalidParameter` naming it
    /// (`devices[3].state`, leading `parameters.` dropped); a document that is not JSON at all is `corrupt`.
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8], corrupt: VarlinkError = .invalidRequest("not valid JSON"))
        throws(VarlinkError) -> Value {
        do {
            return try decoder.decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw failure(error, corrupt: corrupt)
        } catch {
            throw corrupt
        }
    }

    static func failure(_ error: DecodingError, corrupt: VarlinkError) -> VarlinkError {
        switch error {
        case .keyNotFound(let key, let context): return .invalidParameter(name(context.codingPath + [key]))
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return context.codingPath.isEmpty ? corrupt : .invalidParameter(name(context.codingPath))
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? corrupt : .invalidParameter(name(context.codingPath))
        @unknown default: return corrupt
        }
    }

    /// `devices[3].state` from a coding path, without the envelope's `parameters` key.
    static func name(_ path: [any CodingKey]) -> String {
        var text = ""
        for (position, key) in path.enumerated() {
            if position == 0, key.stringValue == "parameters" { continue }
            if let index = key.intValue { text += "[\(index)]"; continue }
            text += text.isEmpty ? key.stringValue : "." + key.stringValue
        }
        return text.isEmpty ? "parameters" : text
    }
}

/// A coding key made from any string, for decoding an object whose members are not fixed.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
