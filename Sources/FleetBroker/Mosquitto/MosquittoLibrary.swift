internal import CMosquitto
#if canImport(Glibc)
import Glibc
#endif

/// Process-wide libmosquitto set-up and its error texts.
enum MosquittoLibrary {
    /// mosquitto_lib_init initialises OpenSSL and the library's random source; it must run once before the first
    /// client, and a Swift static `let` runs its initialiser exactly once, thread-safely.
    static let initialised: Void = { _ = mosquitto_lib_init() }()

    /// A `MOSQ_ERR_*` code as a cause; `MOSQ_ERR_ERRNO` becomes the errno it stands for.
    static func cause(_ code: Int32, errno savedErrno: Int32 = errno) -> BrokerError.Cause {
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) {
            return .system(errno: savedErrno, text: String(cString: strerror(savedErrno)))
        }
        return .library(code: code, text: String(cString: mosquitto_strerror(code)))
    }

    /// An MQTT 3.1.1 CONNACK code or an MQTT 5 reason code, whichever the session speaks.
    static func replyCause(_ code: Int32, version: BrokerConfiguration.ProtocolVersion) -> BrokerError.Cause {
        switch version {
        case .mqtt311: .connack(code: code, text: String(cString: mosquitto_connack_string(code)))
        case .mqtt5: .reason(code: code, text: String(cString: mosquitto_reason_string(code)))
        }
    }

    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)
    static let noConnection = Int32(MOSQ_ERR_NO_CONN.rawValue)
    static let connectionPending = Int32(MOSQ_ERR_CONN_PENDING.rawValue)

    /// The `MOSQ_ERR_*` codes that a publish gets for the message itself, whatever the session.
    static func meansInvalidMessage(_ code: Int32) -> Bool {
        [MOSQ_ERR_PAYLOAD_SIZE, MOSQ_ERR_OVERSIZE_PACKET, MOSQ_ERR_MALFORMED_UTF8, MOSQ_ERR_INVAL].map { Int32($0.rawValue) }.contains(code)
    }

    /// The `MOSQ_ERR_*` codes that mean "there is no usable session", as opposed to a refused message.
    static func meansNoSession(_ code: Int32) -> Bool {
        [MOSQ_ERR_NO_CONN, MOSQ_ERR_CONN_LOST, MOSQ_ERR_KEEPALIVE].map { Int32($0.rawValue) }.contains(code)
    }
}
