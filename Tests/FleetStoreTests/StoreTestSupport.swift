import FleetStore
import FleetTestKit
import Foundation

/// A fresh directory and a store path in it for one test.
struct StoreFixture {
    let directory: TemporaryDirectory
    var path: String { directory.path + "/fleetd.db" }

    init() throws { directory = try TemporaryDirectory(prefix: "fleet-store") }
}

/// A reading whose value says which device and which of its appends it is: "<device>#<n>".
func sampleReading(_ device: String, _ n: Int, wall: Int64? = nil, monotonic: Int64? = nil, session: Int64 = 1) -> Reading {
    Reading(device: device, characteristic: "00002a37-0000-1000-8000-00805f9b34fb", kind: .notification,
            value: Array("\(device)#\(n)".utf8), monotonicNanoseconds: monotonic ?? StoreClock.monotonicNanoseconds(),
            wallNanoseconds: wall ?? StoreClock.wallNanoseconds(), session: session)
}

/// Every stored reading, replayed page by page from cursor 0.
func allStored(_ outbox: Outbox, device: DeviceFilter? = nil) throws -> [StoredReading] {
    var cursor: Int64 = 0
    var all: [StoredReading] = []
    while true {
        let page = try outbox.read(after: cursor, limit: 500, device: device)
        all += page.readings
        cursor = page.next
        if page.reachedEnd { return all }
    }
}

/// Collects notices from the writer thread.
final class NoticeLog: @unchecked Sendable {
    // @unchecked: `entries` is guarded by `lock`.
    private let lock = NSLock()
    private var entries: [OutboxNotice] = []
    func record(_ notice: OutboxNotice) { lock.withLock { entries.append(notice) } }
    var all: [OutboxNotice] { lock.withLock { entries } }
}

/// The next element of a stream, or a failure after `timeout`.
func next<T: Sendable>(_ iterator: inout AsyncStream<T>.Iterator, timeout: Duration = .seconds(30), _ what: String) async throws -> T? {
    let box = IteratorBox(iterator)
    let result = try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { await box.next() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TestKitError("timed out after \(timeout) waiting for \(what)")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
    iterator = box.iterator
    return result
}

/// Lets a stream iterator cross into a child task of the deadline race and come back.
private final class IteratorBox<T: Sendable>: @unchecked Sendable {
    // @unchecked: used by one task at a time (the racing child, then the caller after the group ends).
    var iterator: AsyncStream<T>.Iterator
    init(_ iterator: AsyncStream<T>.Iterator) { self.iterator = iterator }
    func next() async -> T? { await iterator.next() }
}
