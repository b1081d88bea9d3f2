/// What a failed reconnect of a device showed, for telling a stale bond (the peripheral lost its keys)
/// from a device that is merely away.
public struct ReconnectEvidence: Sendable, Hashable {
    /// The adapter holds a bond for the device (Device1.Bonded).
    public var bonded: Bool
    /// The link came up (Connected=true was seen) before the failure.
    public var linkCameUp: Bool
    /// The D-Bus error of the failed call (Connect, Pair, or a GATT call), if any.
    public var errorName: String?
    public var errorMessage: String?

    public init(bonded: Bool, linkCameUp: Bool, errorName: String? = nil, errorMessage: String? = nil) {
        self.bonded = bonded
        self.linkCameUp = linkCameUp
        self.errorName = errorName
        self.errorMessage = errorMessage
    }

    /// Whether this is an authentication failure of a bonded device. With BlueZ 5.66 on Linux 6.1 a
    /// peripheral that lost its keys answers the LTK request negatively; the kernel drops the link at
    /// encryption, so Connected goes true then false and Connect fails (`br-connection-canceled` from
    /// device_remove_connection, or `le-connection-abort-by-local`) before services resolve. An explicit
    /// AuthenticationFailed, or "Not paired" on a bonded device, says the same.
    public var isAuthenticationFailure: Bool {
        guard bonded else { return false }
        if errorName == "org.bluez.Error.AuthenticationFailed" { return true }
        if let name = errorName, let message = errorMessage, GattSecurityFailure.needsPairing(name: name, message: message) { return true }
        return linkCameUp && errorName == "org.bluez.Error.Failed"
    }
}

/// The stale-bond rule: after `threshold` consecutive authentication failures on reconnect of a bonded
/// device, `re-pair = auto` removes the bond and pairs again; `manual` marks the device needs-pairing.
/// Failures that are not about authentication (the device away) neither count nor reset; a reconnect that
/// works resets.
public struct StaleBondRule: Sendable, Hashable {
    public let threshold: Int
    public private(set) var consecutiveFailures = 0

    public init(threshold: Int = 3) {
        self.threshold = max(1, threshold)
    }

    /// The link came up and was encrypted: the bond is good.
    public mutating func reconnected() { consecutiveFailures = 0 }

    /// A reconnect failed; returns what to do.
    public mutating func reconnectFailed(_ evidence: ReconnectEvidence, rePair: RePair) -> StaleBondStep {
        guard evidence.isAuthenticationFailure else { return .keepTrying }
        consecutiveFailures += 1
        guard consecutiveFailures >= threshold else { return .keepTrying }
        consecutiveFailures = 0
        return rePair == .auto ? .removeBondAndPair : .needsPairing
    }
}

/// The stale-bond rule's verdict.
public enum StaleBondStep: Sendable, Hashable {
    /// Reconnect as usual.
    case keepTrying
    /// `re-pair = auto`: Adapter1.RemoveDevice, rediscover, Pair.
    case removeBondAndPair
    /// `re-pair = manual`: stop; the device is needs-pairing until `fleetctl pair`.
    case needsPairing
}
