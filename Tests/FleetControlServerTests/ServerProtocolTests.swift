import FleetCLI
import FleetControlServer
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// Varlink over a real Unix socket against the server and the in-memory backend.
@Suite struct ServerProtocolTests {
    /// Sends `call` on a fresh connection and returns the first reply.
    func exchange(_ fixture: ServerFixture, _ call: VarlinkCall) async throws -> VarlinkReply {
        let path = fixture.path
        return try await offPool {
            let connection = try VarlinkConnection(path: path)
            try connection.send(call)
            return try connection.receive(timeout: .seconds(30))
        }
    }

    func fleet(_ method: String, _ parameters: [String: JSONValue] = [:]) throws -> VarlinkCall {
        try VarlinkCall(method: "io.fleetd.Fleet." + method, parameters: parameters)
    }

    @Test func getInfoNamesBothInterfaces() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let reply = try await exchange(fixture, VarlinkCall(method: "org.varlink.service.GetInfo"))
        #expect(reply.error == nil)
        #expect(reply.untypedParameters["version"] == .string("0.1.0-test"))
        #expect(reply.untypedParameters["interfaces"] == .array([.string("org.varlink.service"), .string("io.fleetd.Fleet")]))
        for key in ["vendor", "product", "url"] { #expect(reply.untypedParameters[key]?.stringValue != nil) }
    }

    @Test func getInterfaceDescriptionServesTheDefinition() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let reply = try await exchange(fixture, try VarlinkCall(method: "org.varlink.service.GetInterfaceDescription",
                                                                parameters: ["interface": JSONValue.string("io.fleetd.Fleet")]))
        #expect(reply.untypedParameters["description"] == .string(FleetInterface.definition))
        let missing = try await exchange(fixture, try VarlinkCall(method: "org.varlink.service.GetInterfaceDescription",
                                                                  parameters: ["interface": JSONValue.string("com.example.Nope")]))
        #expect(missing.varlinkError == .interfaceNotFound("com.example.Nope"))
    }

    @Test func unknownInterfaceAndMethodGetStandardErrors() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        #expect(try await exchange(fixture, VarlinkCall(method: "com.example.X.Y")).varlinkError == .interfaceNotFound("com.example.X"))
        #expect(try await exchange(fixture, try fleet("Explode")).varlinkError == .methodNotFound("io.fleetd.Fleet.Explode"))
    }

    @Test func badParametersNameTheParameter() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        #expect(try await exchange(fixture, try fleet("ShowDevice")).varlinkError == .invalidParameter("device"))
        #expect(try await exchange(fixture, try fleet("ShowDevice", ["device": .int(3)])).varlinkError == .invalidParameter("device"))
        let badHex = try fleet("Write", ["device": .string("Kitchen Lamp"), "characteristic": .string("2a19"), "value": .string("xyz")])
        #expect(try await exchange(fixture, badHex).varlinkError == .invalidParameter("value"))
        let badFlag = try fleet("Write", ["device": .string("Kitchen Lamp"), "characteristic": .string("2a19"), "value": .string("01"),
                                      "withResponse": .string("yes")])
        #expect(try await exchange(fixture, badFlag).varlinkError == .invalidParameter("withResponse"))
    }

    @Test func statusAndListDevicesDecodeIntoTheModels() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let status = try await exchange(fixture, try fleet("Status")).parameters(as: StatusInfo.self)
        #expect(status == (try await fixture.backend.status()))
        let devices = try await exchange(fixture, try fleet("ListDevices")).parameters(as: DeviceList.self).devices
        #expect(devices == (await fixture.backend.devices))
    }

    @Test func backendErrorsBecomeTypedFleetErrors() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let ambiguous = try await exchange(fixture, try fleet("ShowDevice", ["device": .string("a1b2")]))
        #expect(ambiguous.varlinkError == FleetControlError.ambiguousDevice(reference: "a1b2", candidates: ["a1b2c3d4e5", "a1b2ff0011"]).varlinkError)
        let missing = try await exchange(fixture, try fleet("Connect", ["device": .string("nope")]))
        #expect(missing.error == "io.fleetd.Fleet.DeviceNotFound")
        let notConnected = try await exchange(fixture, try fleet("Read", ["device": .string("Hall Lamp"), "characteristic": .string("2a19")]))
        #expect(notConnected.varlinkError == FleetControlError.notConnected(device: "a1b2ff0011").varlinkError)
        let noChar = try await exchange(fixture, try fleet("Read", ["device": .string("Kitchen Lamp"), "characteristic": .string("ffff")]))
        #expect(noChar.error == "io.fleetd.Fleet.CharacteristicNotFound")
        let bluez = try await exchange(fixture, try fleet("Write", ["device": .string("c0ffee"), "characteristic": .string("9999"), "value": .string("01")]))
        #expect(bluez.varlinkError == VarlinkError(name: "io.fleetd.Fleet.BlueZError",
                                                   parameters: ["name": .string("org.bluez.Error.NotPermitted"), "message": .string("Write not permitted")]))
        let policy = try await exchange(fixture, try fleet("SetPolicy", ["device": .string("c0ffee"), "policyClass": .string("vip")]))
        #expect(policy.error == "io.fleetd.Fleet.InvalidPolicyClass")
    }

    @Test func mutationsReachTheBackend() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let connect = try await exchange(fixture, try fleet("Connect", ["device": .string("Hall Lamp")]))
        #expect(try connect.parameters(as: ConnectOutcome.self).evicted == "c0ffee0042")
        let write = try await exchange(fixture, try fleet("Write", ["device": .string("AA:BB:CC:DD:EE:01"), "characteristic": .string("2a19"),
                                                                "value": .string("0a0b"), "withResponse": .bool(false)]))
        #expect(write.error == nil)
        let writes = await fixture.backend.writes
        #expect(writes.count == 1 && writes.first?.value == [0x0A, 0x0B] && writes.first?.withResponse == false)
        let read = try await exchange(fixture, try fleet("Read", ["device": .string("a1b2c"), "characteristic": .string("2a19")]))
        #expect(read.untypedParameters["value"] == .string("0a0b"))
        let policy = try await exchange(fixture, try fleet("SetPolicy", ["device": .string("c0ffee"), "policyClass": .string("background")]))
        #expect(policy.untypedParameters == ["device": JSONValue.string("c0ffee0042"), "policyClass": .string("background")])
        let forget = try await exchange(fixture, try fleet("Forget", ["device": .string("Thermometer")]))
        #expect(forget.untypedParameters["device"] == .string("c0ffee0042"))
        #expect(await fixture.backend.devices.count == 2)
    }

    @Test func watchStreamsEventsWithContinues() async throws {
        let backend = InMemoryBackend()
        await backend.setScriptedEvents(InMemoryBackend.lifecycleEvents(count: 5))
        let fixture = try ServerFixture(backend: backend)
        defer { fixture.stop() }
        let path = fixture.path
        let replies = try await offPool {
            let connection = try VarlinkConnection(path: path)
            try connection.send(VarlinkCall(method: "io.fleetd.Fleet.Watch", more: true))
            return try (0..<5).map { _ in try connection.receive(timeout: .seconds(30)) }
        }
        #expect(replies.allSatisfy { $0.continues })
        let events = try replies.map { try $0.parameters(as: WatchUpdate.self).event }
        #expect(events == InMemoryBackend.lifecycleEvents(count: 5))
        let withoutMore = try await exchange(fixture, try fleet("Watch"))
        #expect(withoutMore.varlinkError == .expectedMore)
    }

    @Test func onewayCallsGetNoReplyButStillRun() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let path = fixture.path
        let next = try await offPool {
            let connection = try VarlinkConnection(path: path)
            try connection.send(VarlinkCall(method: "io.fleetd.Fleet.Reload", oneway: true))
            try connection.send(VarlinkCall(method: "io.fleetd.Fleet.Metrics"))
            return try connection.receive(timeout: .seconds(30))
        }
        #expect(next.untypedParameters["text"]?.stringValue?.contains("fleetd_devices_wanted 3") == true)
        #expect(await fixture.backend.reloads == 1)
    }

    @Test func pipelinedCallsAreAnsweredInOrder() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let path = fixture.path
        let replies = try await offPool {
            let connection = try VarlinkConnection(path: path)
            var frames: [UInt8] = []
            for method in ["Status", "ListDevices", "Metrics", "Status"] {
                frames += VarlinkCall(method: "io.fleetd.Fleet." + method).frame
            }
            try connection.sendRaw(frames)
            return try (0..<4).map { _ in try connection.receive(timeout: .seconds(30)) }
        }
        #expect(replies.map { $0.untypedParameters.keys.sorted().first } == ["adapters", "devices", "text", "adapters"])
    }

    @Test func staleSocketFileIsReplacedAndAnotherFileIsNot() throws {
        let first = try ServerFixture()
        let path = first.path
        // Simulate a crash: the socket file stays behind, nobody listens.
        first.server.stop()
        let socketFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketFD) }
        #expect(FileManager.default.createFile(atPath: path + ".plain", contents: Data("x".utf8)))
        #expect(throws: ControlSocketError.self) {
            _ = try VarlinkServer(configuration: .init(socketPath: path + ".plain"),
                                  service: FleetService(backend: InMemoryBackend(), info: ServiceInfo(version: "t")))
        }
        unlink(path + ".plain")
        let second = try VarlinkServer(configuration: .init(socketPath: path), service: FleetService(backend: InMemoryBackend(), info: ServiceInfo(version: "t")))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        second.stop()
        #expect(access(path, F_OK) != 0, "stop() removes the socket file it created")
        rmdir(first.directory)
    }

    @Test func socketGetsTheControlGroup() throws {
        let fixture = try ServerFixture(configure: { $0.controlGroup = "root" })
        defer { fixture.stop() }
        var info = stat()
        #expect(stat(fixture.path, &info) == 0)
        #expect(info.st_gid == 0)
        #expect(throws: ControlSocketError.self) {
            _ = try VarlinkServer(configuration: .init(socketPath: fixture.directory + "/other.sock", controlGroup: "no-such-group-fleetd"),
                                  service: FleetService(backend: InMemoryBackend(), info: ServiceInfo(version: "t")))
        }
    }

    @Test func socketActivationDescriptorFollowsSdListenFds() {
        #expect(ListeningSocket.activationDescriptor(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "1"], pid: 42) == 3)
        #expect(ListeningSocket.activationDescriptor(environment: ["LISTEN_PID": "41", "LISTEN_FDS": "1"], pid: 42) == nil)
        #expect(ListeningSocket.activationDescriptor(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "0"], pid: 42) == nil)
        #expect(ListeningSocket.activationDescriptor(environment: [:], pid: 42) == nil)
    }
}
