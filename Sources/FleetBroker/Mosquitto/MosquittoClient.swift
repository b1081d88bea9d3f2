internal import CMosquitto
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One libmosquitto client handle, owned: created with `mosquitto_new`, destroyed in `deinit`.
///
/// fleetd makes one per connection attempt instead of reconnecting a handle, so no message of a dead session
/// lingers in the library (libmosquitto would resend its unacknowledged publishes after a reconnect, under
/// message ids the publish pump has already forgotten); the pump republishes from its acknowledged cursor
/// instead. `mosquitto_threaded_set` tells the library another thread runs its loop, so a publish from any
/// thread only queues the packet and wakes the loop; every socket read and write happens on the loop's thread.
/// That is also why it is `@unchecked Sendable`: publish and disconnect are safe from any thread (libmosquitto
/// locks its queues), `loop` is called by the network thread alone.
final class MosquittoClient: @unchecked Sendable {
    private let handle: OpaquePointer
    let callbacks: MosquittoCallbacks

    init(clientID: String, callbacks: MosquittoCallbacks) throws(BrokerError) {
        _ = MosquittoLibrary.initialised
        // clean session: the broker keeps nothing for this gateway between sessions; the source is the store.
        guard let handle = mosquitto_new(clientID, true, callbacks.context) else {
            let code = errno
            throw BrokerError(.clientSetup, "cannot create a libmosquitto client for '\(clientID)'",
                              cause: .system(errno: code, text: String(cString: strerror(code))))
        }
        self.handle = handle
        self.callbacks = callbacks
        mosquitto_threaded_set(handle, true)
        mosquitto_connect_v5_callback_set(handle) { _, context, code, _, _ in
            MosquittoCallbacks.from(context)?.onConnect(code)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, context, code, _ in
            MosquittoCallbacks.from(context)?.onDisconnect(code)
        }
        mosquitto_publish_v5_callback_set(handle) { _, context, messageID, reason, _ in
            MosquittoCallbacks.from(context)?.onPublish(messageID, reason)
        }
    }

    deinit { mosquitto_destroy(handle) }

    private func check(_ code: Int32, _ what: @autoclosure () -> String) throws(BrokerError) {
        guard code != MosquittoLibrary.success else { return }
        throw BrokerError(.clientSetup, what(), cause: MosquittoLibrary.cause(code))
    }

    func setProtocol(_ version: BrokerConfiguration.ProtocolVersion) throws(BrokerError) {
        let level = version == .mqtt5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, level), "cannot select MQTT \(version.rawValue)")
    }

    func setSendMaximum(_ count: Int) throws(BrokerError) {
        try check(mosquitto_int_option(handle, MOSQ_OPT_SEND_MAXIMUM, Int32(count)), "cannot set the send maximum to \(count)")
    }

    func setCredentials(_ credentials: BrokerCredentials) throws(BrokerError) {
        try check(mosquitto_username_pw_set(handle, credentials.username, credentials.password), "cannot set the broker user name")
    }

    func setWill(topic: String, payload: [UInt8], retain: Bool) throws(BrokerError) {
        let code = payload.withUnsafeBytes { mosquitto_will_set(handle, topic, Int32($0.count), $0.baseAddress, 1, retain) }
        try check(code, "cannot set the last will on \(topic)")
    }

    func setTLS(_ tls: BrokerTLS) throws(BrokerError) {
        // An encrypted key would make OpenSSL prompt on the terminal; answering "no passphrase" fails it instead.
        let code = mosquitto_tls_set(handle, tls.caFile, nil, tls.certificateFile, tls.keyFile) { _, _, _, _ in 0 }
        try check(code, "cannot set up TLS with CA \(tls.caFile)")
        try check(mosquitto_tls_insecure_set(handle, !tls.verifyHostname), "cannot set TLS host name checking")
    }

    /// Starts a non-blocking connect; CONNACK arrives through ``MosquittoCallbacks/onConnect`` from ``loop``.
    /// Returns a `MOSQ_ERR_*` code (name resolution still blocks the calling thread: it is the loop's own).
    func connect(host: String, port: Int, keepAliveSeconds: Int) -> Int32 {
        mosquitto_connect_bind_async(handle, host, Int32(port), Int32(keepAliveSeconds), nil)
    }

    /// One pass of the network loop: waits up to `timeoutMilliseconds` for the socket, reads, writes, keeps alive.
    func loop(timeoutMilliseconds: Int) -> Int32 {
        mosquitto_loop(handle, Int32(timeoutMilliseconds), 1)
    }

    /// Queues a publish and wakes the loop; returns the message id or a `MOSQ_ERR_*` code.
    func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> Result<Int32, MosquittoCode> {
        var messageID: Int32 = 0
        let code = payload.withUnsafeBytes {
            mosquitto_publish(handle, &messageID, topic, Int32($0.count), $0.baseAddress, qos, retain)
        }
        return code == MosquittoLibrary.success ? .success(messageID) : .failure(MosquittoCode(code: code, errno: errno))
    }

    /// Sends DISCONNECT (the broker then drops the will) and closes once it is written.
    func disconnect() -> Int32 {
        mosquitto_disconnect(handle)
    }
}

/// A failed libmosquitto call's code, with errno saved at once for `MOSQ_ERR_ERRNO`.
struct MosquittoCode: Error {
    let code: Int32
    let errno: Int32
    var cause: BrokerError.Cause { MosquittoLibrary.cause(code, errno: errno) }
}
