/// Names one QoS 1 publish of a ``BrokerConnection``, to match it with its PUBACK.
///
/// libmosquitto's message ids restart at 1 in every session and wrap at 65 535, so the id alone could match
/// the acknowledgement of an older message; the session number makes the pair unique for the connection's life.
public struct PublishID: Sendable, Hashable, CustomStringConvertible {
    /// Which session of the connection (1, 2, … in order) the message went out in.
    public let session: Int
    /// The MQTT packet identifier (1…65 535).
    public let messageID: Int32

    public init(session: Int, messageID: Int32) {
        self.session = session
        self.messageID = messageID
    }

    public var description: String { "\(session):\(messageID)" }
}

/// A change of the broker link, for logs, metrics and the publish pump.
public enum BrokerLinkEvent: Sendable, Hashable {
    /// A session is up (CONNACK accepted, retained `online` sent). `isReconnect` is true for every session after
    /// the first: the link is back.
    case connected(session: Int, isReconnect: Bool)
    /// An attempt failed before a session came up; the next starts after `retryIn` (the project's ``Backoff``).
    case attemptFailed(BrokerError, retryIn: Duration)
    /// An established session ended; the first new attempt starts after `retryIn`.
    case lost(BrokerError, retryIn: Duration)
    /// The connection was shut down; no event follows.
    case stopped
}

/// Everything a ``BrokerConnection`` reports, in the order it happened on its network thread: a PUBACK of
/// session n always comes before the `lost` event that ends session n.
public enum BrokerEvent: Sendable, Hashable {
    case link(BrokerLinkEvent)
    /// The broker acknowledged a QoS 1 publish (PUBACK with a success reason): it now owns the message.
    case acknowledged(PublishID)
    /// The broker answered a QoS 1 publish with an error reason that would come again (MQTT 5: not authorized,
    /// topic or payload invalid, …): it will not deliver it, now or later.
    case rejected(PublishID, BrokerError)
    /// The broker answered a QoS 1 publish with an error reason that may pass (MQTT 5: quota exceeded, packet
    /// identifier in use, an unspecified or implementation-specific error): not delivered now; publish it again.
    case refusedForNow(PublishID, BrokerError)

    /// The event a PUBACK of `id` with reason `code` becomes (``PubackReason`` decides); `broker` names the
    /// broker in the error.
    public static func answer(to id: PublishID, reason code: Int32, broker: String) -> BrokerEvent {
        switch PubackReason.disposition(of: code) {
        case .accepted:
            .acknowledged(id)
        case .retryLater:
            .refusedForNow(id, BrokerError(.publishRefusedForNow, "the broker at \(broker) refused message \(id) for now",
                                           cause: MosquittoLibrary.replyCause(code, version: .mqtt5)))
        case .refused:
            .rejected(id, BrokerError(.publishRejected, "the broker at \(broker) refused message \(id)",
                                      cause: MosquittoLibrary.replyCause(code, version: .mqtt5)))
        }
    }
}

/// The broker link as `fleetctl status` and the metrics show it.
public struct BrokerLinkStatus: Sendable, Hashable {
    public enum Phase: String, Sendable, Hashable {
        /// ``BrokerConnection/start()`` not called yet.
        case idle
        /// An attempt is under way (TCP, TLS, CONNECT sent).
        case connecting
        case connected
        /// Waiting out the backoff delay before the next attempt.
        case waiting
        case stopped
    }

    public var phase: Phase = .idle
    /// The current session number while connected, else the last one (0 before the first).
    public var session = 0
    /// Attempts that failed before a session came up.
    public var failedAttempts = 0
    /// Established sessions that ended other than by shutdown.
    public var losses = 0
    /// Why the last attempt failed or the last session ended.
    public var lastError: BrokerError?
    /// Sessions after the first: the reconnects metric.
    public var reconnects: Int { max(0, session - 1) }
}
