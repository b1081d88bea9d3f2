import FleetProtocol
import FleetSystem

/// Why a client call did not produce a reply: the daemon could not be reached, the socket failed, or it answered with an error.
public enum FleetClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No daemon listening at the path (missing socket, connection refused, bad path).
    case unreachable(path: String, errno: Errno)
    /// The socket file exists but this user may not open it.
    case socketPermissionDenied(path: String)
    /// Reading or writing the connection failed.
    case io(operation: String, errno: Errno)
    /// The daemon closed the connection before replying.
    case connectionClosed
    /// No reply within the allotted time.
    case timedOut
    /// The daemon sent something that is not a varlink reply, or a reply missing a field.
    case malformedReply(String)
    /// The request could not be encoded (only a non-finite number does that).
    case malformedRequest(String)
    /// The daemon answered with a varlink error.
    case remote(VarlinkError)

    public var description: String {
        switch self {
        case .unreachable(let path, let code):
            return "cannot reach fleetd at \(path): \(code.text) (is the daemon running? see --socket)"
        case .socketPermissionDenied(let path):
            return "permission denied opening \(path) (the socket is for root and the control group)"
        case .io(let operation, let code): return "\(operation) failed: \(code.text)"
        case .connectionClosed: return "fleetd closed the connection"
        case .timedOut: return "timed out waiting for fleetd"
        case .malformedReply(let reason): return "malformed reply from fleetd: \(reason)"
        case .malformedRequest(let reason): return "cannot encode the request: \(reason)"
        case .remote(let error): return error.description
        }
    }
}
