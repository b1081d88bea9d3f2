import FleetStore
import FleetTestKit
import Foundation
import Testing

@Suite("Outbox on a full disk", .serialized,
       .enabled(if: SmallFilesystem.isPermitted, "skipped: mount -t tmpfs is not permitted here (needs root or CAP_SYS_ADMIN)"))
struct OutboxFullDiskTests {
    @Test("a full disk gives a typed error, keeps readings in memory up to the bound, and writes resume when space returns")
    func fullDisk() async throws {
        let disk = try SmallFilesystem(size: "1m")
        let notices = NoticeLog()
        var configuration = Outbox.Configuration()
        configuration.commitDelay = .milliseconds(10)
        configuration.memoryLimit = 2000
        configuration.retryInitialDelay = .milliseconds(20)
        configuration.retryMaxDelay = .milliseconds(100)
        configuration.onNotice = notices.record
        let outbox = try Outbox(path: disk.path + "/fleetd.db", configuration: configuration)
        defer { outbox.close() }
        for n in 0..<50 { outbox.append(sampleReading("a", n)) }
        try await outbox.flush()

        let filler = try disk.fill()
        for n in 50..<1550 { outbox.append(sampleReading("a", n)) }
        try await waitUntil("the commit to fail") { outbox.stats().failing }
        var stats = outbox.stats()
        let error = try #require(stats.lastError)
        #expect(error.kind == .full, "expected a full-disk error, got \(error)")
        #expect(stats.committed == 50)
        #expect(stats.pending == 1500)
        let flushError = await #expect(throws: OutboxError.self) { try await outbox.flush() }
        guard case .storage(let flushCause)? = flushError else { Issue.record("flush: \(String(describing: flushError))"); return }
        #expect(flushCause.kind == .full)

        // Beyond the memory bound the oldest pending readings go, counted. A retry in flight at this moment holds
        // the oldest 1500 (they are not counted until that attempt fails): then memory holds them on top of the
        // bound, and they go first if the attempt fails, or nothing goes if it succeeds.
        for n in 1550..<2100 { outbox.append(sampleReading("a", n)) }
        stats = outbox.stats()
        #expect(stats.pending + Int(stats.droppedInMemory) == 2050 && stats.pending <= 2000 + configuration.maxBatchSize, "\(stats)")
        #expect(outbox.subscribe() != nil)

        try FileManager.default.removeItem(atPath: filler)
        do {
            try await waitUntil("writes to resume") { outbox.stats().pending == 0 }
        } catch {
            Issue.record("\(error): \(outbox.stats()); notices: \(notices.all)")
            throw error
        }
        stats = outbox.stats()
        #expect(!stats.failing)
        let dropped = Int(stats.droppedInMemory)
        #expect(dropped == 0 || dropped == 50, "\(stats)")
        #expect(stats.committed == UInt64(2100 - dropped))
        let stored = try allStored(outbox)
        // Numbered without a gap: pending readings discarded never had a number.
        #expect(stored.map(\.seq) == Array(1...Int64(2100 - dropped)))
        let values = stored.map { Int(String(decoding: $0.reading.value, as: UTF8.self).split(separator: "#")[1])! }
        // What was dropped is the oldest pending run, appends 50…99 (OutboxMemoryBoundTests shows the in-flight case).
        let missing = Set(0..<2100).subtracting(values).sorted()
        #expect(values == values.sorted() && missing == (dropped == 0 ? [] : Array(50..<100)), "missing \(missing)")
        let kinds = notices.all.map { notice -> String in
            switch notice {
            case .writeFailed(let e, _, _): return "failed:\(e.kind)"
            case .writeResumed: return "resumed"
            case .memoryOverflow: return "overflow"
            case .retentionDropped: return "retention"
            case .epochChanged: return "epoch"
            case .writerFailed: return "incurable"
            case .reserveReleased: return "reserve"
            }
        }
        #expect(kinds.first == "failed:full")
        #expect(kinds.contains("overflow") == (dropped > 0))
        #expect(kinds.last == "resumed")
    }
}

@Suite("Outbox on a full disk, retention making room (issue 41, point 15)", .serialized,
       .enabled(if: SmallFilesystem.isPermitted, "skipped: mount -t tmpfs is not permitted here (needs root or CAP_SYS_ADMIN)"))
struct OutboxFullDiskRetentionTests {
    @Test("at its row bound on a full disk, the outbox keeps storing by dropping its oldest readings")
    func retentionMakesRoom() async throws {
        let disk = try SmallFilesystem(size: "2m")
        let notices = NoticeLog()
        var configuration = Outbox.Configuration()
        configuration.commitDelay = .milliseconds(5)
        configuration.maxBatchSize = 64
        configuration.retryInitialDelay = .milliseconds(10)
        configuration.retryMaxDelay = .milliseconds(50)
        configuration.retention.maxRows = 2000
        configuration.reserveBytes = 256 << 10
        configuration.onNotice = notices.record
        let outbox = try Outbox(path: disk.path + "/fleetd.db", configuration: configuration)
        defer { outbox.close() }
        // Steady state at the bound: every commit drops as many as it adds.
        for n in 0..<3000 { outbox.append(sampleReading("a", n)) }
        try await outbox.flush()
        #expect(outbox.stats().depth == 2000)
        _ = try disk.fill()
        for round in 0..<20 {
            for n in 0..<200 { outbox.append(sampleReading("a", 3000 + round * 200 + n)) }
            // A flush reports the first failed commit; what matters is that the writer gets them stored by itself.
            do {
                try await waitUntil("round \(round) stored", timeout: .seconds(20)) { outbox.stats().pending == 0 }
            } catch {
                Issue.record("\(error): \(outbox.stats()); notices \(notices.all.suffix(3)); files \((try? FileManager.default.contentsOfDirectory(atPath: disk.path)) ?? [])")
                return
            }
        }
        let stats = outbox.stats()
        #expect(stats.depth == 2000 && stats.pending == 0, "\(stats)")
        #expect(try allStored(outbox).last?.seq == 7000)
    }
}
