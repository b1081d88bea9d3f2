/// The stored-record side of the outbox (docs/records.md): marks kept per device and service, written behind the
/// records they claim.
extension Outbox {
    /// What the store keeps of `device`'s records of `service`, as the latest change left it (nil: never synced).
    /// Memory only: no disk read, so a caller on any thread may ask.
    public func recordMark(device: String, service: UInt16) -> DeviceRecordMark? {
        core.lock.withLock { core.recordMarks[DeviceRecordMark.ID(device: device, service: service)] }
    }

    /// Every service's marks of `device`.
    public func recordMarks(device: String) -> [DeviceRecordMark] {
        core.lock.withLock { core.recordMarks.values.filter { $0.device == device }.sorted { $0.service < $1.service } }
    }

    /// Readings discarded from memory since open: a sync takes it as its baseline when it starts.
    public var droppedInMemoryCount: UInt64 { core.lock.withLock { core.droppedInMemory } }

    /// Queues a mark change. It is written in the transaction that commits the last reading appended before this
    /// call, or a later one. If memory has discarded any reading since `baseline` (``droppedInMemoryCount`` when the
    /// sync began; nil: now) the change is not written, since that reading may be a record the mark claims, and the
    /// mark in memory is cleared so the next sync asks for every record. The duplicate count is the writer's own and
    /// is kept whatever `mark` says.
    public func saveRecordMark(_ mark: DeviceRecordMark, unlessDroppedSince baseline: UInt64? = nil) {
        core.lock.withLock {
            var mark = mark
            mark.duplicatesSuppressed = core.recordMarks[mark.id]?.duplicatesSuppressed ?? 0
            core.recordMarks[mark.id] = mark
            core.markChanges.append(OutboxCore.QueuedMark(mark: mark, after: core.accepted, droppedBefore: baseline ?? core.droppedInMemory))
            core.lock.broadcast()
        }
    }
}
