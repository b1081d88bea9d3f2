import FleetManager
import Foundation
import Supervision
import Testing

/// One entry of a journald message catalog as journalctl reads it: `-- <id>`, `Key: value` headers up to a
/// blank line, then the body up to the next entry.
struct CatalogEntry {
    var id: String
    var line: Int
    var headers: [String: String]
    var body: [String]

    /// The `@FIELD@` placeholders the subject and body use, which journalctl fills from the entry's fields.
    var placeholders: Set<String> {
        let text = ([headers["Subject"] ?? ""] + body).joined(separator: "\n")
        var found: Set<String> = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "@") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "@") else { break }
            let name = after[..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) {
                found.insert(String(name))
                rest = after[after.index(after: close)...]
            } else {
                rest = after
            }
        }
        return found
    }

    /// The subject and body as `journalctl -x` shows them for an entry with these field values.
    func explained(with fields: [String: String]) -> (subject: String, body: [String]) {
        func fill(_ line: String) -> String {
            fields.reduce(line) { $0.replacingOccurrences(of: "@\($1.key)@", with: $1.value) }
        }
        return (fill(headers["Subject"] ?? ""), body.map(fill))
    }
}

/// A catalog file that journalctl would not read the way its author meant, with the line at fault.
struct CatalogParseError: Error, CustomStringConvertible {
    var line: Int
    var message: String
    var description: String { "fleetd.catalog:\(line): \(message)" }
}

/// deploy/fleetd.catalog, found from this file's place in the repository.
enum FleetCatalog {
    static let path = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/fleetd.catalog").path

    static func load() throws -> [CatalogEntry] {
        try parse(String(contentsOfFile: path, encoding: .utf8))
    }

    static func parse(_ text: String) throws(CatalogParseError) -> [CatalogEntry] {
        var entries: [CatalogEntry] = []
        var current: CatalogEntry?
        var inHeaders = false
        func finish() {
            guard var entry = current else { return }
            while entry.body.last?.isEmpty == true { entry.body.removeLast() }
            entries.append(entry)
        }
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let line = String(raw)
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("-- ") {
                finish()
                let words = line.dropFirst(3).split(separator: " ")
                guard let id = words.first.map(String.init), id.count == 32, id.allSatisfy(\.isHexDigit) else {
                    throw CatalogParseError(line: number, message: "'\(line)' does not name a 32-hex-digit MESSAGE_ID")
                }
                current = CatalogEntry(id: id.lowercased(), line: number, headers: [:], body: [])
                inHeaders = true
                continue
            }
            guard current != nil else {
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                throw CatalogParseError(line: number, message: "text before the first '-- <id>' line")
            }
            if inHeaders {
                if line.isEmpty { inHeaders = false; continue }
                guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                    throw CatalogParseError(line: number, message: "'\(line)' is not a 'Key: value' header")
                }
                let key = String(line[..<colon])
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                current?.headers[key] = value
            } else {
                current?.body.append(line)
            }
        }
        finish()
        return entries
    }
}

/// The journald fields fleetd sets on lifecycle events (LifecycleEvent.metadata through JournalField).
private let fleetFields: Set<String> = ["FLEET_DEVICE", "FLEET_ADDRESS", "FLEET_ADAPTER", "FLEET_REASON", "FLEET_ATTEMPT", "FLEET_FAILURES", "FLEET_DELAY_MS", "FLEET_MOVED_TO"]

@Suite("deploy/fleetd.catalog against FleetMessageID")
struct CatalogTests {
    @Test("every MESSAGE_ID fleetd emits has exactly one catalog entry", arguments: FleetMessageID.allCases)
    func codeIDHasEntry(_ id: FleetMessageID) throws {
        let entries = try FleetCatalog.load().filter { $0.id == id.rawValue.lowercased() }
        #expect(entries.count == 1, "\(id) (\(id.rawValue)) has \(entries.count) entries in \(FleetCatalog.path)")
    }

    @Test("every catalog entry is a MESSAGE_ID fleetd emits")
    func entryIsACodeID() throws {
        let known = Set(FleetMessageID.allCases.map { $0.rawValue.lowercased() })
        let entries = try FleetCatalog.load()
        #expect(!entries.isEmpty)
        for entry in entries {
            #expect(known.contains(entry.id), "fleetd.catalog:\(entry.line): \(entry.id) is not a case of FleetMessageID")
        }
    }

    @Test("every entry has Subject, Defined-By, Documentation and a body")
    func entriesAreComplete() throws {
        for entry in try FleetCatalog.load() {
            let at = "fleetd.catalog:\(entry.line) (\(entry.id))"
            #expect(!(entry.headers["Subject"] ?? "").isEmpty, "\(at) has no Subject")
            #expect(entry.headers["Defined-By"] == "fleetd", "\(at) is not Defined-By: fleetd")
            #expect(entry.headers["Documentation"]?.contains("man:fleetd(8)") == true, "\(at) does not point at man:fleetd(8)")
            let words = entry.body.joined(separator: " ").split(separator: " ").count
            #expect(words >= 15, "\(at) has a body of \(words) words; it should explain the event and what to do")
        }
    }

    @Test("placeholders name only fields fleetd sets")
    func placeholdersAreFleetFields() throws {
        for entry in try FleetCatalog.load() {
            let unknown = entry.placeholders.subtracting(fleetFields)
            #expect(unknown.isEmpty, "fleetd.catalog:\(entry.line) (\(entry.id)) uses \(unknown.sorted()), which fleetd never sets")
        }
    }

    @Test("a malformed catalog is reported with its line")
    func malformedCatalogIsRejected() {
        #expect(throws: CatalogParseError.self) { try FleetCatalog.parse("-- not-an-id\nSubject: x\n\nbody\n") }
        #expect(throws: CatalogParseError.self) { try FleetCatalog.parse("stray text\n-- 3b5a1f0e7c2d4e8fa1b2c3d4e5f60701\n") }
        #expect(throws: CatalogParseError.self) {
            try FleetCatalog.parse("-- 3b5a1f0e7c2d4e8fa1b2c3d4e5f60701\nSubject: x\nno colon here\n\nbody\n")
        }
        let parsed = try? FleetCatalog.parse("# comment\n-- 3B5A1F0E7C2D4E8FA1B2C3D4E5F60701\nSubject: S @FLEET_DEVICE@\n\nline one\n\n")
        #expect(parsed?.first?.id == "3b5a1f0e7c2d4e8fa1b2c3d4e5f60701")
        #expect(parsed?.first?.body == ["line one"])
        #expect(parsed?.first?.placeholders == ["FLEET_DEVICE"])
    }
}
