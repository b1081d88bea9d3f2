import FleetPlatform
import Supervision

/// fleetd's copy of bluetoothd's object tree: adapters, devices and characteristics, kept current by
/// applying `BlueZEvent`s. Each event comes out as the typed changes it made, once, for the state machine.
/// Pure; malformed properties are collected, not trapped on.
public struct BlueZTree: Sendable {
    public var adapters: [String: AdapterObject] = [:]
    /// Device1 objects by path (`DeviceObjectTable`: stored densely, as there may be tens of thousands).
    public private(set) var devices = DeviceObjectTable()
    public private(set) var characteristics: [String: CharacteristicObject] = [:]
    /// Device path → its characteristics' paths, so that a device's removal and `characteristics(of:)` cost what
    /// the device has, not a scan of every characteristic in the tree (issue 18).
    private var characteristicPaths: [String: Set<String>] = [:]
    /// Problems found since the caller last drained them.
    public var problems: [MalformedProperty] = []
    /// The arrival of the GetManagedObjects reply this tree was read from (0: built from signals alone).
    public var readAt: UInt64 = 0

    public init() {}

    /// What an event changed.
    public enum Change: Sendable, Hashable {
        /// A change for the state machine.
        case tree(TreeChange)
        /// A characteristic's value arrived (a notification, or a read's echo).
        case value(CharacteristicObject, [UInt8])
    }

    /// Applies a signal that arrived as `arrival` on the connection. One that arrived before the reply the tree
    /// was read from is already in it: applied again it would put back what bluetoothd has since changed (a link
    /// that came up after its Connected=false, an object added again with old properties), so only a value it
    /// carries comes out, a notification being an event rather than state. bluetoothd leaving is never stale.
    public mutating func apply(_ event: BlueZEvent, arrival: UInt64) -> [Change] {
        var out: [Change] = []
        apply(event, arrival: arrival, into: &out)
        return out
    }

    /// `apply(_:arrival:)` appending to `out`: the supervisor passes one buffer it keeps, as a new array per
    /// event was a malloc per advert and per notification (issue 18).
    public mutating func apply(_ event: BlueZEvent, arrival: UInt64, into out: inout [Change]) {
        guard arrival < readAt else { return apply(event, into: &out) }
        switch event {
        case .propertiesChanged(let path, BlueZName.characteristic, let changed, _):
            guard let characteristic = characteristics[path], let bytes = changed["Value"]?.bytes else { return }
            out.append(.value(characteristic, bytes))
        case .serviceLost:
            apply(event, into: &out)
        default:
            return
        }
    }

    @discardableResult
    public mutating func apply(_ event: BlueZEvent) -> [Change] {
        var out: [Change] = []
        apply(event, into: &out)
        return out
    }

    /// `apply(_:)` appending to `out`: the per-event cases (properties changed) append in place; the others are
    /// rare and build their own array.
    public mutating func apply(_ event: BlueZEvent, into out: inout [Change]) {
        switch event {
        case .propertiesChanged(let path, BlueZName.adapter, let changed, _):
            guard var adapter = adapters[path] else { return }
            let wasPowered = adapter.powered
            adapter.apply(changed, problems: &problems)
            adapters[path] = adapter
            if adapter.powered != wasPowered { out.append(.tree(.adapterPowered(adapter.id, adapter.powered))) }
        case .propertiesChanged(let path, BlueZName.device, let changed, let invalidated):
            // One pass over what changed (usually RSSI alone), comparing names rather than hashing them.
            var resolved = false, news = !invalidated.isEmpty, heard = false
            for (name, value) in changed {
                if name == "ServicesResolved", value.bool == true { resolved = true }
                if !DeviceObject.isLinkProperty(name) { news = true }
                if DeviceObject.isAdvertProperty(name) { heard = true }
            }
            update(device: path, news: news, heard: heard, linkEvidence: resolved, into: &out) { device, problems in
                device.apply(changed, invalidated: invalidated, problems: &problems)
            }
        case .propertiesChanged(let path, BlueZName.characteristic, let changed, _):
            characteristicChanged(path, BlueZName.characteristic, changed, into: &out)
        case .propertiesChanged:
            return
        default:
            out += applyRare(event)
        }
    }

    private mutating func applyRare(_ event: BlueZEvent) -> [Change] {
        switch event {
        case .interfacesAdded(let path, let interfaces):
            var out: [Change] = []
            if let props = interfaces[BlueZName.adapter] {
                let adapter = AdapterObject.read(path: path, props, problems: &problems)
                adapters[path] = adapter
                out.append(.tree(.adapterAppeared(adapter.id, powered: adapter.powered)))
            }
            if let props = interfaces[BlueZName.device], let device = DeviceObject.read(path: path, props, problems: &problems) {
                devices.insert(device)
                // bluetoothd adds a Device1 for an advert (with its RSSI) or for a device it already knew (without).
                out.append(.tree(.deviceAppeared(device.report(heard: device.rssi != nil), device.linkState)))
            }
            if let props = interfaces[BlueZName.characteristic],
               let characteristic = CharacteristicObject.read(path: path, props, problems: &problems) {
                characteristics[path] = characteristic
                characteristicPaths[characteristic.device, default: []].insert(path)
            }
            return out
        case .interfacesRemoved(let path, let interfaces):
            var out: [Change] = []
            if interfaces.contains(BlueZName.characteristic), let characteristic = characteristics.removeValue(forKey: path) {
                characteristicPaths[characteristic.device]?.remove(path)
            }
            if interfaces.contains(BlueZName.device), let device = devices.remove(path: path) {
                for child in characteristicPaths.removeValue(forKey: path) ?? [] { characteristics.removeValue(forKey: child) }
                out.append(.tree(.deviceRemoved(device.devicePath)))
            }
            if interfaces.contains(BlueZName.adapter), let adapter = adapters.removeValue(forKey: path) {
                out.append(.tree(.adapterRemoved(adapter.id)))
            }
            return out
        case .serviceLost:
            // bluetoothd went away: its adapters are off first, so that its links end as an adapter outage (no
            // attempt burnt), not as devices vanishing one by one.
            let sortedAdapters = adapters.values.sorted { $0.path < $1.path }
            let out = sortedAdapters.filter(\.powered).map { Change.tree(.adapterPowered($0.id, false)) }
                + devices.values.sorted { $0.path < $1.path }.map { Change.tree(.deviceRemoved($0.devicePath)) }
                + sortedAdapters.map { Change.tree(.adapterRemoved($0.id)) }
            self = BlueZTree()
            return out
        case .serviceAppeared, .malformed, .propertiesChanged:
            // Properties changed are taken in `apply(_:into:)`, before this.
            return []
        }
    }

    /// Connect on `path` was answered with success: the link is up, whatever bluetoothd signalled.
    public mutating func connectSucceeded(_ path: DevicePath) -> [TreeChange] {
        var out: [Change] = []
        update(device: path.rawValue, news: false, heard: false, linkEvidence: true, into: &out) { _, _ in }
        return out.compactMap { change in
            if case .tree(let change) = change { change } else { nil }
        }
    }

    /// Everything the tree holds, as the changes that would have built it: adapters, then devices with their
    /// links first (so that an existing link is adopted before any twin is considered).
    public var reconciliation: [TreeChange] {
        adapters.values.sorted { $0.path < $1.path }.map { .adapterAppeared($0.id, powered: $0.powered) }
            + devices.values.sorted { ($0.connected ? 0 : 1, $0.path) < ($1.connected ? 0 : 1, $1.path) }
                .map { .deviceAppeared($0.report, $0.linkState) }
    }

    public func characteristics(of device: DevicePath) -> [CharacteristicObject] {
        (characteristicPaths[device.rawValue] ?? []).compactMap { characteristics[$0] }
    }

    /// Applies a new reading of a Device1 object and says what changed, once: other properties (`news`) as an
    /// update, then the link, then resolved services.
    private mutating func update(device path: String, news: Bool, heard: Bool, linkEvidence: Bool, into out: inout [Change],
                                 _ edit: (inout DeviceObject, inout [MalformedProperty]) -> Void) {
        // Edited in place: copying the object out and back costs a retain and release of each of its collections
        // per advert, and leaves them shared while edited.
        var found: [MalformedProperty] = []
        _ = devices.modify(path) { Self.update(&$0, news: news, heard: heard, linkEvidence: linkEvidence, problems: &found, into: &out, edit) }
        problems += found
    }

    private static func update(_ device: inout DeviceObject, news: Bool, heard: Bool, linkEvidence: Bool, problems: inout [MalformedProperty],
                               into out: inout [Change], _ edit: (inout DeviceObject, inout [MalformedProperty]) -> Void) {
        let wasConnected = device.connected
        let wasResolved = device.servicesResolved
        edit(&device, &problems)
        // BlueZ 5.66 sends no Connected=true for a connect when the ATT link comes up before the kernel's Device
        // Connected event (usual under btvirt, rare on real controllers; docs/bluez-fidelity.md): bluetoothd then
        // reports the link only through its property getter. Resolved services (BlueZ resolves only over a
        // link) or a successful Connect reply are the first word that the link is up. This is the one place
        // fleetd makes up for it; a Connected=true that does come, before or after, is then no change.
        if linkEvidence { device.connected = true }
        // Built as the tree's own changes: wrapping an array of `TreeChange`s afterwards cost a second array per advert.
        if news { out.append(.tree(.deviceUpdated(device.report(heard: heard)))) }
        if device.connected != wasConnected { out.append(.tree(.link(device.devicePath, up: device.connected))) }
        if device.servicesResolved != wasResolved { out.append(.tree(.servicesResolved(device.devicePath, device.servicesResolved))) }
    }

    private mutating func characteristicChanged(_ path: String, _ interface: String, _ changed: PropertyChanges,
                                                into out: inout [Change]) {
        guard var characteristic = characteristics[path] else { return }
        // A notification changes only Value: the object is written back (hashing its path again) only when
        // something it keeps changed.
        let notifying = changed["Notifying"]?.bool, mtu = changed["MTU"]?.integer
        if notifying != nil || mtu != nil {
            if let notifying { characteristic.notifying = notifying }
            if let mtu { characteristic.mtu = Int(mtu) }
            characteristics[path] = characteristic
        }
        if let raw = changed["Value"] {
            if let bytes = raw.bytes {
                out.append(.value(characteristic, bytes))
            } else {
                problems.append(MalformedProperty(path: path, interface: interface, property: "Value", got: raw.type.description))
            }
        }
    }
}
