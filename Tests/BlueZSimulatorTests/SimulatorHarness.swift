import BlueZSimulator
import FleetPlatform
import FleetTestKit
import Synchronization

/// A private bus with the simulator (BlueZ + control interface) running in-process, a client connection
/// and a log of every signal org.bluez emits, so that tests assert what a BlueZ client would see.
final class SimulatorHarness: Sendable {
    let bus: PrivateBus
    let simulator: BlueZSimulator
    let control: SimulatorControl
    let client: DBusConnection
    private let log = SignalLog()

    init(_ scenarioText: String, cache: GattCache = .yes) async throws {
        bus = try PrivateBus()
        let world = try SimulatorWorld(scenario: try Scenario.parse(scenarioText), configuration: WorldConfiguration(gattCache: cache))
        simulator = BlueZSimulator(bus: try DBusConnection(address: bus.address), world: world)
        control = SimulatorControl(connection: try DBusConnection(address: bus.address), simulator: simulator)
        try await control.start()
        client = try DBusConnection(address: bus.address)
        let stream = try await client.signals(matching: DBusMatchRule(sender: "org.bluez"))
        let log = self.log
        Task { for await message in stream { log.messages.withLock { $0.append(message) } } }
        try await simulator.start()
    }

    deinit {
        simulator.stop()
        control.connection.close()
        client.close()
    }

    var signals: [DBusMessage] { log.messages.withLock { $0 } }

    /// Waits for a signal matching `predicate` that arrived after `index` signals; returns its position.
    @discardableResult
    func waitForSignal(_ what: String, after index: Int = 0, timeout: Duration = .seconds(30),
                       _ predicate: @escaping (DBusMessage) -> Bool) async throws -> Int {
        var found: Int?
        try await waitUntil(what, timeout: timeout) {
            let all = signals
            found = all.indices.dropFirst(index).first { predicate(all[$0]) }
            return found != nil
        }
        return found ?? -1
    }

    func bluez(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
               timeout: Duration = .seconds(30)) async throws(DBusError) -> [DBusValue] {
        try await client.call(destination: "org.bluez", path: path, interface: interface, member: member,
                              arguments: arguments, timeout: timeout).body
    }

    func sim(_ member: String, _ arguments: [DBusValue] = []) async throws(DBusError) -> [DBusValue] {
        try await client.call(destination: SimulatorControl.busName, path: SimulatorControl.path,
                              interface: SimulatorControl.interface, member: member, arguments: arguments).body
    }

    func counter(_ name: String) async throws -> UInt64 {
        let body = try await sim("Counters")
        return UInt64(body.first?.stringKeyed?[name]?.integer ?? -1)
    }

    /// StartDiscovery on hci0, then waits until `path` has been added.
    func discover(_ path: String) async throws {
        _ = try await bluez("/org/bluez/hci0", "org.bluez.Adapter1", "StartDiscovery")
        try await waitForSignal("InterfacesAdded \(path)") { $0.isAdded(path) }
    }
}

extension DBusMessage {
    func isAdded(_ path: String) -> Bool { member == "InterfacesAdded" && body.first?.string == path }
    func isRemoved(_ path: String) -> Bool { member == "InterfacesRemoved" && body.first?.string == path }
    /// A PropertiesChanged on `path` that sets `property` (to `value`, when given).
    func changes(_ path: String, _ property: String, to value: DBusValue? = nil) -> Bool {
        guard member == "PropertiesChanged", self.path == path, body.count == 3, let changed = body[1].stringKeyed,
              let new = changed[property] else { return false }
        return value.map { new.unwrapped == $0 } ?? true
    }
}

/// Signals in arrival order, shared between the recording task and the test.
final class SignalLog: Sendable {
    let messages = Mutex<[DBusMessage]>([])
}
