import FleetManager
import FleetPlatform
import FleetTestKit
import Foundation
import Pairing
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// fleetd's pairing agent against the simulator (the bluez-sim binary) on a private bus: registered by
/// fleetd's code, called by the simulator's Pair, answering a wanted device and refusing a stranger.
@Suite struct PairingAgentTests {
    static let scenario = """
    device meter address=C0:FF:EE:00:00:01 name=Meter profile=glucose io=display-only passkey=123456 security=encrypt interval=0.2
    device stranger address=C0:FF:EE:00:00:66 name=Intruder profile=battery io=display-only passkey=424242 interval=0.2
    """
    static let meter = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
    static let stranger = "/org/bluez/hci0/dev_C0_FF_EE_00_00_66"
    static let policy = PairingPolicy(method: .passkey(.value(Passkey(123456)!)))

    /// A bus, the simulator on it, and fleetd's agent on its own connection, registered.
    final class Rig: @unchecked Sendable {
        let bus: PrivateBus
        let simulator: ChildProcess
        let connection: DBusConnection
        let agent: PairingAgent
        let log = RecordingLogHandler()

        let released = CallCount()

        init(policy: PairingPolicy = PairingAgentTests.policy, requestDefault: Bool = false,
             lookup: (@Sendable (String) async -> PairingCandidate?)? = nil) async throws {
            bus = try PrivateBus()
            let scenarioPath = bus.directory.path + "/pairing.scenario"
            try PairingAgentTests.scenario.write(toFile: scenarioPath, atomically: true, encoding: .utf8)
            let watcher = try DBusConnection(address: bus.address)
            defer { watcher.close() }
            let owners = try await watcher.signals(matching: DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
                                                                           member: "NameOwnerChanged", arg0: "org.bluez"))
            simulator = try ChildProcess(BuildProducts.path("bluez-sim"), ["--bus", bus.address, "--scenario", scenarioPath],
                                         stdout: bus.directory.path + "/sim.out", stderr: bus.directory.path + "/sim.log")
            for await _ in owners { break }
            connection = try DBusConnection(address: bus.address)
            let tree = DBusObjectTree(connection: connection, objectManagerPath: "/io/fleetd")
            let logger = Logger(label: "pairing", level: .debug, handler: log)
            let released = self.released
            agent = PairingAgent(tree: tree, registration: AgentRegistration.plan(for: [policy], requestDefault: requestDefault),
                                 logger: logger, onRelease: { released.add() }) { path in
                if let lookup { return await lookup(path) }
                return path == PairingAgentTests.meter ? PairingCandidate(device: "mfr-meter", policy: policy) : nil
            }
            try await agent.register()
            _ = try await bluez("/org/bluez/hci0", "org.bluez.Adapter1", "StartDiscovery")
            try await waitUntil("both devices discovered", timeout: .seconds(20)) {
                let objects = try await self.connection.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                                                             member: "GetManagedObjects").body.first?.stringKeyed ?? [:]
                return objects[PairingAgentTests.meter] != nil && objects[PairingAgentTests.stranger] != nil
            }
        }

        func bluez(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) async throws(DBusError) -> [DBusValue] {
            try await connection.call(destination: "org.bluez", path: path, interface: interface, member: member, arguments: arguments).body
        }

        func pair(_ path: String) async -> Result<[DBusValue], DBusError> {
            do throws(DBusError) { return .success(try await bluez(path, "org.bluez.Device1", "Pair")) } catch { return .failure(error) }
        }

        deinit {
            connection.close()
            try? simulator.kill(signal: SIGKILL)
            _ = simulator.wait()
        }
    }

    @Test func aWantedDeviceGetsItsPasskeyAndAStrangerIsRefusedWithALogLine() async throws {
        let rig = try await Rig()
        #expect(rig.agent.isRegistered)
        #expect(rig.log.records.contains { $0.message == "pairing agent registered as KeyboardDisplay" })

        let paired = await rig.pair(Self.meter)
        #expect((try? paired.get()) != nil, "Pair of the wanted meter: \(paired)")
        let bonded = try await rig.bluez(Self.meter, "org.freedesktop.DBus.Properties", "Get", [.string("org.bluez.Device1"), .string("Bonded")])
        #expect(bonded.first?.unwrapped == .boolean(true))
        #expect(rig.log.records.contains { $0.message == "gave the configured passkey to mfr-meter" && $0.metadata["request"] == "RequestPasskey" })

        let refused = await rig.pair(Self.stranger)
        guard case .failure(let error) = refused else { Issue.record("a stranger paired"); return }
        #expect(error.name == "org.bluez.Error.AuthenticationFailed" && error.message == "Authentication Failed")
        let line = try #require(rig.log.records.first { $0.metadata["reason"] == "stranger" })
        #expect(line.level == .warning)
        #expect(line.message == "refused RequestPasskey from \(Self.stranger): not a wanted device: strangers may not pair")
        #expect(line.metadata["device_path"] == Self.stranger && line.metadata["device"] == nil)
    }

    /// Issue 41, point 10, through the simulator's Pair: a first pairing of an identity read from advertised bytes is
    /// logged at warning; an object claiming a bonded device's identity from another address is refused.
    @Test func spoofableIdentitiesAreSaidAndABondElsewhereRefuses() async throws {
        let first = try await Rig(lookup: { path in
            path == PairingAgentTests.meter ? PairingCandidate(device: "mfr-meter", policy: PairingAgentTests.policy, spoofableFirstPairing: true) : nil
        })
        let paired = await first.pair(Self.meter)
        #expect((try? paired.get()) != nil, "\(paired)")
        #expect(first.log.records.contains { $0.metadata["reason"] == "spoofable-identity" && $0.level == .warning })

        let second = try await Rig(lookup: { path in
            path == PairingAgentTests.meter ? PairingCandidate(device: "mfr-meter", policy: PairingAgentTests.policy, bondedAt: "C0:FF:EE:00:00:99") : nil
        })
        let refused = await second.pair(Self.meter)
        #expect((try? refused.get()) == nil, "\(refused)")
        #expect(second.log.records.contains { $0.metadata["reason"] == "bonded-elsewhere" })
        #expect(!second.log.records.contains { $0.message.contains("gave the configured passkey") })
    }

    /// Issue 41, point 16: before, any process on the bus that could reach the agent (a missing or edited policy
    /// file) was given the configured passkey.
    @Test func aCallerThatIsNotBlueZIsRefusedAndGetsNoPasskey() async throws {
        let rig = try await Rig()
        let impostor = try DBusConnection(address: rig.bus.address)
        defer { impostor.close() }
        let agentName = rig.connection.uniqueName
        let refused = await #expect(throws: DBusError.self) {
            try await impostor.call(destination: agentName, path: PairingAgent.path, interface: PairingAgent.interface,
                                    member: "RequestPasskey", arguments: [.objectPath(PairingAgentTests.meter)])
        }
        #expect(refused?.name == "org.bluez.Error.Rejected", "\(String(describing: refused))")
        let release = await #expect(throws: DBusError.self) {
            try await impostor.call(destination: agentName, path: PairingAgent.path, interface: PairingAgent.interface, member: "Release")
        }
        #expect(release?.name == "org.bluez.Error.Rejected")
        #expect(rig.agent.isRegistered, "a Release from an impostor does not unregister the agent")
        #expect(rig.log.records.contains { $0.metadata["reason"] == "not-bluez" })
        #expect(!rig.log.records.contains { $0.message.contains("gave the configured passkey") })
    }

    @Test func aPasskeyFileTooOpenIsRefusedNamingTheFileAndMode() async throws {
        let directory = try TemporaryDirectory(prefix: "fleet-passkey")
        let file = directory.path + "/meter.passkey"
        try "123456\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        let rig = try await Rig(policy: PairingPolicy(method: .passkey(.file(path: file))))
        let refused = await rig.pair(Self.meter)
        guard case .failure(let error) = refused else { Issue.record("paired with a world-readable passkey file"); return }
        #expect(error.name == "org.bluez.Error.AuthenticationFailed")
        let line = try #require(rig.log.records.first { $0.metadata["reason"] == "passkey-unavailable" })
        #expect(line.message.contains("passkey-file \(file) has mode 0644: group-readable, world-readable"))

        chmod(file, 0o600)
        let paired = await rig.pair(Self.meter)
        #expect((try? paired.get()) != nil, "with mode 0600 the same file works: \(paired)")
    }

    @Test func requestDefaultAgentWhenConfigured() async throws {
        let rig = try await Rig(requestDefault: true)
        #expect(rig.log.records.contains { $0.message == "pairing agent registered as KeyboardDisplay, default agent" })
        try await rig.agent.unregister()
        #expect(!rig.agent.isRegistered)
        let again = await Result { () async throws(DBusError) -> [DBusValue] in
            try await rig.bluez("/org/bluez", "org.bluez.AgentManager1", "RequestDefaultAgent", [.objectPath(PairingAgent.path)])
        }
        #expect(again.failureName == "org.bluez.Error.DoesNotExist", "unregistered")
    }
}

extension PairingAgentTests {
    @Test func cancelFromBlueZTurnsAnAnswerInFlightIntoCanceled() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let asked = CallCount()
        let rig = try await Rig { path in
            asked.add()
            for await _ in gate.stream { break }
            return PairingCandidate(device: "mfr-meter", policy: PairingAgentTests.policy)
        }
        let connection = rig.connection
        let pair = Task { () async -> Result<[DBusValue], DBusError> in
            await Result { () async throws(DBusError) -> [DBusValue] in
                try await connection.call(destination: "org.bluez", path: PairingAgentTests.meter, interface: "org.bluez.Device1", member: "Pair").body
            }
        }
        try await waitUntil("the agent to be asked") { asked.value == 1 }
        _ = try await rig.bluez(Self.meter, "org.bluez.Device1", "CancelPairing")
        try await waitUntil("Cancel to reach the agent") { rig.log.records.contains { $0.message == "BlueZ cancelled the pending pairing request" } }
        gate.continuation.yield()
        #expect(await pair.value.failureName == "org.bluez.Error.AuthenticationCanceled")
        try await waitUntil("the late answer to be logged") { rig.log.records.contains { $0.message.contains("was cancelled by BlueZ before fleetd answered") } }
    }

    @Test func releaseWhenBlueZExits() async throws {
        let rig = try await Rig()
        try rig.simulator.kill(signal: SIGTERM)
        try await waitUntil("Release") { rig.released.value == 1 }
        #expect(!rig.agent.isRegistered)
        #expect(rig.log.records.contains { $0.message == "BlueZ released the pairing agent" })
    }
}

/// Counts calls from any thread.
final class CallCount: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

@Suite struct PasskeyFileTests {
    @Test func readsSixDigitsFromAPrivateFile() throws {
        let directory = try TemporaryDirectory(prefix: "fleet-passkey")
        let file = directory.path + "/p"
        try "012345\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o400)
        #expect(try PasskeyFile.read(file) == Passkey(12345))
    }

    @Test func refusesOpenMissingOddAndMalformedFiles() throws {
        let directory = try TemporaryDirectory(prefix: "fleet-passkey")
        let file = directory.path + "/p"
        try "123456".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o640)
        #expect(throws: PasskeyFileError.tooOpen(path: file, mode: 0o640, problem: "group-readable; it must be 0600 or 0400")) {
            try PasskeyFile.read(file)
        }
        #expect(PasskeyFileError.tooOpen(path: file, mode: 0o640, problem: "x").description == "passkey-file \(file) has mode 0640: x")
        chmod(file, 0o600)
        try "12 34".write(toFile: file, atomically: false, encoding: .utf8)
        #expect(throws: PasskeyFileError.malformed(path: file)) { try PasskeyFile.read(file) }
        #expect(throws: PasskeyFileError.notARegularFile(path: directory.path)) { try PasskeyFile.read(directory.path) }
        #expect((try? PasskeyFile.read(directory.path + "/absent")) == nil)
        #expect(PasskeyFile.resolve(PairingCandidate(device: "d", policy: PairingPolicy(method: .passkey(.file(path: directory.path + "/absent")))))
                .passkey == .unavailable(reason: "passkey-file \(directory.path)/absent cannot be read: No such file or directory"))
    }
}

extension Result where Failure == DBusError {
    init(_ body: () async throws(DBusError) -> Success) async {
        do throws(DBusError) { self = .success(try await body()) } catch { self = .failure(error) }
    }
    var failureName: String? { if case .failure(let e) = self { e.name } else { nil } }
}
