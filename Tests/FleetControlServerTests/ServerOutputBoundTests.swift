import FleetCLI
import FleetControlServer
import FleetProtocol
import FleetTestKit
import Foundation
import Synchronization
import Testing

/// What a client that does not read its replies may cost the server: a bounded amount of memory, for a bounded
/// time (issue 41, points 8 and 9).
@Suite struct ServerOutputBoundTests {
    /// The largest number of reply bytes any connection has had queued at once.
    static func peakQueued(_ fixture: ServerFixture) -> Int {
        fixture.server.statistics().connections.map(\.peakQueuedOutputBytes).max() ?? 0
    }

    /// `count` Readings calls as one run of frames, sent from a thread of its own on a connection it never reads.
    /// Returns the client (hang it up to end the sender) and the sender's task.
    static func pipeline(_ count: Int, limit: Int, to path: String) async throws -> (client: PipeliningClient, sender: Task<Void, any Error>) {
        let client = PipeliningClient()
        let sender = Task {
            try await offPool {
                let connection = try VarlinkConnection(path: path)
                client.hold(connection)
                let frame = try FleetRequest.readings(device: "a1b2c3d4e5", since: nil, limit: limit).call().frame
                var frames: [UInt8] = []
                frames.reserveCapacity(frame.count * count)
                for _ in 0..<count { frames += frame }
                // Blocks once the server stops reading; ends when the test hangs up.
                do { try connection.sendRaw(frames) } catch FleetClientError.connectionClosed {} catch FleetClientError.io {}
                // Held open, unread, until the test hangs up (only hang-up is asked for, never input).
                var hangup = pollfd(fd: connection.descriptor, events: 0, revents: 0)
                while hangup.revents & Int16(POLLHUP) == 0 { _ = poll(&hangup, 1, -1) }
            }
        }
        try await waitUntil("the pipelining client connected") { client.isConnected }
        return (client, sender)
    }

    @Test func aClientPipeliningReadingsWithoutReadingIsHeldToTheOutputBound() async throws {
        let backend = InMemoryBackend()
        await backend.setStored(count: 10_000, valueSize: 64)
        let bound = 256 * 1024
        let fixture = try ServerFixture(configure: { $0.maxBufferedOutputBytes = bound; $0.roomTimeout = .seconds(600) }, backend: backend)
        defer { fixture.stop() }
        let path = fixture.path
        // One reply of 100 stored values is about 28 KB: 3 000 of them would be 84 MB queued in the server.
        let calls = 3_000
        let (client, sender) = try await Self.pipeline(calls, limit: 100, to: path)
        // Either the server holds the calls back, or (without a bound) the replies it queued have passed the bound.
        try await waitUntil("the server waiting for the client to read, or past the bound", timeout: .seconds(60)) {
            fixture.server.statistics().connections.contains { $0.waitingForRoom } || Self.peakQueued(fixture) > bound
        }
        let status = try await offPool { try VarlinkConnection(path: path).call(.status, timeout: .seconds(30))["daemon"] != nil }
        #expect(status, "another client's Status is answered while one client is held back")
        let answered = await backend.readingsAnswered
        let peak = Self.peakQueued(fixture)
        print("pipelining client: \(answered) of \(calls) Readings calls run, at most \(peak) reply bytes queued (bound \(bound))")
        #expect(peak <= bound, "the connection's queued replies stayed under the bound: peak \(peak)")
        #expect(answered < 50, "the calls beyond the bound are not run until the client reads: \(answered) run")
        client.hangUp()
        try await sender.value
        try await waitUntil("the connection gone") { fixture.server.statistics().connections.isEmpty }
    }

    @Test func aReplyOverTheHardBoundClosesTheConnectionNamingThePeer() async throws {
        let backend = InMemoryBackend()
        await backend.setStored(count: 10_000, valueSize: 64)
        let fixture = try ServerFixture(configure: { $0.maxQueuedOutputBytes = 128 * 1024 }, backend: backend)
        defer { fixture.stop() }
        let path = fixture.path
        // 2 000 values are about 560 KB: more than the socket takes plus the hard bound, with the client not reading.
        let (client, sender) = try await Self.pipeline(4, limit: 2_000, to: path)
        try await waitUntil("the connection closed over the hard bound") { fixture.server.statistics().closedOverHardBound == 1 }
        client.hangUp()
        try await sender.value
        #expect(fixture.logs.all.contains { $0.contains("pid \(getpid())") && $0.contains("uid \(getuid())") && $0.contains("hard bound") },
                "\(fixture.logs.all)")
        #expect(try await offPool { try VarlinkConnection(path: path).call(.status, timeout: .seconds(30))["daemon"] != nil })
    }

    @Test func aStalledDurableWatchIsDisconnectedAfterTheRoomTimeoutAndItsCursorStays() async throws {
        let backend = InMemoryBackend()
        // Far more than the socket buffers and the 64 KiB bound hold: the stream has to wait for the client.
        await backend.setStored(count: 20_000, valueSize: 256)
        let fixture = try ServerFixture(configure: { $0.maxBufferedOutputBytes = 64 * 1024; $0.roomTimeout = .milliseconds(500) },
                                        backend: backend)
        defer { fixture.stop() }
        let path = fixture.path
        let acknowledged = try await offPool {
            try VarlinkConnection(path: path).call(.acknowledge, ["consumer": .string("archiver"), "cursor": .int(7)], timeout: .seconds(30))["cursor"]?.intValue
        }
        let watcher = try await offPool { () throws -> Held in
            let watcher = try VarlinkConnection(path: path)
            try watcher.send(try FleetRequest.watch(device: nil, consumer: "archiver").call())
            return Held(watcher)
        }
        // Not reading until the server has given up on this client.
        do {
            try await waitUntil("the stalled watcher disconnected") { fixture.server.statistics().closedStalled > 0 }
        } catch {
            throw TestKitError("\(error): \(fixture.server.statistics()); log: \(fixture.logs.all)")
        }
        let (received, ended) = try await offPool { () -> (Int, Bool) in
            var received = 0
            while true {
                do {
                    _ = try watcher.connection.receive(timeout: .seconds(10))
                    received += 1
                } catch FleetClientError.connectionClosed {
                    return (received, true)
                } catch {
                    return (received, false)
                }
            }
        }
        #expect(acknowledged == 7)
        #expect(fixture.server.statistics().closedStalled == 1, "the stalled watcher was disconnected")
        #expect(ended, "the watcher reads what was sent, then the end of the connection")
        #expect(received > 0 && received < 20_000, "\(received) values reached the watcher before it was cut off")
        #expect(await backend.consumerCursors["archiver"] == 7, "the cursor stays where it was acknowledged")
        #expect(await backend.acknowledgements.count == 1)
        #expect(fixture.logs.all.contains { $0.contains("pid \(getpid())") && $0.contains("uid \(getuid())") && $0.contains("read none") },
                "the disconnection is logged with its reason and the peer: \(fixture.logs.all)")
    }

    @Test func aPipeliningClientThatNeverReadsIsDisconnectedAfterTheRoomTimeout() async throws {
        let backend = InMemoryBackend()
        await backend.setStored(count: 10_000, valueSize: 64)
        let fixture = try ServerFixture(configure: { $0.maxBufferedOutputBytes = 64 * 1024; $0.roomTimeout = .milliseconds(500) },
                                        backend: backend)
        defer { fixture.stop() }
        let (client, sender) = try await Self.pipeline(1_000, limit: 100, to: fixture.path)
        try await waitUntil("the stalled client disconnected") { fixture.server.statistics().closedStalled == 1 }
        client.hangUp()
        try await sender.value
        #expect(fixture.server.statistics().connections.isEmpty)
    }

    @Test func aDurableWatchThatKeepsReadingIsNeverCutOff() async throws {
        let backend = InMemoryBackend()
        await backend.setStored(count: 5_000, valueSize: 256)
        let fixture = try ServerFixture(configure: { $0.maxBufferedOutputBytes = 64 * 1024; $0.roomTimeout = .milliseconds(500) },
                                        backend: backend)
        defer { fixture.stop() }
        let path = fixture.path
        let cursors = try await offPool { () throws -> [Int] in
            let watcher = try VarlinkConnection(path: path)
            try watcher.send(try FleetRequest.watch(device: nil, since: 0).call())
            var cursors: [Int] = []
            while cursors.count < 5_000 {
                let (_, update) = try watcher.receive(as: WatchUpdate.self, timeout: .seconds(30))
                if let cursor = update?.event.stored?.cursor { cursors.append(Int(cursor)) }
            }
            return cursors
        }
        #expect(cursors == Array(1...5_000))
        #expect(fixture.server.statistics().closedStalled == 0)
    }
}

/// The pipelining client's connection, held here until the test hangs up. The sender returns as soon as the server
/// closes, so if the sender owned the connection its descriptor would be closed by then, and a `shutdown` of the bare
/// number could hit whatever socket another test had been given that number for (it did: other tests' connections
/// were cut, "fleetd closed the connection"). Held here, the number stays this connection's until `hangUp`.
final class PipeliningClient: @unchecked Sendable {
    private let connection = Mutex<VarlinkConnectionBox?>(nil)
    private let connected = Atomic<Bool>(false)

    private struct VarlinkConnectionBox: @unchecked Sendable { let connection: VarlinkConnection }

    func hold(_ connection: VarlinkConnection) {
        self.connection.withLock { $0 = VarlinkConnectionBox(connection: connection) }
        connected.store(true, ordering: .releasing)
    }

    var isConnected: Bool { connected.load(ordering: .acquiring) }

    /// Shuts the socket down (the sender sees the hang-up and returns) and lets go of the connection.
    func hangUp() {
        connection.withLock { held in
            if let held { shutdown(held.connection.descriptor, Int32(SHUT_RDWR)) }
            held = nil
        }
    }
}

/// A connection handed between the test and `offPool`, used by one of them at a time.
private final class Held: @unchecked Sendable {
    let connection: VarlinkConnection
    init(_ connection: VarlinkConnection) { self.connection = connection }
}
