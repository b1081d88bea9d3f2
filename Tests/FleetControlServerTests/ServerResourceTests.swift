import FleetCLI
import FleetControlServer
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// Descriptors are finite: clients that hold connections without asking anything, one user opening many,
/// and a process at its open-file limit must not wear the server down or make it spin.
@Suite struct ServerResourceTests {
    /// True when the server closed `connection` (end of stream) within `timeout`; false if it stayed open.
    static func closedByServer(_ connection: VarlinkConnection, within timeout: Duration) throws -> Bool {
        do {
            _ = try connection.receiveFrame(timeout: timeout)
            throw TestKitError("the server sent a frame on a connection that asked nothing")
        } catch FleetClientError.connectionClosed {
            return true
        } catch FleetClientError.timedOut {
            return false
        }
    }

    @Test func silentAndHalfSentConnectionsAreClosedAfterTheIdleTimeout() async throws {
        let fixture = try ServerFixture(configure: { $0.idleTimeout = .milliseconds(300) })
        defer { fixture.stop() }
        let path = fixture.path
        let (silent, halfSent, answered) = try await offPool { () throws -> (Bool, Bool, Bool) in
            let silent = try VarlinkConnection(path: path)
            let halfSent = try VarlinkConnection(path: path)
            try halfSent.sendRaw(Array(#"{"method":"io.fleetd.Fleet.Sta"#.utf8))
            let closedSilent = try Self.closedByServer(silent, within: .seconds(30))
            let closedHalf = try Self.closedByServer(halfSent, within: .seconds(30))
            return (closedSilent, closedHalf, try VarlinkConnection(path: path).call(.status, timeout: .seconds(30))["daemon"] != nil)
        }
        #expect(silent, "a connection that never sent a request is closed")
        #expect(halfSent, "a connection holding half a request is closed")
        #expect(answered)
        #expect(fixture.logs.all.contains { $0.contains("closed an idle control connection") })
    }

    @Test func aStreamingWatchAndABusyClientAreNotIdle() async throws {
        let idleTimeout = Duration.milliseconds(300)
        let fixture = try ServerFixture(configure: { $0.idleTimeout = idleTimeout })
        defer { fixture.stop() }
        let path = fixture.path
        let (watcherClosed, busyAnsweredInTime) = try await offPool { () throws -> (Bool, Int) in
            let watcher = try VarlinkConnection(path: path)
            try watcher.send(FleetRequest.watch(device: nil).call())
            // The server's idle clock for `busy` cannot start before this: just before it connects, then each request sent.
            var lastAsked = ContinuousClock.now
            var busy = try VarlinkConnection(path: path)
            var answeredInTime = 0
            // A stall of the test process longer than the idle timeout rightly gets `busy` closed; only a close sooner
            // than the timeout after the last request (measured to when the close is seen, so never short) is wrong.
            func ask() throws {
                while true {
                    let asking = ContinuousClock.now
                    do {
                        _ = try busy.call(.status, timeout: .seconds(30))
                        if asking - lastAsked < idleTimeout { answeredInTime += 1 }
                        lastAsked = asking
                        return
                    } catch FleetClientError.connectionClosed where ContinuousClock.now - lastAsked >= idleTimeout {
                        lastAsked = ContinuousClock.now
                        busy = try VarlinkConnection(path: path)
                    }
                }
            }
            // Twelve rounds of 100 ms: four idle timeouts pass while the Watch is open and the other client keeps asking.
            for _ in 0..<12 {
                try ask()
                if try Self.closedByServer(watcher, within: .milliseconds(100)) { return (true, answeredInTime) }
            }
            try ask()
            return (false, answeredInTime)
        }
        #expect(!watcherClosed, "a Watch in progress is not idle, however quiet the fleet")
        #expect(busyAnsweredInTime > 0, "no request came within the idle timeout of the one before")
    }

    @Test func oneUserMayHoldOnlySoManyConnections() async throws {
        let fixture = try ServerFixture(configure: { $0.maxConnectionsPerPeer = 3 })
        defer { fixture.stop() }
        let path = fixture.path
        let (fourthClosed, afterOneLeft) = try await offPool { () throws -> (Bool, Bool) in
            var held = try (0..<3).map { _ in try VarlinkConnection(path: path) }
            for connection in held { _ = try connection.call(.status, timeout: .seconds(30)) }
            let fourth = try VarlinkConnection(path: path)
            let fourthClosed = try Self.closedByServer(fourth, within: .seconds(30))
            held.removeFirst()
            // The server notices the departure on its own time: retry until the slot it held is free again.
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if let status = try? VarlinkConnection(path: path).call(.status, timeout: .seconds(30)), status["daemon"] != nil {
                    return (fourthClosed, true)
                }
            }
            return (fourthClosed, false)
        }
        #expect(fourthClosed, "a fourth connection of the same uid is closed at once")
        #expect(afterOneLeft, "a connection that closes gives its slot back")
        #expect(fixture.logs.all.contains { $0.contains("already holds 3 connections") })
    }

    @Test func atTheOpenFileLimitWaitingConnectionsAreShedNotSpunOn() async throws {
        let directory = try TemporaryDirectory(prefix: "fleet-control-probe")
        let socket = directory.path + "/io.fleetd.sock", log = directory.path + "/stderr"
        let probe = try ChildProcess(BuildProducts.path("fleet-control-probe"),
                                     ["--socket", socket, "--nofile", "48", "--per-peer", "10000", "--max-clients", "10000", "--idle-timeout", "600"],
                                     stderr: log)
        defer { try? probe.kill(signal: SIGKILL) }
        try await waitUntil("the probe listening") { (try? VarlinkConnection(path: socket)) != nil }

        let (shed, answeredAfter) = try await offPool { () throws -> (Int, Bool) in
            // Far more connections than 48 descriptors allow; each is answered once so it is surely accepted or shed.
            var held: [VarlinkConnection] = []
            var shed = 0
            for _ in 0..<80 {
                let connection = try VarlinkConnection(path: socket)
                do {
                    _ = try connection.call(.status, timeout: .seconds(30))
                    held.append(connection)
                } catch FleetClientError.connectionClosed {
                    shed += 1
                }
            }
            held.removeAll()
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if let status = try? VarlinkConnection(path: socket).call(.status, timeout: .seconds(30)), status["daemon"] != nil { return (shed, true) }
            }
            return (shed, false)
        }
        #expect(shed > 0, "connections beyond the limit are accepted and closed with the reserve descriptor")
        #expect(answeredAfter, "once clients leave, the server answers again")
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("out of file descriptors"), "the shedding is logged: \(text)")
        #expect(text.split(separator: "\n").count < 20, "and not once per connection: \(text)")
        // A spinning poll thread burns a whole core; a shedding one needs almost nothing.
        let cpu = try Self.cpuSeconds(of: probe.pid)
        #expect(cpu < 1.0, "the probe used \(cpu) s of CPU")
    }

    /// User plus system CPU time of a process, from /proc/PID/stat (fields 14 and 15, in clock ticks).
    static func cpuSeconds(of pid: pid_t) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw TestKitError("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { throw TestKitError("unreadable /proc/\(pid)/stat") }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
