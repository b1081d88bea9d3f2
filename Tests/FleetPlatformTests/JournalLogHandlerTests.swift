import FleetPlatform
import FleetTestKit
import Foundation
import Testing

@Suite("journald sink against a real systemd-journald", .serialized)
struct JournalLogHandlerTests {
    @Test("an entry is stored with MESSAGE_ID, PRIORITY and FLEET_ fields")
    func entryRoundTrip() async throws {
        try TestJournal.start()
        let marker = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let logger = Logger(label: "fleetd-test", level: .trace, handler: JournalLogHandler(identifier: "fleetd-test"))
        logger.warning("device went away", id: "8f1c6a3e0b9d4a47a2c5e7f901b3d5c7",
                       metadata: ["device": "mfr-0059-010203040506", "marker": marker, "retry-delay": "1500", "_secret": "x", "Mixed.Case": "y"])
        let entries = try await TestJournal.entries(matching: "FLEET_MARKER=\(marker)")
        try #require(entries.count == 1)
        let entry = entries[0]
        #expect(entry["MESSAGE"] as? String == "device went away")
        #expect(entry["MESSAGE_ID"] as? String == "8f1c6a3e0b9d4a47a2c5e7f901b3d5c7")
        #expect(entry["PRIORITY"] as? String == "4")
        #expect(entry["SYSLOG_IDENTIFIER"] as? String == "fleetd-test")
        #expect(entry["FLEET_DEVICE"] as? String == "mfr-0059-010203040506")
        #expect(entry["FLEET_RETRY_DELAY"] as? String == "1500")
        #expect(entry["FLEET__SECRET"] as? String == "x")
        #expect(entry["FLEET_MIXED_CASE"] as? String == "y")
        #expect((entry["CODE_FILE"] as? String)?.contains("JournalLogHandlerTests.swift") == true)
        #expect(entry["CODE_LINE"] as? String != nil)
    }

    @Test("metadata keys are sanitised, never dropped", arguments: [
        ("device", "FLEET_DEVICE"), ("retry-delay", "FLEET_RETRY_DELAY"), ("_hidden", "FLEET__HIDDEN"),
        ("fleet_device", "FLEET_DEVICE"), ("", "FLEET_FIELD"), ("ünï", "FLEET__N_"), ("9lives", "FLEET_9LIVES"),
    ])
    func sanitising(key: String, expected: String) {
        #expect(JournalField.name(forMetadataKey: key) == expected)
    }

    @Test("the automatic destination is stderr unless JOURNAL_STREAM names our stderr")
    func destination() {
        #expect(LogDestination.automatic.handler(identifier: "x", environment: [:]) is StderrLogHandler)
        #expect(LogDestination.automatic.handler(identifier: "x", environment: ["JOURNAL_STREAM": "1:2"]) is StderrLogHandler)
        #expect(LogDestination.journal.handler(identifier: "x", environment: [:]) is JournalLogHandler)
        var info = stat()
        fstat(2, &info)
        let mine = "\(info.st_dev):\(info.st_ino)"
        #expect(LogDestination.automatic.handler(identifier: "x", environment: ["JOURNAL_STREAM": mine]) is JournalLogHandler)
    }
}
