@testable import FleetManager
import FleetTestKit
import Foundation
import Testing

/// FleetManager links FoundationEssentials only (issue 18); what it wrote by hand in place of full Foundation's
/// NSString and CharacterSet calls must give what those gave.
@Suite("FleetManager's stand-ins for Foundation")
struct FleetManagerEssentialsStandInTests {
    @Test("the directory of a path is NSString's deletingLastPathComponent, with . for none")
    func directoryOfPath() {
        // "//" is left out: NSString made it "" (so "."), where the directory of the root is the root.
        let paths = ["/var/lib/fleetd/state.json", "/state.json", "state.json", "", "/", "a/b/", "a//b", "/a//b//", "./x", "../x/y",
                     "/var/lib/fleetd/", "relative/dir/file.prom", "é/ü"]
        for path in paths {
            let parent = (path as NSString).deletingLastPathComponent
            #expect(AtomicFile.directory(of: path) == (parent.isEmpty ? "." : parent), "\(path)")
        }
    }

    @Test("Prometheus label values are escaped as replacingOccurrences did, CR LF included")
    func labelEscapes() {
        for value in [#"plain"#, #"back\slash"#, #"a "quoted" name"#, "two\nlines", "crlf\r\nend", "\\\"\n", "émoji 🛰️", ""] {
            let old = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
            #expect(FleetMetricsText.labelValue(value) == old, "\(value.debugDescription)")
        }
    }

    @Test("a device reference is trimmed of what CharacterSet.whitespaces trimmed, and only that")
    func referenceTrimming() {
        var texts = ["  addr-C8B21E000010\t", "\u{00A0}\u{2003}x y\u{3000}", "x\n", "\n x \n", "   ", "", "\u{200B}x\u{180E}", "\u{FEFF}x\u{2028}"]
        // Every scalar of the Basic Multilingual Plane on either side of a device id.
        for value in UInt32(0)...0xFFFF { if let scalar = Unicode.Scalar(value) { texts.append("\(scalar)addr-C8B21E000010\(scalar)") } }
        for text in texts {
            #expect(FleetSupervisor.trimmingBlanks(text) == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        }
    }

    @Test("a configuration file that cannot be read says why, by errno")
    func unreadableConfigurationSaysWhy() throws {
        func failure(_ path: String) -> String? {
            do { _ = try FleetConfiguration.load(path: path); return nil } catch { return error.description }
        }
        let missing = "/nonexistent-\(UUID().uuidString)/fleetd.conf"
        #expect(failure(missing) == "\(missing): cannot read the configuration file: No such file or directory (ENOENT)")
        let dir = try TemporaryDirectory(prefix: "fleet-config-dir")
        #expect(failure(dir.path) == "\(dir.path): cannot read the configuration file: Is a directory (EISDIR)")
    }
}
