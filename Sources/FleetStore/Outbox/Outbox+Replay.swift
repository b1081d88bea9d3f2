/// Replay by cursor.
extension Outbox {
    /// Reads committed readings with ids above `cursor`, oldest first, at most `limit`, optionally only some
    /// devices'. Blocks on a disk read: call it from a thread that may block (a `follow` does its replay off
    /// the cooperative pool). When retention dropped readings above the cursor, the page says so in `lost`.
    public func read(after cursor: Int64, limit: Int = 1000, device: DeviceFilter? = nil) throws(OutboxError) -> ReplayPage {
        guard limit >= 1 else { throw .invalidLimit(limit) }
        do {
            return try reader.page(after: cursor, limit: limit, device: device, through: nil)
        } catch {
            throw .storage(error)
        }
    }
}

extension Outbox {
    /// `read(after:limit:device:)` on the outbox's reader thread, for callers on the cooperative pool.
    public func page(after cursor: Int64, limit: Int = 1000, device: DeviceFilter? = nil) async throws(OutboxError) -> ReplayPage {
        guard limit >= 1 else { throw .invalidLimit(limit) }
        do {
            return try await reader.pageOffPool(after: cursor, limit: limit, device: device, through: nil).get()
        } catch {
            throw .storage(error)
        }
    }

    /// The newest `limit` committed readings of `device`, oldest first, read on the reader thread. The page's
    /// `next` is the newest id stored at the time: a replay from it continues after this page.
    public func newest(device: String, limit: Int) async throws(OutboxError) -> ReplayPage {
        guard limit >= 1 else { throw .invalidLimit(limit) }
        do {
            return try await reader.newestOffPool(device: device, limit: limit).get()
        } catch {
            throw .storage(error)
        }
    }
}

/// One page of a replay.
public struct ReplayPage: Sendable, Equatable {
    public var readings: [StoredReading]
    /// Readings above the requested cursor that retention dropped before they were read.
    public var lost: OutboxGap?
    /// The cursor to pass for the next page: the last id returned, or, when the page reached the end, the
    /// newest id it covered (so a device-filtered replay skips other devices' readings only once).
    public var next: Int64
    /// True when fewer than `limit` readings were left: the replay has caught up.
    public var reachedEnd: Bool
}

/// A range of ids, oldest to newest, that retention dropped before a consumer read them: it lost its place.
public struct OutboxGap: Sendable, Equatable, CustomStringConvertible {
    public var firstID: Int64
    public var lastID: Int64
    public init(firstID: Int64, lastID: Int64) {
        self.firstID = firstID
        self.lastID = lastID
    }
    public var count: Int64 { lastID - firstID + 1 }
    public var description: String { "readings \(firstID)…\(lastID) (\(count)) were dropped by retention before they were read" }
}
