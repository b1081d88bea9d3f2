import BlueZSimulator
import FleetPlatform
import FleetTestKit
import Testing

/// The soak's observations (ConnectConcurrency, LinkPeaks, ResetConcurrency, ArmedNotifications), as a client
/// on the bus sees them.
@Suite struct ObservationTests {
    static let scenario = """
    adapters 2
    device hr address=A0:9E:1A:00:00:01 manufacturer=0x006b:0a01 profile=heart-rate interval=0.05 jitter=0
    device hr2 address=A0:9E:1A:00:00:02 manufacturer=0x006b:0a02 profile=heart-rate interval=0.05 jitter=0
    """
    static func path(_ adapter: Int, _ n: Int) -> String { "/org/bluez/hci\(adapter)/dev_A0_9E_1A_00_00_0\(n)" }

    /// Discovery on both adapters until both devices are on both.
    static func discoverAll(_ h: SimulatorHarness) async throws {
        for adapter in 0..<2 {
            _ = try await h.bluez("/org/bluez/hci\(adapter)", "org.bluez.Adapter1", "StartDiscovery")
            for n in 1...2 { try await h.waitForSignal("InterfacesAdded \(path(adapter, n))") { $0.isAdded(path(adapter, n)) } }
        }
    }

    static func peaks(_ h: SimulatorHarness, _ member: String) async throws -> [String: Int64] {
        let body = try await h.sim(member)
        var out: [String: Int64] = [:]
        for entry in body.first?.dictEntries ?? [] { out[entry.key.string ?? "?"] = entry.value.integer }
        return out
    }

    @Test("pending Connect calls are counted per adapter and per client, and a reset keeps what is still pending")
    func connectConcurrency() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        try await Self.discoverAll(h)
        let other = try DBusConnection(address: h.bus.address)
        defer { other.close() }
        for label in ["hr", "hr2"] { _ = try await h.sim("SetConnectBehaviour", [.string(label), .string("never-complete"), .string(""), .string("")]) }
        let mine = h.client.uniqueName, theirs = other.uniqueName
        // One pending Connect from each client on hci0, and one from this client on hci1: no key reaches 2.
        let first = Task { try? await h.bluez(Self.path(0, 1), "org.bluez.Device1", "Connect", timeout: .seconds(60)) }
        let second = Task {
            try? await other.call(destination: "org.bluez", path: Self.path(0, 2), interface: "org.bluez.Device1", member: "Connect", timeout: .seconds(60))
        }
        let third = Task { try? await h.bluez(Self.path(1, 2), "org.bluez.Device1", "Connect", timeout: .seconds(60)) }
        try await waitUntil("three pending connects") { try await Self.peaks(h, "ConnectConcurrency").values.reduce(0, +) == 3 }
        #expect(try await Self.peaks(h, "ConnectConcurrency") == ["hci0 \(mine)": 1, "hci0 \(theirs)": 1, "hci1 \(mine)": 1])
        // A second Connect from the same client on the same adapter while the first is pending: the peak is 2,
        // even though BlueZ answers it (Operation already in progress) at once.
        _ = try? await h.bluez(Self.path(0, 1), "org.bluez.Device1", "Connect")
        #expect(try await Self.peaks(h, "ConnectConcurrency")["hci0 \(mine)"] == 2)
        _ = try await h.sim("ResetConcurrency")
        #expect(try await Self.peaks(h, "ConnectConcurrency")["hci0 \(mine)"] == 1, "the first Connect is still pending")
        // Disconnect cancels each pending Connect; then a reset leaves nothing.
        for path in [Self.path(0, 1), Self.path(0, 2), Self.path(1, 2)] { _ = try await h.bluez(path, "org.bluez.Device1", "Disconnect") }
        _ = await (first.value, second.value, third.value)
        _ = try await h.sim("ResetConcurrency")
        #expect(try await Self.peaks(h, "ConnectConcurrency").isEmpty)
    }

    @Test("a peripheral linked on two adapters peaks at 2 links; armed notifications follow StartNotify and the link")
    func linkPeaksAndArmedNotifications() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        try await Self.discoverAll(h)
        _ = try await h.bluez(Self.path(0, 1), "org.bluez.Device1", "Connect")
        #expect(try await Self.peaks(h, "LinkPeaks") == ["hr": 1])
        _ = try await h.bluez(Self.path(1, 1), "org.bluez.Device1", "Connect")
        #expect(try await Self.peaks(h, "LinkPeaks") == ["hr": 2])
        _ = try await h.bluez(Self.path(1, 1), "org.bluez.Device1", "Disconnect")
        _ = try await h.sim("ResetConcurrency")
        #expect(try await Self.peaks(h, "LinkPeaks") == ["hr": 1], "a reset starts from the links up now")

        #expect(try await h.sim("ArmedNotifications").first?.dictEntries?.isEmpty == true)
        try await h.waitForSignal("GATT of hr") { $0.isAdded(Self.path(0, 1) + "/service000a/char000b") }
        _ = try await h.bluez(Self.path(0, 1) + "/service000a/char000b", "org.bluez.GattCharacteristic1", "StartNotify")
        let armed = try await h.sim("ArmedNotifications").first?.dictEntries ?? []
        #expect(armed.map { [$0.key.string ?? "", $0.value.stringArray?.joined() ?? ""] } == [["hr", "00002a37-0000-1000-8000-00805f9b34fb"]])
        _ = try await h.sim("DropLink", [.string("hr")])
        #expect(try await h.sim("ArmedNotifications").first?.dictEntries?.isEmpty == true, "a lost link ends its notify sessions")
    }

    @Test("Notify sends a chosen value at once on an armed characteristic, and answers false where nobody listens")
    func notifyOnDemand() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        try await Self.discoverAll(h)
        let heartRate = "00002a37-0000-1000-8000-00805f9b34fb"
        let probe: [UInt8] = [0xF0, 0x0D, 0x00, 0x01]
        #expect(try await h.sim("Notify", [.string("hr"), .string(heartRate), .bytes(probe)]).first == .boolean(false), "no link")
        _ = try await h.bluez(Self.path(0, 1), "org.bluez.Device1", "Connect")
        let characteristic = Self.path(0, 1) + "/service000a/char000b"
        try await h.waitForSignal("GATT of hr") { $0.isAdded(characteristic) }
        #expect(try await h.sim("Notify", [.string("hr"), .string(heartRate), .bytes(probe)]).first == .boolean(false), "no notify session")
        _ = try await h.bluez(characteristic, "org.bluez.GattCharacteristic1", "StartNotify")
        let before = h.signals.count
        #expect(try await h.sim("Notify", [.string("hr"), .string(heartRate.uppercased()), .bytes(probe)]).first == .boolean(true))
        try await h.waitForSignal("the probe's value", after: before) { $0.changes(characteristic, "Value", to: .bytes(probe)) }
    }
}

