import FleetCLI
import FleetProtocol
import FleetPlatform
import FleetStore
import FleetTestKit
import Foundation
import Synchronization
import Testing

/// fleetd itself (the built binary) against the simulator on a private bus, driven by the simulator's
/// test-control interface; assertions are on what fleetd reports, what the simulator counted and what
/// fleetd logged.
@Suite("fleetd on the simulator", .serialized)
struct SupervisorScenarioTests {
    static func straps(_ count: Int, start: Int = 1) -> String {
        (start..<(start + count)).map { i in
            "device s\(i) address=A0:00:00:00:00:\(String(format: "%02X", i)) name=\"Strap \(i)\" profile=heart-rate,battery interval=0.5 rssi=-\(50 + i)"
        }.joined(separator: "\n")
    }

    static func wanted(_ range: ClosedRange<Int>, policyClass: String = "critical") -> String {
        range.map { i in
            "[device \"addr-A000000000\(String(format: "%02X", i))\"]\nname = Strap \(i)\nclass = \(policyClass)\nsubscribe = 2a37\n"
        }.joined(separator: "\n")
    }

    static func id(_ i: Int) -> String { "addr-A000000000\(String(format: "%02X", i))" }

    /// Devices that sent at least one notification value in these Watch events.
    static func notifying(_ events: [[String: JSONValue]]) -> Set<String> {
        Set(events.filter { $0["characteristic"]?.isNull == false }.compactMap { $0["device"]?.stringValue })
    }

    /// The sequence number of the first "reconnected" marker.
    static func reconnectMarker(_ events: [[String: JSONValue]]) -> Int? {
        events.first { $0["kind"]?.stringValue == "reconnected" }?["sequence"]?.intValue
    }

    static func allReady(_ ids: [String]) -> @Sendable ([String: [String: JSONValue]]) -> Bool {
        { devices in ids.allSatisfy { devices[$0]?["state"]?.stringValue == "ready" } }
    }

    @Test("ten heart-rate straps come up ready and subscribed")
    func tenStraps() async throws {
        let harness = try await FleetHarness(scenario: "adapters 1\ncapacity 10\n" + Self.straps(10), configuration: "[adapters]\ncapacity = 10\n" + Self.wanted(1...10))
        defer { harness.stop() }
        let ids = (1...10).map(Self.id)
        try await harness.waitFor("ten straps ready", Self.allReady(ids))
        let counters = try await harness.counters()
        #expect(counters["ConnectsAttempted"] == 10, "one connect per strap, no storm: \(counters)")
        // Every strap delivers notifications to fleetd's feed: its subscription is armed.
        let events = try await harness.watch { events in Self.notifying(events).isSuperset(of: ids) }
        #expect(Self.notifying(events).isSuperset(of: ids))
    }

    @Test("a dropped link is re-established with backoff and its notifications resume")
    func dropAndResume() async throws {
        let harness = try await FleetHarness(scenario: "adapters 1\n" + Self.straps(1), configuration: Self.wanted(1...1))
        defer { harness.stop() }
        let id = Self.id(1)
        try await harness.waitFor("strap ready", Self.allReady([id]))
        // The watch is streaming before the drop: a watch opened after it could miss the reconnection (fleetd is back
        // within half a second, and a loaded test process took longer than that to subscribe).
        let streaming = Atomic<Bool>(false)
        let watching = Task {
            try await harness.watch(device: id) { events in
                streaming.store(true, ordering: .releasing)
                guard let marker = Self.reconnectMarker(events) else { return false }
                return events.contains { ($0["sequence"]?.intValue ?? 0) > marker && $0["characteristic"]?.isNull == false }
            }
        }
        try await waitUntil("the watch streaming the strap's values") { streaming.load(ordering: .acquiring) }
        try await harness.sim("DropLink", [.string("s1")])
        // A backoff, a reconnection, then notification values again.
        let events = try await watching.value
        #expect(!events.isEmpty)
        let log = harness.log()
        #expect(log.contains("\(id): link-dropped; session ended"), "the reconnect went through backoff, no failure counted")
        #expect(log.contains("\(id) disconnected"))
        let counters = try await harness.counters(device: "s1")
        #expect(counters["LinksUp"] == 2)
    }

    @Test("a device rotating its address every 20 s keeps one fleet identity and at most one link")
    func rotation() async throws {
        let scenario = """
        adapters 1
        temporary-timeout 30
        device phone address=5A:3C:00:00:00:20 type=random name="Tablet" manufacturer=0x00e0:f1ee7d01 profile=battery rotate=20 interval=0.5
        """
        let config = """
        [identity "tablet"]
        manufacturer = 0x00e0
        bytes = 2..<6
        [device "mfr-00e0-f1ee7d01"]
        name = Tablet
        subscribe = 2a19
        """
        // Ten simulated seconds per second: three rotations in about six seconds.
        let harness = try await FleetHarness(scenario: scenario, configuration: config, simulatorArguments: ["--time-scale", "10"])
        defer { harness.stop() }
        try await harness.waitFor("tablet ready", Self.allReady(["mfr-00e0-f1ee7d01"]))
        let events = try await harness.watch(device: "mfr-00e0-f1ee7d01", timeout: .seconds(40)) { events in
            events.filter { ($0["text"]?.stringValue ?? "").contains("is another address of") }.count >= 3
        }
        let merges = events.filter { ($0["text"]?.stringValue ?? "").contains("is another address of") }.count
        let devices = try await harness.devices()
        #expect(devices.count == 1, "one fleet device whatever the address: \(devices.keys.sorted())")
        let objects = try await harness.control.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                                                     member: "GetManagedObjects", expecting: "a{oa{sa{sv}}}")
        let connected = objects[0].dictEntries?.filter { entry in
            entry.value.stringKeyed?["org.bluez.Device1"]?.stringKeyed?["Connected"]?.unwrapped.bool == true
        } ?? []
        #expect(connected.count <= 1, "at most one link to the tablet")
        #expect(merges >= 3)
    }

    @Test("a full pool evicts by policy and says why")
    func eviction() async throws {
        let scenario = "adapters 1\ncapacity 2\n" + Self.straps(2)
        let config = "[adapters]\ncapacity = 2\n" + Self.wanted(1...2, policyClass: "normal") + "\n" + Self.wanted(3...3, policyClass: "critical")
            + "\n[policy \"normal\"]\nmin-hold = 0s\n"
        let harness = try await FleetHarness(scenario: scenario, configuration: config)
        defer { harness.stop() }
        try await harness.waitFor("two normal straps ready", Self.allReady([Self.id(1), Self.id(2)]))
        try await harness.sim("AddDevice", [.string("s3 address=A0:00:00:00:00:03 name=\"Strap 3\" profile=heart-rate interval=0.5")])
        try await harness.waitFor("the critical strap admitted by evicting a normal one") { devices in
            devices[Self.id(3)]?["state"]?.stringValue == "ready"
                && [Self.id(1), Self.id(2)].contains { devices[$0]?["state"]?.stringValue == "evicted" }
        }
        let log = harness.log()
        #expect(log.contains("to admit \(Self.id(3)) (critical)"), "the eviction names who was admitted")
        let status = try await harness.call(.status)
        let adapter = status["adapters"]?.arrayValue?.first?.objectValue
        #expect(adapter?["slotsUsed"]?.intValue == 2 && adapter?["slotsCapacity"]?.intValue == 2)
    }

    @Test("an adapter power-cycle pauses and resumes without burning attempts")
    func powerCycle() async throws {
        let harness = try await FleetHarness(scenario: "adapters 1\n" + Self.straps(2), configuration: Self.wanted(1...2))
        defer { harness.stop() }
        let ids = [Self.id(1), Self.id(2)]
        try await harness.waitFor("straps ready", Self.allReady(ids))
        try await harness.sim("PowerAdapter", [.string("hci0"), .boolean(false)])
        try await harness.waitFor("both paused") { devices in ids.allSatisfy { devices[$0]?["state"]?.stringValue == "waitingForAdapter" } }
        // While paused, not after: a device that reaches ready again has its failures cleared whatever they were
        // (session 21: the check after ready could not fail). The stored state is read while paused too.
        let paused = try await harness.devices()
        #expect(ids.allSatisfy { paused[$0]?["failures"]?.intValue == 0 }, "the outage burnt attempts: \(paused)")
        let store = try StateStore(path: harness.storePath)
        defer { store.close() }
        try await harness.waitFor("the stored state while paused shows no burnt attempts") { _ in
            guard let devices = try? store.fleetState().devices else { return false }
            return devices.count == 2 && devices.allSatisfy { $0.failures == 0 }
        }
        try await harness.sim("PowerAdapter", [.string("hci0"), .boolean(true)])
        try await harness.waitFor("both ready again", Self.allReady(ids))
        #expect(harness.log().contains("adapter hci0 is off; pausing its devices"))
    }

    @Test("a connect that never completes times out and is retried")
    func connectTimeout() async throws {
        let config = Self.wanted(1...1, policyClass: "normal") + "\n[policy \"normal\"]\nconnect-timeout = 1s\n"
        let harness = try await FleetHarness(scenario: "adapters 1\n" + Self.straps(1), configuration: config, startFleetd: false)
        defer { harness.stop() }
        try await harness.sim("SetConnectBehaviour", [.string("s1"), .string("never-complete"), .string(""), .string("")])
        try await harness.startDaemon()
        try await harness.waitFor("a timed-out attempt", timeout: .seconds(20)) { _ in harness.log().contains("connect-timeout; retry 1") }
        try await harness.sim("SetConnectBehaviour", [.string("s1"), .string("normal"), .string(""), .string("")])
        try await harness.waitFor("ready after the fault clears", Self.allReady([Self.id(1)]))
        let counters = try await harness.counters(device: "s1")
        #expect((counters["ConnectsAttempted"] ?? 0) >= 2)
    }

    @Test("a stuck InProgress is cleared with Disconnect, then RemoveDevice")
    func stuckInProgress() async throws {
        let config = Self.wanted(1...1, policyClass: "normal")
        let harness = try await FleetHarness(scenario: "adapters 1\n" + Self.straps(1), configuration: config, startFleetd: false)
        defer { harness.stop() }
        try await harness.sim("SetConnectBehaviour", [.string("s1"), .string("in-progress"), .string(""), .string("")])
        try await harness.startDaemon()
        try await harness.waitFor("the stuck state cleared", timeout: .seconds(30)) { _ in
            harness.log().contains("clearing a stuck BlueZ state with Disconnect")
        }
        try await harness.sim("SetConnectBehaviour", [.string("s1"), .string("normal"), .string(""), .string("")])
        try await harness.waitFor("ready after the fault clears", Self.allReady([Self.id(1)]))
        let log = harness.log()
        #expect(log.contains("clearing a stuck BlueZ state with Disconnect"))
        let counters = try await harness.counters(device: "s1")
        #expect((counters["ConnectsAttempted"] ?? 0) >= 2, "the connect was retried after clearing: \(counters)")
    }
}
