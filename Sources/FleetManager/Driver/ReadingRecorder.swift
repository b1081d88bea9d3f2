import FleetPlatform
import FleetStore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Supervision
import Synchronization

/// Appends every value a fleet device delivers (notifications, indications, reads on connect) to the durable
/// outbox, tagged with the link session it came from.
///
/// The session is the token of the link's first set-up (`FleetAction.setUp`'s `session`, which a set-up run
/// again on the same link after pairing keeps): a new one at every link-up, so values before and after a
/// reconnect differ in `session`. Tokens restart with fleetd, so a session is unique only together with the
/// fleetd run; the per-device `seq` is what stays gap-free across restarts.
public final class ReadingRecorder: Sendable {
    public let outbox: Outbox
    private let sessions = Mutex<[DeviceID: Int64]>([:])

    public init(outbox: Outbox) { self.outbox = outbox }

    /// Why an open failed: a file to move aside (corrupt, foreign, from a newer fleetd), or one that cannot be
    /// reached now (permissions, a full disk during a migration, `-wal`/`-shm` owned by another user): retried.
    public enum OpenFailure: Error, Sendable, CustomStringConvertible {
        case unusable(StoreOpenError)
        case unavailable(StoreOpenError)

        public var description: String {
            switch self {
            case .unusable(let error), .unavailable(let error): "\(error)"
            }
        }
    }

    /// One attempt to open the outbox at `path` (``StoreOpening`` decides what follows a failure).
    /// `onIncurable` runs (on the writer thread) when a commit failure is beyond retrying (``OutboxFaultPolicy``):
    /// fleetd stops then, with a failure exit status.
    public static func open(path: String, configuration: Outbox.Configuration, logger: Logger,
                            onIncurable: @escaping @Sendable (SQLiteError) -> Void) -> Result<ReadingRecorder, OpenFailure> {
        var configuration = configuration
        configuration.onNotice = { notice in Self.log(notice, logger: logger, onIncurable: onIncurable) }
        do {
            return .success(ReadingRecorder(outbox: try Outbox(path: path, configuration: configuration)))
        } catch where error.fileIsUnusable {
            return .failure(.unusable(error))
        } catch {
            return .failure(.unavailable(error))
        }
    }

    static func log(_ notice: OutboxNotice, logger: Logger, onIncurable: @Sendable (SQLiteError) -> Void) {
        switch notice {
        case .writeFailed(let error, let pending, let retryIn):
            logger.error("outbox write failed: \(error); \(pending) reading(s) held in memory, retrying in \(retryIn)",
                         metadata: ["reason": "outbox-write-failed"])
        case .writeResumed(let failures, let pending):
            logger.notice("outbox writes resumed after \(failures) failed attempt(s); \(pending) reading(s) pending")
        case .retentionDropped(let readings, let bytes, let through, let behind):
            guard !behind.isEmpty else {
                logger.info("outbox retention dropped \(readings) reading(s) (\(bytes) bytes) through id \(through)")
                return
            }
            // A consumer (the broker publisher, a fleetctl follower) had not acknowledged them: they are gone for it.
            logger.warning("outbox retention dropped \(readings) reading(s) (\(bytes) bytes) through id \(through); consumers that lost their place: \(behind.joined(separator: ", "))",
                           metadata: ["reason": "outbox-retention-overtook-consumer"])
        case .memoryOverflow(let dropped, let pending):
            logger.warning("outbox memory limit reached: \(dropped) reading(s) discarded, \(pending) pending",
                           metadata: ["reason": "outbox-overflow"])
        case .reserveReleased(let bytes):
            logger.warning("outbox: the store's file system is full; released the outbox's \(bytes / 1024) KiB reserve so retention can make room (made again when space returns)",
                           metadata: ["reason": "outbox-reserve-released"])
        case .writerFailed(let error, let pending):
            logger.critical("outbox failed: \(error); \(pending) reading(s) held in memory would be lost to retries for ever; stopping so that systemd restarts fleetd and the start-up check moves a corrupt file aside",
                            id: FleetMessageID.outboxFailed.rawValue, metadata: ["reason": "\(error.kind)", "pending": "\(pending)"])
            onIncurable(error)
        case .epochChanged(let from, let to, let reason):
            // Consumers that follow docs/mqtt.md start a new seq count per device at the new epoch.
            logger.warning("outbox epoch \(to) replaces \(from) (\(reason.rawValue)): the last run ended with the machine, so commits it made may be lost; per-device seq numbers continue from what survived, in the new epoch",
                           id: FleetMessageID.outboxEpochChanged.rawValue, metadata: ["reason": "outbox-epoch-changed", "epoch": "\(to)"])
        }
    }

    /// A link of `device` came up (its set-up begins): later values belong to session `token`.
    public func beginSession(device: DeviceID, token: UInt64) {
        sessions.withLock { $0[device] = Int64(truncatingIfNeeded: token) }
    }

    /// Queues one value; never waits for the disk.
    /// A stored record of a glucose meter or CGM carries its key, so the outbox keeps it once (docs/records.md).
    public func record(device: DeviceID, characteristic: String, kind: ReadingKind, value: [UInt8]) {
        let session = sessions.withLock { $0[device] ?? 0 }
        outbox.append(Reading(device: device.rawValue, characteristic: characteristic, kind: kind, value: value,
                              monotonicNanoseconds: Self.clock(CLOCK_MONOTONIC), wallNanoseconds: Self.clock(CLOCK_REALTIME),
                              session: session, record: RecordSyncPlan.recordKey(characteristic: characteristic, value: value)))
    }

    /// Commits what is pending and closes the outbox; logs what the disk refused.
    public func close(logger: Logger) {
        let report = outbox.close()
        if report.unwritten > 0 {
            logger.error("outbox closed with \(report.unwritten) reading(s) unwritten: \(report.lastError.map { "\($0)" } ?? "unknown error")",
                         metadata: ["reason": "outbox-close-failed"])
        }
    }

    private static func clock(_ id: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
