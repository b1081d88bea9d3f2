/// What the reason code of an MQTT 5 PUBACK means for the reading it answers (MQTT 5.0 §3.4.2.1).
public enum PubackDisposition: Sendable, Hashable {
    /// The broker took the message (0x00, or 0x10 "no matching subscribers": taken, nobody wanted it yet).
    case accepted
    /// The broker did not take the message now, for a reason that may pass (a quota, a clash of packet ids, an
    /// error it does not name): publish it again later.
    case retryLater
    /// The broker will not take this message, and would refuse it again: settle it, count it, report it.
    case refused
}

/// The one place PUBACK reason codes are classified; the publish pump acts on its verdict.
///
/// | code | MQTT 5.0 §3.4.2.1 | disposition | why |
/// |---|---|---|---|
/// | 0x00 | Success | accepted | |
/// | 0x10 | No matching subscribers | accepted | the broker took it; nobody subscribes yet |
/// | 0x80 | Unspecified error | retry later | the broker does not say why: nothing says it will refuse again |
/// | 0x83 | Implementation specific error | retry later | "the PUBLISH is valid but the receiver is not willing to accept it" |
/// | 0x87 | Not authorized | refused | an ACL answers the same topic the same way every time |
/// | 0x90 | Topic Name invalid | refused | the topic is the reading's own |
/// | 0x91 | Packet identifier in use | retry later | a session-state clash; the retry goes out under a new identifier |
/// | 0x97 | Quota exceeded | retry later | a limit that frees up |
/// | 0x99 | Payload format invalid | refused | the payload is the reading's own |
/// | 0x95 | Packet too large (§2.4, not in the PUBACK table) | refused | Mosquitto's answer to a payload over `message_size_limit`; the same bytes are too large every time |
/// | other ≥ 0x80 | — | retry later | not a PUBACK code: holding a reading costs less than dropping it on a guess |
/// | other < 0x80 | — | accepted | §2.4: below 0x80 is success |
public enum PubackReason {
    /// The codes whose message would be refused again; every other failure code is retried.
    public static let permanent: Set<Int32> = [0x87, 0x90, 0x95, 0x99]

    /// The disposition of a PUBACK carrying `code` (MQTT 3.1.1 PUBACKs carry none: libmosquitto reports 0).
    public static func disposition(of code: Int32) -> PubackDisposition {
        if code < 0x80 { return .accepted }
        return permanent.contains(code) ? .refused : .retryLater
    }
}
