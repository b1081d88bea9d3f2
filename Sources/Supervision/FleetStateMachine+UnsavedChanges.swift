/// The machine's half of `UnsavedChanges`: what each event it takes is about, kept until the driver saves.
extension FleetStateMachine {
    /// What may have changed in the saved state since the last call, and starts afresh. The driver adds the
    /// devices named by the actions it performed (`UnsavedChanges.note(_:)`) and saves the lot.
    public mutating func takeUnsavedChanges() -> UnsavedChanges {
        let taken = unsaved
        unsaved = UnsavedChanges()
        return taken
    }

    /// The owner of the path a tree change names, before the change (a removal forgets it) and after (a new
    /// path resolves to one); an adapter's change reaches every device it sees, so it counts as everything.
    mutating func noteUnsaved(_ change: TreeChange, ownerBefore: DeviceID?) {
        switch change {
        case .adapterAppeared, .adapterPowered, .adapterRemoved:
            unsaved.insertEverything()
        case .deviceAppeared(let report, _), .deviceUpdated(let report):
            noteUnsaved(path: report.path, ownerBefore: ownerBefore)
        case .link(let path, _), .servicesResolved(let path, _), .deviceRemoved(let path):
            noteUnsaved(path: path, ownerBefore: ownerBefore)
        }
    }

    private mutating func noteUnsaved(path: DevicePath, ownerBefore: DeviceID?) {
        if let ownerBefore { unsaved.insert(device: ownerBefore) }
        if let owner = owners[path], owner != ownerBefore { unsaved.insert(device: owner) }
    }
}

extension TreeChange {
    /// The Device1 path the change is about; nil for an adapter's change.
    var devicePath: DevicePath? {
        switch self {
        case .adapterAppeared, .adapterPowered, .adapterRemoved: nil
        case .deviceAppeared(let report, _), .deviceUpdated(let report): report.path
        case .link(let path, _), .servicesResolved(let path, _), .deviceRemoved(let path): path
        }
    }
}
