import FleetPlatform
import FleetStore
import FoundationEssentials
import Supervision

extension FleetStateStore {
    /// The metadata key that records the JSON import: once set, no JSON snapshot is imported again.
    static let importKey = "json-import"

    /// Opens the store at `path` for fleetd's start.
    ///
    /// - A file that is corrupt, foreign or from a newer fleetd (found at open or while reading the state) is
    ///   moved aside (`<path>.unusable-<time>`, with its -wal and -shm), logged at error with
    ///   `FleetMessageID.storeMovedAside`, and a fresh store is created: fleetd rebuilds from its configuration
    ///   and BlueZ.
    /// - The JSON snapshot at `snapshotPath` (an older fleetd's state file), when present, is imported once,
    ///   into a store holding no state yet, then renamed aside (`<snapshot>.imported-<time>`); logged with
    ///   `FleetMessageID.snapshotImported`.
    /// - A file that cannot be reached at all (permissions, a full disk) gives nil: fleetd runs with its state
    ///   in memory only, logged at error.
    public static func open(path: String, importing snapshotPath: String?, logger: Logger,
                            options: StateStore.Options = StateStore.Options()) -> FleetStateStore? {
        guard var state = openReading(path: path, logger: logger, options: options) else { return nil }
        if let snapshotPath, importOnce(into: state.store, from: snapshotPath, logger: logger) {
            do {
                state = try FleetStateStore(store: state.store)
            } catch {
                logger.error("cannot read the state store \(path) after the import: \(error); starting from the configuration",
                             metadata: ["path": path, "reason": "state-unavailable"])
                return nil
            }
        }
        return state
    }

    /// Opens and reads the store, moving an unusable file aside once.
    static func openReading(path: String, logger: Logger, options: StateStore.Options) -> FleetStateStore? {
        var problem: String
        var reason: String
        do {
            return try FleetStateStore(store: StateStore(path: path, options: options))
        } catch let error as StoreOpenError where error.fileIsUnusable {
            problem = error.description
            reason = Self.reason(error)
        } catch let error as SQLiteError where error.kind == .corrupt {
            // Damaged pages the header check did not see, met while reading the state.
            problem = "\(path): the store is corrupt: \(error)"
            reason = "corrupt"
        } catch {
            logger.error("cannot open the state store: \(error); running with the state in memory only (it is not saved)",
                         metadata: ["path": path, "reason": "state-unavailable"])
            return nil
        }
        let moved: StoreFile.MovedAside
        do {
            moved = try StoreFile.moveAside(path, label: "unusable")
        } catch {
            logger.error("store \(problem), and it cannot be moved aside: \(error); running with the state in memory only",
                         id: FleetMessageID.storeMovedAside.rawValue, metadata: ["path": path, "reason": reason])
            return nil
        }
        logger.error("store \(problem); moved aside to \(moved.path); starting with an empty store, rebuilding from the configuration and BlueZ",
                     id: FleetMessageID.storeMovedAside.rawValue, metadata: ["path": path, "moved-to": moved.path, "reason": reason])
        do {
            return try FleetStateStore(store: StateStore(path: path, options: options))
        } catch {
            logger.error("cannot create a fresh state store at \(path): \(error); running with the state in memory only",
                         metadata: ["path": path, "reason": "state-unavailable"])
            return nil
        }
    }

    static func reason(_ error: StoreOpenError) -> String {
        switch error {
        case .corrupt: return "corrupt"
        case .newerSchema: return "newer-schema"
        case .foreign: return "foreign"
        case .unavailable: return "unavailable"
        }
    }

    /// Imports the JSON snapshot at `snapshotPath` into `store` if it has never imported one and holds no state;
    /// renames the file (and its previous copy) aside in every case where it was read or refused. True when rows
    /// were written.
    static func importOnce(into store: StateStore, from snapshotPath: String, logger: Logger) -> Bool {
        let previousPath = snapshotPath + ".prev"
        guard FileManager.default.fileExists(atPath: snapshotPath) || FileManager.default.fileExists(atPath: previousPath) else { return false }
        do {
            if let earlier = try store.metadata(importKey) {
                let kept = moveAside(snapshotPath, previousPath, logger: logger)
                logger.warning("\(snapshotPath): a JSON snapshot was already imported (\(earlier)); not imported again, kept as \(kept)",
                               id: FleetMessageID.snapshotImported.rawValue, metadata: ["path": snapshotPath, "moved-to": kept, "reason": "already-imported"])
                return false
            }
            guard try store.fleetState().isEmpty else {
                let kept = moveAside(snapshotPath, previousPath, logger: logger)
                logger.warning("\(snapshotPath): not imported, the store \(store.path) already holds the fleet's state; kept as \(kept)",
                               id: FleetMessageID.snapshotImported.rawValue, metadata: ["path": snapshotPath, "moved-to": kept, "reason": "store-not-empty"])
                return false
            }
        } catch {
            logger.error("cannot check the state store before importing \(snapshotPath): \(error); the file is left for the next start",
                         metadata: ["path": snapshotPath, "reason": "import-failed"])
            return false
        }
        let snapshot: FleetSnapshot?
        switch SnapshotStore(path: snapshotPath).load() {
        case .none:
            return false
        case .loaded(let loaded, _):
            snapshot = loaded
        case .recovered(let previous, let rejected, let reason, let keptAs):
            logger.error("snapshot \(rejected) rejected: \(reason); kept as \(keptAs ?? "-"); \(previous == nil ? "no previous good copy, starting from the configuration" : "importing the previous good copy")",
                         id: FleetMessageID.snapshotRejected.rawValue, metadata: ["path": rejected, "reason": reason])
            snapshot = previous
        }
        let rows: FleetStateChange
        do {
            rows = try FleetStateStore(store: store).change(to: snapshot ?? FleetSnapshot(devices: [], registry: .init(), evictions: []))
        } catch {
            logger.error("cannot read the state store before importing \(snapshotPath): \(error)", metadata: ["path": snapshotPath, "reason": "import-failed"])
            return false
        }
        let summary = "\(rows.devices.count) device(s), \(rows.identities.count) identities, \(rows.evictions?.count ?? 0) eviction(s)"
        do {
            try store.apply(rows, metadata: [importKey: "\(snapshotPath) at \(Date()): \(summary)"])
        } catch {
            logger.error("cannot import \(snapshotPath) into \(store.path): \(error); the file is left for the next start",
                         id: FleetMessageID.stateWriteFailed.rawValue, metadata: ["path": snapshotPath, "reason": error.kind.rawValue])
            return false
        }
        // Committed with its marker first: a crash before the rename leaves a file the next start only renames.
        let kept = moveAside(snapshotPath, previousPath, logger: logger)
        logger.notice("imported the JSON snapshot \(snapshotPath) into \(store.path): \(summary); the file is kept as \(kept) and not read again",
                      id: FleetMessageID.snapshotImported.rawValue, metadata: ["path": snapshotPath, "moved-to": kept])
        return true
    }

    /// Renames the snapshot and its previous copy to `….imported-<time>`; returns the snapshot's new name.
    static func moveAside(_ snapshotPath: String, _ previousPath: String, logger: Logger) -> String {
        var kept = "-"
        for file in [snapshotPath, previousPath] where FileManager.default.fileExists(atPath: file) {
            do {
                let moved = try StoreFile.moveAside(file, label: "imported")
                if file == snapshotPath || kept == "-" { kept = moved.path }
            } catch {
                logger.error("cannot rename \(file) aside: \(error); it is ignored from now on", metadata: ["path": file, "reason": "import-rename-failed"])
            }
        }
        return kept
    }
}
