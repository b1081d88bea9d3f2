import Foundation

/// The shipped example `deploy/fleetd.conf`, found from this source file so tests read the real one.
enum ConfigurationExampleFile {
    static var path: String {
        // The scratch package reaches this file through a symlink; the repository layout is what counts.
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/fleetd.conf").path
    }

    static func text() throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// The example with its `;`-disabled example lines switched on.
    static func enabledText() throws -> String {
        try text().split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            line.hasPrefix(";") ? line.dropFirst() : line
        }.joined(separator: "\n")
    }
}
