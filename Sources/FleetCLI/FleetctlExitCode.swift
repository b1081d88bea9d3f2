import FleetProtocol

/// fleetctl's exit status, documented in `fleetctl --help`:
///
/// | code | meaning |
/// | --- | --- |
/// | 0 | success |
/// | 1 | the daemon reported a failure (BlueZ error, not connected, …) or another error |
/// | 2 | bad usage: unknown command or option, missing or malformed argument |
/// | 3 | the device reference matches no device, or several |
/// | 4 | permission denied (needs root or the control group) |
/// | 5 | the daemon is unreachable (no socket, connection refused) |
public enum FleetctlExitCode: Int32, Sendable, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 2
    case deviceNotFound = 3
    case permissionDenied = 4
    case unreachable = 5

    /// The exit code a client error maps to.
    public init(_ error: FleetClientError) {
        switch error {
        case .unreachable: self = .unreachable
        case .socketPermissionDenied: self = .permissionDenied
        case .remote(let remote):
            switch remote.name {
            case FleetInterface.name + ".DeviceNotFound", FleetInterface.name + ".AmbiguousDevice": self = .deviceNotFound
            case FleetInterface.name + ".PermissionDenied", VarlinkError.serviceInterface + ".PermissionDenied": self = .permissionDenied
            case VarlinkError.serviceInterface + ".InvalidParameter", FleetInterface.name + ".ReservedConsumer": self = .usage
            default: self = .failure
            }
        case .io, .connectionClosed, .timedOut, .malformedReply, .malformedRequest: self = .failure
        }
    }

    /// The lines `--help` prints about exit codes.
    public static let helpText = """
    EXIT CODES:
      0  success
      1  failure reported by the daemon, or another error
      2  bad usage
      3  device not found, or the reference is ambiguous
      4  permission denied (needs root or the control group)
      5  daemon unreachable
    """
}
