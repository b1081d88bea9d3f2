/// The RACP sync of one device on one link, as a state machine: events in, actions out, no I/O and no clock (the
/// driver passes `now`, runs the actions and feeds back timer fires). The procedure (docs/records.md):
///
/// 1. Report Number of Stored Records (all). A count below the last sync's says the device began again (a reset).
///    A device that does not support the request is asked for the records straight away.
/// 2. Report Stored Records ≥ the mark's key — the mark's own record included, as an anchor: if it comes back with
///    other bytes, the device's numbering began again. With no mark, after a reset, or on a device that refused ≥
///    (RACP 0x04/0x09), all records; the store's key keeps each record once.
/// 3. Records are taken until the device's response code; the mark advances record by record while nothing is
///    missing above it (a record whose "context follows" flag is set waits for its context), and to the highest
///    record on success (the device has sent every record it holds in the range).
/// 4. With `deleteAfterSync` (`racp-delete = yes`), Delete Stored Records ≤ the mark.
///
/// Errors on the write: "CCCD improperly configured" (ATT 0xFD, GLS v1.0's 0x81): indications are armed again and
/// the request written again, twice at most. "Procedure already in progress" (0xFE, GLS v1.0's 0x80): written again
/// after 1, 2 and 4 s. Silence for 30 s in any step: Abort Operation, and the sync ends `stalled`.
public struct RecordSync: Sendable {
    public struct Limits: Sendable, Hashable {
        public var silence: Duration = .seconds(30)
        /// How long an Abort Operation is given to be answered before the sync ends anyway.
        public var abortAnswer: Duration = .seconds(5)
        /// How long a success is held while records it covers have not arrived: bluetoothd 5.66 sends an indication
        /// at once but holds notifications up to 10 ms to pack them (gatt-server.c), and with EATT it sends queued
        /// notifications on whichever channel is free (att.c pick_next_send_op), so the answer can overtake the last
        /// records and records can swap places (seen on the rig, docs/bluez-fidelity.md).
        public var lateRecords: Duration = .seconds(1)
        public var indicationRetries = 2
        public var inProgressRetries = 3
        public var inProgressFirstDelay: Duration = .seconds(1)
        public init() {}
    }

    enum Step: Sendable, Equatable {
        case idle
        case counting
        case reporting(RecordSelection)
        /// The device said success but records of the range are still missing: waiting a moment for them.
        case settling(RecordSelection, RecordAccessResponseCode)
        case deleting
        case aborting
        case done
    }

    public let service: StoredRecordService
    public let limits: Limits
    public let deleteAfterSync: Bool
    let previousCount: Int?
    var step = Step.idle
    var request: RecordAccessRequest?
    var outcome: RecordSyncOutcome
    var indicationRetries = 0
    var inProgressRetries = 0
    /// A record at the mark came back with other bytes: fetch everything once this transfer ends.
    var resetSeen = false
    /// This transfer is the full fetch after a reset: contiguity starts afresh.
    var resyncing = false
    /// Keys and bytes of the measurements received in this transfer, contexts still awaited.
    var seen: [UInt16: [UInt8]] = [:]
    var awaitingContext: Set<UInt16> = []
    var resultOnAbort = RecordSyncResult.stalled
    /// The success was held once for late records (``Limits/lateRecords``): the next one is taken as it is.
    var settled = false

    public init(service: StoredRecordService, memory: RecordSyncMemory, deleteAfterSync: Bool = false, limits: Limits = Limits()) {
        self.service = service
        self.limits = limits
        self.deleteAfterSync = deleteAfterSync
        self.previousCount = memory.storedOnDevice
        self.outcome = RecordSyncOutcome(result: .complete, storedOnDevice: nil, received: 0, outsideRequest: 0, mark: memory.mark,
                                         sequenceReset: false, greaterOrEqualUnsupported: memory.greaterOrEqualUnsupported,
                                         malformedAnswers: 0, deletedOnDevice: false)
    }

    public var isFinished: Bool { step == .done }
    public var mark: RecordMark? { outcome.mark }

    /// The link is encrypted and the measurement's notifications and the RACP's indications are on.
    public mutating func start(now: Duration) -> [RecordSyncAction] {
        guard step == .idle else { return [] }
        step = .counting
        return send(.reportNumberOfStoredRecords(.all))
    }

    public mutating func controlPointIndicated(_ bytes: [UInt8], now: Duration) -> [RecordSyncAction] {
        guard step != .idle, step != .done else { return [] }
        let response: RecordAccessResponse
        do {
            response = try RecordAccessResponse.decode(bytes)
        } catch {
            outcome.malformedAnswers += 1
            return []
        }
        switch (step, response) {
        case (.counting, .numberOfStoredRecords(let count)):
            outcome.storedOnDevice = Int(count)
            if let previousCount, Int(count) < previousCount {
                // The device holds fewer records than it did and fleetd deleted none since (the memory's count is
                // 0 after a delete): its memory was cleared, so its numbering may have begun again.
                outcome.sequenceReset = true
                resyncing = true
                // The old mark names a numbering the device no longer has: kept, it would make the next sync ask
                // for records above it and miss the device's new ones below (found by the meter soak).
                outcome.mark = nil
            }
            if count == 0 { return finish(.noRecords) }
            return report()
        case (.counting, .response(let request, _)) where request == RecordAccessControlPoint.OpCode.reportNumberOfStoredRecords.rawValue:
            // Counting is optional to the device in practice (some meters answer op code not supported): go on.
            return report()
        case (.reporting(let selection), .response(let request, let code)) where request == RecordAccessControlPoint.OpCode.reportStoredRecords.rawValue:
            return reported(selection, code)
        case (.deleting, .response(let request, let code)) where request == RecordAccessControlPoint.OpCode.deleteStoredRecords.rawValue:
            outcome.deletedOnDevice = code == .success
            return finish(.complete)
        case (.aborting, .response(let request, _)) where request == RecordAccessControlPoint.OpCode.abortOperation.rawValue:
            return finish(resultOnAbort)
        default:
            outcome.malformedAnswers += 1
            return []
        }
    }

    /// A value on the measurement or context characteristic (outside a transfer, a live record: the driver stores
    /// it keyed as ever; the sync only counts what it asked for).
    public mutating func recordNotified(_ bytes: [UInt8], on characteristic: AssignedNumber, now: Duration) -> [RecordSyncAction] {
        let selection: RecordSelection
        switch step {
        case .reporting(let s), .settling(let s, _): selection = s
        default: return []
        }
        guard let records = try? service.records(in: bytes, on: characteristic) else {
            // Still stored raw by the driver with its decode error; it advances nothing.
            return [.startTimer(.silence, after: limits.silence)]
        }
        var actions: [RecordSyncAction] = [.startTimer(.silence, after: limits.silence)]
        for record in records {
            if record.isContext {
                awaitingContext.remove(record.key)
            } else {
                outcome.received += 1
                if case .atLeast(_, let low) = selection, record.key < low { outcome.outsideRequest += 1 }
                if !resyncing, let mark = outcome.mark, record.key == mark.key, record.bytes != mark.anchor { resetSeen = true }
                seen[record.key] = record.bytes
                if record.contextFollows { awaitingContext.insert(record.key) }
            }
        }
        actions += advanceContiguous()
        if case .settling(_, let code) = step, !missingRecords {
            // The late records came: the answer can be taken now.
            step = .reporting(selection)
            return actions.filter { if case .startTimer(.silence, _) = $0 { false } else { true } } + [.cancelTimer(.settle)]
                + reported(selection, code)
        }
        return actions
    }

    /// The RACP write failed: BlueZ's error name and message.
    public mutating func writeFailed(name: String, message: String, now: Duration) -> [RecordSyncAction] {
        guard step != .idle, step != .done, let request else { return [] }
        if let code = ATTErrorCode.parse(name: name, message: message) {
            if ATTErrorCode.meansIndicationsOff(code) {
                guard indicationRetries < limits.indicationRetries else { return finish(.indicationsRefused) }
                indicationRetries += 1
                return [.cancelTimer(.silence), .armControlPointIndications]
            }
            if ATTErrorCode.meansInProgress(code) {
                guard inProgressRetries < limits.inProgressRetries else { return finish(.busy) }
                let delay = limits.inProgressFirstDelay * (1 << inProgressRetries)
                inProgressRetries += 1
                return [.cancelTimer(.silence), .startTimer(.retry, after: delay)]
            }
        }
        if case .abort = request { return finish(resultOnAbort) }
        return finish(.writeFailed(name: name, message: message))
    }

    /// Indications on the RACP are on again (after ``RecordSyncAction/armControlPointIndications``).
    public mutating func indicationsArmed(now: Duration) -> [RecordSyncAction] {
        guard step != .idle, step != .done, let request else { return [] }
        return send(request)
    }

    public mutating func timerFired(_ timer: RecordSyncTimer, now: Duration) -> [RecordSyncAction] {
        guard step != .idle, step != .done else { return [] }
        switch timer {
        case .retry:
            guard let request else { return [] }
            return send(request)
        case .settle:
            // What has not come by now is not coming: the device has sent what it holds in the range.
            guard case .settling(let selection, let code) = step else { return [] }
            settled = true
            step = .reporting(selection)
            return reported(selection, code)
        case .silence:
            if step == .aborting { return finish(resultOnAbort) }
            // The records so far stay (the mark is where contiguity reached); the rest comes on the next link.
            step = .aborting
            resultOnAbort = .stalled
            request = .abort
            return [.write(.abort), .startTimer(.silence, after: limits.abortAnswer)]
        }
    }

    public mutating func linkLost(now: Duration) -> [RecordSyncAction] {
        guard step != .done else { return [] }
        return finish(.linkLost)
    }

    // MARK: - Steps

    private mutating func send(_ request: RecordAccessRequest) -> [RecordSyncAction] {
        self.request = request
        return [.write(request), .startTimer(.silence, after: limits.silence)]
    }

    private mutating func report() -> [RecordSyncAction] {
        let selection: RecordSelection
        if let mark = outcome.mark, !resyncing, !outcome.greaterOrEqualUnsupported {
            selection = .atLeast(filterType: service.filterType, key: mark.key)
        } else {
            selection = .all
        }
        seen = [:]
        awaitingContext = []
        settled = false
        step = .reporting(selection)
        return send(.reportStoredRecords(selection))
    }

    private mutating func reported(_ selection: RecordSelection, _ code: RecordAccessResponseCode) -> [RecordSyncAction] {
        switch code {
        case .success, .noRecordsFound:
            if missingRecords && !settled && !(resetSeen && !resyncing) {
                step = .settling(selection, code)
                return [.cancelTimer(.silence), .startTimer(.settle, after: limits.lateRecords)]
            }
            if resetSeen && !resyncing {
                // The anchor came back different: the device numbers from scratch. Fetch everything; the store
                // keeps each record once by its key and content.
                outcome.sequenceReset = true
                resyncing = true
                outcome.mark = nil
                return report()
            }
            var actions: [RecordSyncAction] = []
            awaitingContext = []   // the procedure ended: a context that never came is not waited for.
            if let top = highestSeen(), resyncing || outcome.mark.map({ top.key > $0.key }) ?? true {
                outcome.mark = top
                actions.append(.markReached(top))
            }
            if code == .noRecordsFound && seen.isEmpty { return actions + finish(.noRecords) }
            if deleteAfterSync, let mark = outcome.mark {
                step = .deleting
                return actions + send(.deleteStoredRecords(.atMost(filterType: service.filterType, key: mark.key)))
            }
            return actions + finish(.complete)
        case .operatorNotSupported where selection != .all, .operandNotSupported where selection != .all:
            outcome.greaterOrEqualUnsupported = true
            return report()
        case .procedureNotCompleted:
            return finish(.incomplete)
        default:
            return finish(.refused(code))
        }
    }

    /// Records of this transfer that should have come and have not: a key missing between the lowest one needed (the
    /// one above the mark — the mark's own is only the anchor —, or the lowest seen when all were asked for) and the
    /// highest seen, or fewer records than the device said it holds when all were asked for.
    private var missingRecords: Bool {
        guard let high = seen.keys.max() else { return false }
        let selection: RecordSelection
        switch step {
        case .reporting(let s), .settling(let s, _): selection = s
        default: return false
        }
        let low: UInt16
        if case .atLeast(_, let from) = selection {
            guard high > from else { return false }
            low = from + 1
        } else {
            low = seen.keys.min() ?? high
        }
        if seen.keys.count(where: { $0 >= low }) < Int(high - low) + 1 { return true }
        if selection == .all, let held = outcome.storedOnDevice, seen.count < held { return true }
        return false
    }

    private func highestSeen() -> RecordMark? {
        guard let key = seen.keys.max(), let bytes = seen[key] else { return nil }
        return RecordMark(key: key, anchor: bytes)
    }

    /// Moves the mark up over records in hand with nothing missing between (only from a mark: with none, the
    /// device's lowest record is unknown until it has sent them all).
    private mutating func advanceContiguous() -> [RecordSyncAction] {
        guard !resyncing, !resetSeen, var mark = outcome.mark else { return [] }
        var moved = false
        while mark.key < UInt16.max, let bytes = seen[mark.key + 1], !awaitingContext.contains(mark.key + 1) {
            mark = RecordMark(key: mark.key + 1, anchor: bytes)
            moved = true
        }
        guard moved else { return [] }
        outcome.mark = mark
        return [.markReached(mark)]
    }

    private mutating func finish(_ result: RecordSyncResult) -> [RecordSyncAction] {
        step = .done
        outcome.result = result
        return [.cancelTimer(.silence), .cancelTimer(.retry), .cancelTimer(.settle), .finished(outcome)]
    }
}
