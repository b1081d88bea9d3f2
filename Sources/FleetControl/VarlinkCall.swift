/// One varlink method call as received: `{"method": …, "parameters": {…}, "more": …, "oneway": …}`.
public struct VarlinkCall: Sendable, Equatable {
    /// Fully qualified method name, e.g. `io.fleetd.Fleet.Status`.
    public var method: String
    public var parameters: [String: JSONValue]
    /// The caller accepts several replies (`continues: true` on all but the last).
    public var more: Bool
    /// The caller wants no reply at all.
    public var oneway: Bool

    public init(method: String, parameters: [String: JSONValue] = [:], more: Bool = false, oneway: Bool = false) {
        self.method = method
        self.parameters = parameters
        self.more = more
        self.oneway = oneway
    }

    /// Interprets a decoded frame; anything that is not a well-formed call is `InvalidRequest`.
    public init(json: JSONValue) throws(VarlinkError) {
        guard let members = json.objectValue else { throw .invalidRequest("a call must be a JSON object") }
        guard let method = members["method"]?.stringValue, !method.isEmpty else {
            throw .invalidRequest("missing string member 'method'")
        }
        self.method = method
        switch members["parameters"] {
        case nil, .null?: parameters = [:]
        case .object(let values)?: parameters = values
        default: throw .invalidRequest("'parameters' must be an object")
        }
        func flag(_ key: String) throws(VarlinkError) -> Bool {
            switch members[key] {
            case nil, .null?: return false
            case .bool(let value)?: return value
            default: throw .invalidRequest("'\(key)' must be a bool")
            }
        }
        more = try flag("more")
        oneway = try flag("oneway")
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

    public var json: JSONValue {
        var members: [String: JSONValue] = ["method": .string(method), "parameters": .object(parameters)]
        if more { members["more"] = .bool(true) }
        if oneway { members["oneway"] = .bool(true) }
        return .object(members)
    }
}
