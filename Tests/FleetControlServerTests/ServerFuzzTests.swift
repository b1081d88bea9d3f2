import Policy
import FleetPlatform
import FleetCLI
import FleetControlServer
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// ≥100 000 seeded malformed or random frames over the socket; the server must keep answering Status.
@Suite struct ServerFuzzTests {
    /// A frame built from a valid call by one random mutation, or plain random bytes.
    static func frame(_ random: inout SplitMix64) -> [UInt8] {
        let methods = ["io.fleetd.Fleet.Status", "io.fleetd.Fleet.ShowDevice", "io.fleetd.Fleet.Write", "io.fleetd.Fleet.Connect",
                       "io.fleetd.Fleet.Watch", "org.varlink.service.GetInterfaceDescription", "io.fleetd.Fleet.Nope", "x", ""]
        let values: [JSONValue] = [.null, .bool(true), .int(-1), .number(1e300), .string(""), .string("a1b2"), .string("\u{0}\u{FFFF}"),
                                   .array([.int(1)]), .object(["device": .int(1)])]
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        var parameters: [String: JSONValue] = [:]
        for _ in 0..<Int(random.next() % 4) {
            parameters[pick(["device", "characteristic", "value", "withResponse", "interface", "policyClass", ""])] = pick(values)
        }
        // Watch is excluded from `more` so fuzz calls never open an endless stream.
        var call: [String: JSONValue] = ["method": .string(pick(methods)), "parameters": .object(parameters),
                                         "oneway": random.next() % 8 == 0 ? .bool(true) : pick([.null, .bool(false)])]
        if random.next() % 10 == 0 { call["parameters"] = pick(values) }
        if random.next() % 10 == 0 { call["method"] = pick(values) }
        var bytes = Array(JSONValue.object(call).serialized.utf8)
        switch random.next() % 10 {
        case 0: // random bytes with no NUL
            bytes = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next() % 255 + 1) }
        case 1: // truncated
            bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
        case 2: // one byte flipped (never to NUL)
            if !bytes.isEmpty { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next() % 255 + 1) }
        default: break
        }
        return bytes + [0]
    }

    @Test func hundredThousandFramesThenStatusStillAnswers() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let path = fixture.path
        let perWorker = 25_000
        let counts = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for worker in 0..<4 {
                group.addTask {
                    try await offPool {
                        var random = SplitMix64(seed: 0xF1EE7D + UInt64(worker))
                        var connection = try VarlinkConnection(path: path)
                        var replies = 0
                        var reconnects = 0
                        for _ in 0..<perWorker {
                            let frame = Self.frame(&random)
                            let oneway = (try? JSONValue.parse(Array(frame.dropLast())))?.objectValue?["oneway"] == .bool(true)
                            do {
                                try connection.sendRaw(frame)
                                if oneway { continue }
                                let reply = try connection.receive(timeout: .seconds(20))
                                replies += 1
                                // A framing-level error closes the connection; start a new one like a real client.
                                if reply.error == "io.fleetd.Fleet.InvalidRequest",
                                   (try? JSONValue.parse(Array(frame.dropLast())))?.objectValue == nil {
                                    connection = try VarlinkConnection(path: path)
                                    reconnects += 1
                                }
                            } catch FleetClientError.connectionClosed {
                                connection = try VarlinkConnection(path: path)
                                reconnects += 1
                            }
                        }
                        return (replies, reconnects)
                    }
                }
            }
            return try await group.reduce(into: [(Int, Int)]()) { $0.append($1) }
        }
        let status = try await offPool { try VarlinkConnection(path: path).call(.status, timeout: .seconds(30)) }
        #expect(status["daemon"] != nil)
        let replies = counts.map(\.0).reduce(0, +)
        #expect(replies > 50_000, "most frames are answered, not dropped")
        #expect(counts.map(\.1).reduce(0, +) > 1000, "malformed frames did close connections")
    }
}
