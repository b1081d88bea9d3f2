/// Why the broker link or a publish failed: what fleetd was doing, and libmosquitto's or the broker's own code
/// and text when there is one.
public struct BrokerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; ``message`` says which value, file or host was concerned.
    public enum Kind: String, Sendable, Hashable {
        /// A value in ``BrokerConfiguration`` is out of range or inconsistent.
        case invalidConfiguration
        /// An id cannot be one level of an MQTT topic (see ``TopicSegment``).
        case invalidTopicSegment
        /// The credentials file cannot be opened or read.
        case credentialsFileUnreadable
        /// The credentials file grants any permission to its group or to others; it is refused unread.
        case credentialsFileExposed
        /// The credentials file is not in the documented `username=` / `password=` form.
        case credentialsFileMalformed
        /// A TLS CA, certificate or key file cannot be read.
        case tlsFileUnreadable
        /// The TLS client key file grants any permission to its group or to others; it is refused, as the
        /// credentials file is.
        case tlsKeyFileExposed
        /// libmosquitto refused to set the client up (an option, the will, TLS).
        case clientSetup
        /// No MQTT session came up: DNS, TCP or TLS failed before the broker answered.
        case connectFailed
        /// The broker answered CONNECT with a refusal (bad credentials, identifier rejected, …).
        case connectionRefused
        /// The broker did not answer CONNECT within the connect timeout.
        case connectTimedOut
        /// An established session ended (socket closed, keep-alive missed, broker DISCONNECT).
        case connectionLost
        /// A publish was attempted while no session is up; nothing was sent.
        case notConnected
        /// libmosquitto could not take a publish now (out of memory, QoS not supported by this broker, …);
        /// nothing was sent, and the same message may succeed later.
        case publishFailed
        /// libmosquitto refused the message itself (payload larger than the broker accepts, topic not valid
        /// UTF-8): sending it again would fail the same way.
        case messageInvalid
        /// The broker answered a QoS 1 publish with an error reason that would come again (MQTT 5 only: not
        /// authorized, topic name or payload format invalid, packet too large). The message will not be delivered.
        case publishRejected
        /// The broker answered a QoS 1 publish with an error reason that may pass (MQTT 5 only: quota exceeded,
        /// packet identifier in use, unspecified or implementation-specific error). It was not delivered; the
        /// publish pump sends it again (``PubackReason``).
        case publishRefusedForNow
        /// The connection was shut down by its owner.
        case shutDown
    }

    /// The code and text underneath, in the space it comes from.
    public enum Cause: Sendable, Hashable, CustomStringConvertible {
        /// A libmosquitto `MOSQ_ERR_*` code and `mosquitto_strerror`'s text.
        case library(code: Int32, text: String)
        /// An errno and `strerror`'s text (a file, or libmosquitto's `MOSQ_ERR_ERRNO`).
        case system(errno: Int32, text: String)
        /// An MQTT 3.1.1 CONNACK return code and `mosquitto_connack_string`'s text.
        case connack(code: Int32, text: String)
        /// An MQTT 5 reason code and `mosquitto_reason_string`'s text.
        case reason(code: Int32, text: String)

        public var code: Int32 {
            switch self {
            case .library(let code, _), .connack(let code, _), .reason(let code, _): code
            case .system(let errno, _): errno
            }
        }

        public var text: String {
            switch self {
            case .library(_, let text), .system(_, let text), .connack(_, let text), .reason(_, let text): text
            }
        }

        public var description: String {
            switch self {
            case .library(let code, let text): "\(text) [MOSQ_ERR \(code)]"
            case .system(let errno, let text): "\(text) [errno \(errno)]"
            case .connack(let code, let text): "\(text) [CONNACK \(code)]"
            case .reason(let code, let text): "\(text) [reason 0x\(String(code, radix: 16))]"
            }
        }
    }

    public let kind: Kind
    /// What fleetd was doing, naming the file, host, topic or value concerned.
    public let message: String
    public let cause: Cause?
    /// The file concerned, for the file kinds.
    public let path: String?

    public init(_ kind: Kind, _ message: String, cause: Cause? = nil, path: String? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
        self.path = path
    }

    public var description: String {
        cause.map { "\(message): \($0)" } ?? message
    }
}
