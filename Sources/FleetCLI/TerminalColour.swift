import FleetProtocol

/// The few ANSI styles fleetctl uses.
enum TerminalColour: String {
    case bold = "1"
    case green = "32"
    case yellow = "33"
    case red = "31"
    case dim = "2"

    func wrap(_ text: String) -> String { "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" }

    /// The colour of a device state: green when the link is up, yellow while waiting to retry or to get
    /// a link, red when given up. Exhaustive, so a new state cannot go uncoloured unnoticed.
    static func of(_ state: DeviceState) -> TerminalColour? {
        switch state {
        case .ready, .connected: return .green
        case .backingOff, .connecting, .evicted, .pairing: return .yellow
        case .failed, .needsPairing: return .red
        case .unknown, .discovered, .resolving, .disconnecting, .waitingForAdapter, .idle: return nil
        }
    }

    /// The colour of the daemon's state.
    static func of(_ state: DaemonState) -> TerminalColour? {
        switch state {
        case .running: return .green
        case .starting, .degraded: return .yellow
        case .stopping: return .red
        }
    }
}
