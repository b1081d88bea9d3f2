import FleetCLI
import FleetControlServer
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// Consumer names fleetd keeps for its own consumers (`mqtt`, the publisher's): a client of the control socket can
/// neither watch from their cursors nor acknowledge them forward (issue 41, point 3).
@Suite struct ReservedConsumerTests {
    /// The error a call got, or nil when it was answered.
    static func error(of call: VarlinkCall, on connection: VarlinkConnection) throws -> VarlinkError? {
        try connection.send(call)
        return try connection.receive(timeout: .seconds(30)).varlinkError
    }

    @Test(arguments: ["mqtt", "MQTT", "fhir", "fleetd", "fleetd-archive", "_private"])
    func aReservedConsumerIsRefusedOnTheControlSocket(name: String) async throws {
        let backend = InMemoryBackend()
        await backend.setStored(count: 50)
        await backend.setConsumerCursor("mqtt", 10)
        let fixture = try ServerFixture(backend: backend)
        defer { fixture.stop() }
        let path = fixture.path
        let (acknowledged, watched) = try await offPool { () throws -> (VarlinkError?, VarlinkError?) in
            let connection = try VarlinkConnection(path: path)
            let acknowledged = try Self.error(of: try FleetRequest.acknowledge(consumer: name, cursor: 50).call(), on: connection)
            let watched = try Self.error(of: try FleetRequest.watch(device: nil, consumer: name).call(), on: connection)
            return (acknowledged, watched)
        }
        for refusal in [acknowledged, watched] {
            #expect(refusal?.name == "io.fleetd.Fleet.ReservedConsumer", "\(String(describing: refusal))")
            #expect(refusal?.parameters["consumer"]?.stringValue == name)
            #expect(refusal?.parameters["reserved"]?.stringValue.map { ["mqtt", "fhir", "fleetd*", "_*"].contains($0) } == true,
                    "the error names the reserved name or prefix: \(String(describing: refusal))")
        }
        #expect(await backend.acknowledgements.isEmpty, "nothing reached the outbox")
        #expect(await backend.durableWatches.isEmpty)
        #expect(await backend.consumerCursors["mqtt"] == 10, "the publisher's cursor did not move")
    }

    @Test func otherNamesAreServedAsBefore() async throws {
        let backend = InMemoryBackend()
        await backend.setStored(count: 5)
        let fixture = try ServerFixture(backend: backend)
        defer { fixture.stop() }
        let path = fixture.path
        let (cursor, firstEvent) = try await offPool { () throws -> (Int?, VarlinkReply) in
            let connection = try VarlinkConnection(path: path)
            let cursor = try connection.call(.acknowledge, ["consumer": .string("mqtt-dashboard"), "cursor": .int(3)], timeout: .seconds(30))["cursor"]?.intValue
            let watcher = try VarlinkConnection(path: path)
            try watcher.send(try FleetRequest.watch(device: nil, consumer: "archiver").call())
            return (cursor, try watcher.receive(timeout: .seconds(30)))
        }
        #expect(cursor == 3)
        #expect(firstEvent.varlinkError == nil && firstEvent.continues)
    }

    @Test func fleetctlSaysWhichNameIsReserved() async throws {
        let backend = InMemoryBackend()
        await backend.setStored(count: 5)
        let fixture = try ServerFixture(backend: backend)
        defer { fixture.stop() }
        let result = try await offPool { () -> (FleetctlExitCode, String) in
            var errors = ""
            let runner = FleetctlRunner(standardOutput: { _ in }, standardError: { errors += $0 }, colour: false)
            let code = runner.main(arguments: ["--socket", fixture.path, "watch", "--consumer", "mqtt", "--count", "1", "--timeout", "10"],
                                   environment: [:])
            return (code, errors)
        }
        #expect(result.0 == .usage, "\(result)")
        #expect(result.1.contains("mqtt") && result.1.contains("reserved"), "\(result.1)")
        #expect(await backend.acknowledgements.isEmpty)
    }
}
