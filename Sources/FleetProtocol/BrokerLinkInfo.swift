/// The gateway's link to the fleet's MQTT broker as `Status` reports it: where it publishes, whether the link is
/// up, and how far publishing is behind the outbox.
public struct BrokerLinkInfo: Sendable, Equatable, Codable {
    /// The link's phase.
    public enum LinkState: String, Sendable, Equatable, Codable, CaseIterable {
        /// An attempt is under way.
        case connecting
        case connected
        /// Waiting out the reconnect backoff after a failed attempt or a lost session.
        case waiting
        case stopped
    }

    /// `host:port`.
    public var broker: String
    /// The `<gateway>` topic level and MQTT client id.
    public var gateway: String
    /// `<prefix>/<gateway>`: every topic of this gateway starts with it.
    public var topicBase: String
    public var state: LinkState
    /// Sessions after the first.
    public var reconnects: Int
    /// Readings published since fleetd started (republications after a lost session included).
    public var published: Int
    /// Readings the broker acknowledged since fleetd started.
    public var acknowledged: Int
    /// Readings in the outbox not yet acknowledged by the broker.
    public var backlog: Int
    /// Age of the oldest of them, in seconds; nil when the backlog is empty.
    public var oldestUnpublishedSeconds: Double?
    /// Readings retention dropped before they were published, since fleetd started.
    public var lost: Int
    /// Why the last attempt failed or the last session ended.
    public var lastError: String?

    public init(broker: String, gateway: String, topicBase: String, state: LinkState, reconnects: Int, published: Int, acknowledged: Int,
                backlog: Int, oldestUnpublishedSeconds: Double?, lost: Int, lastError: String?) {
        self.broker = broker
        self.gateway = gateway
        self.topicBase = topicBase
        self.state = state
        self.reconnects = reconnects
        self.published = published
        self.acknowledged = acknowledged
        self.backlog = backlog
        self.oldestUnpublishedSeconds = oldestUnpublishedSeconds
        self.lost = lost
        self.lastError = lastError
    }
}
