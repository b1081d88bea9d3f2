/// A varlink error reply: a fully qualified error name and its parameters, as sent on the wire.
///
/// The server turns every failure into one of these; the client turns them back into human messages
/// and exit codes. Names outside `org.varlink.service` and `io.fleetd.Fleet` are passed through untouched.
public struct VarlinkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fully qualified name, e.g. `io.fleetd.Fleet.DeviceNotFound`.
    public var name: String
    /// The error's parameters as declared in the interface.
    public var parameters: [String: JSONValue]

    public init(name: String, parameters: [String: JSONValue] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    /// The last component of `name`, e.g. `DeviceNotFound`.
    public var shortName: String { name.split(separator: ".").last.map(String.init) ?? name }

    /// A sentence naming what went wrong, for humans.
    public var description: String {
        func text(_ key: String) -> String { parameters[key]?.stringValue ?? "?" }
        switch name {
        case Self.serviceInterface + ".InterfaceNotFound": return "interface \(text("interface")) not found"
        case Self.serviceInterface + ".MethodNotFound": return "method \(text("method")) not found"
        case Self.serviceInterface + ".MethodNotImplemented": return "method \(text("method")) is not implemented"
        case Self.serviceInterface + ".InvalidParameter": return "invalid parameter \(text("parameter"))"
        case Self.serviceInterface + ".ExpectedMore": return "this method streams replies and must be called with more=true"
        case FleetInterface.name + ".DeviceNotFound": return "no device matches \(text("device"))"
        case FleetInterface.name + ".AmbiguousDevice":
            let candidates = parameters["candidates"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return "\(text("device")) matches several devices: \(candidates.joined(separator: ", "))"
        case FleetInterface.name + ".PermissionDenied": return "permission denied: \(text("method")) needs root or the control group"
        case FleetInterface.name + ".NotConnected": return "device \(text("device")) is not connected"
        case FleetInterface.name + ".CharacteristicNotFound":
            return "device \(text("device")) has no characteristic \(text("characteristic"))"
        case FleetInterface.name + ".BlueZError": return "BlueZ error \(text("name")): \(text("message"))"
        case FleetInterface.name + ".InvalidPolicyClass":
            let known = parameters["known"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return "unknown policy class \(text("policyClass")) (known: \(known.joined(separator: ", ")))"
        case FleetInterface.name + ".NoCapacity": return "no adapter slot for \(text("device")): \(text("reason"))"
        case FleetInterface.name + ".SlowConsumer": return "dropped from the event stream: the client stopped reading"
        case FleetInterface.name + ".RequestTooLarge": return "request exceeds \(parameters["limit"]?.intValue ?? 0) bytes"
        case FleetInterface.name + ".InvalidRequest": return "invalid request: \(text("reason"))"
        case FleetInterface.name + ".LostPlace":
            let who = parameters["consumer"]?.stringValue.map { "consumer \($0) lost its place: " } ?? "lost place: "
            let first = parameters["firstCursor"]?.intValue ?? 0, last = parameters["lastCursor"]?.intValue ?? 0
            return who + "values \(first)…\(last) (\(parameters["count"]?.intValue ?? 0)) were dropped by retention before they were read; "
                + "acknowledge \(last) (or watch --since \(last)) to go on from the oldest stored value"
        case FleetInterface.name + ".StoreUnavailable": return "fleetd has no outbox: \(text("reason"))"
        case FleetInterface.name + ".ReservedConsumer":
            return "consumer name \(text("consumer")) is reserved for fleetd's own consumers (\(text("reserved"))); choose another name"
        case FleetInterface.name + ".Failed": return text("message")
        default: return parameters.isEmpty ? name : "\(name) \(JSONValue.object(parameters).serialized)"
        }
    }

    /// The varlink introspection interface every service implements.
    public static let serviceInterface = "org.varlink.service"

    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError(name: serviceInterface + ".InterfaceNotFound", parameters: ["interface": .string(interface)])
    }

    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError(name: serviceInterface + ".MethodNotFound", parameters: ["method": .string(method)])
    }

    public static func methodNotImplemented(_ method: String) -> VarlinkError {
        VarlinkError(name: serviceInterface + ".MethodNotImplemented", parameters: ["method": .string(method)])
    }

    public static func invalidParameter(_ parameter: String) -> VarlinkError {
        VarlinkError(name: serviceInterface + ".InvalidParameter", parameters: ["parameter": .string(parameter)])
    }

    public static let expectedMore = VarlinkError(name: serviceInterface + ".ExpectedMore")

    public static func requestTooLarge(limit: Int) -> VarlinkError {
        VarlinkError(name: FleetInterface.name + ".RequestTooLarge", parameters: ["limit": .int(limit)])
    }

    public static func invalidRequest(_ reason: String) -> VarlinkError {
        VarlinkError(name: FleetInterface.name + ".InvalidRequest", parameters: ["reason": .string(reason)])
    }

    public static func permissionDenied(method: String) -> VarlinkError {
        VarlinkError(name: FleetInterface.name + ".PermissionDenied", parameters: ["method": .string(method)])
    }

    public static func slowConsumer(bufferedBytes: Int) -> VarlinkError {
        VarlinkError(name: FleetInterface.name + ".SlowConsumer", parameters: ["bufferedBytes": .int(bufferedBytes)])
    }
}
