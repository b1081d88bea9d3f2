@testable import FleetManager
import FleetPlatform
import Supervision
import Testing

/// The BlueZ room turns bluetoothd's signals into typed changes once: an advert is only an update, a link
/// comes up exactly once whichever order bluetoothd reports it in (including 5.66's missing Connected=true),
/// and every change is said once.
@Suite struct BlueZTreeChangeTests {
    let adapterPath = "/org/bluez/hci0"
    let devicePath = "/org/bluez/hci0/dev_40_11_22_33_01_60"
    var path: DevicePath { DevicePath(devicePath, adapter: AdapterID(name: "hci0")) }

    /// A tree holding hci0 and one unlinked device, as GetManagedObjects would read it.
    func tree(connected: Bool = false, servicesResolved: Bool = false) -> BlueZTree {
        var tree = BlueZTree()
        tree.apply(.interfacesAdded(path: adapterPath, interfaces: ["org.bluez.Adapter1": ["Address": .string("00:AA:01:00:00:01"),
                                                                                              "Powered": .boolean(true)]]))
        tree.apply(.interfacesAdded(path: devicePath, interfaces: ["org.bluez.Device1": [
            "Address": .string("40:11:22:33:01:60"), "AddressType": .string("random"), "Adapter": .objectPath(adapterPath),
            "RSSI": .int16(-60), "Connected": .boolean(connected), "ServicesResolved": .boolean(servicesResolved),
        ]]))
        return tree
    }

    func changed(_ tree: inout BlueZTree, _ properties: [String: DBusValue], invalidated: [String] = []) -> [TreeChange] {
        tree.apply(.propertiesChanged(path: devicePath, interface: "org.bluez.Device1", changed: PropertyChanges(properties), invalidated: invalidated))
            .compactMap { if case .tree(let change) = $0 { change } else { nil } }
    }

    var linkUp: TreeChange { .link(path, up: true) }
    var resolved: TreeChange { .servicesResolved(path, true) }

    @Test func objectsComeOutAsAppearancesWithTheirLinkState() {
        let tree = tree(connected: true, servicesResolved: true)
        let changes = tree.reconciliation
        #expect(changes.first == .adapterAppeared(AdapterID(name: "hci0"), powered: true))
        guard case .deviceAppeared(let report, let link) = changes.last else {
            Issue.record("expected the device to appear: \(changes)")
            return
        }
        #expect(report.path == path && report.path.adapter.name == "hci0" && report.rssi == -60)
        #expect(link == .resolved)
    }

    @Test func aDeviceGoesWithItsOwnCharacteristicsOnly() {
        var tree = tree()
        let other = "/org/bluez/hci0/dev_40_11_22_33_02_60"
        tree.apply(.interfacesAdded(path: other, interfaces: ["org.bluez.Device1": [
            "Address": .string("40:11:22:33:02:60"), "AddressType": .string("random"), "Adapter": .objectPath(adapterPath),
        ]]))
        for (device, n) in [(devicePath, 1), (devicePath, 2), (other, 1)] {
            tree.apply(.interfacesAdded(path: "\(device)/service000a/char000\(n)", interfaces: ["org.bluez.GattCharacteristic1": [
                "UUID": .string("00002a3\(n)-0000-1000-8000-00805f9b34fb")]]))
        }
        #expect(tree.characteristics(of: path).map(\.path).sorted() == ["\(devicePath)/service000a/char0001", "\(devicePath)/service000a/char0002"])
        tree.apply(.interfacesRemoved(path: "\(devicePath)/service000a/char0002", interfaces: ["org.bluez.GattCharacteristic1"]))
        #expect(tree.characteristics(of: path).map(\.path) == ["\(devicePath)/service000a/char0001"])
        tree.apply(.interfacesRemoved(path: devicePath, interfaces: ["org.bluez.Device1"]))
        #expect(tree.characteristics(of: path).isEmpty)
        #expect(tree.characteristics.keys.sorted() == ["\(other)/service000a/char0001"])
    }

    @Test func anAdvertIsAnUpdateAndNothingElse() {
        var tree = tree()
        let changes = changed(&tree, ["RSSI": .int16(-48)])
        #expect(changes.count == 1)
        guard case .deviceUpdated(let report) = changes.first else {
            Issue.record("expected an update: \(changes)")
            return
        }
        #expect(report.rssi == -48)
        #expect(changed(&tree, ["RSSI": .int16(-47)]).allSatisfy { if case .deviceUpdated = $0 { true } else { false } })
    }

    @Test func realControllersOrderConnectedThenReplyThenResolved() {
        var tree = tree()
        #expect(changed(&tree, ["Connected": .boolean(true)]) == [linkUp])
        #expect(tree.connectSucceeded(path).isEmpty, "the reply confirms a link already reported")
        #expect(changed(&tree, ["ServicesResolved": .boolean(true)]) == [resolved])
    }

    @Test func bluez566WithoutConnectedTheReplyBringsTheLinkUpOnce() {
        var tree = tree()
        #expect(tree.connectSucceeded(path) == [linkUp], "the successful reply is the first word of the link")
        #expect(changed(&tree, ["ServicesResolved": .boolean(true)]) == [resolved])
        #expect(changed(&tree, ["Connected": .boolean(true)]).isEmpty, "a late Connected=true is no change")
        #expect(tree.connectSucceeded(path).isEmpty)
    }

    @Test func bluez566ResolvedServicesBeforeTheReplyBringTheLinkUp() {
        var tree = tree()
        #expect(changed(&tree, ["ServicesResolved": .boolean(true)]) == [linkUp, resolved])
        #expect(tree.connectSucceeded(path).isEmpty)
        #expect(changed(&tree, ["Connected": .boolean(true)]).isEmpty)
    }

    @Test func linkLossIsReportedOnce() {
        var tree = tree(connected: true, servicesResolved: true)
        #expect(changed(&tree, ["ServicesResolved": .boolean(false), "Connected": .boolean(false)])
                == [.link(path, up: false), .servicesResolved(path, false)])
        #expect(changed(&tree, ["Connected": .boolean(false)]).isEmpty)
    }

    @Test func adapterPowerIsReportedOnlyWhenItChanges() {
        var tree = tree()
        let hci0 = AdapterID(name: "hci0")
        func adapter(_ properties: [String: DBusValue]) -> [BlueZTree.Change] {
            tree.apply(.propertiesChanged(path: adapterPath, interface: "org.bluez.Adapter1", changed: PropertyChanges(properties), invalidated: []))
        }
        #expect(adapter(["Discovering": .boolean(true)]).isEmpty)
        #expect(adapter(["Powered": .boolean(false)]) == [.tree(.adapterPowered(hci0, false))])
        #expect(adapter(["Powered": .boolean(false)]).isEmpty)
    }

    /// Adapters are reported off before their devices go, so a bluetoothd restart ends links as an adapter
    /// outage (nothing counted), not as devices vanishing with their links (a failure each).
    @Test func bluetoothdLeavingRemovesEverythingAdaptersOffFirst() {
        var tree = tree(connected: true, servicesResolved: true)
        let hci0 = AdapterID(name: "hci0")
        let changes = tree.apply(.serviceLost)
        #expect(changes == [.tree(.adapterPowered(hci0, false)), .tree(.deviceRemoved(path)), .tree(.adapterRemoved(hci0))])
        #expect(tree.devices.isEmpty && tree.adapters.isEmpty)
    }

    /// Found by the soak (invariant 2): after a bluetoothd restart, signals the new bluetoothd sent before it
    /// answered GetManagedObjects were applied on top of what it answered. A link that had gone down and come
    /// up again was reported lost (and its device reconnected on another adapter, a second link), and an
    /// object's first InterfacesAdded put back the properties it had long changed. What arrived before the read
    /// is already in it; only the values such signals carry still come out.
    @Test func signalsThatArrivedBeforeTheReadDoNotUndoIt() {
        var tree = tree(connected: true, servicesResolved: true)
        let characteristicPath = devicePath + "/service000a/char000b"
        tree.apply(.interfacesAdded(path: characteristicPath, interfaces: ["org.bluez.GattCharacteristic1": [
            "UUID": .string("00002a37-0000-1000-8000-00805f9b34fb"), "Service": .objectPath(devicePath + "/service000a"),
            "Flags": .strings(["notify"]), "Notifying": .boolean(true)]]))
        #expect(tree.characteristics[characteristicPath] != nil)
        tree.readAt = 100
        let staleDown = tree.apply(.propertiesChanged(path: devicePath, interface: "org.bluez.Device1",
                                                      changed: ["Connected": .boolean(false)], invalidated: []), arrival: 60)
        let staleAdded = tree.apply(.interfacesAdded(path: devicePath, interfaces: ["org.bluez.Device1": [
            "Address": .string("40:11:22:33:01:60"), "AddressType": .string("random"), "Adapter": .objectPath(adapterPath),
            "Connected": .boolean(false), "ServicesResolved": .boolean(false)]]), arrival: 61)
        let staleValue = tree.apply(.propertiesChanged(path: characteristicPath, interface: "org.bluez.GattCharacteristic1",
                                                       changed: ["Value": .bytes([0, 72]), "Notifying": .boolean(false)], invalidated: []),
                                    arrival: 62)
        #expect(staleDown.isEmpty && staleAdded.isEmpty, "\(staleDown) \(staleAdded)")
        #expect(tree.devices[devicePath]?.connected == true && tree.devices[devicePath]?.servicesResolved == true)
        #expect(staleValue.count == 1 && staleValue.allSatisfy { if case .value(_, [0, 72]) = $0 { true } else { false } }, "\(staleValue)")
        #expect(tree.characteristics[characteristicPath]?.notifying == true, "a stale Notifying=false is not applied either")
        // A signal that arrived after the read is news.
        let fresh = tree.apply(.propertiesChanged(path: devicePath, interface: "org.bluez.Device1",
                                                  changed: ["Connected": .boolean(false)], invalidated: []), arrival: 101)
        #expect(fresh.contains(.tree(.link(path, up: false))), "\(fresh)")
        // bluetoothd leaving is never stale.
        #expect(!tree.apply(.serviceLost, arrival: 1).isEmpty)
    }

    /// A notification (Value only) leaves the characteristic as it was; Notifying and MTU are kept, alone or
    /// with a Value, and the value comes out with the characteristic as updated.
    @Test func characteristicChangesKeepNotifyingAndMTUAndAValueLeavesTheRestAlone() {
        var tree = tree(connected: true, servicesResolved: true)
        let characteristicPath = devicePath + "/service000a/char000b"
        tree.apply(.interfacesAdded(path: characteristicPath, interfaces: ["org.bluez.GattCharacteristic1": [
            "UUID": .string("00002a37-0000-1000-8000-00805f9b34fb"), "Service": .objectPath(devicePath + "/service000a"),
            "Flags": .strings(["notify"]), "Notifying": .boolean(false), "MTU": .uint16(23)]]))
        let before = tree.characteristics[characteristicPath]
        func change(_ properties: [String: DBusValue]) -> [BlueZTree.Change] {
            tree.apply(.propertiesChanged(path: characteristicPath, interface: "org.bluez.GattCharacteristic1", changed: PropertyChanges(properties), invalidated: []))
        }
        let value = change(["Value": .bytes([0, 60])])
        #expect(tree.characteristics[characteristicPath] == before)
        guard case .value(let carried, [0, 60])? = value.first, value.count == 1 else { Issue.record("\(value)"); return }
        #expect(carried == before)
        _ = change(["MTU": .uint16(247)])
        #expect(tree.characteristics[characteristicPath]?.mtu == 247)
        let both = change(["Notifying": .boolean(true), "Value": .bytes([0, 61])])
        #expect(tree.characteristics[characteristicPath]?.notifying == true && tree.characteristics[characteristicPath]?.mtu == 247)
        guard case .value(let updated, [0, 61])? = both.first else { Issue.record("\(both)"); return }
        #expect(updated.notifying && updated.mtu == 247)
        _ = change(["Notifying": .boolean(false)])
        #expect(tree.characteristics[characteristicPath]?.notifying == false)
    }
}
