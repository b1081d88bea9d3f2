/// What one libmosquitto client reports from inside `mosquitto_loop`, always on the network thread that runs
/// the loop; so the fields need no lock. The client's `obj` pointer is this object, unretained: the
/// ``MosquittoClient`` that owns the handle also holds it, so it outlives every callback.
final class MosquittoCallbacks {
    /// CONNACK: the CONNACK code (3.1.1) or reason code (5).
    var onConnect: (Int32) -> Void = { _ in }
    /// The session ended: a `MOSQ_ERR_*` code, or an MQTT 5 DISCONNECT reason (≥ 0x80) from the broker.
    var onDisconnect: (Int32) -> Void = { _ in }
    /// A QoS 1 PUBACK (or a QoS 0 publish written): message id and reason code (always 0 under 3.1.1).
    var onPublish: (Int32, Int32) -> Void = { _, _ in }

    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ context: UnsafeMutableRawPointer?) -> MosquittoCallbacks? {
        context.map { Unmanaged<MosquittoCallbacks>.fromOpaque($0).takeUnretainedValue() }
    }
}
