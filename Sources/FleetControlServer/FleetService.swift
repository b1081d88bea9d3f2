import FleetProtocol

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
            _ = sink.send(try introspect(call), force: true)
        case FleetInterface.name:
            guard let method = FleetInterface.Method(rawValue: call.member) else { throw VarlinkError.methodNotFound(call.method) }
            guard method.isReadOnly || authority.canMutate else { throw VarlinkError.permissionDenied(method: call.method) }
            // A oneway Watch could never deliver anything, so it is refused like a call without `more`.
            if method == .watch, !call.more || call.oneway { throw VarlinkError.expectedMore }
            let request = try FleetRequest(method, parameters: call)
            // fleetd's own consumers (the publisher's `mqtt`) are moved by fleetd alone: a client that watched from
            // their cursor would be shown, and could acknowledge away, what the broker has not yet taken.
            if let consumer = request.consumer, let rule = ReservedConsumerName.rule(reserving: consumer) {
                throw FleetControlError.reservedConsumer(consumer: consumer, reserved: rule)
            }
            if case .watch(let device, let since, let consumer) = request {
                if since != nil || consumer != nil {
                    try await streamStored(device, since: since, consumer: consumer, sink: sink)
                } else {
                    try await streamWatch(device, sink: sink)
                }
            } else {
                _ = sink.send(try await answer(request), force: true)
            }
        default:
            throw VarlinkError.interfaceNotFound(call.interface)
        }
    }

    private func introspect(_ call: VarlinkCall) throws(VarlinkError) -> VarlinkReply {
        switch call.member {
        case "GetInfo":
            return try VarlinkReply(parameters: ServiceDescription(info: info, interfaces: [VarlinkError.serviceInterface, FleetInterface.name]))
        case "GetInterfaceDescription":
            let interface = try call.parameters(as: InterfaceName.self).interface
            switch interface {
            case FleetInterface.name: return try VarlinkReply(parameters: InterfaceDescription(description: FleetInterface.definition))
            case VarlinkError.serviceInterface: return try VarlinkReply(parameters: InterfaceDescription(description: Self.serviceDefinition))
            default: throw .interfaceNotFound(interface)
            }
        default:
            throw .methodNotFound(call.method)
        }
    }

    private func answer(_ request: FleetRequest) async throws -> VarlinkReply {
        switch request {
        case .status: return try VarlinkReply(status: try await backend.status())
        case .listDevices: return try VarlinkReply(parameters: DeviceList(devices: try await backend.listDevices()))
        case .showDevice(let device): return try VarlinkReply(parameters: try await backend.showDevice(device))
        case .connect(let device): return try VarlinkReply(parameters: try await backend.connect(device))
        case .disconnect(let device): return try VarlinkReply(parameters: try await backend.disconnect(device))
        case .evict(let device): return try VarlinkReply(parameters: try await backend.evict(device))
        case .forget(let device): return try VarlinkReply(parameters: ForgetOutcome(device: try await backend.forget(device)))
        case .setPolicy(let device, let policyClass):
            let id = try await backend.setPolicy(device, policyClass: policyClass)
            return try VarlinkReply(parameters: SetPolicyOutcome(device: id, policyClass: policyClass))
        case .read(let device, let characteristic):
            return try VarlinkReply(parameters: try await backend.read(device, characteristic: characteristic))
        case .write(let device, let characteristic, let value, let withResponse):
            try await backend.write(device, characteristic: characteristic, value: value, withResponse: withResponse)
            return try VarlinkReply(parameters: WriteOutcome())
        case .reload: return try VarlinkReply(parameters: ReloadOutcome(summary: try await backend.reload()))
        case .metrics: return try VarlinkReply(parameters: MetricsText(text: try await backend.metrics()))
        case .acknowledge(let consumer, let cursor):
            guard cursor >= 0 else { throw FleetControlError.invalidParameter("cursor") }
            return try VarlinkReply(parameters: AcknowledgeOutcome(consumer: consumer, cursor: try await backend.acknowledge(consumer: consumer, cursor: cursor)))
        case .readings(let device, let since, let limit):
            if let since, since < 0 { throw FleetControlError.invalidParameter("since") }
            let limit = limit ?? Self.defaultReadingsLimit
            guard (1...Self.maxReadingsLimit).contains(limit) else { throw FleetControlError.invalidParameter("limit") }
            return try VarlinkReply(parameters: try await backend.readings(device, since: since, limit: limit))
        case .pair(let device): return try VarlinkReply(parameters: try await backend.pair(device))
        case .unpair(let device): return try VarlinkReply(parameters: try await backend.unpair(device))
        case .records(let device): return try VarlinkReply(parameters: try await backend.records(device))
        case .watch: throw VarlinkError.expectedMore
        }
    }

    private func streamWatch(_ device: String?, sink: any ReplySink) async throws {
        let events = try await backend.watch(device)
        for await event in events {
            switch sink.send(try VarlinkReply(parameters: WatchUpdate(event: event), continues: true), force: false) {
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

    /// `Readings` without a limit returns this many; a larger limit than `maxReadingsLimit` is refused.
    public static let defaultReadingsLimit = 100
    public static let maxReadingsLimit = 10_000

    /// A durable Watch: unlike the live one, a client that reads slowly is waited for, not dropped, since what
    /// it has not read yet stays in the store.
    private func streamStored(_ device: String?, since: Int64?, consumer: String?, sink: any ReplySink) async throws {
        if let since, since < 0 { throw FleetControlError.invalidParameter("since") }
        let events = try await backend.watchStored(device, since: since, consumer: consumer)
        do {
            for try await event in events {
                guard await sink.waitForRoom() else { return }
                switch sink.send(try VarlinkReply(parameters: WatchUpdate(event: event), continues: true), force: false) {
                case .queued: continue
                case .closed: return
                case .overflow(let buffered):
                    _ = sink.send(VarlinkReply(error: .slowConsumer(bufferedBytes: buffered)), force: true)
                    return
                }
            }
        } catch let error as FleetControlError {
            _ = sink.send(VarlinkReply(error: error.varlinkError), force: true)
            return
        }
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

/// `org.varlink.service.GetInfo`'s reply.
private struct ServiceDescription: Encodable {
    var vendor: String
    var product: String
    var version: String
    var url: String
    var interfaces: [String]

    init(info: ServiceInfo, interfaces: [String]) {
        vendor = info.vendor
        product = info.product
        version = info.version
        url = info.url
        self.interfaces = interfaces
    }
}

/// `org.varlink.service.GetInterfaceDescription`'s parameter.
private struct InterfaceName: Decodable {
    var interface: String
}

/// `org.varlink.service.GetInterfaceDescription`'s reply.
private struct InterfaceDescription: Encodable {
    var description: String
}
