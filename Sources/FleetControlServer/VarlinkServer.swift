#if canImport(Glibc)
import Glibc
#endif
import FleetProtocol
import Foundation
import Synchronization

/// The varlink control server: accepts clients on a Unix stream socket and answers them with a `FleetService`.
///
/// One poll thread does all socket I/O (accept, read, flush, close); each client's calls run in order on
/// a task of its own, so a slow backend call or a long `Watch` never holds up other clients.
/// Protocol violations (oversized request, invalid JSON) get an error reply and close only that connection.
///
/// Descriptors are a shared, bounded resource, so the server never lets clients exhaust them: a connection
/// with no call in progress is closed after `idleTimeout`, each user id may hold at most
/// `maxConnectionsPerPeer`, and when `accept` fails for want of descriptors (EMFILE/ENFILE) a reserve
/// descriptor is given up to accept and close the waiting connection, so the listening socket never stays
/// readable with nothing able to drain it.
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

        public init(socketPath: String = FleetInterface.defaultSocketPath, socketMode: mode_t = 0o660, controlGroup: String? = nil,
                    inheritedDescriptor: Int32? = nil, maxRequestBytes: Int = 64 * 1024,
                    maxBufferedOutputBytes: Int = 1024 * 1024, slowConsumerGrace: Duration = .seconds(2), maxClients: Int = 1024,
                    idleTimeout: Duration = .seconds(30), maxConnectionsPerPeer: Int = 128) {
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
        struct Client {
            var connection: ClientConnection
            var decoder: FrameDecoder
            var reading: Bool
            var task: Task<Void, Never>
        }

        unowned let server: VarlinkServer
        var clients: [Int32: Client] = [:]
        var connectionsPerUID: [uid_t: Int] = [:]
        var readBuffer = [UInt8](repeating: 0, count: 65_536)
        /// An open /dev/null held back for the moment `accept` fails with EMFILE: closing it makes room to take
        /// the waiting connection off the queue (and close it), instead of leaving the listener readable for ever.
        var reserve: Int32?
        /// Set when the listener cannot be drained (no reserve, or the kernel out of memory): it is left out of
        /// poll until then, so a readable listener cannot make the thread spin.
        var listenerPausedUntil: ContinuousClock.Instant?
        var throttle = LogThrottle()

        init(server: VarlinkServer) {
            self.server = server
            reserve = Self.openReserve()
        }

        static func openReserve() -> Int32? {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            return fd >= 0 ? fd : nil
        }

        func note(_ key: String, _ message: String, now: ContinuousClock.Instant = .now) {
            if let line = throttle.admit(key, message, at: now) { server.log(line) }
        }

        func run() {
            let listenFD = server.listener.fd
            let wakeFD = server.wakeFD
            let idleTimeout = server.configuration.idleTimeout
            if reserve == nil { note("reserve", "control socket: cannot open /dev/null as a reserve descriptor; running out of descriptors will pause accepts instead") }
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
                    if client.reading, client.connection.pendingOutput <= server.configuration.maxBufferedOutputBytes { events |= Int16(POLLIN) }
                    if client.connection.pendingOutput > 0 { events |= Int16(POLLOUT) }
                    fds.append(pollfd(fd: fd, events: events, revents: 0))
                    for due in [client.connection.closeDeadline, client.connection.idleDeadline(after: idleTimeout)].compactMap({ $0 }) {
                        deadline = min(deadline ?? due, due)
                    }
                }
                let timeout: Int32 = deadline.map { Int32(clamping: max(0, Int((($0 - now) / .milliseconds(1)).rounded(.up)))) } ?? -1
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
                now = .now
                for (fd, client) in clients {
                    if client.connection.pendingOutput > 0, !client.connection.flush() { drop(fd); continue }
                    if client.connection.shouldClose(at: now) { drop(fd); continue }
                    if let idle = client.connection.idleDeadline(after: idleTimeout), now >= idle {
                        let peer = client.connection.peer
                        note("idle", "closed an idle control connection (pid \(peer.pid), uid \(peer.uid)): no request for \(idleTimeout)", now: now)
                        drop(fd)
                    }
                }
            }
            for fd in Array(clients.keys) { drop(fd) }
            if let reserve { close(reserve) }
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
                    // accept4 needs _GNU_SOURCE, which Swift's Glibc module lacks.
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                }
                if fd < 0 {
                    let code = errno
                    switch code {
                    case EINTR, ECONNABORTED: continue
                    case EAGAIN, EWOULDBLOCK: return
                    case EMFILE, ENFILE:
                        if shedWithReserve(code) { continue }
                        return
                    default:
                        // ENOBUFS, ENOMEM: nothing this thread can free; try again shortly rather than spin.
                        note("accept", "control socket accept failed: \(String(cString: strerror(code))); pausing accepts for 100 ms")
                        listenerPausedUntil = .now + .milliseconds(100)
                        return
                    }
                }
                guard clients.count < server.configuration.maxClients else {
                    note("full", "refused a control client: \(clients.count) clients already connected")
                    close(fd)
                    continue
                }
                let peer: PeerCredentials
                do {
                    peer = try PeerCredentials.of(socket: fd)
                } catch {
                    note("peer", "refused a control client: \(error)")
                    close(fd)
                    continue
                }
                let held = connectionsPerUID[peer.uid, default: 0]
                guard held < server.configuration.maxConnectionsPerPeer else {
                    note("peer-cap.\(peer.uid)", "refused a control client (pid \(peer.pid)): uid \(peer.uid) already holds \(held) connections")
                    close(fd)
                    continue
                }
                connectionsPerUID[peer.uid] = held + 1
                register(fd: fd, peer: peer)
            }
        }

        /// Takes one waiting connection off the queue with the reserve descriptor's slot and closes it. False when
        /// there is nothing more to do now: no connection was waiting, or no reserve (the listener is then paused).
        func shedWithReserve(_ code: Int32) -> Bool {
            guard let spare = reserve else {
                note("emfile", "control socket: out of file descriptors (\(String(cString: strerror(code)))) and no reserve; pausing accepts for 100 ms")
                listenerPausedUntil = .now + .milliseconds(100)
                reserve = Self.openReserve()
                return false
            }
            close(spare)
            reserve = nil
            let fd = accept(server.listener.fd, nil, nil)
            let acceptErrno = errno
            if fd >= 0 { close(fd) }
            reserve = Self.openReserve()
            if fd >= 0 {
                note("emfile", "control socket: out of file descriptors (\(String(cString: strerror(code)))); refused a connection with the reserve descriptor")
                return true
            }
            if acceptErrno == EAGAIN || acceptErrno == EWOULDBLOCK { return false }
            note("emfile", "control socket: out of file descriptors (\(String(cString: strerror(code)))) even after freeing the reserve; pausing accepts for 100 ms")
            listenerPausedUntil = .now + .milliseconds(100)
            return false
        }

        func register(fd: Int32, peer: PeerCredentials) {
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
            clients[fd] = Client(connection: connection, decoder: FrameDecoder(limit: server.configuration.maxRequestBytes), reading: true, task: task)
        }

        func service(fd: Int32, revents: Int16) {
            guard var client = clients[fd] else { return }
            if revents & Int16(POLLIN) != 0, client.reading {
                let count = readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 {
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
