#if canImport(Glibc)
import Glibc
#endif
import FleetProtocol
import Synchronization

/// One accepted client: its socket, a bounded output buffer, and the stream of calls read from it.
///
/// Reply tasks call `send` from any thread; only the server's poll thread reads, flushes and closes
/// the descriptor, so a closed descriptor number is never written to after reuse.
final class ClientConnection: ReplySink {
    /// What the poll thread hands to the connection's call-handling task, in arrival order.
    enum Inbound: Sendable {
        case call(VarlinkCall)
        /// Valid JSON but not a call: send this error and carry on.
        case reject(VarlinkError)
        /// A protocol violation that breaks framing: send this error, then close the connection.
        case fatal(VarlinkError)
    }

    struct Output {
        var bytes: [UInt8] = []
        var offset = 0
        var closed = false
        /// Close once `bytes` has been written (after a fatal error, end of input or a slow-consumer drop).
        var closeAfterFlush = false
        /// Close at this time even if unflushed (a slow consumer that never reads again).
        var closeDeadline: ContinuousClock.Instant?

        var pendingCount: Int { bytes.count - offset }
    }

    /// Whether a call is being answered, and since when the connection has been quiet otherwise.
    struct Activity {
        var callsInProgress = 0
        var quietSince: ContinuousClock.Instant
    }

    let fd: Int32
    let authority: CallerAuthority
    let peer: PeerCredentials
    let bound: Int
    let inbound: AsyncStream<Inbound>
    let inboundContinuation: AsyncStream<Inbound>.Continuation
    private let output = Mutex(Output())
    private let activity = Mutex(Activity(quietSince: .now))
    private let wake: @Sendable () -> Void
    private let slowConsumerGrace: Duration

    init(fd: Int32, peer: PeerCredentials, authority: CallerAuthority, bound: Int, slowConsumerGrace: Duration,
         wake: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.peer = peer
        self.authority = authority
        self.bound = bound
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
            if state.pendingCount == 0 {
                // Fast path: write straight away so an idle client gets its answer without a poll wake-up.
                let written = frame.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written == frame.count { return .queued }
                if written < 0, errno != EAGAIN, errno != EWOULDBLOCK {
                    state.closeAfterFlush = true
                    state.closeDeadline = .now
                    return .closed
                }
                state.bytes = Array(frame[max(written, 0)...])
                state.offset = 0
            } else {
                state.bytes.append(contentsOf: frame)
            }
            return .queued
        }
        wake()
        return result
    }

    /// Poll thread: a complete request arrived; the connection is busy until `callFinished`.
    func callArrived() {
        activity.withLock { $0.callsInProgress += 1 }
    }

    /// Call task: a request has been answered (or its stream ended).
    func callFinished() {
        activity.withLock { state in
            state.callsInProgress -= 1
            state.quietSince = .now
        }
    }

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

    /// Bytes waiting to be written.
    var pendingOutput: Int { output.withLock { $0.pendingCount } }

    /// Poll thread: writes as much buffered output as the socket takes. Returns false on a write error.
    func flush() -> Bool {
        output.withLock { state in
            while state.pendingCount > 0 {
                let written = state.bytes.withUnsafeBytes { raw in
                    Glibc.send(fd, raw.baseAddress.map { $0 + state.offset }, state.pendingCount, Int32(MSG_NOSIGNAL))
                }
                if written > 0 {
                    state.offset += written
                    continue
                }
                if written < 0, errno == EINTR { continue }
                return written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
            }
            state.bytes.removeAll(keepingCapacity: state.bytes.capacity <= 65_536)
            state.offset = 0
            return true
        }
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
        output.withLock { state in
            state.closed = true
            state.bytes = []
            state.offset = 0
            _ = Glibc.close(fd)
        }
        inboundContinuation.finish()
    }
}
