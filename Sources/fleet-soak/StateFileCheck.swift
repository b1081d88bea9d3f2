import FleetManager

/// Invariant 5: fleetd's state file after a SIGKILL. Today that is the JSON snapshot, which must load as
/// it was written (`.loaded`) or be absent (`.none`); `.recovered` means the main file was torn or corrupt.
/// The one place to change when the SQLite state store replaces the snapshot.
func stateFileProblem(at path: String) -> String? {
    switch SnapshotStore(path: path).load() {
    case .none, .loaded:
        return nil
    case .recovered(_, let rejected, let reason, let keptAs):
        return "\(rejected) was rejected (\(reason)); kept as \(keptAs ?? "-")"
    }
}
