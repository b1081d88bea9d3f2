import FleetManager
import FleetPlatform
import FleetTestKit
import Foundation
import Supervision
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `journalctl -x` explains fleetd's events with the catalog text, end to end: a real journald, the catalog
/// installed where journalctl looks for it, and events sent by fleetd's own `JournalLogHandler`.
@Suite("journalctl -x explains fleetd's events", .serialized,
       .enabled(if: geteuid() == 0, "installs the catalog into /usr/lib/systemd/catalog and runs journald"))
struct CatalogJournalTests {
    /// Where `make install PREFIX=/usr` puts the catalog; journalctl --update-catalog compiles it from there.
    static let installedPath = "/usr/lib/systemd/catalog/fleetd.catalog"

    /// Installs deploy/fleetd.catalog for the duration of `body`, then puts back whatever was there before.
    func withInstalledCatalog(_ body: () async throws -> Void) async throws {
        let files = FileManager.default
        let previous = files.contents(atPath: Self.installedPath)
        try files.createDirectory(atPath: "/usr/lib/systemd/catalog", withIntermediateDirectories: true)
        try Data(contentsOf: URL(fileURLWithPath: FleetCatalog.path)).write(to: URL(fileURLWithPath: Self.installedPath))
        // Restored on every way out; not in a defer, which cannot await journalctl off the cooperative pool.
        func restore() async {
            if let previous {
                try? previous.write(to: URL(fileURLWithPath: Self.installedPath))
            } else {
                try? files.removeItem(atPath: Self.installedPath)
            }
            _ = try? await ChildProcess.run("/bin/journalctl", ["--update-catalog"], timeout: .seconds(30))
        }
        do {
            let update = try await ChildProcess.run("/bin/journalctl", ["--update-catalog"], timeout: .seconds(30))
            try #require(update.code == 0, "journalctl --update-catalog failed: \(update.stderr)")
            try await body()
        } catch {
            await restore()
            throw error
        }
        await restore()
    }

    /// `journalctl -x` lines with the catalog's `░░ ` margin removed.
    func explanationLines(_ output: String) -> [String] {
        output.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var text = Substring(line)
            while let first = text.first, first == "░" || first == " " { text = text.dropFirst() }
            return String(text)
        }
    }

    /// A tag unique to this run, so entries from earlier runs in the same journal never match.
    func uniqueIdentifier() -> String {
        var generator = SystemRandomNumberGenerator()
        return "fleetd-catalog-test-\(String(generator.next(), radix: 16))"
    }

    @Test("an eviction logged by fleetd's logger shows its catalog subject and body with the event's fields")
    func evictionIsExplained() async throws {
        try TestJournal.start()
        try await withInstalledCatalog {
            let identifier = uniqueIdentifier()
            let logger = Logger(label: "fleetd", handler: JournalLogHandler(identifier: identifier))
            let event = LifecycleEvent(.evicted, "evicted hr-strap-7 for a higher class", device: DeviceID("hr-strap-7"),
                                       address: "C4:7C:8D:6A:11:07", adapter: AdapterID(name: "hci0"), reason: "evict-lower-class",
                                       delay: .seconds(60))
            logger.warning(event.message, id: event.id.rawValue, metadata: event.metadata)

            let entries = try await TestJournal.entries(matching: "SYSLOG_IDENTIFIER=\(identifier)")
            try #require(entries.count == 1, "journald holds \(entries.count) entries from this test")
            #expect(entries[0]["MESSAGE_ID"] as? String == FleetMessageID.evicted.rawValue)
            #expect(entries[0]["FLEET_DELAY_MS"] as? String == "60000")

            let catalog = try #require(try FleetCatalog.load().first { $0.id == FleetMessageID.evicted.rawValue })
            let expected = catalog.explained(with: ["FLEET_DEVICE": "hr-strap-7", "FLEET_ADDRESS": "C4:7C:8D:6A:11:07",
                                                    "FLEET_ADAPTER": "hci0", "FLEET_REASON": "evict-lower-class",
                                                    "FLEET_DELAY_MS": "60000"])
            let shown = explanationLines(try await TestJournal.explained(matching: "SYSLOG_IDENTIFIER=\(identifier)"))
            #expect(shown.contains("Subject: \(expected.subject)"), "journalctl -x shows no catalog subject:\n\(shown.joined(separator: "\n"))")
            #expect(shown.contains("Defined-By: fleetd"))
            #expect(expected.subject == "Evicted hr-strap-7 from hci0 (evict-lower-class)")
            for line in expected.body where !line.isEmpty {
                #expect(shown.contains(line), "journalctl -x lacks the catalog line '\(line)'")
            }
            #expect(!shown.joined().contains("@FLEET_"), "a placeholder was left unfilled")
        }
    }

    @Test("every fleetd event kind is explained by journalctl -x")
    func everyEventIsExplained() async throws {
        try TestJournal.start()
        try await withInstalledCatalog {
            let identifier = uniqueIdentifier()
            let logger = Logger(label: "fleetd", handler: JournalLogHandler(identifier: identifier))
            let fields = ["FLEET_DEVICE": "glucose-2", "FLEET_ADDRESS": "5D:21:0A:9C:33:E2", "FLEET_ADAPTER": "hci1",
                          "FLEET_REASON": "le-connection-timeout", "FLEET_ATTEMPT": "3", "FLEET_FAILURES": "2", "FLEET_DELAY_MS": "1500"]
            for id in FleetMessageID.allCases {
                let event = LifecycleEvent(id, "event \(id)", device: DeviceID("glucose-2"), address: "5D:21:0A:9C:33:E2", adapter: AdapterID(name: "hci1"),
                                           reason: "le-connection-timeout", attempt: 3, failures: 2, delay: .milliseconds(1500))
                logger.notice(event.message, id: event.id.rawValue, metadata: event.metadata)
            }
            let shown = explanationLines(try await TestJournal.explained(matching: "SYSLOG_IDENTIFIER=\(identifier)"))
            let entries = try FleetCatalog.load()
            for id in FleetMessageID.allCases {
                let entry = try #require(entries.first { $0.id == id.rawValue }, "\(id) has no catalog entry")
                let subject = entry.explained(with: fields).subject
                #expect(shown.contains("Subject: \(subject)"), "journalctl -x does not explain \(id) ('\(subject)')")
            }
        }
    }
}
