import FleetPlatform

/// Keys an adapter holds for a device (bluetoothd's `Paired` and `Bonded`): kept per adapter, as the kernel
/// and /var/lib/bluetooth keep them per controller, so a bond made on hci0 does not exist on hci1.
struct Bond: Sendable, Hashable {
    /// Made with MITM protection (a passkey or numeric comparison), so it satisfies `authenticate`.
    var authenticated: Bool
    /// Whether the kernel still has the keys. CancelPairing with no pairing under way unpairs in the kernel
    /// (btd_adapter_remove_bonding) while bluetoothd keeps showing the device bonded.
    var inKernel = true

    var level: SecurityLevel { authenticated ? .authenticate : .encrypt }
}

/// The security side of one Device1 object: its bond, the encryption of the current link, and a pairing
/// under way.
struct DeviceSecurity: Sendable {
    var bond: Bond?
    /// The link attempt that is encrypted and at what level; a new link starts unencrypted.
    var encryptedLink: UInt64?
    var encryptedLevel: SecurityLevel = .none
    var procedure: PairingProcedure?
}

/// One SMP pairing of a device: started by `Device1.Pair` (MGMT Pair Device) or by bluetoothd raising the
/// ATT socket's security after an Insufficient Encryption/Authentication error (shared/att.c
/// change_security), in which case there is no bonding request and the default agent answers.
struct PairingProcedure: Sendable {
    enum Stage: Sendable, Hashable {
        /// Pair on a device that is not connected: the kernel connects first (`ownLink`), deciding now how
        /// that ends; or a Connect already under way is awaited.
        case connecting(ownLink: Bool, outcome: PairingStatus)
        /// Pairing Request/Response, public keys: the model is decided when this ends.
        case exchanging
        /// Waiting for the agent's answer to call `call`.
        case awaitingAgent(call: UInt64, model: AssociationModel, passkey: UInt32)
        /// The user steps are done (or there are none): keys are being distributed.
        case distributing(model: AssociationModel)
    }

    var id: UInt64
    /// The Pair call waiting for the outcome (nil for an elevation nobody called Pair for).
    var pairToken: ReplyToken?
    var pairSender: String?
    /// The agent that is asked: Pair's caller's own or the default agent, taken when Pair is called
    /// (bonding->agent); nil for an elevation, which asks whichever agent is default when a user step comes.
    var agent: RegisteredAgent?
    /// The IO capability the kernel pairs with.
    var capability: IOCapability
    /// The level the pairing must reach: an elevation to HIGH forces MITM and refuses Just Works.
    var target: SecurityLevel
    var stage: Stage
    var link: UInt64?
    /// The kernel made the link for this pairing (MGMT Pair Device on a disconnected device), so cancelling
    /// the pairing aborts it.
    var connectedForPairing = false
    var parked: [ParkedGattOperation] = []

    var awaitedCall: UInt64? { if case .awaitingAgent(let call, _, _) = stage { call } else { nil } }
}

/// A GATT call held while bluetoothd raises the link's security, retried once it has (shared/att.c pushes
/// the request back to the queue).
enum ParkedGattOperation: Sendable, Hashable {
    case read(path: String, options: [String: DBusValue], token: ReplyToken)
    case write(path: String, value: [UInt8], options: [String: DBusValue], token: ReplyToken)
    case startNotify(path: String, sender: String, token: ReplyToken)

    var token: ReplyToken {
        switch self {
        case .read(_, _, let t), .write(_, _, _, let t), .startNotify(_, _, let t): t
        }
    }
}

/// The MGMT status a pairing ends with, and the Pair reply 5.66 makes of it (new_authentication_return,
/// src/device.c).
enum PairingStatus: Sendable, Hashable {
    case success
    /// MGMT_STATUS_AUTH_FAILED and every status without its own case: a rejected passkey, an SMP Pairing
    /// Failed, no agent to ask.
    case authenticationFailed
    /// MGMT_STATUS_TIMEOUT: the kernel's LE connection attempt for the pairing timed out.
    case timeout
    /// MGMT_STATUS_CONNECT_FAILED.
    case connectFailed
    /// MGMT_STATUS_CANCELLED, DISCONNECTED or NO_RESOURCES.
    case canceled

    var error: BlueZError? {
        let prefix = "org.bluez.Error."
        switch self {
        case .success: return nil
        case .authenticationFailed: return BlueZError(name: prefix + "AuthenticationFailed", message: "Authentication Failed")
        case .timeout: return BlueZError(name: prefix + "AuthenticationTimeout", message: "Authentication Timeout")
        case .connectFailed: return BlueZError(name: prefix + "ConnectionAttemptFailed", message: "Page Timeout")
        case .canceled: return BlueZError(name: prefix + "AuthenticationCanceled", message: "Authentication Canceled")
        }
    }
}

/// Timers of the pairing model; each names its procedure, so a stale one does nothing.
enum SecurityTimer: Sendable, Hashable {
    case pairingLinkUp(adapter: Int, address: BluetoothAddress, procedure: UInt64)
    case exchanged(adapter: Int, address: BluetoothAddress, procedure: UInt64)
    case distributed(adapter: Int, address: BluetoothAddress, procedure: UInt64)
    /// The kernel's SMP timer (SMP_TIMEOUT, 30 s) while a user step is awaited.
    case smpTimeout(adapter: Int, address: BluetoothAddress, procedure: UInt64, call: UInt64)
}

/// One registered agent (src/agent.c `struct agent`).
struct RegisteredAgent: Sendable, Hashable {
    var owner: String
    var path: String
    var capability: IOCapability
    /// The request in flight: bluetoothd sends an agent one request at a time (agent->request).
    var request: UInt64?
}

/// Where an agent's answer goes.
struct AgentCallSite: Sendable, Hashable {
    var adapter: Int
    var address: BluetoothAddress
    var procedure: UInt64
    var owner: String
    var path: String
}

/// Pairing state that is not one device's: agents, the peripherals' side of bonds, calls in flight.
struct SecurityState: Sendable {
    var agents: [String: RegisteredAgent] = [:]
    /// agent.c default_agents: the head is the default agent.
    var defaultOrder: [String] = []
    /// The adapters each peripheral holds keys for: its half of each bond.
    var peripheralKeys: [Int: Set<Int>] = [:]
    var calls: [UInt64: AgentCallSite] = [:]
    var nextCall: UInt64 = 0
    var nextProcedure: UInt64 = 0

    var defaultAgent: RegisteredAgent? { defaultOrder.first.flatMap { agents[$0] } }
}
