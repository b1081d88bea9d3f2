import FleetCLI
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// Names come from adverts, so anyone in radio range chooses them: fleetctl's human output shows their control
/// characters escaped, never raw (a newline forging a table row, an escape sequence clearing the terminal), and
/// --json keeps them exactly (issue 41, point 13).
@Suite struct FleetctlEscapingTests {
    static let evil = "evil\u{1b}[2J\nname"
    static let shown = #"evil\x1b[2J\x0aname"#

    static func fixture(named name: String) async throws -> ServerFixture {
        let fixture = try ServerFixture()
        await fixture.backend.setDisplayName(name, of: "a1b2c3d4e5")
        return fixture
    }

    @Test func aDeviceNameWithControlCharactersIsEscapedInTheDeviceTable() async throws {
        let fixture = try await Self.fixture(named: Self.evil)
        defer { fixture.stop() }
        let table = try await FleetctlRunnerTests.run(["list"], socket: fixture.path)
        #expect(table.code == .success)
        #expect(!table.output.contains("\u{1b}"), "no raw escape: \(table.output.debugDescription)")
        #expect(table.output.split(separator: "\n").count == 4, "one line per device: \(table.output.debugDescription)")
        #expect(table.output.contains(Self.shown), "\(table.output.debugDescription)")
    }

    @Test func aDeviceNameWithControlCharactersIsEscapedInShow() async throws {
        let fixture = try await Self.fixture(named: Self.evil)
        defer { fixture.stop() }
        let shown = try await FleetctlRunnerTests.run(["show", "a1b2c3d4e5"], socket: fixture.path)
        #expect(shown.code == .success)
        #expect(!shown.output.contains("\u{1b}"))
        #expect(shown.output.contains("name:") && shown.output.contains(Self.shown), "\(shown.output.debugDescription)")
        #expect(!shown.output.split(separator: "\n").contains { $0.hasPrefix("name") && !$0.contains(":") }, "no forged line")
    }

    @Test func jsonKeepsTheNameExactly() async throws {
        let fixture = try await Self.fixture(named: Self.evil)
        defer { fixture.stop() }
        let listed = try await FleetctlRunnerTests.run(["list", "--json"], socket: fixture.path)
        let object = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any]
        let names = (object?["devices"] as? [[String: Any]])?.compactMap { $0["displayName"] as? String } ?? []
        #expect(names.contains(Self.evil), "\(names)")
    }

    @Test func aWatchLineIsEscaped() async throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        await fixture.backend.setScriptedEvents([
            WatchEvent(sequence: 1, time: Date(timeIntervalSince1970: 1_700_000_000), device: "a1b2c3d4e5", kind: .lifecycle(state: .ready),
                       text: "connected to \(Self.evil)"),
        ])
        let watched = try await FleetctlRunnerTests.run(["watch", "--count", "1", "--timeout", "10"], socket: fixture.path)
        #expect(watched.code == .success, "\(watched)")
        #expect(!watched.output.contains("\u{1b}"))
        #expect(watched.output.split(separator: "\n").count == 1 && watched.output.contains("connected to " + Self.shown),
                "\(watched.output.debugDescription)")
    }

    @Test func aBackslashIsDoubledSoTheEscapedFormIsUnambiguous() async throws {
        let fixture = try await Self.fixture(named: #"lamp\x1b"#)
        defer { fixture.stop() }
        let table = try await FleetctlRunnerTests.run(["list"], socket: fixture.path)
        #expect(table.output.contains(#"lamp\\x1b"#), "\(table.output.debugDescription)")
    }
}
