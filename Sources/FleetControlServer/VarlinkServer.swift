#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FleetProtocol
import FleetSystem
import FoundationEssentials
import Synchronization

/// The varlink control server: accepts clients on a Unix stream socket and answers them with a `FleetService`.
///
/// One poll thread does all socket I/O (accept, read, flush, close); each client's calls run in order on
/// a task of its own, so a slow backend call or a long `Watch` never holds up other clients.
/// Protocol violations (oversized request, invalid JSON) get an error reply and close only that connection.
///
/// Descriptors are a shared, bounded resource, so the server never lets clients exhaust them: a connection
/// with no call in progress is closed after `idleTimeout`, each user id may hold at most
/// `maxConnectionsPerPeer`, the last `reservedRootConnections` of `maxClients` are kept for root (so that root
/// can still look when other users' Watches hold every slot), and when `accept` fails for want of descriptors
/// (EMFILE/ENFILE) a reserve descriptor is given up to accept and close the waiting connection, so the listening
/// socket never stays readable with nothing able to drain it.
///
/// Memory is bounded per connection (see `ClientConnection`): a call runs only when the replies the client has not
/// read are at most half of `maxBufferedOutputBytes`, at most `ClientConnection.maxPipelinedCalls` requests are
/// read ahead, a connection whose client reads nothing for `roomTimeout` while the server waits for it is closed,
/// and so is one that a reply would take past `maxQueuedOutputBytes`; both closes are logged with the peer's pid
/// and uid. So one connection holds at most half the output bound plus one reply (itself at most the hard bound),
/// and a client that stops reading holds even that for `roomTimeout` only.
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
        /// A connection with no call in progress (silent, or holding half a request) is closed after this long.
        /// A `Watch` that is streaming has a call in progress, however quiet the fleet.
        public var idleTimeout: Duration
        /// Connections one user id may hold at once; further ones are closed at once. Per uid, not pid:
        /// every fleetctl run is a new process.
        public var maxConnectionsPerPeer: Int
        /// A call, or a durable Watch's next value, waits for its client to read while the client's unread replies
        /// are over half of `maxBufferedOutputBytes`; once the client has taken no byte for this long while they
        /// are, the connection is closed (logged with its pid and uid) and the waits end. A client that reads,
        /// however slowly, is waited for; a durable Watch's consumer keeps the cursor it acknowledged.
        public var roomTimeout: Duration
        /// A connection that one reply would leave with more than this many unsent bytes is closed at once (logged).
        /// The default is fleetctl's largest reply; a reply beyond it could not be read anyway.
        public var maxQueuedOutputBytes: Int
        /// Of `maxClients`, this many are kept for root: other users are refused once only these are left.
        public var reservedRootConnections: Int

        public init(socketPath: String = FleetInterface.defaultSocketPath, socketMode: mode_t = 0o660, controlGroup: String? = nil,
                    inheritedDescriptor: Int32? = nil, maxRequestBytes: Int = 64 * 1024,
                    maxBufferedOutputBytes: Int = 1024 * 1024, slowConsumerGrace: Duration = .seconds(2), maxClients: Int = 1024,
                    idleTimeout: Duration = .seconds(30), maxConnectionsPerPeer: Int = 128, roomTimeout: Duration = .seconds(30),
                    maxQueuedOutputBytes: Int = 16 * 1024 * 1024, reservedRootConnections: Int = 4) {
            self.socketPath = socketPath
            self.socketMode = socketMode
            self.controlGroup = controlGroup
            self.inheritedDescriptor = inheritedDescriptor
            self.maxRequestBytes = maxRequestBytes
            self.maxBufferedOutputBytes = maxBufferedOutputBytes
            self.slowConsumerGrace = slowConsumerGrace
            self.maxClients = maxClients
            self.idleTimeout = idleTimeout
            self.maxConnectionsPerPeer = maxConnectionsPerPeer
            self.roomTimeout = roomTimeout
            self.maxQueuedOutputBytes = maxQueuedOutputBytes
            self.reservedRootConnections = reservedRootConnections
        }
    }

    public let configuration: Configuration
    private let service: FleetService
    private let authorization: ControlAuthorization
    /// Wakes the poll thread when replies are queued or the server stops. Shared with the poll thread, so it
    /// stays open while anyone may still call `wake()`.
    private let wakeup: WakeupPipe
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let log: @Sendable (String) -> Void
    /// The poll thread's connections, shared for `statistics()`.
    private let registry = Mutex<[Int32: ClientConnection]>([:])
    private let counters = Mutex(ControlServerStatistics())

    /// Binds (or adopts) the socket and starts serving. Throws if the group is unknown or the socket cannot be set up.
    public init(configuration: Configuration, service: FleetService) throws(ControlSocketError) {
        self.configuration = configuration
        self.service = service
        self.log = service.log
        var controlGID: gid_t?
        if let group = configuration.controlGroup {
            guard let gid = PeerCredentials.groupID(named: group) else {
                throw ControlSocketError(operation: "look up control group", detail: "no group named \(group)")
            }
            controlGID = gid
        }
        authorization = ControlAuthorization(controlGID: controlGID)
        let listener: ListeningSocket
        if let inherited = configuration.inheritedDescriptor {
            listener = try ListeningSocket.adopt(fd: inherited)
        } else {
            listener = try ListeningSocket.bind(path: configuration.socketPath, mode: configuration.socketMode, gid: controlGID)
        }
        // The wake-up is the last stored property: a throw once every property is set would run deinit, whose
        // stop() would wait for a poll thread that never started.
        do {
            wakeup = try WakeupPipe()
        } catch {
            if let path = listener.ownedPath { try? removeFile(path) }
            throw ControlSocketError(operation: "eventfd", errno: error)
        }
        let loop = PollLoop(server: self, listener: listener)
        DetachedThread.start(name: "fleetd-control") { loop.run() }
    }

    /// Stops accepting, closes every client, removes the socket file this server created, and waits for the poll thread.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        signalWake()
        finished.wait()
    }

    deinit { stop() }

    /// Every open connection and what it holds, and what the server has refused or closed so far.
    public func statistics() -> ControlServerStatistics {
        let connections = registry.withLock { Array($0.values) }
        var statistics = counters.withLock { $0 }
        statistics.connections = connections.map(\.statistics).sorted { ($0.uid, $0.pid) < ($1.uid, $1.pid) }
        return statistics
    }

    fileprivate func signalWake() {
        wakeup.wake()
    }

    /// The poll thread's state: owned by that thread alone, hence the unchecked conformance.
    private final class PollLoop: @unchecked Sendable {
        struct Client {
            var connection: ClientConnection
            var decoder: FrameDecoder
            var reading: Bool
            var task: Task<Void, Never>
        }

        unowned let server: VarlinkServer
        /// The listening socket, owned by this thread; nil once closed at the end of `run`.
        var listener: ListeningSocket?
        /// Its number, for poll.
        let listenFD: Int32
        /// The socket file to remove on the way out; nil for an inherited socket.
        let ownedPath: String?
        var clients: [Int32: Client] = [:]
        var connectionsPerUID: [uid_t: Int] = [:]
        var readBuffer = [UInt8](repeating: 0, count: 65_536)
        /// An open /dev/null held back for the moment `accept` fails with EMFILE: closing it makes room to take
        /// the waiting connection off the queue (and close it), instead of leaving the listener readable for ever.
        var reserve: FileDescriptor?
        /// Set when the listener cannot be drained (no reserve, or the kernel out of memory): it is left out of
        /// poll until then, so a readable listener cannot make the thread spin.
        var listenerPausedUntil: ContinuousClock.Instant?
        var throttle = LogThrottle()

        init(server: VarlinkServer, listener: consuming ListeningSocket) {
            self.server = server
            listenFD = listener.descriptor.rawValue
            ownedPath = listener.ownedPath
            self.listener = consume listener
            reserve = Self.openReserve()
        }

        /// /dev/null, or nil when even that cannot be opened (out of descriptors already): `run` and
        /// `shedWithReserve` say so in the log and pause the listener instead.
        static func openReserve() -> FileDescriptor? {
            do { return try FileDescriptor.open("/dev/null", O_RDONLY) } catch { return nil }
        }

        var hasReserve: Bool {
            switch reserve {
            case .some: return true
            case .none: return false
            }
        }

        /// The next waiting connection on the listener (`.badFileDescriptor` once the listener is closed).
        func acceptOne() throws(Errno) -> FileDescriptor {
            switch listener {
            case .some(let socket): return try socket.descriptor.acceptConnection()
            case .none: throw .badFileDescriptor
            }
        }

        func note(_ key: String, _ message: String, now: ContinuousClock.Instant = .now) {
            if let line = throttle.admit(key, message, at: now) { server.log(line) }
        }

        func run() {
            let wakeFD = server.wakeup.descriptor
            let idleTimeout = server.configuration.idleTimeout
            let roomTimeout = server.configuration.roomTimeout
            if !hasReserve { note("reserve", "control socket: cannot open /dev/null as a reserve descriptor; running out of descriptors will pause accepts instead") }
            while !server.stopping.load(ordering: .acquiring) {
                var now = ContinuousClock.now
                if let until = listenerPausedUntil, now >= until { listenerPausedUntil = nil }
                let listening = listenerPausedUntil == nil
                var fds = [pollfd(fd: listenFD, events: listening ? Int16(POLLIN) : 0, revents: 0),
                           pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
                var deadline = listenerPausedUntil
                for (fd, client) in clients {
                    var events: Int16 = 0
                    // Not reading while replies pile up is the backpressure on a pipelining client that does not read.
                    if client.reading, client.connection.pendingOutput <= server.configuration.maxBufferedOutputBytes,
                       client.connection.acceptsMoreCalls { events |= Int16(POLLIN) }
                    if client.connection.pendingOutput > 0 { events |= Int16(POLLOUT) }
                    fds.append(pollfd(fd: fd, events: events, revents: 0))
                    for due in [client.connection.closeDeadline, client.connection.idleDeadline(after: idleTimeout),
                                client.connection.roomDeadline(after: roomTimeout)].compactMap({ $0 }) {
                        deadline = min(deadline ?? due, due)
                    }
                }
                let timeout: Int32 = deadline.map { Int32(clamping: max(0, Int((($0 - now) / .milliseconds(1)).rounded(.up)))) } ?? -1
                do {
                    _ = try Poll.wait(&fds, timeoutMilliseconds: timeout)
                } catch {
                    server.log("control socket poll failed: \(error)")
                    break
                }
                if fds[1].revents != 0 { server.wakeup.drain() }
                if fds[0].revents & Int16(POLLIN) != 0 { acceptClients() }
                for entry in fds.dropFirst(2) where entry.revents != 0 { service(fd: entry.fd, revents: entry.revents) }
                now = .now
                for (fd, client) in clients {
                    let connection = client.connection, peer = client.connection.peer
                    if let queued = connection.takeHardBoundExceeded() {
                        server.counters.withLock { $0.closedOverHardBound += 1 }
                        note("hard-bound.\(peer.uid)", "closed a control connection (pid \(peer.pid), uid \(peer.uid)): a reply would have left "
                             + "\(queued) bytes unread, over the hard bound of \(server.configuration.maxQueuedOutputBytes)", now: now)
                        drop(fd)
                        continue
                    }
                    if connection.pendingOutput > 0, !connection.flush() { drop(fd); continue }
                    if let unsent = connection.stalledSince(at: now, timeout: roomTimeout) {
                        server.counters.withLock { $0.closedStalled += 1 }
                        note("stalled.\(peer.uid)", "closed a stalled control connection (pid \(peer.pid), uid \(peer.uid)): it read none of its replies "
                             + "for \(roomTimeout) with \(unsent) bytes unsent, over half its output bound, so its calls could not run", now: now)
                        drop(fd)
                        continue
                    }
                    if connection.shouldClose(at: now) { drop(fd); continue }
                    if let idle = client.connection.idleDeadline(after: idleTimeout), now >= idle {
                        let peer = client.connection.peer
                        note("idle", "closed an idle control connection (pid \(peer.pid), uid \(peer.uid)): no request for \(idleTimeout)", now: now)
                        drop(fd)
                    }
                }
            }
            for fd in Array(clients.keys) { drop(fd) }
            reserve = nil
            listener = nil
            if let ownedPath {
                do { try removeFile(ownedPath) } catch { server.log("control socket: cannot remove \(ownedPath): \(error)") }
            }
            server.finished.signal()
        }

        func acceptClients() {
            // A refused connection is closed by its descriptor going out of scope at `continue`.
            while true {
                let socket: FileDescriptor
                do {
                    socket = try acceptOne()
                } catch {
                    switch error {
                    case Errno(rawValue: ECONNABORTED): continue
                    case .wouldBlock: return
                    case .tooManyOpenFiles, Errno(rawValue: ENFILE):
                        if shedWithReserve(error) { continue }
                        return
                    default:
                        // ENOBUFS, ENOMEM: nothing this thread can free; try again shortly rather than spin.
                        note("accept", "control socket accept failed: \(error); pausing accepts for 100 ms")
                        listenerPausedUntil = .now + .milliseconds(100)
                        return
                    }
                }
                let capacity = server.configuration.maxClients
                guard clients.count < capacity else {
                    note("full", "refused a control client: \(clients.count) clients already connected")
                    continue
                }
                let peer: PeerCredentials
                do {
                    peer = try PeerCredentials.of(socket: socket)
                } catch {
                    note("peer", "refused a control client: \(error)")
                    continue
                }
                let reserved = min(max(0, server.configuration.reservedRootConnections), capacity)
                guard peer.uid == 0 || clients.count < capacity - reserved else {
                    server.counters.withLock { $0.refusedForRootReserve += 1 }
                    note("root-reserve", "refused a control client (pid \(peer.pid), uid \(peer.uid)): \(clients.count) of \(capacity) "
                         + "connections are taken and the last \(reserved) are kept for root")
                    continue
                }
                let held = connectionsPerUID[peer.uid, default: 0]
                guard held < server.configuration.maxConnectionsPerPeer else {
                    note("peer-cap.\(peer.uid)", "refused a control client (pid \(peer.pid)): uid \(peer.uid) already holds \(held) connections")
                    continue
                }
                connectionsPerUID[peer.uid] = held + 1
                register(socket: socket, peer: peer)
            }
        }

        /// Takes one waiting connection off the queue with the reserve descriptor's slot and closes it. False when
        /// there is nothing more to do now: no connection was waiting, or no reserve (the listener is then paused).
        func shedWithReserve(_ shortage: Errno) -> Bool {
            guard hasReserve else {
                note("emfile", "control socket: out of file descriptors (\(shortage)) and no reserve; pausing accepts for 100 ms")
                listenerPausedUntil = .now + .milliseconds(100)
                reserve = Self.openReserve()
                return false
            }
            reserve = nil
            var acceptFailure: Errno?
            do {
                // Accepted only to be closed at once, which frees the slot for the reserve again.
                _ = try acceptOne()
            } catch {
                acceptFailure = error
            }
            reserve = Self.openReserve()
            guard let acceptFailure else {
                note("emfile", "control socket: out of file descriptors (\(shortage)); refused a connection with the reserve descriptor")
                return true
            }
            if acceptFailure == .wouldBlock { return false }
            note("emfile", "control socket: out of file descriptors (\(shortage)) even after freeing the reserve; pausing accepts for 100 ms")
            listenerPausedUntil = .now + .milliseconds(100)
            return false
        }

        func register(socket: consuming FileDescriptor, peer: PeerCredentials) {
            let server = self.server
            let connection = ClientConnection(socket: socket, peer: peer, authority: server.authorization.authority(for: peer),
                                              bound: server.configuration.maxBufferedOutputBytes,
                                              hardBound: server.configuration.maxQueuedOutputBytes,
                                              slowConsumerGrace: server.configuration.slowConsumerGrace,
                                              wake: { [weak server] in server?.signalWake() })
            let service = server.service
            let task = Task {
                for await inbound in connection.inbound {
                    // Nothing more is answered while the client's unread replies are over half the bound: this is
                    // what bounds a client that pipelines calls without reading. False: closed, or stalled too long.
                    if case .fatal = inbound {} else {
                        guard await connection.waitForRoom() else { break }
                    }
                    switch inbound {
                    case .call(let call):
                        await service.handle(call, authority: connection.authority, sink: connection)
                        connection.callFinished()
                    case .reject(let error):
                        _ = connection.send(VarlinkReply(error: error), force: true)
                        connection.callFinished()
                    case .fatal(let error):
                        _ = connection.send(VarlinkReply(error: error), force: true)
                        connection.closeAfterFlush()
                        return
                    }
                }
                connection.closeAfterFlush()
            }
            server.registry.withLock { $0[connection.fd] = connection }
            clients[connection.fd] = Client(connection: connection, decoder: FrameDecoder(limit: server.configuration.maxRequestBytes), reading: true, task: task)
        }

        func service(fd: Int32, revents: Int16) {
            guard var client = clients[fd] else { return }
            if revents & Int16(POLLIN) != 0, client.reading {
                let connection = client.connection
                let received = readBuffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try connection.receive(into: raw) } }
                if case .success(let count) = received, count > 0 {
                    for output in client.decoder.feed(readBuffer[0..<count]) {
                        switch output {
                        case .frame(let bytes):
                            do throws(VarlinkCall.FrameError) {
                                let call = try VarlinkCall(frame: bytes)
                                client.connection.callArrived()
                                client.connection.inboundContinuation.yield(.call(call))
                            } catch {
                                switch error {
                                case .notACall(let reason):
                                    // Valid JSON that is not a call: the framing is intact, so answer and carry on.
                                    client.connection.callArrived()
                                    client.connection.inboundContinuation.yield(.reject(reason))
                                case .notJSON(let reason):
                                    client.connection.inboundContinuation.yield(.fatal(reason))
                                    client.reading = false
                                }
                            }
                        case .tooLarge:
                            client.connection.inboundContinuation.yield(.fatal(.requestTooLarge(limit: server.configuration.maxRequestBytes)))
                            client.reading = false
                        }
                        if !client.reading { break }
                    }
                    if !client.reading { client.connection.inboundContinuation.finish() }
                } else if received != .failure(.wouldBlock) {
                    // End of input (or a failed read): answer what was asked, then close.
                    client.reading = false
                    client.connection.inboundContinuation.finish()
                    if case .failure = received, revents & Int16(POLLHUP | POLLERR) != 0 { clients[fd] = client; drop(fd); return }
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
            server.registry.withLock { _ = $0.removeValue(forKey: fd) }
            let uid = client.connection.peer.uid
            if let held = connectionsPerUID[uid], held > 1 { connectionsPerUID[uid] = held - 1 } else { connectionsPerUID[uid] = nil }
            client.task.cancel()
            client.connection.close()
        }
    }
}

/// Keeps a flood of one kind of log line (refused connections, EMFILE) from becoming a flood in the journal:
/// the first line of a kind is logged, then at most one every `interval`, saying how many were held back.
struct LogThrottle {
    var interval: Duration = .seconds(10)
    private var kinds: [String: (lastLogged: ContinuousClock.Instant, heldBack: Int)] = [:]

    /// The line to log now, or nil when it is held back.
    mutating func admit(_ kind: String, _ message: String, at now: ContinuousClock.Instant) -> String? {
        guard let previous = kinds[kind] else {
            kinds[kind] = (now, 0)
            return message
        }
        guard now - previous.lastLogged >= interval else {
            kinds[kind] = (previous.lastLogged, previous.heldBack + 1)
            return nil
        }
        kinds[kind] = (now, 0)
        return previous.heldBack == 0 ? message : message + " (\(previous.heldBack) more like it in the last \(now - previous.lastLogged))"
    }
}
