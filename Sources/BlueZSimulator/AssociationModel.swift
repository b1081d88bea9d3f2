/// How the central's kernel pairs, seen from the central's agent: the association model chosen by
/// `net/bluetooth/smp.c` (Linux 6.1) for a pairing the central initiates (MGMT Pair Device from
/// `Device1.Pair`, or BT_SECURITY raised on the ATT socket), from `gen_method` (legacy) and `sc_method`
/// (LE Secure Connections), indexed `[remote][local]`.
enum AssociationModel: Sendable, Hashable {
    /// No user step: `JUST_WORKS`, and `JUST_CFM` too, which the kernel turns into Just Works for locally
    /// initiated pairing ("Don't confirm locally initiated pairing attempts"). The key is unauthenticated.
    case justWorks
    /// `REQ_PASSKEY`: the central's agent gets RequestPasskey and must type what the peripheral displays.
    case passkeyEntry
    /// Legacy `CFM_PASSKEY` (and `OVERLAP` as master) or SC `DSP_PASSKEY`: the kernel makes a random passkey,
    /// the central's agent gets DisplayPasskey, and the peripheral's user types it.
    case passkeyDisplay
    /// SC `CFM_PASSKEY`: numeric comparison, the central's agent gets RequestConfirmation(passkey).
    case numericComparison

    var authenticated: Bool { self != .justWorks }

    private enum Method { case justWorks, justConfirm, requestPasskey, confirmPasskey, displayPasskey, overlap }

    private static let legacy: [[Method]] = [
        [.justWorks, .justConfirm, .requestPasskey, .justWorks, .requestPasskey],
        [.justWorks, .justConfirm, .requestPasskey, .justWorks, .requestPasskey],
        [.confirmPasskey, .confirmPasskey, .requestPasskey, .justWorks, .confirmPasskey],
        [.justWorks, .justConfirm, .justWorks, .justWorks, .justConfirm],
        [.confirmPasskey, .confirmPasskey, .requestPasskey, .justWorks, .overlap],
    ]

    private static let secureConnections: [[Method]] = [
        [.justWorks, .justConfirm, .requestPasskey, .justWorks, .requestPasskey],
        [.justWorks, .confirmPasskey, .requestPasskey, .justWorks, .confirmPasskey],
        [.displayPasskey, .displayPasskey, .requestPasskey, .justWorks, .displayPasskey],
        [.justWorks, .justConfirm, .justWorks, .justWorks, .justConfirm],
        [.displayPasskey, .confirmPasskey, .requestPasskey, .justWorks, .confirmPasskey],
    ]

    /// The model for a pairing the central initiates with IO capability `local` towards a peripheral with
    /// `remote`. `mitm` is whether either side asked for MITM protection; without it the kernel uses Just
    /// Works whatever the capabilities (tk_request, sc_select_method).
    static func forInitiator(local: IOCapability, remote: IOCapability, secureConnections sc: Bool, mitm: Bool) -> AssociationModel {
        guard mitm else { return .justWorks }
        let method = (sc ? secureConnections : legacy)[remote.rawValue][local.rawValue]
        switch method {
        case .justWorks, .justConfirm: return .justWorks
        case .requestPasskey: return .passkeyEntry
        case .displayPasskey: return .passkeyDisplay
        // Legacy CFM_PASSKEY: the initiator generates and displays; OVERLAP: the master confirms (displays).
        case .confirmPasskey: return sc ? .numericComparison : .passkeyDisplay
        case .overlap: return .passkeyDisplay
        }
    }
}
