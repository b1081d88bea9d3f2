/// Publishes readings and device states on a gateway's topics (``ReadingTopics``) over a ``BrokerConnection``.
public struct ReadingPublisher: Sendable {
    public let connection: BrokerConnection
    public var topics: ReadingTopics { connection.topics }

    public init(connection: BrokerConnection) {
        self.connection = connection
    }

    /// One reading, QoS 1, not retained, on `<prefix>/<gateway>/<device>/<characteristic>`. Throws
    /// ``BrokerError/Kind/invalidTopicSegment`` for an id that cannot be a topic level (nothing is sent).
    public func publish(_ reading: BrokerReading) throws(BrokerError) -> PublishID {
        let topic = try topics.reading(device: reading.device, characteristic: reading.characteristic)
        return try connection.publish(topic: topic, payload: reading.jsonPayload, qos: .atLeastOnce, retain: false)
    }

    /// A device's lifecycle state, QoS 1, retained on `<prefix>/<gateway>/<device>/state`.
    @discardableResult
    public func publish(_ state: RetainedDeviceState) throws(BrokerError) -> PublishID {
        let topic = try topics.deviceState(device: state.device)
        return try connection.publish(topic: topic, payload: state.jsonPayload, qos: .atLeastOnce, retain: true)
    }

    /// Removes a forgotten device's retained state (an empty retained message deletes it on the broker).
    @discardableResult
    public func clearState(device: String) throws(BrokerError) -> PublishID {
        try connection.publish(topic: try topics.deviceState(device: device), payload: [], qos: .atLeastOnce, retain: true)
    }
}
