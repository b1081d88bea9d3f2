import FoundationEssentials
import GATTProfiles
import Supervision

/// One RACP sync on one link as the supervisor drives it: the pure procedure (`RecordSync`), the control point it
/// writes, the timers it asked for, and what the outbox had discarded from memory when it began (a mark is not
/// written if a record of this sync may have been among later discards).
struct RecordSyncRun {
    let device: DeviceID
    let link: DevicePath
    /// Tells a timer or write answer of this run from one of an earlier run on the same device.
    let generation: UInt64
    let service: StoredRecordService
    let controlPoint: CharacteristicObject
    var sync: RecordSync
    var timers: [RecordSyncTimer: Task<Void, Never>] = [:]
    let droppedBaseline: UInt64
    let started: Duration

    func cancelTimers() { timers.values.forEach { $0.cancel() } }
}
