import FoundationEssentials

/// One varlink method call: `{"method": …, "parameters": {…}, "more": …, "oneway": …}`, held as its JSON
/// text with the envelope decoded. Built from parts by a client, or from a received frame by the server,
/// which decodes `parameters` into the method's own type once it knows the method.
public struct VarlinkCall: Sendable {
    /// Fully qualified method name, e.g. `io.fleetd.Fleet.Status`.
    public let method: String
    /// The caller accepts several replies (`continues: true` on all but the last).
    public let more: Bool
    /// The caller wants no reply at all.
    public let oneway: Bool
    /// The call's JSON text (the frame without its NUL terminator).
    public let json: [UInt8]

    /// A call to send, its parameters encoded now.
    public init<Parameters: Encodable>(method: String, parameters: Parameters, more: Bool = false, oneway: Bool = false) throws(VarlinkError) {
        self.method = method
        self.more = more
        self.oneway = oneway
        json = try VarlinkJSON.encode(Envelope(method: method, parameters: parameters, more: more ? true : nil, oneway: oneway ? true : nil))
    }

    /// A call without parameters.
    public init(method: String, more: Bool = false, oneway: Bool = false) {
        self.method = method
        self.more = more
        self.oneway = oneway
        do {
            json = try VarlinkJSON.encoder.encode(Envelope(method: method, parameters: NoParameters(), more: more ? true : nil,
                                                          oneway: oneway ? true : nil)).map { $0 }
        } catch {
            preconditionFailure("a call of strings and bools always encodes: \(error)")
        }
    }

    /// What is wrong with a received frame.
    public enum FrameError: Error, Sendable, Equatable {
        /// Not JSON: the stream can no longer be trusted, so the connection is answered and closed.
        case notJSON(VarlinkError)
        /// Well-formed JSON that is not a call: answered, and the connection carries on.
        case notACall(VarlinkError)
    }

    /// Interprets a received frame (without its NUL). The whole frame must be JSON, members nobody reads
    /// included (a peer sending a broken escape or invalid UTF-8 anywhere is not speaking JSON, and its stream
    /// is not trusted further); only the envelope is read here, the parameters when the method is known.
    /// One pass of the hand parser (`JSONValue+Parsing`) does both: a whole-document check through JSONDecoder
    /// and a second decode of the envelope were 9 % of fleetd's CPU per Status call under FleetBench's storm.
    public init(frame: [UInt8]) throws(FrameError) {
        json = frame
        let document: JSONValue
        do { document = try JSONValue.parse(json) } catch { throw .notJSON(error) }
        guard case .object(let members) = document else { throw .notACall(.invalidRequest("a call must be a JSON object")) }
        guard case .string(let method)? = members["method"] else { throw .notACall(.invalidRequest("missing string member 'method'")) }
        guard !method.isEmpty else { throw .notACall(.invalidRequest("'method' must not be empty")) }
        self.method = method
        more = try Self.flag("more", in: members)
        oneway = try Self.flag("oneway", in: members)
        switch members["parameters"] {
        case nil, .null?, .object?: break
        case _?: throw .notACall(.invalidRequest("'parameters' must be an object"))
        }
    }

    /// An optional bool member of the envelope: absent or null is false.
    private static func flag(_ name: String, in members: [String: JSONValue]) throws(FrameError) -> Bool {
        switch members[name] {
        case nil, .null?: return false
        case .bool(let value)?: return value
        case _?: throw .notACall(.invalidRequest("'\(name)' must be a bool"))
        }
    }

    /// The call's parameters as the method's type. A missing or null `parameters` reads as `{}`.
    public func parameters<Parameters: Decodable>(as type: Parameters.Type) throws(VarlinkError) -> Parameters {
        let body = try VarlinkJSON.decode(Body<Parameters>.self, from: json, corrupt: .invalidParameter("parameters"))
        if let parameters = body.parameters { return parameters }
        return try VarlinkJSON.decode(type, from: Array("{}".utf8), corrupt: .invalidParameter("parameters"))
    }

    /// The interface part of `method` (everything before the last dot).
    public var interface: String {
        guard let dot = method.lastIndex(of: ".") else { return "" }
        return String(method[..<dot])
    }

    /// The member part of `method` (after the last dot).
    public var member: String {
        guard let dot = method.lastIndex(of: ".") else { return method }
        return String(method[method.index(after: dot)...])
    }

    /// The wire frame: the JSON text and its NUL terminator.
    public var frame: [UInt8] { json + [0] }

    private struct NoParameters: Encodable {}

    private struct Envelope<Parameters: Encodable>: Encodable {
        var method: String
        var parameters: Parameters
        var more: Bool?
        var oneway: Bool?
    }

    private struct Body<Parameters: Decodable>: Decodable {
        var parameters: Parameters?
    }
}

/// Decodes successfully from any JSON object, reading none of its members.
struct ObjectShape: Decodable {
    init(from decoder: any Decoder) throws { _ = try decoder.container(keyedBy: AnyCodingKey.self) }
}
