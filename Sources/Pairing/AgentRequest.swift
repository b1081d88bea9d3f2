/// A call bluetoothd makes to fleetd's `org.bluez.Agent1` (doc/agent-api.txt, BlueZ 5.66), with what it
/// carries besides the device.
public enum AgentRequest: Sendable, Hashable, CustomStringConvertible {
    /// `u RequestPasskey(o)`: type the passkey the device shows.
    case requestPasskey
    /// `s RequestPinCode(o)`: a BR/EDR legacy PIN; LE devices never ask for one.
    case requestPinCode
    /// `DisplayPasskey(o, u, q)`: show this passkey for the device's user to type (no reply is awaited).
    case displayPasskey(Passkey, entered: UInt16)
    /// `DisplayPinCode(o, s)`: show a BR/EDR PIN.
    case displayPinCode(String)
    /// `RequestConfirmation(o, u)`: numeric comparison.
    case requestConfirmation(Passkey)
    /// `RequestAuthorization(o)`: a just-works pairing fleetd did not start (the device asked for it).
    case requestAuthorization
    /// `AuthorizeService(o, s)`: the device wants to use a local service.
    case authorizeService(uuid: String)

    /// The method name.
    public var member: String {
        switch self {
        case .requestPasskey: "RequestPasskey"
        case .requestPinCode: "RequestPinCode"
        case .displayPasskey: "DisplayPasskey"
        case .displayPinCode: "DisplayPinCode"
        case .requestConfirmation: "RequestConfirmation"
        case .requestAuthorization: "RequestAuthorization"
        case .authorizeService: "AuthorizeService"
        }
    }

    public var description: String {
        switch self {
        case .displayPasskey(let passkey, let entered): "DisplayPasskey(\(passkey), entered \(entered))"
        case .requestConfirmation(let passkey): "RequestConfirmation(\(passkey))"
        case .authorizeService(let uuid): "AuthorizeService(\(uuid))"
        default: member
        }
    }
}

/// The wanted device an agent request is about, as fleetd knows it: its stable id, pairing policy, and
/// the passkey the I/O side resolved (read from `passkey-file` if that is where it lives).
public struct PairingCandidate: Sendable, Hashable {
    public var device: String
    public var policy: PairingPolicy
    public var passkey: PasskeyResolution
    /// The address of the object BlueZ holds the device's bond at, when the request is about another one: the
    /// request is refused (a spoofer of the device's advertised identity, issue 41).
    public var bondedAt: String?
    /// The device's identity comes from advertisement bytes and it has no bond yet: anyone advertising them
    /// would be this device, so the agent logs the pairing loudly.
    public var spoofableFirstPairing: Bool

    public init(device: String, policy: PairingPolicy, passkey: PasskeyResolution = .notNeeded, bondedAt: String? = nil,
                spoofableFirstPairing: Bool = false) {
        self.device = device
        self.policy = policy
        self.passkey = passkey
        self.bondedAt = bondedAt
        self.spoofableFirstPairing = spoofableFirstPairing
    }
}

/// The passkey of a candidate, once the I/O side has looked for it.
public enum PasskeyResolution: Sendable, Hashable {
    /// The device does not pair with a passkey.
    case notNeeded
    case known(Passkey)
    /// The passkey-file could not be used; the reason names the file and what was wrong.
    case unavailable(reason: String)
}

/// fleetd's answer to one agent request.
public enum AgentAnswer: Sendable, Hashable {
    /// The reply to RequestPasskey.
    case passkey(Passkey)
    /// The empty reply: confirmed, authorized, or (for Display*) shown.
    case accept
    /// `org.bluez.Error.Rejected`, with the reason for the log line.
    case reject(RejectReason)
}

/// Why fleetd's agent refused a request. The descriptions are the log lines' reasons.
public enum RejectReason: Sendable, Hashable, CustomStringConvertible {
    /// The device is not one fleetd wants: a stranger in range cannot pair with the gateway.
    case stranger
    /// A wanted device configured `pairing = none`.
    case pairingNotConfigured(device: String)
    /// The request does not fit the device's configured method (a just-works device asking for a passkey,
    /// or a passkey device offering an unauthenticated just-works pairing).
    case methodMismatch(device: String, configured: String)
    /// Numeric comparison for a device with `numeric-comparison = refuse`.
    case numericComparisonRefused(device: String)
    /// The passkey could not be read.
    case passkeyUnavailable(device: String, reason: String)
    /// BR/EDR legacy PIN codes are not supported.
    case pinCodeNotSupported(device: String)
    /// BlueZ holds the device's bond at another address: a second object claiming its identity is not given keys.
    case bondedElsewhere(device: String, address: String)

    public var description: String {
        switch self {
        case .stranger: "not a wanted device: strangers may not pair"
        case .pairingNotConfigured(let device): "\(device) is configured with pairing = none"
        case .methodMismatch(let device, let configured): "\(device) is configured for \(configured) pairing"
        case .numericComparisonRefused(let device): "\(device) has numeric-comparison = refuse"
        case .passkeyUnavailable(let device, let reason): "no passkey for \(device): \(reason)"
        case .pinCodeNotSupported(let device): "\(device) asked for a BR/EDR PIN code, which fleetd does not give"
        case .bondedElsewhere(let device, let address):
            "\(device) is already bonded at \(address): another address advertising its identity is not given a passkey (`fleetctl unpair \(device)` first to pair it anew)"
        }
    }

    /// A stable short code for logs and metrics (`FLEET_REASON`).
    public var code: String {
        switch self {
        case .stranger: "stranger"
        case .pairingNotConfigured: "pairing-none"
        case .methodMismatch: "method-mismatch"
        case .numericComparisonRefused: "numeric-comparison-refused"
        case .passkeyUnavailable: "passkey-unavailable"
        case .pinCodeNotSupported: "pin-code"
        case .bondedElsewhere: "bonded-elsewhere"
        }
    }
}
