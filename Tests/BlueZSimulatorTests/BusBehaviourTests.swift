import BlueZSimulator
import FleetPlatform
import FleetTestKit
import Testing

/// Behaviour as a BlueZ client sees it on a real (private) bus: replies, errors and signal order.
@Suite struct BusBehaviourTests {
    static let scenario = """
    capacity 1
    device hr address=A0:9E:1A:00:00:01 name="Polar H10" manufacturer=0x006b:0a01 profile=heart-rate interval=0.05 jitter=0
    device gm address=C8:B2:1E:00:00:10 name="Glucose" profile=glucose interval=0.05 mtu=23 jitter=0
    device phone address=5A:3C:00:00:00:20 type=random manufacturer=0x00e0:f1ee7d01 interval=0.05
    """
    static let hr = "/org/bluez/hci0/dev_A0_9E_1A_00_00_01"
    static let gm = "/org/bluez/hci0/dev_C8_B2_1E_00_00_10"

    @Test func managedObjectsCarryBlueZTypes() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        try await h.discover(Self.hr)
        let objects = try await h.bluez("/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        #expect(objects.first?.type.description == "a{oa{sa{sv}}}")
        let entries = try #require(objects.first?.dictEntries)
        let device = try #require(entries.first { $0.key.string == Self.hr }?.value.stringKeyed?["org.bluez.Device1"]?.stringKeyed)
        #expect(device["ManufacturerData"]?.unwrapped.type.description == "a{qv}")
        #expect(device["ManufacturerData"]?.unwrapped.uint16Keyed?[0x006B]?.unwrapped.bytes == [0x0A, 0x01])
        #expect(device["RSSI"]?.unwrapped.type == .int16)
        #expect(device["Adapter"]?.unwrapped == .objectPath("/org/bluez/hci0"))
        let adapter = try #require(entries.first { $0.key.string == "/org/bluez/hci0" }?.value.stringKeyed?["org.bluez.Adapter1"]?.stringKeyed)
        #expect(adapter["Roles"]?.unwrapped == .strings(["central", "peripheral"]))
        #expect(adapter["Discovering"]?.unwrapped == .boolean(true))
        #expect(!entries.contains { $0.key.string?.hasPrefix("/io/fleetd") ?? false }, "test control stays off org.bluez")
    }

    @Test func connectOrderReadAndLinkDrop() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        try await h.discover(Self.hr)
        let start = h.signals.count
        _ = try await h.bluez(Self.hr, "org.bluez.Device1", "Connect")
        let service = try await h.waitForSignal("service added", after: start) { $0.isAdded(Self.hr + "/service000a") }
        let resolved = try await h.waitForSignal("ServicesResolved", after: start) { $0.changes(Self.hr, "ServicesResolved", to: .boolean(true)) }
        #expect(service < resolved)
        // Which Connected signal precedes this is LinkUpOrderTests' subject; the property reads true either way.
        let connected = try await h.bluez(Self.hr, "org.freedesktop.DBus.Properties", "Get", [.string("org.bluez.Device1"), .string("Connected")])
        #expect(connected.first?.unwrapped == .boolean(true))
        let value = try await h.bluez(Self.hr + "/service000a/char000e", "org.bluez.GattCharacteristic1", "ReadValue", [.vardict([:])])
        #expect(value == [.bytes([0x01])])

        let before = h.signals.count
        _ = try await h.sim("DropLink", [.string("hr")])
        let gone = try await h.waitForSignal("GATT removed", after: before) { $0.isRemoved(Self.hr + "/service000a") }
        let unresolved = try await h.waitForSignal("ServicesResolved=false", after: before) { $0.changes(Self.hr, "ServicesResolved", to: .boolean(false)) }
        let down = try await h.waitForSignal("Connected=false", after: before) { $0.changes(Self.hr, "Connected", to: .boolean(false)) }
        // A lost link is one PropertiesChanged with both, as bluetoothd 5.66 sends it (docs/bluez-fidelity.md).
        #expect(gone < unresolved && unresolved == down)
        #expect(try await h.counter("LinksUp") == 1)
        #expect(try await h.counter("LinksLost") == 1)
        #expect(try await h.counter("Reads") == 1)
    }

    @Test func poolLimitAndErrorsAsBlueZNamesThem() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        try await h.discover(Self.gm)
        try await h.waitForSignal("hr added") { $0.isAdded(Self.hr) }
        _ = try await h.bluez(Self.hr, "org.bluez.Device1", "Connect")
        await #expect { try await h.bluez(Self.gm, "org.bluez.Device1", "Connect") } throws: { error in
            (error as? DBusError).map { $0.name == "org.bluez.Error.Failed" && $0.message == "le-connection-abort-by-local" } ?? false
        }
        #expect(try await h.counter("ConnectsAttempted") == 2)
        #expect(try await h.counter("ConnectsFailed") == 1)
        _ = try await h.bluez(Self.hr, "org.bluez.Device1", "Disconnect")
        _ = try await h.bluez(Self.gm, "org.bluez.Device1", "Connect")
        let record = try await h.bluez(Self.gm + "/service000a/char000b", "org.bluez.GattCharacteristic1", "ReadValue",
                                       [.vardict(["offset": .uint16(62)])])
        #expect(record == [.bytes([62, 63])])
        await #expect { try await h.bluez(Self.gm + "/service000a/char000b", "org.bluez.GattCharacteristic1", "ReadValue", [.vardict(["offset": .uint16(99)])]) } throws: { error in
            (error as? DBusError).map { $0.name == "org.bluez.Error.InvalidArguments" && $0.message == "Invalid offset" } ?? false
        }
    }

    @Test func faultsFromTheControlInterface() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        try await h.discover(Self.hr)
        _ = try await h.sim("SetConnectBehaviour", [.string("hr"), .string("never-complete"), .string(""), .string("")])
        await #expect { try await h.bluez(Self.hr, "org.bluez.Device1", "Connect", timeout: .milliseconds(300)) } throws: { error in
            (error as? DBusError)?.code == .timeout
        }
        _ = try await h.bluez(Self.hr, "org.bluez.Device1", "Disconnect")
        _ = try await h.sim("SetConnectBehaviour", [.string("hr"), .string("in-progress"), .string(""), .string("")])
        await #expect { try await h.bluez(Self.hr, "org.bluez.Device1", "Connect") } throws: { error in
            (error as? DBusError)?.name == "org.bluez.Error.InProgress"
        }
        _ = try await h.sim("SetConnectBehaviour", [.string("hr"), .string("fail"), .string("org.bluez.Error.Failed"), .string("le-connection-abort-by-remote")])
        await #expect { try await h.bluez(Self.hr, "org.bluez.Device1", "Connect") } throws: { error in
            (error as? DBusError)?.message == "le-connection-abort-by-remote"
        }

        let before = h.signals.count
        _ = try await h.sim("PowerAdapter", [.string("hci0"), .boolean(false)])
        try await h.waitForSignal("Powered=false", after: before) { $0.changes("/org/bluez/hci0", "Powered", to: .boolean(false)) }
        try await h.waitForSignal("Discovering=false", after: before) { $0.changes("/org/bluez/hci0", "Discovering", to: .boolean(false)) }
        await #expect { try await h.bluez("/org/bluez/hci0", "org.bluez.Adapter1", "StartDiscovery") } throws: { error in
            (error as? DBusError)?.name == "org.bluez.Error.NotReady"
        }
        _ = try await h.sim("PowerAdapter", [.string("hci0"), .boolean(true)])

        _ = try await h.sim("RemoveDevice", [.string("hr")])
        try await h.waitForSignal("device removed", after: before) { $0.isRemoved(Self.hr) }
        await #expect { try await h.bluez(Self.hr, "org.bluez.Device1", "Connect") } throws: { error in
            (error as? DBusError)?.name == "org.freedesktop.DBus.Error.UnknownObject"
        }
    }

    @Test func expiryAndRotationOnTheBus() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        let phone = "/org/bluez/hci0/dev_5A_3C_00_00_00_20"
        try await h.discover(phone)
        let newAddress = try await h.sim("RotateAddress", [.string("phone")]).first?.string ?? ""
        let newPath = "/org/bluez/hci0/dev_" + newAddress.replacingOccurrences(of: ":", with: "_")
        let added = try await h.waitForSignal("rotated device appears") { $0.isAdded(newPath) }
        let interfaces = h.signals[added].body[1].stringKeyed?["org.bluez.Device1"]?.stringKeyed
        #expect(interfaces?["ManufacturerData"]?.unwrapped.uint16Keyed?[0x00E0]?.unwrapped.bytes == [0xF1, 0xEE, 0x7D, 0x01])
        #expect(interfaces?["AddressType"]?.unwrapped == .string("random"))
        _ = try await h.sim("AdvanceTime", [.double(31)])
        try await h.waitForSignal("old address expires") { $0.isRemoved(phone) }
        #expect(!h.signals.contains { $0.isRemoved(newPath) }, "the current address keeps advertising")
    }

    @Test func floodModeEmitsAdvertisementSignals() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        try await h.discover(Self.hr)
        let before = h.signals.count
        _ = try await h.sim("StartFlood", [.uint32(2000)])
        try await waitUntil("1000 flooded signals") { h.signals.dropFirst(before).filter { $0.member == "PropertiesChanged" }.count >= 1000 }
        _ = try await h.sim("StopFlood")
        #expect(try await h.counter("SignalsFlooded") >= 1000)
    }
}
