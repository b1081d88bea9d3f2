/// GATT errors that mean "the link is not secure enough": pair, then retry the operation once.
///
/// In BlueZ 5.66 a peripheral's Insufficient Authentication (0x05), Insufficient Encryption (0x0f) or
/// Insufficient Encryption Key Size (0x0c) first makes bluetoothd raise the link's security itself
/// (shared/att.c change_security, asking the *default* agent); only when that fails does ReadValue,
/// WriteValue or StartNotify answer `org.bluez.Error.NotPermitted "Not paired"` (gatt-client.c
/// create_gatt_dbus_error). Other BlueZ versions report the raw code as
/// `org.bluez.Error.Failed "Operation failed with ATT error: 0x05"`, which is recognised too.
public enum GattSecurityFailure {
    /// Whether an error from a GATT call means the device must be paired first.
    public static func needsPairing(name: String, message: String) -> Bool {
        let message = message.trimmingBlanks
        switch name.trimmingBlanks {
        case "org.bluez.Error.NotPermitted":
            return message == "Not paired"
        case "org.bluez.Error.Failed":
            return ["0x05", "0x0f", "0x0c"].contains { message.lowercased() == "operation failed with att error: " + $0 }
        default:
            return false
        }
    }

    /// The step after a GATT call failed, given whether this operation was already retried after pairing.
    public static func step(name: String, message: String, policy: PairingPolicy, alreadyRetried: Bool) -> GattFailureStep {
        guard needsPairing(name: name, message: message) else { return .fail(.notASecurityError) }
        guard !alreadyRetried else { return .fail(.stillRefusedAfterPairing) }
        guard policy.pairs else { return .fail(.pairingNotConfigured) }
        return .pairThenRetryOnce
    }
}

/// What to do after a failed GATT call.
public enum GattFailureStep: Sendable, Hashable {
    /// Pair (Device1.Pair with fleetd's agent), then run the operation again, once.
    case pairThenRetryOnce
    /// Handle the error the usual way.
    case fail(Reason)

    public enum Reason: String, Sendable, Hashable {
        /// Not about security at all.
        case notASecurityError = "not-a-security-error"
        /// The operation was retried after pairing and is still refused (an unauthenticated key where an
        /// authenticated one is needed, or a device that wants something else).
        case stillRefusedAfterPairing = "still-refused-after-pairing"
        /// The device needs pairing but is configured `pairing = none`.
        case pairingNotConfigured = "pairing-none"
    }
}
