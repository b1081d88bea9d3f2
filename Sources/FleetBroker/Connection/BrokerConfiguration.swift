import Policy

/// Where and how one gateway connects to the fleet's MQTT broker.
///
/// Defaults: MQTT 3.1.1, port 1883 (8883 is the convention with TLS, set it explicitly), keep-alive 30 s,
/// connect timeout 10 s, up to 1 000 QoS 1 publishes in flight, and between connection attempts the project's
/// ``Backoff`` (1 s doubling to 60 s, full jitter) capped at 1 s for the first 2 min of an outage
/// (``BrokerReconnectPolicy``). The gateway id is the MQTT client id and the second topic
/// level, so two gateways on one broker must not share it (the broker would disconnect the older session).
public struct BrokerConfiguration: Sendable, Hashable {
    /// The MQTT protocol level sent in CONNECT.
    public enum ProtocolVersion: String, Sendable, Hashable {
        case mqtt311 = "3.1.1"
        case mqtt5 = "5"
    }

    public var host: String
    public var port: Int
    /// This gateway's id: the MQTT client id and the `<gateway>` topic level (see ``TopicSegment``).
    public var gatewayID: String
    /// The first topic level(s), `fleetd` by default (see ``ReadingTopics``).
    public var topicPrefix: String
    public var protocolVersion: ProtocolVersion
    /// The MQTT keep-alive: whole seconds, 0 (off) or 5…65 535 s.
    public var keepAlive: Duration
    /// How long one attempt may wait for the broker's CONNACK, from the start of the TCP connect.
    public var connectTimeout: Duration
    /// TLS, when the broker's listener uses it.
    public var tls: BrokerTLS?
    /// A file with `username=` and `password=` lines, readable by its owner only (see ``BrokerCredentials``).
    /// Read at start (a bad file is an error there) and again before every connection attempt, so a rotated
    /// password is picked up on the next reconnect. Without ``tls`` it is refused (the password would cross the
    /// network in clear), unless ``allowPlaintextPassword`` is set and the broker is on this machine.
    public var credentialsFile: String?
    /// Lets ``credentialsFile`` be used without TLS, for a broker on a loopback address only (127.0.0.0/8, ::1,
    /// `localhost`; ``isLoopback(host:)``), where the password never leaves the machine.
    public var allowPlaintextPassword: Bool
    /// The delay between connection attempts and after a lost session, once the outage is no longer young.
    public var backoff: BackoffConfiguration
    /// How long an outage counts as young: its reconnect delays are at most ``quickReconnectCap``.
    public var quickReconnectFor: Duration
    /// The longest reconnect delay while the outage is young.
    public var quickReconnectCap: Duration
    /// libmosquitto's send maximum: QoS 1 publishes on the wire without a PUBACK yet, 1…65 535 (more are
    /// queued inside the library). An MQTT 5 broker may lower it with its Receive Maximum.
    public var maxInFlight: Int
    /// On shutdown, how long to wait for the broker to acknowledge the retained `offline` status.
    public var shutdownTimeout: Duration
    /// Seeds the backoff's jitter; nil takes a seed from the system, so gateways restarted together spread out.
    public var randomSeed: UInt64?

    public init(host: String, port: Int = 1883, gatewayID: String, topicPrefix: String = ReadingTopics.defaultPrefix,
                protocolVersion: ProtocolVersion = .mqtt311, keepAlive: Duration = .seconds(30),
                connectTimeout: Duration = .seconds(10), tls: BrokerTLS? = nil, credentialsFile: String? = nil,
                backoff: BackoffConfiguration = BackoffConfiguration(), maxInFlight: Int = 1000,
                shutdownTimeout: Duration = .seconds(2), randomSeed: UInt64? = nil,
                quickReconnectFor: Duration = .seconds(120), quickReconnectCap: Duration = .seconds(1),
                allowPlaintextPassword: Bool = false) {
        self.host = host
        self.port = port
        self.gatewayID = gatewayID
        self.topicPrefix = topicPrefix
        self.protocolVersion = protocolVersion
        self.keepAlive = keepAlive
        self.connectTimeout = connectTimeout
        self.tls = tls
        self.credentialsFile = credentialsFile
        self.backoff = backoff
        self.maxInFlight = maxInFlight
        self.shutdownTimeout = shutdownTimeout
        self.randomSeed = randomSeed
        self.quickReconnectFor = quickReconnectFor
        self.quickReconnectCap = quickReconnectCap
        self.allowPlaintextPassword = allowPlaintextPassword
    }

    /// The delays between connection attempts that ``backoff`` and the young-outage rule make.
    public var reconnectPolicy: BrokerReconnectPolicy {
        BrokerReconnectPolicy(backoff: backoff, quickFor: quickReconnectFor, quickCap: quickReconnectCap)
    }
}

/// TLS towards the broker: the CA that signed its certificate, and optionally this gateway's own certificate
/// and key for a listener that requires client certificates. The key must not be encrypted: a daemon has no one
/// to ask for its passphrase, so an encrypted key fails the connection instead of prompting.
public struct BrokerTLS: Sendable, Hashable {
    /// PEM file of the CA (or CAs) trusted to sign the broker's certificate.
    public var caFile: String
    /// PEM client certificate; needs ``keyFile``.
    public var certificateFile: String?
    /// PEM private key of ``certificateFile``, unencrypted.
    public var keyFile: String?
    /// Check that the broker's certificate names ``BrokerConfiguration/host``. Turning it off accepts any
    /// certificate the CA signed, for any host: only for test rigs.
    public var verifyHostname: Bool

    public init(caFile: String, certificateFile: String? = nil, keyFile: String? = nil, verifyHostname: Bool = true) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.verifyHostname = verifyHostname
    }
}
