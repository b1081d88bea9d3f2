#if canImport(Glibc)
import Glibc
#endif
import FleetProtocol
import FleetSystem

/// A blocking varlink client connection over a Unix stream socket (what fleetctl and the tests use).
///
/// Not thread-safe: one caller at a time. Replies are read in order; a streaming call yields replies
/// until one arrives without `continues`.
public final class VarlinkConnection {
    public let path: String
    private let socket: FileDescriptor
    private var decoder: FrameDecoder
    private var frames: [[UInt8]] = []
    /// Read buffer, allocated once per connection rather than per reply.
    private var readBuffer = [UInt8](repeating: 0, count: 65_536)

    /// Connects to `path`. Largest reply frame accepted is `maxReplyBytes`.
    public init(path: String, maxReplyBytes: Int = 16 * 1024 * 1024) throws(FleetClientError) {
        self.path = path
        decoder = FrameDecoder(limit: maxReplyBytes)
        guard let address = UnixSocketAddress(path: path) else { throw .unreachable(path: path, errno: Errno(rawValue: ENAMETOOLONG)) }
        let socket: FileDescriptor
        do { socket = try .unixStreamSocket(nonBlocking: false) } catch { throw .io(operation: "socket", errno: error) }
        let number = socket.rawValue
        do {
            try nothingOrErrno { address.withSockaddr { connect(number, $0, $1) } }
        } catch {
            // `socket` closes itself on the way out.
            if error == .permissionDenied || error == .notPermitted { throw .socketPermissionDenied(path: path) }
            throw .unreachable(path: path, errno: error)
        }
        self.socket = socket
    }

    /// The underlying descriptor's number, for tests that need to misbehave (stop reading, send garbage).
    public var descriptor: Int32 { socket.rawValue }

    /// Sends a call without waiting for the reply.
    public func send(_ call: VarlinkCall) throws(FleetClientError) {
        try sendRaw(call.frame)
    }

    /// Sends raw bytes (tests use this for malformed frames).
    public func sendRaw(_ bytes: [UInt8]) throws(FleetClientError) {
        do {
            try bytes.withUnsafeBytes { raw in
                Result { () throws(Errno) in
                    var offset = 0
                    while offset < raw.count { offset += try socket.send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
                }
            }.get()
        } catch {
            if error == .brokenPipe || error == .connectionReset { throw .connectionClosed }
            throw .io(operation: "send", errno: error)
        }
    }

    /// Waits for the next reply. `timeout` nil waits forever.
    public func receive(timeout: Duration? = nil) throws(FleetClientError) -> VarlinkReply {
        let frame = try receiveFrame(timeout: timeout)
        do {
            return try VarlinkReply(frame: frame)
        } catch {
            throw .malformedReply(error.description)
        }
    }

    /// Waits for the next raw frame (without its NUL).
    public func receiveFrame(timeout: Duration? = nil) throws(FleetClientError) -> [UInt8] {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while frames.isEmpty {
            if let deadline {
                let remaining = deadline - .now
                guard remaining > .zero else { throw .timedOut }
                var descriptors = [pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)]
                let ready: Int
                do {
                    // An interrupting signal counts as nothing ready: the next turn recomputes what is left.
                    ready = try Poll.wait(&descriptors, timeoutMilliseconds: Int32(clamping: Int((remaining / .milliseconds(1)).rounded(.up))))
                } catch {
                    throw .io(operation: "poll", errno: error)
                }
                if ready == 0 { continue }
            }
            let count: Int
            do {
                count = try readBuffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try socket.receive(into: raw) } }.get()
            } catch {
                if error == .connectionReset { throw .connectionClosed }
                throw .io(operation: "recv", errno: error)
            }
            if count == 0 { throw .connectionClosed }
            for output in decoder.feed(readBuffer[0..<count]) {
                switch output {
                case .frame(let bytes): frames.append(bytes)
                case .tooLarge: throw .malformedReply("reply larger than \(decoder.limit) bytes")
                }
            }
        }
        return frames.removeFirst()
    }

    /// Sends a call and returns its (first) reply; an error reply is thrown as `.remote`.
    public func call(_ call: VarlinkCall, timeout: Duration? = nil) throws(FleetClientError) -> VarlinkReply {
        try send(call)
        let reply = try receive(timeout: timeout)
        if let error = reply.varlinkError { throw .remote(error) }
        return reply
    }

    /// Sends `request` and decodes its reply as `Reply`; a reply of another shape is `.malformedReply`.
    public func call<Reply: Decodable>(_ request: FleetRequest, replying type: Reply.Type, timeout: Duration? = nil) throws(FleetClientError) -> Reply {
        try send(Self.encode(request))
        let (reply, parameters) = try receive(as: type, timeout: timeout)
        if let error = reply.varlinkError { throw .remote(error) }
        guard let parameters else { throw .malformedReply("a reply without parameters") }
        return parameters
    }

    /// Waits for the next reply and decodes its parameters as `type` (nil for an error reply) in one pass.
    public func receive<Reply: Decodable>(as type: Reply.Type, timeout: Duration? = nil) throws(FleetClientError) -> (reply: VarlinkReply, parameters: Reply?) {
        let frame = try receiveFrame(timeout: timeout)
        do {
            return try VarlinkReply.decode(frame: frame, as: type)
        } catch {
            throw .malformedReply(error.description)
        }
    }

    /// Calls `method` of io.fleetd.Fleet with untyped `parameters` and returns the reply's parameters as they came
    /// (for tests and tools that look at the wire itself).
    public func call(_ method: FleetInterface.Method, _ parameters: [String: JSONValue] = [:], timeout: Duration? = nil) throws(FleetClientError) -> [String: JSONValue] {
        let request: VarlinkCall
        do { request = try VarlinkCall(method: method.qualifiedName, parameters: parameters) } catch { throw .malformedRequest(error.description) }
        try send(request)
        let frame = try receiveFrame(timeout: timeout)
        let reply: VarlinkReply, members: [String: JSONValue]
        do { (reply, members) = try VarlinkReply.parseAsSent(frame: frame) } catch { throw .malformedReply(error.description) }
        if let name = reply.error { throw .remote(VarlinkError(name: name, parameters: members)) }
        return members
    }

    /// The call a request sends; a request that cannot be encoded (a non-finite number) is `.malformedRequest`.
    static func encode(_ request: FleetRequest) throws(FleetClientError) -> VarlinkCall {
        do { return try request.call() } catch { throw .malformedRequest(error.description) }
    }
}
