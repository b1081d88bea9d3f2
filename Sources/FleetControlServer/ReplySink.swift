import FleetProtocol

/// Where a call's replies go: a client connection's bounded output buffer, or a test's recorder.
public protocol ReplySink: Sendable {
    /// Queues a reply. Streamed replies pass `force: false` and are refused once the client's buffer is over
    /// its bound; single replies pass `force: true` (the server bounds those by not reading further requests).
    func send(_ reply: VarlinkReply, force: Bool) -> ReplySendResult
}

/// Whether a reply was queued.
public enum ReplySendResult: Sendable, Equatable {
    case queued
    /// The client's output buffer is over its bound; the reply was not queued.
    case overflow(bufferedBytes: Int)
    /// The connection is gone.
    case closed
}
