import FleetPlatform
import FleetStore
import FoundationEssentials
import Supervision

/// Opens fleetd's two stores at start: the fleet's state, then the outbox, often in one file.
///
/// Two rules the separate opens broke (issue 41, points 2 and 4):
/// - **One file, one move.** A file is moved aside only when no connection to it is open (``StoreFile/moveAside``):
///   when the outbox finds the shared file unusable, the state's connection is closed first, the file moved, and
///   both reopened fresh. Otherwise the state kept writing into the moved file's WAL.
/// - **No outbox, no READY.** An outbox that cannot be opened for a reason other than an unusable file (a full disk
///   during a migration, `-wal`/`-shm` owned by another user) is retried with backoff, each attempt logged with
///   `FleetMessageID.outboxUnavailable`, `waiting` told (fleetd sends it as the unit's STATUS= and feeds the
///   watchdog), and start-up does not continue: fleetd never reports READY without an outbox it can write. systemd's
///   `TimeoutStartSec=` ends a wait that lasts too long, and the unit shows as failed.
public enum StoreOpening {
    public struct Opened: Sendable {
        public var state: FleetStateStore?
        public var readings: ReadingRecorder
        /// Failed attempts before the outbox opened.
        public var outboxAttempts: Int
    }

    /// The delays between attempts: `initial`, doubling, at most `maximum`.
    public struct Retry: Sendable {
        public var initial: Duration
        public var maximum: Duration
        public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(30)) {
            self.initial = initial
            self.maximum = maximum
        }

        /// The wait after failed attempt `attempt` (1-based).
        public func delay(after attempt: Int) -> Duration {
            var delay = initial
            for _ in 1..<max(1, min(attempt, 32)) where delay < maximum { delay *= 2 }
            return min(delay, maximum)
        }
    }

    public static func open(statePath: String, snapshotPath: String?, outboxPath: String, outbox configuration: Outbox.Configuration,
                            logger: Logger, retry: Retry = Retry(), stateOptions: StateStore.Options = StateStore.Options(),
                            onIncurable: @escaping @Sendable (SQLiteError) -> Void,
                            waiting: @Sendable (_ status: String) -> Void = { _ in }) async -> Opened {
        var state = FleetStateStore.open(path: statePath, importing: snapshotPath, logger: logger, options: stateOptions)
        let shared = outboxPath == statePath
        var attempt = 0
        var movedAside = false
        while true {
            switch ReadingRecorder.open(path: outboxPath, configuration: configuration, logger: logger, onIncurable: onIncurable) {
            case .success(let readings):
                if attempt > 0 {
                    logger.notice("outbox \(outboxPath) open after \(attempt) failed attempt(s)", metadata: ["path": outboxPath])
                }
                return Opened(state: state, readings: readings, outboxAttempts: attempt)
            case .failure(.unusable(let error)) where !movedAside:
                movedAside = true
                // Every connection to the file closes before it moves: the state's too, when it shares the file.
                if shared { state?.close() }
                do {
                    let moved = try StoreFile.moveAside(outboxPath, label: "unusable")
                    logger.error("outbox \(error); moved aside to \(moved.path), starting a fresh outbox (a new epoch)",
                                 id: FleetMessageID.storeMovedAside.rawValue,
                                 metadata: ["path": outboxPath, "moved-to": moved.path, "reason": FleetStateStore.reason(error)])
                } catch {
                    logger.error("outbox \(outboxPath) is unusable and cannot be moved aside: \(error)",
                                 id: FleetMessageID.outboxUnavailable.rawValue, metadata: ["path": outboxPath, "reason": "outbox-unusable"])
                }
                if shared {
                    state = FleetStateStore.open(path: statePath, importing: nil, logger: logger, options: stateOptions)
                    if state != nil {
                        logger.warning("state store \(statePath) reopened fresh with the outbox: fleetd rebuilds the fleet's state from its configuration and BlueZ",
                                       metadata: ["path": statePath, "reason": "state-reopened-with-outbox"])
                    }
                }
                continue
            case .failure(let failure):
                attempt += 1
                let delay = retry.delay(after: attempt)
                let status = "no outbox: cannot open \(outboxPath): \(failure); attempt \(attempt), next in \(delay.formattedSeconds); not ready"
                logger.error("outbox unavailable, start-up waits for it: \(failure); retrying in \(delay.formattedSeconds) (attempt \(attempt))",
                             id: FleetMessageID.outboxUnavailable.rawValue,
                             metadata: ["path": outboxPath, "reason": "outbox-unavailable", "attempt": "\(attempt)"])
                waiting(status)
                try? await Task.sleep(for: delay)
            }
        }
    }
}

extension Duration {
    /// "1 s", "2.5 s": for log lines and STATUS=.
    var formattedSeconds: String {
        let (seconds, attoseconds) = components
        let tenths = attoseconds / 100_000_000_000_000_000
        return tenths == 0 ? "\(seconds) s" : "\(seconds).\(tenths) s"
    }
}
