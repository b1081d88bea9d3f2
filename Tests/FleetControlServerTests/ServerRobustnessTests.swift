import FleetCLI
import FleetControlServer
import FleetProtocol
import FleetTestKit
import Foundation
import Synchronization
import Testing

/// Misbehaving clients: each gets the right error and only its own connection suffers.
@Suite struct ServerRobustnessTests {
    static func statusAnswers(_ path: String) throws -> Bool {
        let connection = try VarlinkConnection(path: path)
        return try connection.call(.status, timeout: .seconds(30))["daemon"] != nil
    }

    @Test func oversizedRequestGetsAnErrorThenTheConnectionCloses() async throws {
        let fixture = try ServerFixture(configure: { $0.maxRequestBytes = 1024 })
        defer { fixture.stop() }
        let path = fixture.path
        let (reply, after) = try await offPool { () throws -> (VarlinkReply, FleetClientError?) in
            let connection = try VarlinkConnection(path: path)
            try connection.sendRaw(Array(repeating: UInt8(ascii: "x"), count: 4096))
            let reply = try connection.receive(timeout: .seconds(30))
            do { _ = try connection.receive(timeout: .seconds(30)); return (reply, nil) } catch let error as FleetClientError { return (reply, error) }
        }
        #expect(reply.varlinkError == .requestTooLarge(limit: 1024))
        #expect(after == .connectionClosed)
        #expect(try await offPool { try Self.statusAnswers(path) })
    }

    @Test func invalidJSONClosesOnlyThatConnection() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let path = fixture.path
        let outcome = try await offPool { () throws -> (String?, FleetClientError?, Bool) in
            let bystander = try VarlinkConnection(path: path)
            let offender = try VarlinkConnection(path: path)
            try offender.sendRaw(Array("{\"method\": ".utf8) + [0])
            let reply = try offender.receive(timeout: .seconds(30))
            var closed: FleetClientError?
            do { _ = try offender.call(.status, timeout: .seconds(30)) } catch let error as FleetClientError { closed = error }
            let stillServed = try bystander.call(.status, timeout: .seconds(30))["counts"] != nil
            return (reply.error, closed, stillServed)
        }
        #expect(outcome.0 == "io.fleetd.Fleet.InvalidRequest")
        #expect(outcome.1 == .connectionClosed)
        #expect(outcome.2)
    }

    @Test func jsonThatIsNotACallIsAnsweredAndTheConnectionCarriesOn() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let path = fixture.path
        let (first, second) = try await offPool { () throws -> (VarlinkReply, [String: JSONValue]) in
            let connection = try VarlinkConnection(path: path)
            try connection.sendRaw(Array("[1,2]".utf8) + [0])
            let first = try connection.receive(timeout: .seconds(30))
            return (first, try connection.call(.status, timeout: .seconds(30)))
        }
        #expect(first.error == "io.fleetd.Fleet.InvalidRequest")
        #expect(second["daemon"] != nil)
    }

    @Test func aWatchClientThatStopsReadingIsDroppedWithSlowConsumer() async throws {
        let backend = InMemoryBackend()
        // Far more than the socket buffers plus the 64 KiB output bound can hold.
        await backend.setScriptedEvents(InMemoryBackend.lifecycleEvents(count: 20_000))
        let fixture = try ServerFixture(configure: { $0.maxBufferedOutputBytes = 64 * 1024; $0.slowConsumerGrace = .seconds(30) },
                                        backend: backend)
        defer { fixture.stop() }
        let path = fixture.path
        let logs = fixture.logs
        let (last, statusWhileStalled) = try await offPool { () throws -> (VarlinkReply?, Bool) in
            let watcher = try VarlinkConnection(path: path)
            try watcher.send(VarlinkCall(method: "io.fleetd.Fleet.Watch", more: true))
            // Not reading: wait until the server has given up on us, while another client is served normally.
            let deadline = ContinuousClock.now + .seconds(20)
            while !logs.all.contains(where: { $0.contains("stopped reading") }), ContinuousClock.now < deadline {
                _ = try Self.statusAnswers(path)
            }
            let served = try Self.statusAnswers(path)
            var last: VarlinkReply?
            while true {
                do { last = try watcher.receive(timeout: .seconds(30)) } catch { break }
                if last?.continues == false { break }
            }
            return (last, served)
        }
        #expect(statusWhileStalled)
        #expect(last?.error == "io.fleetd.Fleet.SlowConsumer")
        #expect(logs.all.contains { $0.contains("dropped a Watch client") })
    }

    @Test func fiftyConcurrentClientsPollingStatusAllGetAnswers() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let path = fixture.path
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await offPool {
                        let connection = try VarlinkConnection(path: path)
                        var count = 0
                        for _ in 0..<40 where try connection.call(.status, timeout: .seconds(20))["adapters"] != nil { count += 1 }
                        return count
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == 50 * 40)
    }
}
