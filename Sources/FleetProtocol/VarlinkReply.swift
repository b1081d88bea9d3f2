/// One varlink reply: `{"parameters": {…}, "continues": …, "error": …}`, held as its JSON text with the
/// envelope decoded. Encoded once by the server (so its buffers hold bytes), decoded by a client into the
/// method's reply type.
public struct VarlinkReply: Sendable {
    /// More replies to the same call follow.
    public let continues: Bool
    /// Fully qualified error name; nil for a successful reply.
    public let error: String?
    /// The reply's JSON text (the frame without its NUL terminator).
    public let json: [UInt8]

    /// A successful reply carrying `parameters` (a value JSON cannot hold is a `Failed` error).
    public init<Parameters: Encodable>(parameters: Parameters, continues: Bool = false) throws(VarlinkError) {
        self.continues = continues
        error = nil
        json = try VarlinkJSON.encode(Envelope(parameters: parameters, continues: continues ? true : nil, error: nil))
    }

    /// An error reply; always encodable.
    public init(error: VarlinkError) {
        continues = false
        self.error = error.name
        json = VarlinkJSON.encodeNeverFailing(.object(["parameters": .object(error.parameters), "error": .string(error.name)]))
    }

    /// Interprets a received frame (without its NUL); anything that is not a reply envelope is `InvalidRequest`.
    public init(frame: [UInt8]) throws(VarlinkError) {
        json = frame
        let header = try VarlinkJSON.decode(Header.self, from: json)
        continues = header.continues ?? false
        error = header.error
    }

    /// Decodes a received frame (without its NUL) and, unless it is an error reply, its parameters as `type`,
    /// in one pass over the JSON (`VarlinkReply(frame:)` then `parameters(as:)` reads it twice).
    public static func decode<Parameters: Decodable>(frame json: [UInt8], as type: Parameters.Type)
        throws(VarlinkError) -> (reply: VarlinkReply, parameters: Parameters?) {
        let whole = try VarlinkJSON.decode(Whole<Parameters>.self, from: json)
        let reply = VarlinkReply(continues: whole.continues ?? false, error: whole.error, json: json)
        guard whole.error == nil else { return (reply, nil) }
        if let parameters = whole.parameters { return (reply, parameters) }
        return (reply, try VarlinkJSON.decode(type, from: Array("{}".utf8), corrupt: .invalidParameter("parameters")))
    }

    init(continues: Bool, error: String?, json: [UInt8]) {
        self.continues = continues
        self.error = error
        self.json = json
    }

    /// The reply's parameters as `type`; a missing or null `parameters` reads as `{}`.
    public func parameters<Parameters: Decodable>(as type: Parameters.Type) throws(VarlinkError) -> Parameters {
        let body = try VarlinkJSON.decode(Body<Parameters>.self, from: json, corrupt: .invalidParameter("parameters"))
        if let parameters = body.parameters { return parameters }
        return try VarlinkJSON.decode(type, from: Array("{}".utf8), corrupt: .invalidParameter("parameters"))
    }

    /// The parameters as they came, members this side does not know included; a missing or null `parameters`
    /// reads as `{}`, parameters that are not an object are `InvalidParameter`. Parsed by hand, not decoded
    /// (`JSONValue+Parsing`: the decoder's failed tries cost more than the reply).
    public func parametersAsSent() throws(VarlinkError) -> [String: JSONValue] {
        try Self.parameters(of: Self.envelope(json))
    }

    /// Interprets a received frame and takes its parameters as they came, in one pass of the hand parser: what
    /// `init(frame:)` then `parametersAsSent()` give, without reading the JSON twice (the first time through
    /// JSONDecoder; 11 % of FleetBench's client CPU per Status call).
    public static func parseAsSent(frame json: [UInt8]) throws(VarlinkError) -> (reply: VarlinkReply, parameters: [String: JSONValue]) {
        let envelope = try envelope(json)
        let continues: Bool
        switch envelope["continues"] {
        case nil, .null?: continues = false
        case .bool(let flag)?: continues = flag
        case _?: throw .invalidParameter("continues")
        }
        let error: String?
        switch envelope["error"] {
        case nil, .null?: error = nil
        case .string(let name)?: error = name
        case _?: throw .invalidParameter("error")
        }
        return (VarlinkReply(continues: continues, error: error, json: json), try parameters(of: envelope))
    }

    private static func envelope(_ json: [UInt8]) throws(VarlinkError) -> [String: JSONValue] {
        guard case .object(let envelope) = try JSONValue.parse(json) else { throw .invalidRequest("not valid JSON: a reply that is not an object") }
        return envelope
    }

    private static func parameters(of envelope: [String: JSONValue]) throws(VarlinkError) -> [String: JSONValue] {
        switch envelope["parameters"] {
        case nil, .null?: return [:]
        case .object(let members)?: return members
        case _?: throw .invalidParameter("parameters")
        }
    }

    /// The parameters as they came, whatever their shape (empty when they are not an object).
    public var untypedParameters: [String: JSONValue] { (try? parametersAsSent()) ?? [:] }

    /// The error this reply carries, if it is an error reply.
    public var varlinkError: VarlinkError? { error.map { VarlinkError(name: $0, parameters: untypedParameters) } }

    /// The wire frame: the JSON text and its NUL terminator.
    public var frame: [UInt8] { json + [0] }

    private struct Envelope<Parameters: Encodable>: Encodable {
        var parameters: Parameters
        var continues: Bool?
        var error: String?
    }

    private struct Header: Decodable {
        var continues: Bool?
        var error: String?
        var parameters: ObjectShape?
    }

    private struct Body<Parameters: Decodable>: Decodable {
        var parameters: Parameters?
    }

    /// The envelope with typed parameters, which are left unread in an error reply (they have the error's shape).
    private struct Whole<Parameters: Decodable>: Decodable {
        var continues: Bool?
        var error: String?
        var parameters: Parameters?

        private enum CodingKeys: String, CodingKey { case continues, error, parameters }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            continues = try container.decodeIfPresent(Bool.self, forKey: .continues)
            error = try container.decodeIfPresent(String.self, forKey: .error)
            parameters = error == nil ? try container.decodeIfPresent(Parameters.self, forKey: .parameters) : nil
        }
    }
}
