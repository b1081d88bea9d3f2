#if canImport(Glibc)
import Glibc
#endif
import FleetProtocol
import FleetSystem
import Synchronization

/// One accepted client: its socket, a bounded output buffer, and the stream of calls read from it.
///
/// Reply tasks call `send` from any thread; only the server's poll thread reads, flushes and closes
/// the descriptor. The descriptor itself lives in `output`, under the lock every send takes, so closing it
/// and writing to it cannot interleave and a closed number is never written to after reuse.
///
/// What a client that does not read may cost is bounded three ways:
/// - **Room**: a call runs, and a durable Watch sends its next value, only once the queued replies are at most
///   half of `bound` (`waitForRoom`); so queued output stays under `bound / 2` plus one reply.
/// - **Stall**: while the queued replies are over half of `bound` (so a call or a stream waits, or is about to),
///   a client that takes no byte for `roomTimeout` is stalled: the poll thread closes the connection
///   (`stalledSince`), logging the peer, and every wait for room ends with false.
/// - **Hard bound**: a reply that would leave more than `hardBound` bytes queued (a single enormous reply) is
///   not queued; the connection is closed at once (`takeHardBoundExceeded`), logging the peer.
final class ClientConnection: ReplySink {
    /// What the poll thread hands to the connection's call-handling task, in arrival order.
    enum Inbound: Sendable {
        case call(VarlinkCall)
        /// Valid JSON but not a call: send this error and carry on.
        case reject(VarlinkError)
        /// A protocol violation that breaks framing: send this error, then close the connection.
        case fatal(VarlinkError)
    }

    struct Output: ~Copyable {
        /// The client's socket; nil once closed (which closed it).
        var socket: FileDescriptor?
        var bytes: [UInt8] = []
        var offset = 0
        var closed = false
        /// Close once `bytes` has been written (after a fatal error, end of input or a slow-consumer drop).
        var closeAfterFlush = false
        /// Close at this time even if unflushed (a slow consumer that never reads again).
        var closeDeadline: ContinuousClock.Instant?
        /// Calls and durable streams waiting for the client to read: resumed true when the buffer drains to half
        /// the bound, false when the connection closes (a stalled one included).
        var roomWaiters: [CheckedContinuation<Bool, Never>] = []
        /// Since when the queued replies have been over half the bound (what makes calls and streams wait).
        var crowdedSince: ContinuousClock.Instant?
        /// When the socket last took a byte of queued output (or the connection was accepted).
        var lastProgress: ContinuousClock.Instant = .now
        /// Set when a reply would have queued this many bytes, over the hard bound: the poll thread closes.
        var overHardBound: Int?

        /// The most `pendingCount` has been.
        var peak = 0

        var pendingCount: Int { bytes.count - offset }

        /// Sends what the socket takes of `buffer`; `.badFileDescriptor` once closed.
        func send(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
            switch socket {
            case .some(let open): return try open.send(buffer)
            case .none: throw .badFileDescriptor
            }
        }

        /// Writes as much pending output as the socket takes. False when the connection failed (an error other
        /// than a full socket, or a send that took nothing).
        mutating func flush() -> Bool {
            while pendingCount > 0 {
                let sent = bytes.withUnsafeBytes { raw in
                    Result { () throws(Errno) in try send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
                }
                switch sent {
                case .success(let count) where count > 0:
                    offset += count
                    lastProgress = .now
                case .success: return false
                case .failure(let error): return error == .wouldBlock
                }
            }
            bytes.removeAll(keepingCapacity: bytes.capacity <= 65_536)
            offset = 0
            return true
        }
    }

    /// Whether a call is being answered, and since when the connection has been quiet otherwise.
    struct Activity {
        var callsInProgress = 0
        var quietSince: ContinuousClock.Instant
    }

    /// The socket's number, for poll and as the server's key; `output` owns the descriptor itself.
    let fd: Int32
    let authority: CallerAuthority
    let peer: PeerCredentials
    let bound: Int
    /// Queued replies beyond this close the connection at once.
    let hardBound: Int
    let inbound: AsyncStream<Inbound>
    let inboundContinuation: AsyncStream<Inbound>.Continuation
    private let output: Mutex<Output>
    private let activity = Mutex(Activity(quietSince: .now))
    private let wake: @Sendable () -> Void
    private let slowConsumerGrace: Duration

    init(socket: consuming FileDescriptor, peer: PeerCredentials, authority: CallerAuthority, bound: Int, hardBound: Int,
         slowConsumerGrace: Duration, wake: @escaping @Sendable () -> Void) {
        fd = socket.rawValue
        output = Mutex(Output(socket: socket))
        self.peer = peer
        self.authority = authority
        self.bound = bound
        self.hardBound = hardBound
        self.slowConsumerGrace = slowConsumerGrace
        self.wake = wake
        (inbound, inboundContinuation) = AsyncStream.makeStream(of: Inbound.self)
    }

    func send(_ reply: VarlinkReply, force: Bool) -> ReplySendResult {
        let frame = reply.frame
        let result: ReplySendResult = output.withLock { state in
            guard !state.closed else { return .closed }
            if !force, state.pendingCount > bound {
                // A streaming client that fell this far behind is dropped: whatever note follows is its last.
                state.closeAfterFlush = true
                state.closeDeadline = .now + slowConsumerGrace
                return .overflow(bufferedBytes: state.pendingCount)
            }
            var written = 0
            if state.pendingCount == 0 {
                // Fast path: write straight away so an idle client gets its answer without a poll wake-up.
                let sent = frame.withUnsafeBytes { raw in Result { () throws(Errno) in try state.send(raw) } }
                switch sent {
                case .success(let count): written = count
                case .failure(.wouldBlock): break
                case .failure:
                    state.closeAfterFlush = true
                    state.closeDeadline = .now
                    return .closed
                }
                if written > 0 { state.lastProgress = .now }
                if written == frame.count { return .queued }
            }
            if state.pendingCount + frame.count - written > hardBound {
                // Not queued: one reply this large for a client that is not reading would be held for as long as it
                // holds the connection. The poll thread closes it and says who it was.
                state.overHardBound = state.pendingCount + frame.count - written
                state.closeAfterFlush = true
                state.closeDeadline = .now
                return .closed
            }
            if state.pendingCount == 0 {
                state.bytes = Array(frame[written...])
                state.offset = 0
            } else {
                state.bytes.append(contentsOf: frame)
            }
            state.peak = max(state.peak, state.pendingCount)
            if state.crowdedSince == nil, state.pendingCount > bound / 2 { state.crowdedSince = .now }
            return .queued
        }
        wake()
        return result
    }

    /// Poll thread: a complete request arrived; the connection is busy until `callFinished`.
    func callArrived() {
        activity.withLock { $0.callsInProgress += 1 }
    }

    /// Call task: a request has been answered (or its stream ended). Wakes the poll thread when it had stopped
    /// reading for too many calls waiting (`maxPipelinedCalls`), so that it reads on.
    func callFinished() {
        let resumeReading = activity.withLock { state in
            state.callsInProgress -= 1
            state.quietSince = .now
            return state.callsInProgress == Self.maxPipelinedCalls - 1
        }
        if resumeReading { wake() }
    }

    /// While this many requests are read and not yet answered, the poll thread reads no more from the
    /// connection: what a pipelining client has sent beyond them waits in its socket, not in fleetd.
    static let maxPipelinedCalls = 64

    /// Poll thread: whether further requests may be read now (few enough waiting to be answered).
    var acceptsMoreCalls: Bool { activity.withLock { $0.callsInProgress < Self.maxPipelinedCalls } }

    /// Poll thread: when the connection counts as idle for `timeout`, or nil while a call is in progress (a
    /// streaming `Watch` included). Nothing complete arriving (silence, or half a request) is what idle means.
    func idleDeadline(after timeout: Duration) -> ContinuousClock.Instant? {
        activity.withLock { $0.callsInProgress > 0 ? nil : $0.quietSince + timeout }
    }

    /// Marks the connection to be closed once its output is flushed.
    func closeAfterFlush() {
        output.withLock { $0.closeAfterFlush = true }
        wake()
    }

    /// Waits until the queued replies are at most half the bound: before each call runs, and before each value of a
    /// durable Watch. False once the connection is gone, which is also how a wait ends whose client has taken no
    /// byte for the server's `roomTimeout` (the poll thread closes it, see `stalledSince`).
    func waitForRoom() async -> Bool {
        let threshold = bound / 2
        // Most calls find room: answer them without a continuation.
        let immediate: Bool? = output.withLock { state in
            if state.closed || state.closeAfterFlush { return false }
            return state.pendingCount <= threshold ? true : nil
        }
        if let immediate { return immediate }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let verdict: Bool? = output.withLock { state in
                if state.closed || state.closeAfterFlush { return false }
                if state.pendingCount <= threshold { return true }
                state.roomWaiters.append(continuation)
                return nil
            }
            if let verdict { continuation.resume(returning: verdict) }
        }
    }

    /// Poll thread: receives what has arrived, at most `buffer.count` bytes; 0 is end of input. Under the
    /// lock only so that the descriptor is read where it is owned; the poll thread is its one reader.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try output.withLock { state throws(Errno) -> Int in
            switch state.socket {
            case .some(let open): return try open.receive(into: buffer)
            case .none: throw .badFileDescriptor
            }
        }
    }

    /// Bytes waiting to be written.
    var pendingOutput: Int { output.withLock { $0.pendingCount } }

    /// Poll thread: when the connection counts as stalled, the client having taken no byte for `timeout` since its
    /// queued replies went over half the bound or since its last read, whichever is later; nil while they are not.
    /// Decided from the output alone, so it holds whether or not the call task has reached its wait yet.
    func roomDeadline(after timeout: Duration) -> ContinuousClock.Instant? {
        output.withLock { state in
            guard let since = state.crowdedSince else { return nil }
            return max(since, state.lastProgress) + timeout
        }
    }

    /// Poll thread: the bytes left unsent when the connection counts as stalled at `now` (its queued replies over
    /// half the bound, and nothing read for `timeout`), else nil.
    func stalledSince(at now: ContinuousClock.Instant, timeout: Duration) -> Int? {
        guard let deadline = roomDeadline(after: timeout), now >= deadline else { return nil }
        return pendingOutput
    }

    /// Poll thread: the queued size a refused reply would have reached, once (the connection is to be closed).
    func takeHardBoundExceeded() -> Int? {
        output.withLock { state in
            defer { state.overHardBound = nil }
            return state.overHardBound
        }
    }

    /// What the connection holds now.
    var statistics: ConnectionStatistics {
        let (queued, peak, waiting) = output.withLock { ($0.pendingCount, $0.peak, !$0.roomWaiters.isEmpty) }
        return ConnectionStatistics(pid: peer.pid, uid: peer.uid, queuedOutputBytes: queued, peakQueuedOutputBytes: peak,
                                    callsInProgress: activity.withLock { $0.callsInProgress }, waitingForRoom: waiting)
    }

    /// Poll thread: writes as much buffered output as the socket takes. Returns false on a write error.
    func flush() -> Bool {
        let threshold = bound / 2
        let (flushed, waiters) = output.withLock { state -> (Bool, [CheckedContinuation<Bool, Never>]) in
            let flushed = state.flush()
            if flushed, state.pendingCount <= threshold { state.crowdedSince = nil }
            guard flushed, state.pendingCount <= threshold, !state.roomWaiters.isEmpty else { return (flushed, []) }
            defer { state.roomWaiters.removeAll() }
            return (flushed, state.roomWaiters)
        }
        waiters.forEach { $0.resume(returning: true) }
        return flushed
    }

    /// Poll thread: whether the connection should be closed now.
    func shouldClose(at now: ContinuousClock.Instant) -> Bool {
        output.withLock { state in
            guard state.closeAfterFlush else { return false }
            if state.pendingCount == 0 { return true }
            if let deadline = state.closeDeadline, now >= deadline { return true }
            return false
        }
    }

    /// Poll thread: the earliest forced-close deadline, so poll can wake for it.
    var closeDeadline: ContinuousClock.Instant? { output.withLock { $0.closeAfterFlush ? $0.closeDeadline : nil } }

    /// Poll thread: marks closed (later sends report `.closed`) and closes the descriptor.
    func close() {
        let waiters = output.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.closed = true
            state.bytes = []
            state.offset = 0
            state.socket = nil
            state.crowdedSince = nil
            defer { state.roomWaiters.removeAll() }
            return state.roomWaiters
        }
        waiters.forEach { $0.resume(returning: false) }
        inboundContinuation.finish()
    }
}
