/// Status written by hand (`JSONByteWriter`, and why): members in sorted order, nil optionals left out, exactly
/// as `JSONEncoder` writes the synthesized `Encodable` conformances. A member added to any of these types must be
/// added here too: `StatusWritingTests` compares the two codecs on a Status with every optional set, and fails
/// when a member is not set or written.
extension VarlinkReply {
    /// The reply to `Status`: the same bytes as `VarlinkReply(parameters: status)`, at a fraction of the cost.
    public init(status: StatusInfo) throws(VarlinkError) {
        var writer = JSONByteWriter(capacity: 512 + 128 * status.adapters.count)
        writer.beginObject()
        writer.key("parameters")
        try status.write(to: &writer)
        writer.endObject()
        self.init(continues: false, error: nil, json: writer.bytes)
    }
}

extension StatusInfo {
    func write(to writer: inout JSONByteWriter) throws(VarlinkError) {
        writer.beginObject()
        writer.key("adapters")
        writer.beginArray()
        for adapter in adapters {
            writer.separate()
            adapter.write(to: &writer)
        }
        writer.endArray()
        if let broker {
            writer.key("broker")
            try broker.write(to: &writer)
        }
        writer.key("counts")
        counts.write(to: &writer)
        writer.key("daemon")
        try daemon.write(to: &writer)
        if let outbox {
            writer.key("outbox")
            try outbox.write(to: &writer)
        }
        writer.endObject()
    }
}

extension AdapterInfo {
    func write(to writer: inout JSONByteWriter) {
        writer.beginObject()
        if let address {
            writer.key("address")
            writer.string(address)
        }
        writer.key("name")
        writer.string(name)
        writer.key("powered")
        writer.bool(powered)
        writer.key("slotsCapacity")
        writer.int(slotsCapacity)
        writer.key("slotsUsed")
        writer.int(slotsUsed)
        writer.endObject()
    }
}

extension DeviceCounts {
    func write(to writer: inout JSONByteWriter) {
        writer.beginObject()
        writer.key("backingOff")
        writer.int(backingOff)
        writer.key("failed")
        writer.int(failed)
        writer.key("ready")
        writer.int(ready)
        writer.key("wanted")
        writer.int(wanted)
        writer.endObject()
    }
}

extension DaemonInfo {
    func write(to writer: inout JSONByteWriter) throws(VarlinkError) {
        writer.beginObject()
        writer.key("state")
        writer.string(state.rawValue)
        writer.key("uptimeSeconds")
        try writer.double(uptimeSeconds, member: "daemon.uptimeSeconds")
        writer.key("version")
        writer.string(version)
        writer.endObject()
    }
}

extension BrokerLinkInfo {
    func write(to writer: inout JSONByteWriter) throws(VarlinkError) {
        writer.beginObject()
        writer.key("acknowledged")
        writer.int(acknowledged)
        writer.key("backlog")
        writer.int(backlog)
        writer.key("broker")
        writer.string(broker)
        writer.key("gateway")
        writer.string(gateway)
        if let lastError {
            writer.key("lastError")
            writer.string(lastError)
        }
        writer.key("lost")
        writer.int(lost)
        if let oldestUnpublishedSeconds {
            writer.key("oldestUnpublishedSeconds")
            try writer.double(oldestUnpublishedSeconds, member: "broker.oldestUnpublishedSeconds")
        }
        writer.key("published")
        writer.int(published)
        writer.key("reconnects")
        writer.int(reconnects)
        writer.key("state")
        writer.string(state.rawValue)
        writer.key("topicBase")
        writer.string(topicBase)
        writer.endObject()
    }
}

extension OutboxStatus {
    func write(to writer: inout JSONByteWriter) throws(VarlinkError) {
        writer.beginObject()
        writer.key("bytesWritten")
        writer.int(bytesWritten)
        writer.key("commitLatencySeconds")
        try writer.double(commitLatencySeconds, member: "outbox.commitLatencySeconds")
        writer.key("consumers")
        writer.beginArray()
        for consumer in consumers {
            writer.separate()
            try consumer.write(to: &writer)
        }
        writer.endArray()
        writer.key("depth")
        writer.int(depth)
        writer.key("droppedByRetention")
        writer.int(droppedByRetention)
        writer.key("droppedInMemory")
        writer.int(droppedInMemory)
        writer.key("failing")
        writer.bool(failing)
        writer.key("lastCursor")
        writer.int(lastCursor)
        if let lastError {
            writer.key("lastError")
            writer.string(lastError)
        }
        writer.key("pending")
        writer.int(pending)
        writer.endObject()
    }
}

extension ConsumerStatus {
    func write(to writer: inout JSONByteWriter) throws(VarlinkError) {
        writer.beginObject()
        writer.key("cursor")
        writer.int(cursor)
        writer.key("lostPlace")
        writer.bool(lostPlace)
        writer.key("name")
        writer.string(name)
        if let oldestUnacknowledgedSeconds {
            writer.key("oldestUnacknowledgedSeconds")
            try writer.double(oldestUnacknowledgedSeconds, member: "outbox.consumers.oldestUnacknowledgedSeconds")
        }
        writer.key("unacknowledged")
        writer.int(unacknowledged)
        writer.endObject()
    }
}
