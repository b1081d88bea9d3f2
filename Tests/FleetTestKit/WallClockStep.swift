import Foundation

/// Steps one child's wall clock (issue 41's storage soak): CLOCK_REALTIME cannot be namespaced, so fleetd runs
/// under libfaketime (Debian `faketime`) reading its offset from a file this type rewrites ("+0", "-3600", …).
/// Monotonic clocks are left alone (DONT_FAKE_MONOTONIC), and only the process given `environment` is preloaded:
/// put it in `FleetHarness.daemonEnvironment`, never in the soak's own environment, so dbus-daemon, bluez-sim
/// and mosquitto keep the real clock. Checked here: a Swift `Date()` in the preloaded process moved by -3600 s
/// with `systemUptime` unchanged after the file was rewritten.
public final class WallClockStep: @unchecked Sendable {
    public static let library = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
    public let path: String
    public private(set) var offset = 0

    public static var available: Bool { FileManager.default.fileExists(atPath: library) }

    public init(path: String) throws {
        self.path = path
        try set(0)
    }

    /// The environment that puts a child under this clock (FAKETIME_NO_CACHE: every call re-reads the file).
    public var environment: [String: String] {
        ["LD_PRELOAD": Self.library, "DONT_FAKE_MONOTONIC": "1", "FAKETIME_NO_CACHE": "1", "FAKETIME_TIMESTAMP_FILE": path]
    }

    /// Moves the wall clock by `seconds` (±) from where it is.
    public func step(_ seconds: Int) throws { try set(offset + seconds) }

    /// Puts the wall clock `seconds` from the real one.
    public func set(_ seconds: Int) throws {
        offset = seconds
        // Written to a temporary and renamed: a reader never sees a half-written offset.
        let temporary = path + ".tmp"
        try "\(seconds >= 0 ? "+" : "")\(seconds)\n".write(toFile: temporary, atomically: false, encoding: .utf8)
        guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
