import FleetCLI
import FleetProtocol
import FleetTestKit
import Foundation
import GATTProfiles
import Testing

/// Every subcommand, in table and --json form, against the in-memory backend.
@Suite struct FleetctlRunnerTests {
    struct Outcome: Sendable {
        var code: FleetctlExitCode
        var output: String
        var error: String
    }

    final class Capture {
        var output = ""
        var error = ""
    }

    static func run(_ arguments: [String], socket: String, colour: Bool = false) async throws -> Outcome {
        try await offPool {
            let capture = Capture()
            let runner = FleetctlRunner(standardOutput: { capture.output += $0 }, standardError: { capture.error += $0 }, colour: colour)
            let code = runner.main(arguments: arguments, environment: ["FLEETCTL_SOCKET": socket])
            return Outcome(code: code, output: capture.output, error: capture.error)
        }
    }

    @Test func statusTableShowsAdaptersSlotsAndCounts() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let outcome = try await Self.run(["status"], socket: fixture.path)
        #expect(outcome.code == .success)
        #expect(outcome.output.contains("fleetd 0.1.0-test  running  up 1h02m"))
        #expect(outcome.output.contains("hci0     00:1A:7D:DA:71:13  yes      1/7"))
        #expect(outcome.output.contains("hci1     -                  no       1/5"))
        #expect(!outcome.output.contains("\u{1B}["), "no colour when not asked")
    }

    @Test func devicesTableIsAlignedAndQuietPrintsIds() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let table = try await Self.run(["devices"], socket: fixture.path)
        let lines = table.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        let stateColumn = lines[0].range(of: "STATE").map { lines[0].distance(from: lines[0].startIndex, to: $0.lowerBound) }
        for line in lines.dropFirst() {
            let state = line.dropFirst(stateColumn ?? 0).prefix(while: { $0 != " " })
            #expect(["ready", "backingOff"].contains(String(state)), "state column aligned in \(line)")
        }
        #expect(lines[2].contains("in 12s") && lines[2].contains("1m35s ago"))
        let quiet = try await Self.run(["list", "-q"], socket: fixture.path)
        #expect(quiet.output == "a1b2c3d4e5\na1b2ff0011\nc0ffee0042\n")
    }

    @Test func colourOnlyWhenAsked() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let outcome = try await Self.run(["devices"], socket: fixture.path, colour: true)
        #expect(outcome.output.contains("\u{1B}[32mready\u{1B}[0m"))
    }

    @Test(arguments: [
        (["status"], "adapters"), (["devices"], "devices"), (["show", "Kitchen Lamp"], "detail"), (["connect", "Hall Lamp"], "evicted"),
        (["disconnect", "a1b2c"], "state"), (["evict", "c0ffee"], "holdOffSeconds"), (["set-policy", "c0ffee", "background"], "policyClass"),
        (["read", "c0ffee", "2a6e"], "value"), (["write", "c0ffee", "2a6e", "0102", "--no-response"], "{}"), (["reload"], "summary"),
        (["metrics"], "text"), (["forget", "Thermometer"], "device"),
    ])
    func everySubcommandPrintsJSON(arguments: [String], key: String) async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let outcome = try await Self.run(arguments + ["--json"], socket: fixture.path)
        #expect(outcome.code == .success, "\(outcome.error)")
        let json = try JSONValue.parse(outcome.output)
        if key == "{}" { #expect(json == .object([:])) } else { #expect(json.objectValue?[key] != nil) }
    }

    @Test func humanFormsOfMutationsSaySomethingUseful() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        #expect(try await Self.run(["connect", "Hall Lamp"], socket: fixture.path).output
            == "a1b2ff0011: connecting\nevicted c0ffee0042 (Thermometer, class critical) from hci1 to make room\n")
        // Battery Level 2A19 (GSS §3.27, uint8 percentage): 0x64 = 100 %; the hex line stays first.
        #expect(try await Self.run(["read", "Kitchen Lamp", "2a19"], socket: fixture.path).output == "64\n100 %\n")
        #expect(try await Self.run(["evict", "Kitchen Lamp"], socket: fixture.path).output == "a1b2c3d4e5: evicted; retrying in 30s\n")
        let show = try await Self.run(["show", "c0ffee"], socket: fixture.path).output
        #expect(show.contains("name:          Thermometer") && show.contains("2a6e            read,notify"))
    }

    @Test func aDecodedValueIsPrintedAsAReadingBesideItsHexAndCarriedInJSON() async throws {
        // Heart Rate Measurement 2A37 (HRS v1.0 §3.1.1): flags 0x16 = bit1-2 0b11 sensor contact supported and
        // detected, bit4 RR present, bit0 0 → uint8 rate; 0x48 = 72 bpm; RR 0x0352 = 850/1024 s = 0.830078125 s.
        let value: [UInt8] = [0x16, 0x48, 0x52, 0x03]
        var decoder = ObservationDecoder()
        let decodedValue = decoder.decode(device: "a1b2c3d4e5", characteristic: "2a37", value: value)
        let decoded = try #require(decodedValue)
        let backend = InMemoryBackend()
        await backend.setScriptedEvents([WatchEvent(sequence: 1, time: Date(timeIntervalSince1970: 1_700_000_000), device: "a1b2c3d4e5",
                                                    kind: .notification(characteristic: "2a37", value: value), text: "notification",
                                                    decoded: decoded)])
        let fixture = try ServerFixture(backend: backend)
        defer { fixture.stop() }
        let human = try await Self.run(["watch", "--count", "1"], socket: fixture.path)
        #expect(human.output.contains("2a37 = 16485203  -> 72 bpm"), "\(human.output)")
        let json = try await Self.run(["watch", "--count", "1", "--json"], socket: fixture.path)
        #expect(json.code == .success, "\(json.error)")
        let event = try JSONValue.parse(json.output.trimmingCharacters(in: .newlines)).objectValue
        let observation = event?["observations"]?.arrayValue?.first?.objectValue
        #expect(observation?["profile"]?.stringValue == "heart-rate")
        let rate = observation?["quantities"]?.arrayValue?.first?.objectValue
        #expect(rate?["value"]?.intValue == 72 && rate?["unit"]?.stringValue == "/min", "\(json.output)")
    }

    @Test func watchStopsAfterCountAndPrintsOneJSONObjectPerLine() async throws {
        let backend = InMemoryBackend()
        await backend.setScriptedEvents(InMemoryBackend.lifecycleEvents(count: 6))
        let fixture = try ServerFixture(backend: backend)
        defer { fixture.stop() }
        let json = try await Self.run(["watch", "--count", "4", "--json"], socket: fixture.path)
        #expect(json.code == .success)
        let sequences = try json.output.split(separator: "\n").map { try JSONValue.parse(String($0)).objectValue?["sequence"]?.intValue }
        #expect(sequences == [1, 2, 3, 4])
        let table = try await Self.run(["watch", "Kitchen Lamp", "--count=2"], socket: fixture.path)
        #expect(table.output.split(separator: "\n").count == 2 && table.output.contains("2a19 = 01"))
        // Six scripted events, then silence. That all six arrive is shown by a watch that waits for six; the one
        // that must end at its timeout cannot also prove it, as a stall of the test process can outlast any timeout
        // (5 s did on a loaded CI machine). It must fail, saying how many of the ten it printed.
        let six = try await Self.run(["watch", "--count", "6", "--timeout", "120"], socket: fixture.path)
        #expect(six.code == .success, "\(six.error)")
        #expect(six.output.split(separator: "\n").count == 6)
        let short = try await Self.run(["watch", "--count", "10", "--timeout", "1"], socket: fixture.path)
        let printed = short.output.split(separator: "\n").count
        #expect(short.code == .failure)
        #expect(printed <= 6)
        #expect(short.error.contains("after \(printed) of 10 events"), "\(printed) lines printed; \(short.error)")
    }

    @Test func everyStateHasItsColourAndABackingOffDeviceIsYellow() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let outcome = try await Self.run(["devices"], socket: fixture.path, colour: true)
        #expect(outcome.output.contains("\u{1B}[33mbackingOff\u{1B}[0m"), "\(outcome.output)")
        let status = try await Self.run(["status"], socket: fixture.path, colour: true)
        #expect(status.output.contains("\u{1B}[32mrunning\u{1B}[0m"))
    }

    @Test func aWatchTimeoutBeyondTheClockIsBadUsageNotACrash() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let socket = fixture.path
        // The built binary: a trap here would take the whole test runner with it.
        let result = try await offPool {
            try ChildProcess.run(BuildProducts.path("fleetctl"), ["--socket", socket, "watch", "--timeout", "1e16"], timeout: .seconds(20))
        }
        #expect(result.code == FleetctlExitCode.usage.rawValue, "exit \(result.code): \(result.stderr)")
        #expect(result.stderr.contains("--timeout needs a positive number of seconds"))
    }

    @Test func aFailedConnectClosesOnlyItsOwnDescriptor() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let live = fixture.path, absent = fixture.directory + "/absent.sock"
        // Failing connects race connections that open and use descriptors: a second close of a failed
        // connect's number would hit one of them.
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    try await offPool {
                        var failed = 0
                        for _ in 0..<(worker < 2 ? 4000 : 400) {
                            if worker < 2 {
                                _ = try? VarlinkConnection(path: absent)
                            } else if (try? VarlinkConnection(path: live).call(.status, timeout: .seconds(30)))?["daemon"] == nil {
                                failed += 1
                            }
                        }
                        return failed
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(failures == 0, "\(failures) calls on healthy connections failed")
    }

    @Test func errorsMapToDocumentedExitCodes() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        #expect(try await Self.run(["show", "nothing"], socket: fixture.path).code == .deviceNotFound)
        let ambiguous = try await Self.run(["show", "a1b2"], socket: fixture.path)
        #expect(ambiguous.code == .deviceNotFound && ambiguous.error.contains("a1b2c3d4e5, a1b2ff0011"))
        #expect(try await Self.run(["read", "Hall Lamp", "2a19"], socket: fixture.path).code == .failure)
        #expect(try await Self.run(["status"], socket: fixture.directory + "/absent.sock").code == .unreachable)
        #expect(try await Self.run(["frobnicate"], socket: fixture.path).code == .usage)
    }
}
