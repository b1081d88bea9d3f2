import FleetManager
import FleetStore

/// Invariant 5: fleetd's store after a SIGKILL must open as fleetd's (not corrupt, not foreign, not newer), pass
/// `quick_check`, and give back every state row; an absent store (killed before its first write) is fine.
func stateFileProblem(at path: String) -> String? {
    let store: StateStore
    do {
        store = try StateStore(path: path)
    } catch {
        return "\(error)"
    }
    defer { store.close() }
    do {
        if let complaint = try store.quickCheck() { return "\(path): quick_check: \(complaint)" }
        let state = try FleetStateStore(store: store)
        if let first = state.unreadable.first { return "\(path): \(state.unreadable.count) unreadable row(s), first \(first)" }
    } catch {
        return "\(path): \(error)"
    }
    return nil
}
