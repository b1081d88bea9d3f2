import Pairing

/// How one configured device pairs, as the machine uses it: the agent's policy (method, passkey source,
/// numeric comparison, `re-pair`), whether it pairs before set-up, and whether its bond ties it to one adapter.
public struct DevicePairing: Sendable, Hashable {
    public var policy: PairingPolicy
    /// `pairing = … required`: pair on every link that is not yet bonded, before set-up.
    public var required: Bool
    /// `re-pair-elsewhere = yes`: a bonded device may connect through an adapter that does not hold its bond
    /// (and pair there). By default keys stay on their controller, so the device is admitted only through it.
    public var rePairElsewhere: Bool

    public init(policy: PairingPolicy, required: Bool = false, rePairElsewhere: Bool = false) {
        self.policy = policy
        self.required = required
        self.rePairElsewhere = rePairElsewhere
    }
}

/// A device's bond as the machine knows it, and the pairing it has under way.
public struct BondState: Sendable {
    /// The adapter holding the device's keys: learned from BlueZ's `Bonded`, from a Pair that succeeded, or
    /// from the snapshot. Nil: not bonded anywhere fleetd knows of.
    public var adapter: AdapterID?
    /// Consecutive authentication failures of the bonded device on reconnect.
    public var staleBond = StaleBondRule()
    /// The Pair in flight; an answer with another token is stale. Nil while `.pairing` waits for a pairing
    /// someone else started (`InProgress`) to show as `Bonded`.
    public var pairToken: UInt64?
    /// Run set-up again when this pairing succeeds: it was started by a GATT call refused for lack of security.
    public var retrySetUp = false
    /// The link (its link-up time) on which set-up was already retried after pairing: only once per link.
    public var retriedOnLink: Duration?
    /// Pair on the next link before set-up (`fleetctl pair` on an unlinked device, or a bond removed by
    /// `re-pair = auto`).
    public var pairOnNextLink = false
    /// The connect (its token) during which the link came up. The Connect reply and the signals travel
    /// separately to the driver, so `Connected=false` may already be applied when a failed reply arrives.
    public var linkUpDuringConnect: UInt64?
    /// The last Connect of the bonded device that failed `le-connection-abort-by-local` with no link seen
    /// (not counted). bluetoothd 5.66 answers a stale-bond reconnect so *before* it signals the link's rise
    /// and fall (docs/bluez-fidelity.md, Pairing): a link on that path that drops within
    /// `FleetStateMachine.staleBondBlipWindow` supplies the evidence the reply lacked.
    public var abortedConnect: AbortedConnect?

    public init() {}
}

/// A Connect that failed `le-connection-abort-by-local` before any link was seen: where and when.
public struct AbortedConnect: Sendable, Hashable {
    public var path: DevicePath
    public var at: Duration

    public init(path: DevicePath, at: Duration) {
        self.path = path
        self.at = at
    }
}
