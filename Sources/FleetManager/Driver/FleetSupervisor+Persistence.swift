import FleetPlatform
import Supervision

/// Saving the fleet's state: the machine asks with `.persist`, bursts are coalesced, and a save writes only
/// the rows of what changed (`UnsavedChanges`: what the machine noted, plus the devices the performed actions
/// named), so its cost follows the change, not the fleet's size.
extension FleetSupervisor {
    func schedulePersist() {
        guard store != nil, !persistScheduled else { return }
        persistScheduled = true
        let delay = options.snapshotCoalescing
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            await self?.writeSnapshot()
        }
    }

    /// Writes the rows of the state that changed since the last write (`FleetStateStore.save(_:of:)`). A failure
    /// is logged once and retried every `stateRetryDelay` until a write succeeds; what it did not write stays
    /// in `unsaved` for the retry.
    func writeSnapshot() {
        persistScheduled = false
        guard var state = store else { return }
        unsaved.formUnion(machine.takeUnsavedChanges())
        do {
            let change = try state.save(unsaved, of: machine)
            unsaved = UnsavedChanges()
            store = state
            if stateWriteFailing {
                stateWriteFailing = false
                metrics.stateWriteFailing = false
                logger.notice("state writes resumed", metadata: ["path": state.path])
            }
            if !change.isEmpty {
                logger.debug("state written: \(change.rowCount) row(s)", id: FleetMessageID.snapshotWritten.rawValue, metadata: ["path": state.path])
            }
        } catch {
            metrics.stateWriteFailed()
            if !stateWriteFailing {
                stateWriteFailing = true
                logger.error("cannot write the fleet's state to \(state.path): \(error); keeping it in memory, retrying every \(Self.stateRetryDelay)",
                             id: FleetMessageID.stateWriteFailed.rawValue, metadata: ["path": state.path, "reason": error.kind.rawValue])
            }
            guard !stopping else { return }
            persistScheduled = true
            Task { [weak self] in
                try? await Task.sleep(for: Self.stateRetryDelay)
                await self?.writeSnapshot()
            }
        }
    }

    static let stateRetryDelay = Duration.seconds(2)
}
