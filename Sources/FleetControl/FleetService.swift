/// Answers varlink calls: introspection (`org.varlink.service`) and `io.fleetd.Fleet` via a backend.
///
/// Transport-free, so it can be driven by the socket server or directly by tests. Errors from the
/// backend become typed varlink errors; the caller's authority decides whether mutations may run.
public struct FleetService: Sendable {
    public let backend: any FleetControlBackend
    public let info: ServiceInfo
    /// Told about notable events (slow consumers dropped, unexpected backend errors).
    public let log: @Sendable (String) -> Void

    public init(backend: any FleetControlBackend, info: ServiceInfo, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.backend = backend
        self.info = info
        self.log = log
    }

    /// Handles one call, sending its replies (none for `oneway`) to `sink` before returning.
    public func handle(_ call: VarlinkCall, authority: CallerAuthority, sink: any ReplySink) async {
        let target: any ReplySink = call.oneway ? DiscardingSink() : sink
        do {
            try await dispatch(call, authority: authority, sink: target)
        } catch let error as VarlinkError {
            _ = target.send(VarlinkReply(error: error), force: true)
        } catch let error as FleetControlError {
            _ = target.send(VarlinkReply(error: error.varlinkError), force: true)
        } catch {
            log("\(call.method) failed: \(error)")
            _ = target.send(VarlinkReply(error: FleetControlError.failed(String(describing: error)).varlinkError), force: true)
        }
    }

    private func dispatch(_ call: VarlinkCall, authority: CallerAuthority, sink: any ReplySink) async throws {
        switch call.interface {
        case VarlinkError.serviceInterface:
            _ = sink.send(VarlinkReply(parameters: try introspect(call)), force: true)
        case FleetInterface.name:
            guard let method = FleetInterface.Method(rawValue: call.member) else { throw VarlinkError.methodNotFound(call.method) }
            guard method.isReadOnly || authority.canMutate else { throw VarlinkError.permissionDenied(method: call.method) }
            if method == .watch {
                try await streamWatch(call, sink: sink)
            } else {
                _ = sink.send(VarlinkReply(parameters: try await answer(method, ParameterReader(call.parameters))), force: true)
            }
        default:
            throw VarlinkError.interfaceNotFound(call.interface)
        }
    }

    private func introspect(_ call: VarlinkCall) throws(VarlinkError) -> [String: JSONValue] {
        switch call.member {
        case "GetInfo":
            return ["vendor": .string(info.vendor), "product": .string(info.product), "version": .string(info.version),
                    "url": .string(info.url),
                    "interfaces": .array([.string(VarlinkError.serviceInterface), .string(FleetInterface.name)])]
        case "GetInterfaceDescription":
            let interface = try ParameterReader(call.parameters).string("interface")
            switch interface {
            case FleetInterface.name: return ["description": .string(FleetInterface.definition)]
            case VarlinkError.serviceInterface: return ["description": .string(Self.serviceDefinition)]
            default: throw .interfaceNotFound(interface)
            }
        default:
            throw .methodNotFound(call.method)
        }
    }

    private func answer(_ method: FleetInterface.Method, _ parameters: ParameterReader) async throws -> [String: JSONValue] {
        switch method {
        case .status:
            return try await backend.status().json
        case .listDevices:
            return ["devices": .array(try await backend.listDevices().map { .object($0.json) })]
        case .showDevice:
            return try await backend.showDevice(parameters.string("device")).json
        case .connect:
            return try await backend.connect(parameters.string("device")).json
        case .disconnect:
            return try await backend.disconnect(parameters.string("device")).json
        case .evict:
            return try await backend.evict(parameters.string("device")).json
        case .forget:
            return ["device": .string(try await backend.forget(parameters.string("device")))]
        case .setPolicy:
            let policyClass = try parameters.string("policyClass")
            let device = try await backend.setPolicy(parameters.string("device"), policyClass: policyClass)
            return ["device": .string(device), "policyClass": .string(policyClass)]
        case .read:
            let value = try await backend.read(parameters.string("device"), characteristic: parameters.string("characteristic"))
            return ["value": .string(HexBytes.encode(value))]
        case .write:
            let device = try parameters.string("device")
            let characteristic = try parameters.string("characteristic")
            guard let value = HexBytes.decode(try parameters.string("value")) else { throw VarlinkError.invalidParameter("value") }
            let withResponse = try parameters.optionalBool("withResponse") ?? true
            try await backend.write(device, characteristic: characteristic, value: value, withResponse: withResponse)
            return [:]
        case .reload:
            return ["summary": .string(try await backend.reload())]
        case .metrics:
            return ["text": .string(try await backend.metrics())]
        case .watch:
            throw VarlinkError.expectedMore
        }
    }

    private func streamWatch(_ call: VarlinkCall, sink: any ReplySink) async throws {
        // A oneway Watch could never deliver anything, so it is refused like a call without `more`.
        guard call.more, !call.oneway else { throw VarlinkError.expectedMore }
        let device = try ParameterReader(call.parameters).optionalString("device")
        let events = try await backend.watch(device)
        for await event in events {
            switch sink.send(VarlinkReply(parameters: ["event": .object(event.json)], continues: true), force: false) {
            case .queued:
                continue
            case .closed:
                return
            case .overflow(let buffered):
                log("dropped a Watch client that stopped reading (\(buffered) bytes unsent)")
                _ = sink.send(VarlinkReply(error: .slowConsumer(bufferedBytes: buffered)), force: true)
                return
            }
        }
        // The daemon ended the stream (shutting down): say so instead of leaving the client hanging.
        _ = sink.send(VarlinkReply(error: FleetControlError.failed("the event stream ended").varlinkError), force: true)
    }

    /// The definition of `org.varlink.service` itself, served for completeness of introspection.
    public static let serviceDefinition = """
    # The Varlink Service Interface is provided by every varlink service. It
    # describes the service and the interfaces it implements.
    interface org.varlink.service

    # Get a list of all the interfaces a service provides and information
    # about the implementation.
    method GetInfo() -> (
      vendor: string,
      product: string,
      version: string,
      url: string,
      interfaces: []string
    )

    # Get the description of an interface that is implemented by this service.
    method GetInterfaceDescription(interface: string) -> (description: string)

    # The requested interface was not found.
    error InterfaceNotFound (interface: string)

    # The requested method was not found
    error MethodNotFound (method: string)

    # The interface defines the requested method, but the service does not
    # implement it.
    error MethodNotImplemented (method: string)

    # One of the passed parameters is invalid.
    error InvalidParameter (parameter: string)

    # Client is denied access
    error PermissionDenied ()

    # Method is expected to be called with 'more' set to true, but wasn't
    error ExpectedMore ()
    """
}

/// What the caller of a method may do, decided from its socket credentials.
public struct CallerAuthority: Sendable, Equatable {
    /// Root or a member of the control group: mutations allowed.
    public var canMutate: Bool

    public init(canMutate: Bool) { self.canMutate = canMutate }
}

/// Swallows the replies of `oneway` calls, which varlink says must not be answered.
private struct DiscardingSink: ReplySink {
    func send(_ reply: VarlinkReply, force: Bool) -> ReplySendResult { .queued }
}
