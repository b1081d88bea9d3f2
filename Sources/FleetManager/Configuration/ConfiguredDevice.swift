import Policy
import Supervision

/// A device the operator listed in a `[device "<stable id>"]` section: the identity fleetd keeps linked, how
/// much it matters, and the characteristics to arm and read on every connect.
public struct ConfiguredDevice: Sendable, Hashable {
    /// The canonical stable identity id (`mfr-0059-0a1b2c3d4e5f`, `irk-ward3`, `addr-AABBCCDDEEFF`, …).
    public var id: String
    /// The operator's label for logs and `fleetctl`; nil when not given.
    public var name: String?
    public var policyClass: PolicyClass
    /// Characteristic UUIDs, lowercase 128-bit, to StartNotify on every connect, in file order.
    public var subscribe: [String]
    /// Characteristic UUIDs, lowercase 128-bit, to read on every connect, in file order.
    public var read: [String]
    /// How it pairs (`pairing =` and its companions); nil: `pairing = none`.
    public var pairing: DevicePairing?
    /// `profile = standard` (the default): with no `subscribe` and no `read`, fleetd arms the standard Bluetooth SIG
    /// profile characteristics the device offers, and decodes their values. `profile = none`: neither; values stay raw.
    public var standardProfiles: Bool = true

    public init(id: String, name: String? = nil, policyClass: PolicyClass = .normal, subscribe: [String] = [], read: [String] = [],
                pairing: DevicePairing? = nil) {
        self.pairing = pairing
        self.id = id
        self.name = name
        self.policyClass = policyClass
        self.subscribe = subscribe
        self.read = read
    }
}
