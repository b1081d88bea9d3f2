import TestScheduling
import Testing
@testable import GATTProfiles

/// The RACP procedure driven event by event (docs/records.md); bytes per GSS §3.178 as in RecordAccessControlPointTests.
@Suite(.offCooperativePool) struct RecordSyncTests {
    static let t = Duration.seconds(0)
    static let measurement = AssignedNumber(0x2A18)
    static let context = AssignedNumber(0x2A34)

    /// A Glucose Measurement with no optional fields: flags, sequence number, base time 2026-12-07 08:`minute`:00.
    static func record(_ seq: UInt16, minute: UInt8 = 0, contextFollows: Bool = false) -> [UInt8] {
        [contextFollows ? 0x10 : 0x00, UInt8(seq & 0xFF), UInt8(seq >> 8), 0xEA, 0x07, 12, 7, 8, minute, 0]
    }

    static let success: [UInt8] = [0x06, 0x00, 0x01, 0x01]
    static func count(_ n: UInt16) -> [UInt8] { [0x05, 0x00, UInt8(n & 0xFF), UInt8(n >> 8)] }
    static func markedAt(_ key: UInt16, stored: Int? = nil) -> RecordSyncMemory {
        RecordSyncMemory(mark: RecordMark(key: key, anchor: record(key)), storedOnDevice: stored)
    }

    static func finished(_ actions: [RecordSyncAction]) -> RecordSyncOutcome? {
        for case .finished(let outcome) in actions { return outcome }
        return nil
    }
    static func writes(_ actions: [RecordSyncAction]) -> [[UInt8]] { actions.compactMap { if case .write(let r) = $0 { r.bytes } else { nil } } }
    static func marks(_ actions: [RecordSyncAction]) -> [UInt16] { actions.compactMap { if case .markReached(let m) = $0 { m.key } else { nil } } }

    @Test func aFirstSyncAsksForEveryRecordAndMarksTheHighestOnSuccess() {
        var sync = RecordSync(service: .glucose, memory: RecordSyncMemory())
        #expect(Self.writes(sync.start(now: Self.t)) == [[0x04, 0x01]])
        #expect(Self.writes(sync.controlPointIndicated(Self.count(3), now: Self.t)) == [[0x01, 0x01]])
        var marks: [UInt16] = []
        for seq in [1, 2, 3] as [UInt16] { marks += Self.marks(sync.recordNotified(Self.record(seq), on: Self.measurement, now: Self.t)) }
        #expect(marks.isEmpty, "with no mark the device's lowest record is unknown until the end")
        let end = sync.controlPointIndicated(Self.success, now: Self.t)
        #expect(Self.marks(end) == [3])
        let outcome = Self.finished(end)
        #expect(outcome?.result == .complete && outcome?.storedOnDevice == 3 && outcome?.received == 3)
        #expect(outcome?.memory == RecordSyncMemory(mark: RecordMark(key: 3, anchor: Self.record(3)), storedOnDevice: 3))
    }

    static func timers(_ actions: [RecordSyncAction]) -> [RecordSyncTimer] {
        actions.compactMap { if case .startTimer(let timer, _) = $0 { timer } else { nil } }
    }

    /// bluetoothd 5.66 sends the RACP's indication at once and holds notifications up to 10 ms (gatt-server.c), so on
    /// the rig the success answer came before record 50 of 50 (docs/bluez-fidelity.md, racp-glucose-sync).
    @Test func aSuccessThatOvertakesTheLastRecordIsHeldUntilItComes() {
        var sync = RecordSync(service: .glucose, memory: RecordSyncMemory())
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(3), now: Self.t)
        _ = sync.recordNotified(Self.record(1), on: Self.measurement, now: Self.t)
        _ = sync.recordNotified(Self.record(2), on: Self.measurement, now: Self.t)
        let early = sync.controlPointIndicated(Self.success, now: Self.t)
        #expect(Self.finished(early) == nil && Self.marks(early).isEmpty, "two of the three records the device holds: not yet")
        #expect(Self.timers(early) == [.settle])
        let late = sync.recordNotified(Self.record(3), on: Self.measurement, now: Self.t)
        #expect(Self.marks(late) == [3])
        #expect(Self.finished(late)?.result == .complete && Self.finished(late)?.received == 3)
    }

    /// With EATT, bluetoothd sends queued notifications on whichever channel is free (att.c pick_next_send_op):
    /// records swapped places on the rig. A mark over a record still on its way could never be asked for again.
    @Test func aRecordOvertakenBySuccessAndItsSuccessorIsWaitedForBeforeTheMark() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40, stored: 40))
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(44), now: Self.t)
        var marks: [UInt16] = []
        for seq in [40, 41, 43, 44] as [UInt16] { marks += Self.marks(sync.recordNotified(Self.record(seq), on: Self.measurement, now: Self.t)) }
        #expect(marks == [41], "43 and 44 are not claimed while 42 is missing")
        let early = sync.controlPointIndicated(Self.success, now: Self.t)
        #expect(Self.finished(early) == nil && Self.marks(early).isEmpty)
        let late = sync.recordNotified(Self.record(42), on: Self.measurement, now: Self.t)
        #expect(Self.marks(late).last == 44 && Self.finished(late)?.result == .complete)
    }

    @Test func aRecordThatNeverComesIsGivenUpAfterTheWaitAndTheDeviceIsBelieved() {
        var sync = RecordSync(service: .glucose, memory: RecordSyncMemory())
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(3), now: Self.t)
        _ = sync.recordNotified(Self.record(1), on: Self.measurement, now: Self.t)
        _ = sync.recordNotified(Self.record(3), on: Self.measurement, now: Self.t)
        #expect(Self.timers(sync.controlPointIndicated(Self.success, now: Self.t)) == [.settle])
        // GSS §3.178: success means every record in the range was sent; 2 is one the device no longer has.
        let end = sync.timerFired(.settle, now: .seconds(1))
        #expect(Self.marks(end) == [3] && Self.finished(end)?.result == .complete)
        #expect(sync.timerFired(.settle, now: .seconds(2)).isEmpty, "a stale fire does nothing")
    }

    @Test func aMarkedDeviceIsAskedFromItsMarkAndTheMarkMovesRecordByRecord() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40, stored: 40))
        _ = sync.start(now: Self.t)
        // ≥ 40 = 0x28: the mark's own record is asked for again, as the anchor.
        #expect(Self.writes(sync.controlPointIndicated(Self.count(45), now: Self.t)) == [[0x01, 0x03, 0x01, 0x28, 0x00]])
        #expect(Self.marks(sync.recordNotified(Self.record(40), on: Self.measurement, now: Self.t)).isEmpty)
        #expect(Self.marks(sync.recordNotified(Self.record(41), on: Self.measurement, now: Self.t)) == [41])
        #expect(Self.marks(sync.recordNotified(Self.record(42), on: Self.measurement, now: Self.t)) == [42])
        // The link drops after the third record: the mark stays at 42, nothing above it is claimed.
        let outcome = Self.finished(sync.linkLost(now: Self.t))
        #expect(outcome?.result == .linkLost && outcome?.mark?.key == 42 && outcome?.sequenceReset == false)
    }

    @Test func anAnchorWithOtherBytesIsASequenceResetAndEverythingIsFetched() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40, stored: 40))
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(45), now: Self.t)
        // Record 40 now has another time: the meter numbers from scratch (battery change).
        #expect(Self.marks(sync.recordNotified(Self.record(40, minute: 5), on: Self.measurement, now: Self.t)).isEmpty)
        #expect(Self.marks(sync.recordNotified(Self.record(41, minute: 5), on: Self.measurement, now: Self.t)).isEmpty)
        #expect(Self.writes(sync.controlPointIndicated(Self.success, now: Self.t)) == [[0x01, 0x01]])
        for seq in 1...45 as ClosedRange<UInt16> { _ = sync.recordNotified(Self.record(seq, minute: 5), on: Self.measurement, now: Self.t) }
        let end = sync.controlPointIndicated(Self.success, now: Self.t)
        #expect(Self.marks(end) == [45])
        #expect(Self.finished(end)?.sequenceReset == true && Self.finished(end)?.result == .complete)
    }

    @Test func aResetToAnEmptyMemoryClearsTheMarkSoTheNextSyncAsksForEverything() {
        // The meter held 40 records up to mark 40; its memory was cleared and it holds none yet.
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40, stored: 40))
        _ = sync.start(now: Self.t)
        let end = sync.controlPointIndicated(Self.count(0), now: Self.t)
        let outcome = Self.finished(end)
        #expect(outcome?.result == .noRecords && outcome?.sequenceReset == true)
        #expect(outcome?.memory.mark == nil, "mark 40 belongs to the old numbering")
        // Two records taken since: the next sync must ask for all of them (a mark kept at 40 asked for ≥ 40: none).
        var next = RecordSync(service: .glucose, memory: outcome!.memory)
        _ = next.start(now: Self.t)
        #expect(Self.writes(next.controlPointIndicated(Self.count(2), now: Self.t)) == [[0x01, 0x01]])
    }

    @Test func aCountThatShrankIsAResetAndEverythingIsFetched() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(50, stored: 50))
        _ = sync.start(now: Self.t)
        #expect(Self.writes(sync.controlPointIndicated(Self.count(3), now: Self.t)) == [[0x01, 0x01]])
        for seq in 1...3 as ClosedRange<UInt16> { _ = sync.recordNotified(Self.record(seq, minute: 9), on: Self.measurement, now: Self.t) }
        let end = sync.controlPointIndicated(Self.success, now: Self.t)
        #expect(Self.marks(end) == [3], "after a reset the mark may go down")
        #expect(Self.finished(end)?.sequenceReset == true)
    }

    @Test(arguments: [0x04, 0x09] as [UInt8])
    func aDeviceWithoutGreaterOrEqualIsAskedForAllRecords(code: UInt8) {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40))
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(41), now: Self.t)
        // 06 00 01 04: "operator not supported"; 09: "operand not supported".
        #expect(Self.writes(sync.controlPointIndicated([0x06, 0x00, 0x01, code], now: Self.t)) == [[0x01, 0x01]])
        for seq in 1...41 as ClosedRange<UInt16> { _ = sync.recordNotified(Self.record(seq), on: Self.measurement, now: Self.t) }
        let outcome = Self.finished(sync.controlPointIndicated(Self.success, now: Self.t))
        #expect(outcome?.greaterOrEqualUnsupported == true && outcome?.mark?.key == 41 && outcome?.memory.greaterOrEqualUnsupported == true)
        // And the next sync goes straight to "all".
        var next = RecordSync(service: .glucose, memory: outcome!.memory)
        _ = next.start(now: Self.t)
        #expect(Self.writes(next.controlPointIndicated(Self.count(41), now: Self.t)) == [[0x01, 0x01]])
    }

    @Test func noRecordsIsSuccess() {
        var empty = RecordSync(service: .glucose, memory: RecordSyncMemory())
        _ = empty.start(now: Self.t)
        let outcome = Self.finished(empty.controlPointIndicated(Self.count(0), now: Self.t))
        #expect(outcome?.result == .noRecords && outcome?.result.isSuccess == true)

        var nothingNew = RecordSync(service: .glucose, memory: Self.markedAt(40))
        _ = nothingNew.start(now: Self.t)
        _ = nothingNew.controlPointIndicated(Self.count(40), now: Self.t)
        let none = Self.finished(nothingNew.controlPointIndicated([0x06, 0x00, 0x01, 0x06], now: Self.t))
        #expect(none?.result == .noRecords && none?.mark?.key == 40)
    }

    @Test func procedureNotCompletedKeepsTheRecordsSoFar() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40))
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(45), now: Self.t)
        _ = sync.recordNotified(Self.record(41), on: Self.measurement, now: Self.t)
        let outcome = Self.finished(sync.controlPointIndicated([0x06, 0x00, 0x01, 0x08], now: Self.t))
        #expect(outcome?.result == .incomplete && outcome?.mark?.key == 41)
    }

    @Test func thirtySecondsOfSilenceAbortsAndTheSyncEndsStalled() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40))
        _ = sync.start(now: Self.t)
        let report = sync.controlPointIndicated(Self.count(45), now: Self.t)
        #expect(report.contains(.startTimer(.silence, after: .seconds(30))))
        // Each record restarts the silence timer.
        #expect(sync.recordNotified(Self.record(41), on: Self.measurement, now: .seconds(10)).contains(.startTimer(.silence, after: .seconds(30))))
        let abort = sync.timerFired(.silence, now: .seconds(40))
        #expect(Self.writes(abort) == [[0x03, 0x00]] && abort.contains(.startTimer(.silence, after: .seconds(5))))
        // 06 00 03 01: the abort succeeded.
        let outcome = Self.finished(sync.controlPointIndicated([0x06, 0x00, 0x03, 0x01], now: .seconds(41)))
        #expect(outcome?.result == .stalled && outcome?.mark?.key == 41)
        #expect(sync.timerFired(.silence, now: .seconds(50)).isEmpty, "a stale timer does nothing")
    }

    @Test(arguments: ["0xfd", "0x81"])
    func indicationsNotConfiguredAreArmedAgainTwiceThenTheSyncGivesUp(code: String) {
        var sync = RecordSync(service: .glucose, memory: RecordSyncMemory())
        _ = sync.start(now: Self.t)
        let failure = "Operation failed with ATT error: " + code
        for _ in 0..<2 {
            #expect(sync.writeFailed(name: "org.bluez.Error.Failed", message: failure, now: Self.t).contains(.armControlPointIndications))
            #expect(Self.writes(sync.indicationsArmed(now: Self.t)) == [[0x04, 0x01]])
        }
        #expect(Self.finished(sync.writeFailed(name: "org.bluez.Error.Failed", message: failure, now: Self.t))?.result == .indicationsRefused)
    }

    @Test(arguments: ["0xfe", "0x80"])
    func aProcedureAlreadyInProgressIsWaitedForOneTwoFourSeconds(code: String) {
        var sync = RecordSync(service: .glucose, memory: RecordSyncMemory())
        _ = sync.start(now: Self.t)
        let failure = "Operation failed with ATT error: " + code
        for delay in [1, 2, 4] as [Int64] {
            #expect(sync.writeFailed(name: "org.bluez.Error.Failed", message: failure, now: Self.t).contains(.startTimer(.retry, after: .seconds(delay))))
            #expect(Self.writes(sync.timerFired(.retry, now: Self.t)) == [[0x04, 0x01]])
        }
        #expect(Self.finished(sync.writeFailed(name: "org.bluez.Error.Failed", message: failure, now: Self.t))?.result == .busy)
    }

    @Test func anotherWriteErrorEndsTheSyncWithBlueZsNameAndMessage() {
        var sync = RecordSync(service: .glucose, memory: RecordSyncMemory())
        _ = sync.start(now: Self.t)
        let outcome = Self.finished(sync.writeFailed(name: "org.bluez.Error.Failed", message: "Not connected", now: Self.t))
        #expect(outcome?.result == .writeFailed(name: "org.bluez.Error.Failed", message: "Not connected"))
    }

    @Test func aRecordWhoseContextFollowsHoldsTheMarkUntilTheContextComes() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40))
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(42), now: Self.t)
        #expect(Self.marks(sync.recordNotified(Self.record(41, contextFollows: true), on: Self.measurement, now: Self.t)).isEmpty)
        #expect(Self.marks(sync.recordNotified(Self.record(42), on: Self.measurement, now: Self.t)).isEmpty)
        // Glucose Measurement Context: flags 0, sequence number 41.
        #expect(Self.marks(sync.recordNotified([0x00, 41, 0x00], on: Self.context, now: Self.t)) == [42])
    }

    @Test func aContextThatNeverComesIsNotWaitedForPastTheProcedure() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40))
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(41), now: Self.t)
        _ = sync.recordNotified(Self.record(41, contextFollows: true), on: Self.measurement, now: Self.t)
        #expect(Self.marks(sync.controlPointIndicated(Self.success, now: Self.t)) == [41])
    }

    @Test func aReversedUploadMarksWhenTheGapCloses() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40))
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(45), now: Self.t)
        var marks: [UInt16] = []
        for seq in [45, 44, 43, 42, 41, 40] as [UInt16] { marks += Self.marks(sync.recordNotified(Self.record(seq), on: Self.measurement, now: Self.t)) }
        #expect(marks == [45])
    }

    @Test func aWholeHistoryUploadIsCountedOutsideTheRequest() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40))
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(45), now: Self.t)
        for seq in 1...45 as ClosedRange<UInt16> { _ = sync.recordNotified(Self.record(seq), on: Self.measurement, now: Self.t) }
        let outcome = Self.finished(sync.controlPointIndicated(Self.success, now: Self.t))
        #expect(outcome?.outsideRequest == 39 && outcome?.received == 45 && outcome?.mark?.key == 45 && outcome?.sequenceReset == false)
    }

    @Test func racpDeleteRemovesOnlyWhatIsMarked() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40), deleteAfterSync: true)
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(42), now: Self.t)
        for seq in [40, 41, 42] as [UInt16] { _ = sync.recordNotified(Self.record(seq), on: Self.measurement, now: Self.t) }
        // Delete Stored Records (0x02), ≤ (0x02), filter 0x01, 42.
        #expect(Self.writes(sync.controlPointIndicated(Self.success, now: Self.t)) == [[0x02, 0x02, 0x01, 0x2A, 0x00]])
        let outcome = Self.finished(sync.controlPointIndicated([0x06, 0x00, 0x02, 0x01], now: Self.t))
        #expect(outcome?.deletedOnDevice == true && outcome?.memory.storedOnDevice == 0, "a delete is no reset next time")
    }

    @Test func withoutRacpDeleteNothingIsDeleted() {
        var sync = RecordSync(service: .glucose, memory: Self.markedAt(40))
        _ = sync.start(now: Self.t)
        _ = sync.controlPointIndicated(Self.count(41), now: Self.t)
        _ = sync.recordNotified(Self.record(41), on: Self.measurement, now: Self.t)
        let end = sync.controlPointIndicated(Self.success, now: Self.t)
        #expect(Self.writes(end).isEmpty && Self.finished(end)?.result == .complete)
    }

    @Test func aMalformedAnswerIsCountedAndChangesNothing() {
        var sync = RecordSync(service: .glucose, memory: RecordSyncMemory())
        _ = sync.start(now: Self.t)
        #expect(sync.controlPointIndicated([0x06, 0x00], now: Self.t).isEmpty)
        #expect(Self.writes(sync.controlPointIndicated(Self.count(1), now: Self.t)) == [[0x01, 0x01]])
        _ = sync.recordNotified(Self.record(1), on: Self.measurement, now: Self.t)
        #expect(Self.finished(sync.controlPointIndicated(Self.success, now: Self.t))?.malformedAnswers == 1)
    }

    @Test func aCGMIsAskedByTimeOffset() {
        var sync = RecordSync(service: .continuousGlucose, memory: RecordSyncMemory(mark: RecordMark(key: 10, anchor: [0x06, 0x00, 0x5A, 0x00, 0x0A, 0x00])))
        _ = sync.start(now: Self.t)
        // ≥ (0x03), filter type 0x01 (CGMS: time offset), 10 minutes.
        #expect(Self.writes(sync.controlPointIndicated(Self.count(3), now: Self.t)) == [[0x01, 0x03, 0x01, 0x0A, 0x00]])
        let cgm: [UInt8] = [0x06, 0x00, 0x5A, 0x00, 0x0A, 0x00, 0x06, 0x00, 0x5B, 0x00, 0x0B, 0x00]
        #expect(Self.marks(sync.recordNotified(cgm, on: AssignedNumber(0x2AA7), now: Self.t)) == [11])
    }

    @Test func aCountRequestTheDeviceDoesNotSupportIsSkipped() {
        var sync = RecordSync(service: .glucose, memory: RecordSyncMemory())
        _ = sync.start(now: Self.t)
        // 06 00 04 02: Report Number of Stored Records answered "op code not supported".
        #expect(Self.writes(sync.controlPointIndicated([0x06, 0x00, 0x04, 0x02], now: Self.t)) == [[0x01, 0x01]])
    }
}
