#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The varlink control server: accepts clients on a Unix stream socket and answers them with a `FleetService`.
///
/// One poll thread does all socket I/O (accept, read, flush, close); each client's calls run in order on
/// a task of its own, so a slow backend call or a long `Watch` never holds up other clients.
/// Protocol violations (oversized request, invalid JSON) get an error reply and close only that connection.
public final class VarlinkServer: Sendable {
    /// How the server listens and what it tolerates.
    public struct Configuration: Sendable {
        /// Where to bind (ignored when `inheritedDescriptor` is set).
        public var socketPath: String
        /// Permission bits of the socket file.
        public var socketMode: mode_t
        /// Group name owning the socket; its members may mutate. Nil: only root may mutate.
        public var controlGroup: String?
        /// An already-listening descriptor (socket activation) to use instead of binding.
        public var inheritedDescriptor: Int32?
        /// Largest accepted request frame, in bytes.
        public var maxRequestBytes: Int
        /// A `Watch` client with more than this many unsent bytes is dropped.
        public var maxBufferedOutputBytes: Int
        /// How long a dropped slow consumer gets to read its final SlowConsumer error before the socket closes.
        public var slowConsumerGrace: Duration
        /// Further connections beyond this are closed at once.
        public var maxClients: Int

        public static let defaultSocketPath = "/run/fleetd/io.fleetd.sock"

        public init(socketPath: String = Configuration.defaultSocketPath, socketMode: mode_t = 0o660, controlGroup: String? = nil,
                    inheritedDescriptor: Int32? = nil, maxRequestBytes: Int = 64 * 1024,
                    maxBufferedOutputBytes: Int = 1024 * 1024, slowConsumerGrace: Duration = .seconds(2), maxClients: Int = 1024) {
            self.socketPath = socketPath
            self.socketMode = socketMode
            self.controlGroup = controlGroup
            self.inheritedDescriptor = inheritedDescriptor
            self.maxRequestBytes = maxRequestBytes
            self.maxBufferedOutputBytes = maxBufferedOutputBytes
            self.slowConsumerGrace = slowConsumerGrace
            self.maxClients = maxClients
        }
    }

    public let configuration: Configuration
    private let service: FleetService
    private let listener: ListeningSocket
    private let authorization: ControlAuthorization
    private let wakeFD: Int32
    /// The self-pipe's write end; nil once the poll thread has closed it, so a late wake never writes to a reused descriptor.
    private let wakeWriteFD: Mutex<Int32?>
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let log: @Sendable (String) -> Void

    /// Binds (or adopts) the socket and starts serving. Throws if the group is unknown or the socket cannot be set up.
    public init(configuration: Configuration, service: FleetService) throws(ControlSocketError) {
        self.configuration = configuration
        self.service = service
        self.log = service.log
        var controlGID: gid_t?
        if let group = configuration.controlGroup {
            guard let gid = PeerCredentials.groupID(named: group) else {
                throw ControlSocketError(operation: "look up control group", errno: 0, detail: "no group named \(group)")
            }
            controlGID = gid
        }
        authorization = ControlAuthorization(controlGID: controlGID)
        if let inherited = configuration.inheritedDescriptor {
            listener = try ListeningSocket.adopt(fd: inherited)
        } else {
            listener = try ListeningSocket.bind(path: configuration.socketPath, mode: configuration.socketMode, gid: controlGID)
        }
        // A self-pipe wakes the poll thread when replies are queued (eventfd is not visible to Swift's Glibc).
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let failure = ControlSocketError(operation: "pipe", errno: errno)
            close(listener.fd)
            if let path = listener.ownedPath { unlink(path) }
            throw failure
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeFD = ends[0]
        wakeWriteFD = Mutex(ends[1])
        let loop = PollLoop(server: self)
        let thread = Thread { loop.run() }
        thread.name = "fleetd-control"
        thread.start()
    }

    /// Stops accepting, closes every client, removes the socket file this server created, and waits for the poll thread.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        signalWake()
        finished.wait()
    }

    deinit { stop() }

    fileprivate func signalWake() {
        wakeWriteFD.withLock { fd in
            guard let fd else { return }
            var one: UInt8 = 1
            _ = write(fd, &one, 1)
        }
    }

    /// The poll thread's state: owned by that thread alone, hence the unchecked conformance.
    private final class PollLoop: @unchecked Sendable {
        unowned let server: VarlinkServer
        var clients: [Int32: (connection: ClientConnection, decoder: FrameDecoder, reading: Bool, task: Task<Void, Never>)] = [:]
        var readBuffer = [UInt8](repeating: 0, count: 65_536)

        init(server: VarlinkServer) { self.server = server }

        func run() {
            let listenFD = server.listener.fd
            let wakeFD = server.wakeFD
            while !server.stopping.load(ordering: .acquiring) {
                var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
                var deadline: ContinuousClock.Instant?
                for (fd, client) in clients {
                    var events: Int16 = 0
                    // Not reading while replies pile up is the backpressure on a pipelining client that does not read.
                    if client.reading, client.connection.pendingOutput <= server.configuration.maxBufferedOutputBytes { events |= Int16(POLLIN) }
                    if client.connection.pendingOutput > 0 { events |= Int16(POLLOUT) }
                    fds.append(pollfd(fd: fd, events: events, revents: 0))
                    if let closeAt = client.connection.closeDeadline { deadline = min(deadline ?? closeAt, closeAt) }
                }
                let timeout: Int32 = deadline.map { Int32(max(0, min(1000, ($0 - .now).milliseconds + 1))) } ?? -1
                let ready = poll(&fds, nfds_t(fds.count), timeout)
                if ready < 0, errno != EINTR {
                    server.log("control socket poll failed: \(String(cString: strerror(errno)))")
                    break
                }
                if fds[1].revents != 0 {
                    var drain = [UInt8](repeating: 0, count: 256)
                    while read(wakeFD, &drain, drain.count) > 0 {}
                }
                if fds[0].revents & Int16(POLLIN) != 0 { acceptClients() }
                for entry in fds.dropFirst(2) where entry.revents != 0 { service(fd: entry.fd, revents: entry.revents) }
                let now = ContinuousClock.now
                for (fd, client) in clients {
                    if client.connection.pendingOutput > 0, !client.connection.flush() { drop(fd) ; continue }
                    if client.connection.shouldClose(at: now) { drop(fd) }
                }
            }
            for fd in Array(clients.keys) { drop(fd) }
            close(listenFD)
            close(wakeFD)
            server.wakeWriteFD.withLock { fd in
                if let open = fd { close(open) }
                fd = nil
            }
            if let path = server.listener.ownedPath { unlink(path) }
            server.finished.signal()
        }

        func acceptClients() {
            while true {
                let fd = accept(server.listener.fd, nil, nil)
                if fd >= 0 {
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                }
                if fd < 0 {
                    if errno == EINTR { continue }
                    if errno != EAGAIN, errno != EWOULDBLOCK { server.log("control socket accept failed: \(String(cString: strerror(errno)))") }
                    return
                }
                guard clients.count < server.configuration.maxClients else {
                    server.log("refused a control client: \(clients.count) clients already connected")
                    close(fd)
                    continue
                }
                let peer: PeerCredentials
                do {
                    peer = try PeerCredentials.of(socket: fd)
                } catch {
                    server.log("refused a control client: \(error)")
                    close(fd)
                    continue
                }
                let server = self.server
                let connection = ClientConnection(fd: fd, peer: peer, authority: server.authorization.authority(for: peer),
                                                  bound: server.configuration.maxBufferedOutputBytes,
                                                  slowConsumerGrace: server.configuration.slowConsumerGrace,
                                                  wake: { [weak server] in server?.signalWake() })
                let service = server.service
                let task = Task {
                    for await inbound in connection.inbound {
                        switch inbound {
                        case .call(let call):
                            await service.handle(call, authority: connection.authority, sink: connection)
                        case .reject(let error):
                            _ = connection.send(VarlinkReply(error: error), force: true)
                        case .fatal(let error):
                            _ = connection.send(VarlinkReply(error: error), force: true)
                            connection.closeAfterFlush()
                            return
                        }
                    }
                    connection.closeAfterFlush()
                }
                clients[fd] = (connection, FrameDecoder(limit: server.configuration.maxRequestBytes), true, task)
            }
        }

        func service(fd: Int32, revents: Int16) {
            guard var client = clients[fd] else { return }
            if revents & Int16(POLLIN) != 0, client.reading {
                let count = readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    for output in client.decoder.feed(readBuffer[0..<count]) {
                        switch output {
                        case .frame(let bytes):
                            do {
                                let json = try JSONValue.parse(bytes)
                                client.connection.inboundContinuation.yield(.call(try VarlinkCall(json: json)))
                            } catch let error as JSONParseError {
                                client.connection.inboundContinuation.yield(.fatal(.invalidRequest(error.description)))
                                client.reading = false
                            } catch let error as VarlinkError {
                                // Valid JSON that is not a call: the framing is intact, so answer and carry on.
                                client.connection.inboundContinuation.yield(.reject(error))
                            } catch {
                                client.connection.inboundContinuation.yield(.fatal(.invalidRequest(String(describing: error))))
                                client.reading = false
                            }
                        case .tooLarge:
                            client.connection.inboundContinuation.yield(.fatal(.requestTooLarge(limit: server.configuration.maxRequestBytes)))
                            client.reading = false
                        }
                        if !client.reading { break }
                    }
                    if !client.reading { client.connection.inboundContinuation.finish() }
                } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    // End of input: answer what was asked, then close.
                    client.reading = false
                    client.connection.inboundContinuation.finish()
                    if revents & Int16(POLLHUP | POLLERR) != 0, count < 0 { clients[fd] = client; drop(fd); return }
                }
            } else if revents & Int16(POLLERR | POLLNVAL) != 0 {
                clients[fd] = client
                drop(fd)
                return
            } else if revents & Int16(POLLHUP) != 0, !client.reading, client.connection.pendingOutput == 0 {
                clients[fd] = client
                drop(fd)
                return
            }
            clients[fd] = client
        }

        func drop(_ fd: Int32) {
            guard let client = clients.removeValue(forKey: fd) else { return }
            client.task.cancel()
            client.connection.close()
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded down, saturating at Int32's range.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
