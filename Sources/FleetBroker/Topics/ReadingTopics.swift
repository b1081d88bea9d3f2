/// The topics one gateway publishes to: `<prefix>/<gateway>/…`.
///
/// | topic | payload | QoS | retained |
/// |---|---|---|---|
/// | `<prefix>/<gateway>/<device>/<characteristic>` | one reading, JSON (`docs/mqtt-reading.schema.json`) | 1 | no |
/// | `<prefix>/<gateway>/<device>/state` | the device's lifecycle state, JSON | 1 | yes |
/// | `<prefix>/<gateway>/status` | `online`, or `offline` (also the last will) | 1 | yes |
///
/// The prefix is `fleetd` unless configured: one or more levels separated by `/`, each a valid
/// ``TopicSegment``, the first not starting with `$` (brokers reserve `$…` topics such as `$SYS`). The gateway
/// id, device id and characteristic are single levels (``TopicSegment``); a characteristic may not be `state`,
/// which is the device state's topic. Device state and readings have four or more levels after the prefix's and
/// the status three, so no device id can collide with the status topic.
public struct ReadingTopics: Sendable, Hashable {
    public static let defaultPrefix = "fleetd"
    /// The last level of a device's retained state topic.
    public static let stateLevel = "state"

    public let prefix: String
    public let gateway: String
    /// `<prefix>/<gateway>`: the base of every topic of this gateway.
    public let base: String

    public init(prefix: String = ReadingTopics.defaultPrefix, gateway: String) throws(BrokerError) {
        guard !prefix.hasPrefix("$") else {
            throw BrokerError(.invalidTopicSegment, "topic prefix '\(prefix)' starts with '$', which brokers reserve for their own topics ($SYS)")
        }
        for level in prefix.split(separator: "/", omittingEmptySubsequences: false) {
            try TopicSegment.validate(String(level), field: "topic prefix level")
        }
        try TopicSegment.validate(gateway, field: "gateway id")
        self.prefix = prefix
        self.gateway = gateway
        base = prefix + "/" + gateway
    }

    /// `<prefix>/<gateway>/status`: retained `online` while connected, `offline` as the last will.
    public var status: String { base + "/status" }

    /// `<prefix>/<gateway>/#`: every topic of this gateway, for a subscriber.
    public var everything: String { base + "/#" }

    /// `<prefix>/<gateway>/<device>/<characteristic>`.
    public func reading(device: String, characteristic: String) throws(BrokerError) -> String {
        try TopicSegment.validate(device, field: "device id")
        try TopicSegment.validate(characteristic, field: "characteristic")
        guard characteristic != Self.stateLevel else {
            throw BrokerError(.invalidTopicSegment, "characteristic 'state' would publish readings on device \(device)'s state topic")
        }
        return base + "/" + device + "/" + characteristic
    }

    /// `<prefix>/<gateway>/<device>/state`.
    public func deviceState(device: String) throws(BrokerError) -> String {
        try TopicSegment.validate(device, field: "device id")
        return base + "/" + device + "/" + Self.stateLevel
    }
}
