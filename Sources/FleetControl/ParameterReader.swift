/// Typed access to the members of a varlink object (call parameters or reply fields).
///
/// Every accessor throws `org.varlink.service.InvalidParameter` naming the offending member (with a
/// dotted path for nested records), which is exactly the error varlink prescribes for bad parameters.
public struct ParameterReader: Sendable {
    /// The object being read.
    public let members: [String: JSONValue]
    /// Dotted prefix for nested records, empty at the top level.
    public let path: String

    public init(_ members: [String: JSONValue], path: String = "") {
        self.members = members
        self.path = path
    }

    /// Reads a nested JSON value as a record.
    public init(_ value: JSONValue?, path: String) throws(VarlinkError) {
        guard let members = value?.objectValue else { throw .invalidParameter(path) }
        self.init(members, path: path)
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    private func present(_ key: String) -> JSONValue? {
        guard let value = members[key], !value.isNull else { return nil }
        return value
    }

    public func string(_ key: String) throws(VarlinkError) -> String {
        guard let text = present(key)?.stringValue else { throw .invalidParameter(name(key)) }
        return text
    }

    public func optionalString(_ key: String) throws(VarlinkError) -> String? {
        guard let value = present(key) else { return nil }
        guard let text = value.stringValue else { throw .invalidParameter(name(key)) }
        return text
    }

    public func int(_ key: String) throws(VarlinkError) -> Int {
        guard let number = present(key)?.intValue else { throw .invalidParameter(name(key)) }
        return number
    }

    public func optionalInt(_ key: String) throws(VarlinkError) -> Int? {
        guard let value = present(key) else { return nil }
        guard let number = value.intValue else { throw .invalidParameter(name(key)) }
        return number
    }

    public func double(_ key: String) throws(VarlinkError) -> Double {
        guard let number = present(key)?.doubleValue else { throw .invalidParameter(name(key)) }
        return number
    }

    public func optionalDouble(_ key: String) throws(VarlinkError) -> Double? {
        guard let value = present(key) else { return nil }
        guard let number = value.doubleValue else { throw .invalidParameter(name(key)) }
        return number
    }

    public func bool(_ key: String) throws(VarlinkError) -> Bool {
        guard let flag = present(key)?.boolValue else { throw .invalidParameter(name(key)) }
        return flag
    }

    public func optionalBool(_ key: String) throws(VarlinkError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard let flag = value.boolValue else { throw .invalidParameter(name(key)) }
        return flag
    }

    public func strings(_ key: String) throws(VarlinkError) -> [String] {
        guard let elements = present(key)?.arrayValue else { throw .invalidParameter(name(key)) }
        var result: [String] = []
        for element in elements {
            guard let text = element.stringValue else { throw .invalidParameter(name(key)) }
            result.append(text)
        }
        return result
    }

    public func record(_ key: String) throws(VarlinkError) -> ParameterReader {
        try ParameterReader(members[key], path: name(key))
    }

    public func records(_ key: String) throws(VarlinkError) -> [ParameterReader] {
        guard let elements = present(key)?.arrayValue else { throw .invalidParameter(name(key)) }
        var result: [ParameterReader] = []
        for (position, element) in elements.enumerated() {
            result.append(try ParameterReader(element, path: name(key) + "[\(position)]"))
        }
        return result
    }
}
