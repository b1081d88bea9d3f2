@testable import FleetStore
import FleetTestKit
import Foundation
import Testing

/// Stored records in the outbox (issue 37, docs/records.md): each record kept once by (device, service, key, bytes),
/// and the mark written behind the records it claims.
@Suite("outbox records and marks", .serialized)
struct OutboxRecordTests {
    static let glucose: UInt16 = 0x1808

    /// A Glucose Measurement 0x2A18 as a meter sends it (GSS "Glucose Measurement"): flags 0x00, sequence number
    /// `sequence` (uint16 LE), base time `minute` past 2026-12-01 00:00 (uint16 year LE, month, day, hours, minutes,
    /// seconds). Two records with one number and different times are different records.
    static func record(_ sequence: UInt16, minute: UInt8 = 0, device: String = "meter") -> Reading {
        let value: [UInt8] = [0x00, UInt8(sequence & 0xFF), UInt8(sequence >> 8), 0xEA, 0x07, 12, 1, 0, minute, 0]
        return Reading(device: device, characteristic: "00002a18-0000-1000-8000-00805f9b34fb", kind: .notification, value: value,
                       monotonicNanoseconds: StoreClock.monotonicNanoseconds(), wallNanoseconds: StoreClock.wallNanoseconds(), session: 1,
                       record: RecordKey(service: glucose, key: sequence))
    }

    private func configuration() -> Outbox.Configuration {
        var configuration = Outbox.Configuration()
        configuration.commitDelay = .milliseconds(5)
        return configuration
    }

    @Test("a record sent again is stored once and counted; the count survives a reopen")
    func duplicateSuppressed() async throws {
        let fixture = try StoreFixture()
        do {
            let outbox = try Outbox(path: fixture.path, configuration: configuration())
            defer { outbox.close() }
            outbox.append(contentsOf: [Self.record(1), Self.record(2)])
            try await outbox.flush()
            // A re-sync sends 1 and 2 again (the anchor and a meter that ignores ≥), then the new 3.
            outbox.append(contentsOf: [Self.record(1), Self.record(2), Self.record(3)])
            try await outbox.flush()
            let stored = try allStored(outbox)
            #expect(stored.map { $0.reading.value[1] } == [1, 2, 3], "octet 1: the sequence number's low byte")
            #expect(stored.map(\.seq) == [1, 2, 3], "a suppressed record takes no sequence number")
            #expect(outbox.stats().duplicatesSuppressed == 2)
            #expect(outbox.recordMark(device: "meter", service: Self.glucose)?.duplicatesSuppressed == 2)
        }
        let reopened = try Outbox(path: fixture.path, configuration: configuration())
        defer { reopened.close() }
        #expect(reopened.recordMark(device: "meter", service: Self.glucose)?.duplicatesSuppressed == 2)
        reopened.append(Self.record(3))
        try await reopened.flush()
        #expect(try allStored(reopened).count == 3, "the keys are durable: after a restart the record is still held")
    }

    @Test("a record numbered again after a reset (same number, other bytes) is a new record; another device's is its own")
    func sameKeyOtherBytes() async throws {
        let fixture = try StoreFixture()
        let outbox = try Outbox(path: fixture.path, configuration: configuration())
        defer { outbox.close() }
        outbox.append(contentsOf: [Self.record(1, minute: 0), Self.record(1, minute: 30), Self.record(1, minute: 0, device: "other")])
        try await outbox.flush()
        #expect(try allStored(outbox).count == 3)
        #expect(outbox.stats().duplicatesSuppressed == 0)
    }

    @Test("a reading without a key is never deduplicated: two equal heart-rate values are two readings")
    func unkeyedReadingsAreKept() async throws {
        let fixture = try StoreFixture()
        let outbox = try Outbox(path: fixture.path, configuration: configuration())
        defer { outbox.close() }
        outbox.append(contentsOf: [sampleReading("strap", 1), sampleReading("strap", 1)])
        try await outbox.flush()
        #expect(try allStored(outbox).count == 2)
    }

    @Test("a mark is kept with its anchor, outcome and counts, and read back after a reopen")
    func markSurvivesReopen() async throws {
        let fixture = try StoreFixture()
        let anchor = Self.record(3).value
        do {
            let outbox = try Outbox(path: fixture.path, configuration: configuration())
            defer { outbox.close() }
            outbox.append(contentsOf: [Self.record(1), Self.record(2), Self.record(3)])
            outbox.saveRecordMark(DeviceRecordMark(device: "meter", service: Self.glucose, markKey: 3, anchor: anchor, storedOnDevice: 3,
                                                   greaterOrEqualUnsupported: true, lastSyncWallNanoseconds: 42, lastOutcome: "complete",
                                                   sequenceResets: 1))
            #expect(outbox.recordMark(device: "meter", service: Self.glucose)?.markKey == 3, "memory has it at once")
            try await outbox.flush()
        }
        let reopened = try Outbox(path: fixture.path, configuration: configuration())
        defer { reopened.close() }
        let mark = try #require(reopened.recordMark(device: "meter", service: Self.glucose))
        #expect(mark == DeviceRecordMark(device: "meter", service: Self.glucose, markKey: 3, anchor: anchor, storedOnDevice: 3,
                                         greaterOrEqualUnsupported: true, lastSyncWallNanoseconds: 42, lastOutcome: "complete",
                                         sequenceResets: 1, duplicatesSuppressed: 0))
        #expect(reopened.recordMarks(device: "meter").count == 1 && reopened.recordMarks(device: "other").isEmpty)
    }

    @Test("a queued mark waits for every reading appended before it, and is dropped if memory discarded one of them")
    func markWaitsForItsReadings() {
        let mark = DeviceRecordMark(device: "meter", service: Self.glucose, markKey: 3)
        let queued = [OutboxCore.QueuedMark(mark: mark, after: 3, droppedBefore: 0)]
        // Two of the three readings before it resolved: it waits.
        let early = OutboxCore.QueuedMark.split(queued, reach: 2, dropped: 0)
        #expect(early.write.isEmpty && early.discard.isEmpty && early.waiting.count == 1)
        // The third is in the batch being written: the mark goes into the same transaction.
        let due = OutboxCore.QueuedMark.split(queued, reach: 3, dropped: 0)
        #expect(due.write == [mark] && due.waiting.isEmpty)
        // Memory dropped a reading since it was queued: that may be record 3 itself, so the mark is not written.
        let lost = OutboxCore.QueuedMark.split(queued, reach: 3, dropped: 1)
        #expect(lost.discard == [mark] && lost.write.isEmpty)
    }

    @Test("when memory discards readings of the sync a mark comes from, the mark is not written and the next sync asks for everything")
    func markBehindDiscardedReadings() async throws {
        let fixture = try StoreFixture()
        var configuration = configuration()
        configuration.commitDelay = .milliseconds(1)
        configuration.memoryLimit = 2
        configuration.busyTimeout = .milliseconds(300)
        configuration.retryInitialDelay = .seconds(600)
        configuration.retryMaxDelay = .seconds(600)
        let outbox = try Outbox(path: fixture.path, configuration: configuration)
        defer { outbox.close() }
        // Another connection holds the write lock, so the records wait in memory; five of them against a bound of 2.
        let blocker = try SQLiteDatabase(path: fixture.path)
        try blocker.execute("BEGIN IMMEDIATE")
        let baseline = outbox.droppedInMemoryCount
        outbox.append(contentsOf: (1...5).map { Self.record(UInt16($0)) })
        outbox.saveRecordMark(DeviceRecordMark(device: "meter", service: Self.glucose, markKey: 5, anchor: Self.record(5).value),
                              unlessDroppedSince: baseline)
        try blocker.execute("ROLLBACK")
        try await outbox.flush()
        #expect(outbox.stats().droppedInMemory == 3)
        #expect(outbox.stats().markChangesDiscarded == 1)
        #expect(outbox.recordMark(device: "meter", service: Self.glucose)?.markKey == nil, "the next sync fetches all records")
        let written = try SQLiteDatabase(path: fixture.path).scalar("SELECT count(*) FROM record_marks WHERE mark_key IS NOT NULL")
        #expect(written == .integer(0))
    }
}
