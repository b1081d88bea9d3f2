/// One varlink reply: `{"parameters": {…}, "continues": …, "error": …}`.
public struct VarlinkReply: Sendable, Equatable {
    public var parameters: [String: JSONValue]
    /// More replies to the same call follow.
    public var continues: Bool
    /// Fully qualified error name; nil for a successful reply.
    public var error: String?

    public init(parameters: [String: JSONValue] = [:], continues: Bool = false, error: String? = nil) {
        self.parameters = parameters
        self.continues = continues
        self.error = error
    }

    public init(error: VarlinkError) {
        self.init(parameters: error.parameters, error: error.name)
    }

    /// The error this reply carries, if it is an error reply.
    public var varlinkError: VarlinkError? { error.map { VarlinkError(name: $0, parameters: parameters) } }

    public var json: JSONValue {
        var members: [String: JSONValue] = ["parameters": .object(parameters)]
        if continues { members["continues"] = .bool(true) }
        if let error { members["error"] = .string(error) }
        return .object(members)
    }

    /// The wire frame: compact JSON followed by the NUL terminator.
    public var frame: [UInt8] { json.serializedBytes + [0] }

    /// Interprets a decoded reply frame.
    public init(json: JSONValue) throws(VarlinkError) {
        guard let members = json.objectValue else { throw .invalidRequest("a reply must be a JSON object") }
        switch members["parameters"] {
        case nil, .null?: parameters = [:]
        case .object(let values)?: parameters = values
        default: throw .invalidRequest("reply 'parameters' must be an object")
        }
        continues = members["continues"]?.boolValue ?? false
        switch members["error"] {
        case nil, .null?: error = nil
        case .string(let name)?: error = name
        default: throw .invalidRequest("reply 'error' must be a string")
        }
    }
}
