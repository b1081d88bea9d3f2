import BlueZSimulator
import FleetPlatform
import FleetTestKit
import Foundation
import Synchronization
import Testing

/// Pairing over a private bus: a real Agent1 object on its own connection, called by the simulator, and
/// the real bluetoothctl's agent.
@Suite struct PairingBusTests {
    static let scenario = """
    device meter address=C0:FF:EE:00:00:01 name=Meter profile=glucose io=display-only passkey=123456 security=2a18:encrypt interval=0.2
    """
    static let path = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
    static let manager = "org.bluez.AgentManager1"

    /// An agent that records every call and answers RequestPasskey with `passkey`, or never when nil.
    final class RecordingAgent: Sendable {
        let connection: DBusConnection
        let tree: DBusObjectTree
        let log = CallLog()
        /// Never yields: a RequestPasskey without a passkey waits on it until the agent goes away.
        let never = AsyncStream<Never>.makeStream()

        init(address: String, passkey: UInt32?) throws {
            connection = try DBusConnection(address: address)
            tree = DBusObjectTree(connection: connection, objectManagerPath: "/test")
            let log = self.log
            let never = self.never.stream
            @Sendable func record(_ call: DBusMethodCall) { log.names.withLock { $0.append(call.message.member ?? "?") } }
            try tree.add(path: "/test/agent", interfaces: [(DBusInterfaceSpec(name: "org.bluez.Agent1", methods: [
                "RequestPasskey": DBusMethod(in: "o", out: "u") { call in
                    record(call)
                    guard let passkey else {
                        // Never answers: the pairing must end without this agent.
                        for await _ in never {}
                        throw DBusError.remote(name: "org.bluez.Error.Canceled", message: "agent gone")
                    }
                    return [.uint32(passkey)]
                },
                "Cancel": DBusMethod(immediate: { call in record(call); return [] }),
                "Release": DBusMethod(immediate: { call in record(call); return [] }),
            ]), [:])])
        }

        func register(capability: String = "KeyboardDisplay") async throws {
            _ = try await connection.call(destination: "org.bluez", path: "/org/bluez", interface: manager, member: "RegisterAgent",
                                          arguments: [.objectPath("/test/agent"), .string(capability)])
        }

        var recorded: [String] { log.names.withLock { $0 } }
        deinit {
            never.continuation.finish()
            connection.close()
        }
    }

    @Test func theSimulatorCallsTheRegisteredAgentAndPairSucceeds() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        let agent = try RecordingAgent(address: h.bus.address, passkey: 123456)
        try await agent.register()
        try await h.discover(Self.path)
        let start = h.signals.count
        _ = try await agent.connection.call(destination: "org.bluez", path: Self.path, interface: "org.bluez.Device1", member: "Pair")
        #expect(agent.recorded == ["RequestPasskey"])
        try await h.waitForSignal("Paired=true", after: start) { $0.changes(Self.path, "Paired", to: .boolean(true)) }
        let bonded = try await h.bluez(Self.path, "org.freedesktop.DBus.Properties", "Get", [.string("org.bluez.Device1"), .string("Bonded")])
        #expect(bonded.first?.unwrapped == .boolean(true))
        let read = try await h.bluez(Self.path + "/service000a/char000b", "org.bluez.GattCharacteristic1", "ReadValue", [.vardict([:])])
        #expect(read.first?.bytes?.count == 64, "the encrypted link serves the protected measurement")
    }

    @Test func cancelPairingReachesTheAgentAsCancel() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        let agent = try RecordingAgent(address: h.bus.address, passkey: nil)
        try await agent.register()
        try await h.discover(Self.path)
        let connection = agent.connection
        let pair = Task { () throws(DBusError) -> DBusMessage in
            try await connection.call(destination: "org.bluez", path: Self.path, interface: "org.bluez.Device1", member: "Pair")
        }
        try await waitUntil("RequestPasskey at the agent") { agent.recorded.contains("RequestPasskey") }
        _ = try await h.bluez(Self.path, "org.bluez.Device1", "CancelPairing")
        try await waitUntil("Cancel at the agent") { agent.recorded.contains("Cancel") }
        let outcome = await pair.result
        #expect(throws: DBusError.remote(name: "org.bluez.Error.AuthenticationCanceled", message: "Authentication Canceled",
                                         context: "org.bluez.Device1.Pair on \(Self.path)")) { try outcome.get() }
    }

    @Test func releaseOnlyWhenTheSimulatorExits() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        let agent = try RecordingAgent(address: h.bus.address, passkey: 1)
        try await agent.register()
        _ = try await agent.connection.call(destination: "org.bluez", path: "/org/bluez", interface: Self.manager, member: "UnregisterAgent",
                                            arguments: [.objectPath("/test/agent")])
        try await agent.register()
        await h.simulator.releaseAgents()
        try await waitUntil("Release at the agent") { agent.recorded.contains("Release") }
        #expect(agent.recorded == ["Release"], "UnregisterAgent sent none")
    }

    @Test func forgetBondAndBondsOnTheControlInterface() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        let agent = try RecordingAgent(address: h.bus.address, passkey: 123456)
        try await agent.register()
        try await h.discover(Self.path)
        _ = try await agent.connection.call(destination: "org.bluez", path: Self.path, interface: "org.bluez.Device1", member: "Pair")
        #expect(try await h.sim("Bonds", [.string("meter")]) == [.strings(["hci0"]), .strings(["hci0"])])
        _ = try await h.sim("ForgetBond", [.string("meter")])
        #expect(try await h.sim("Bonds", [.string("meter")]) == [.strings([]), .strings(["hci0"])])
        _ = try await h.bluez(Self.path, "org.bluez.Device1", "Disconnect")
        await #expect(throws: DBusError.remote(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local",
                                               context: "org.bluez.Device1.Connect on \(Self.path)")) {
            _ = try await h.bluez(Self.path, "org.bluez.Device1", "Connect")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/bluetoothctl")))
    func bluetoothctlPairsWithThePasskeyTypedAtItsAgent() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        let environment = h.bus.environment()
        try await offPool {
            let ctl = try InteractiveProcess("/usr/bin/bluetoothctl", [], environment: environment)
            try ctl.expect("Agent registered")
            try ctl.send("scan on")
            try ctl.expect("[NEW] Device C0:FF:EE:00:00:01 Meter")
            try ctl.send("pair C0:FF:EE:00:00:01")
            try ctl.expect("Attempting to pair with C0:FF:EE:00:00:01")
            try ctl.expect("Request passkey")
            try ctl.expect("Enter passkey (number in 0-999999):")
            try ctl.send("123456")
            try ctl.expect("Pairing successful")
            try ctl.send("info C0:FF:EE:00:00:01")
            try ctl.expect("Paired: yes")
            try ctl.expect("Bonded: yes")
            try ctl.send("quit")
        }
    }
}

/// Method names in arrival order, shared between an exported object's handlers and the test.
final class CallLog: Sendable {
    let names = Mutex<[String]>([])
}
