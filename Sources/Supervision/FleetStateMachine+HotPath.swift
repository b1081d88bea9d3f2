/// The per-event path under a stream of adverts and RSSI changes (issue 18): work proportional to what changed.
/// Nothing here decides differently from the general path; it only avoids copying a device out of the table
/// and back (which copied its sightings, one per adapter) and scanning the fleet once per event.
extension FleetStateMachine {
    /// Starts a batch of events: admission (`pump`, a scan of the whole fleet) waits for `resumeAdmission`.
    /// The driver brackets each batch of BlueZ's events with the two, so a flood pays one scan per batch.
    public mutating func deferAdmission() { admissionDeferred = true }

    /// Ends a batch: admission runs once, for everything the batch changed.
    public mutating func resumeAdmission(now: Duration) -> [FleetAction] {
        admissionDeferred = false
        return pump(now: now)
    }

    /// What `deviceSeen` does for news (no link change) from a path already folded into a device that is past
    /// `unknown`, edited in place. Returns the device and whether the path held its link, or nil when the
    /// general path must run (new path, first sighting of a wanted device, a bond that changed). A device
    /// waiting for an adapter has no sighting on a powered one (it would have been resumed), so news of a known
    /// path never wakes it: that is the general path's work for a new path.
    mutating func refreshSightingInPlace(_ report: DeviceReport, now: Duration) -> (id: DeviceID, wasLink: Bool)? {
        guard let id = owners[report.path], let index = devices.index(forKey: id) else { return nil }
        // Through `_modify` (a mutating call), not the getter: reading `devices.values[index].phase` copies the
        // whole device (about a kilobyte, retaining each of its collections) to read one field.
        guard let wasLink = devices.values[index].refreshSighting(report, now: now) else { return nil }
        return (id, wasLink)
    }

    /// Whether `dropTwins` has nothing to do for the device: no twin disconnect pending, and no connected
    /// address besides its link (or, unlinked, a single address). Reads in place (see above).
    mutating func hasNoTwins(_ id: DeviceID) -> Bool {
        guard let index = devices.index(forKey: id) else { return true }
        return devices.values[index].hasNoTwins()
    }
}

extension FleetStateMachine {
    /// A value arrived on `path` from the characteristic `uuid`. When the path holds its device's link and the
    /// device subscribes to that characteristic, records the link's activity (eviction takes the least recently
    /// active link first) and returns the device; otherwise nil: a stale or twin path, or a characteristic
    /// nobody asked for. Reads the device in place: a thousand devices at 1 Hz run this a
    /// thousand times a second, and the getter copied the whole device twice per value.
    public mutating func subscribedValue(on path: DevicePath, characteristic uuid: String, now: Duration) -> DeviceID? {
        guard let id = owners[path], let index = devices.index(forKey: id),
              devices.values[index].delivers(uuid, on: path) else { return nil }
        recordActivity(on: path.adapter, of: id, now: now)
        return id
    }

    /// Records activity on a link in the adapter's slot table, reached by index: `adapters[adapter]?.slots…`
    /// goes through Dictionary's `_modify` coroutine, whose frame was a malloc per notification (counted with a
    /// uprobe on malloc, issue 18).
    mutating func recordActivity(on adapter: AdapterID, of id: DeviceID, now: Duration, rssi: Int? = nil) {
        guard let index = adapters.index(forKey: adapter) else { return }
        adapters.values[index].slots.recordActivity(device: id.rawValue, now: now, rssi: rssi)
    }
}

extension FleetDevice {
    /// Whether `path` holds its link and it subscribes to `uuid`; mutating only so that the table is read in place.
    mutating func delivers(_ uuid: String, on path: DevicePath) -> Bool {
        linkPath == path && (wanted.subscribe.contains(uuid) || linkSetUp.armed.contains(uuid))
    }
}

extension FleetDevice {
    /// Records news of one of its known paths in place; returns whether that path holds the link, or nil when
    /// the path is not one of its sightings or its bond changed.
    mutating func refreshSighting(_ report: DeviceReport, now: Duration) -> Bool? {
        // A wanted device's first sighting is the general path's (it is discovered there).
        if case .unknown = phase, isWanted { return nil }
        // A bond appearing or going is news the general path judges (`noteBond`).
        guard let index = sightings.index(forKey: report.path), sightings.values[index].bonded == report.bonded else { return nil }
        let wasLink = linkPath == report.path
        sightings.values[index].address = report.address
        sightings.values[index].addressType = report.addressType
        if let rssi = report.rssi { sightings.values[index].rssi = rssi }
        // As the general path (`deviceSeen`) records it.
        if report.heard || sightings.values[index].connected { sightings.values[index].lastHeard = now }
        sightings.values[index].lastSeen = now
        lastSeen = now
        if displayName == nil { displayName = report.name }
        return wasLink
    }
}

extension FleetDevice {
    /// Whether its link on `path` is up with services resolved while it is still `connected` (set-up not begun);
    /// mutating only so that the table is read in place.
    mutating func awaitsSetUp(on path: DevicePath) -> Bool {
        guard linkPath == path, phase == .connected, let sighting = sightings[path] else { return false }
        return sighting.connected && sighting.servicesResolved
    }
}

extension FleetDevice {
    /// `FleetStateMachine.hasNoTwins`; mutating only so that the table is read in place. Walks the sightings by
    /// index, reading each through `_modify`: `sightings[link]`, `values.contains` and even
    /// `values[index].connected` copy the whole `Sighting` (retaining its strings), and a linked strap heard on
    /// 16 adapters has 16 (FloodBench's profile).
    mutating func hasNoTwins() -> Bool {
        guard twinDisconnects.isEmpty else { return false }
        if let link = linkPath, let linkIndex = sightings.index(forKey: link), sightings.values[linkIndex].isConnectedInPlace() {
            var index = sightings.startIndex
            while index != sightings.endIndex {
                if index != linkIndex && sightings.values[index].isConnectedInPlace() { return false }
                sightings.formIndex(after: &index)
            }
            return true
        }
        return sightings.count <= 1
    }
}

extension Sighting {
    /// `connected`; mutating only so that a table's sighting is read in place (see `FleetDevice.hasNoTwins`).
    mutating func isConnectedInPlace() -> Bool { connected }
}

extension FleetDevice {
    /// Adds the device to `counts` if it is wanted; mutating only so that the table is read in place.
    mutating func count(into counts: inout FleetStateMachine.Counts) {
        if isWanted { counts.add(phase) }
    }
}
