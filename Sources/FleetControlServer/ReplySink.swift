import FleetProtocol

/// Where a call's replies go: a client connection's bounded output buffer, or a test's recorder.
public protocol ReplySink: Sendable {
    /// Queues a reply. Streamed replies pass `force: false` and are refused once the client's buffer is over
    /// its bound; single replies pass `force: true` (the server bounds those by not reading further requests).
    func send(_ reply: VarlinkReply, force: Bool) -> ReplySendResult
    /// Waits until a streamed reply would be accepted (the client has read enough of what is buffered); false
    /// once the connection is gone. A durable Watch waits here instead of overflowing: its values stay in the
    /// store until the client reads on. The wait has a deadline: a client connection that takes no byte for the
    /// server's `roomTimeout` while something waits here is closed as stalled, which ends the wait with false.
    func waitForRoom() async -> Bool
}

extension ReplySink {
    /// Sinks that never refuse (a test's recorder) always have room.
    public func waitForRoom() async -> Bool { true }
}

/// Whether a reply was queued.
public enum ReplySendResult: Sendable, Equatable {
    case queued
    /// The client's output buffer is over its bound; the reply was not queued.
    case overflow(bufferedBytes: Int)
    /// The connection is gone.
    case closed
}
