/// The highest record of a device known committed with nothing missing below it (since the last mark), and that
/// record's bytes: the anchor the next sync checks to tell a device that kept its numbering from one that began
/// again (memory cleared, battery changed).
public struct RecordMark: Sendable, Hashable, Codable {
    public var key: UInt16
    public var anchor: [UInt8]

    public init(key: UInt16, anchor: [UInt8]) {
        self.key = key
        self.anchor = anchor
    }
}

/// What the store remembers of a device's previous syncs, handed to the next one.
public struct RecordSyncMemory: Sendable, Hashable, Codable {
    public var mark: RecordMark?
    /// The number of records the device said it held at the last sync (nil: never asked, or it would not say).
    public var storedOnDevice: Int?
    /// The device answered a ≥ request "operator/operand not supported": ask it for all records from now on.
    public var greaterOrEqualUnsupported: Bool

    public init(mark: RecordMark? = nil, storedOnDevice: Int? = nil, greaterOrEqualUnsupported: Bool = false) {
        self.mark = mark
        self.storedOnDevice = storedOnDevice
        self.greaterOrEqualUnsupported = greaterOrEqualUnsupported
    }
}

/// The timers a sync asks its driver for; a fire of a timer the sync no longer holds is ignored.
public enum RecordSyncTimer: Sendable, Hashable {
    /// Nothing heard from the device for ``RecordSync/Limits/silence``.
    case silence
    /// Write the request again (the device said a procedure was already in progress).
    case retry
    /// The success was held for records still on their way (``RecordSync/Limits/lateRecords``).
    case settle
}

/// What the driver does for a sync. Records themselves are not actions: they come as notifications and the driver
/// stores each as it arrives (keyed, so a record sent twice is stored once); the sync only decides the procedure and
/// the mark.
public enum RecordSyncAction: Sendable, Hashable {
    case write(RecordAccessRequest)
    /// Enable indications on the RACP again, then tell the sync (``RecordSync/indicationsArmed(now:)``).
    case armControlPointIndications
    case startTimer(RecordSyncTimer, after: Duration)
    case cancelTimer(RecordSyncTimer)
    /// Every record up to this one is in hand: persist the mark once the records before this action are committed.
    /// A mark lower than the last one follows a sequence reset.
    case markReached(RecordMark)
    case finished(RecordSyncOutcome)
}

/// How a sync ended.
public enum RecordSyncResult: Sendable, Hashable, CustomStringConvertible {
    /// The device said success (or, after a reset, the resync did).
    case complete
    /// RACP "no records found" (0x06): nothing new, a success.
    case noRecords
    /// RACP "procedure not completed" (0x08): the records so far are kept; the rest comes next sync.
    case incomplete
    /// No record or answer for ``RecordSync/Limits/silence``: aborted; the next link tries again.
    case stalled
    case linkLost
    /// The device refused the request with this RACP response code.
    case refused(RecordAccessResponseCode)
    /// "Procedure already in progress" after every retry.
    case busy
    /// "CCCD improperly configured" though indications were armed again.
    case indicationsRefused
    /// The write failed otherwise: BlueZ's error name and message.
    case writeFailed(name: String, message: String)

    public var description: String {
        switch self {
        case .complete: "complete"
        case .noRecords: "no-records"
        case .incomplete: "incomplete"
        case .stalled: "stalled"
        case .linkLost: "link-lost"
        case .refused(let code): "refused-\(code)"
        case .busy: "busy"
        case .indicationsRefused: "indications-refused"
        case .writeFailed(let name, _): "write-failed-\(name)"
        }
    }

    /// Whether the device's records up to the mark are all in hand.
    public var isSuccess: Bool { self == .complete || self == .noRecords }
}

public struct RecordSyncOutcome: Sendable, Hashable {
    public var result: RecordSyncResult
    /// What the device said it holds (Report Number of Stored Records, all).
    public var storedOnDevice: Int?
    /// Measurement records received in this sync (duplicates included: the store counts those it suppressed).
    public var received: Int
    /// Records outside the range asked for (a meter that sends its whole history).
    public var outsideRequest: Int
    /// The mark at the end (nil: none yet).
    public var mark: RecordMark?
    /// The device began its numbering again: the records were fetched in full and matched by content.
    public var sequenceReset: Bool
    public var greaterOrEqualUnsupported: Bool
    /// Indications on the RACP that did not decode or answered nothing asked.
    public var malformedAnswers: Int
    /// Records fleetd asked the device to delete (only with `racp-delete = yes`) and it did.
    public var deletedOnDevice: Bool

    /// The memory the next sync starts from.
    public var memory: RecordSyncMemory {
        RecordSyncMemory(mark: mark, storedOnDevice: deletedOnDevice ? 0 : storedOnDevice, greaterOrEqualUnsupported: greaterOrEqualUnsupported)
    }
}

/// The ATT error code in a BlueZ 5.66 write error: gatt-client.c's create_gatt_dbus_error answers an ecode without a
/// D-Bus error of its own as org.bluez.Error.Failed "Operation failed with ATT error: 0x%02x".
public enum ATTErrorCode {
    public static func parse(name: String, message: String) -> UInt8? {
        guard name == "org.bluez.Error.Failed", message.hasPrefix("Operation failed with ATT error: 0x") else { return nil }
        return UInt8(message.dropFirst("Operation failed with ATT error: 0x".count), radix: 16)
    }

    /// Core Specification Supplement Part B §1.2: 0xFD "Client Characteristic Configuration Descriptor Improperly
    /// Configured"; GLS v1.0 had the same as its application error 0x81.
    static func meansIndicationsOff(_ code: UInt8) -> Bool { code == 0xFD || code == 0x81 }
    /// CSS Part B §1.2: 0xFE "Procedure Already in Progress"; GLS v1.0's application error 0x80.
    static func meansInProgress(_ code: UInt8) -> Bool { code == 0xFE || code == 0x80 }
}
