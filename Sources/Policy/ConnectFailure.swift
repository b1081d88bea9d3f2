/// Why a connect attempt failed or a link went away: either what BlueZ answered on D-Bus, or something fleetd
/// observed itself.
public enum ConnectFailure: Sendable, Hashable, CustomStringConvertible {
    /// A D-Bus error reply, exactly as received: `name` such as `org.bluez.Error.Failed`, `message` such as
    /// `le-connection-abort-by-local`.
    case dbus(name: String, message: String)
    /// A cause fleetd saw without an error reply.
    case local(LocalCause)

    public var description: String {
        switch self {
        case let .dbus(name, message): message.isEmpty ? name : "\(name): \(message)"
        case let .local(cause): cause.description
        }
    }
}

/// A failure fleetd observed itself rather than received as a D-Bus error.
public enum LocalCause: Sendable, Hashable, CustomStringConvertible {
    /// Connect did not complete within the class's connect timeout.
    case connectTimedOut
    /// `Connected` went false. `hciReason` is the HCI disconnect reason when known (for example from btmon or
    /// the management socket; BlueZ 5.66 does not put it on D-Bus).
    case linkDropped(hciReason: UInt8?)
    /// The adapter's `Powered` went false.
    case adapterPoweredOff
    /// The adapter object disappeared (unplugged, or bluetoothd restarted).
    case adapterRemoved

    public var description: String {
        switch self {
        case .connectTimedOut: "connect timed out"
        case let .linkDropped(reason?): "link dropped (HCI reason 0x\(String(reason, radix: 16, uppercase: true).leftPadded(to: 2)))"
        case .linkDropped(nil): "link dropped"
        case .adapterPoweredOff: "adapter powered off"
        case .adapterRemoved: "adapter removed"
        }
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
