import Foundation

/// Where SwiftPM put the built executables (fleetd, fleetctl, bluez-sim): next to the test bundle.
public enum BuildProducts {
    public static var directory: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while url.pathExtension == "xctest" { url = url.deletingLastPathComponent() }
        return url.path
    }

    public static func path(_ name: String) -> String { directory + "/" + name }

    /// The repository root, found from this source file's location.
    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }
}
