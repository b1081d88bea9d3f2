import Foundation
#if canImport(Glibc)
import Glibc
#endif

nonisolated(unsafe) private var journaldPID: pid_t = 0
nonisolated(unsafe) private var journaldProcess: ChildProcess?

/// A real systemd-journald for tests, started by hand once per test process (it owns the fixed path
/// /run/systemd/journal/socket, so there can be only one) and killed when the process exits.
public enum TestJournal {
    private static let started: Result<Void, TestKitError> = {
        if socketIsLive() { return .success(()) }
        try? FileManager.default.removeItem(atPath: "/run/systemd/journal/socket")
        do {
            let child = try ChildProcess("/lib/systemd/systemd-journald", [], stderr: "/tmp/fleet-test-journald.log")
            journaldPID = child.pid
            // Kept for the life of the process: dropping the ChildProcess would kill journald.
            journaldProcess = child
            atexit { if journaldPID > 0 { kill(journaldPID, SIGKILL) } }
            // journald binds its socket within ~0.1 s; bounded wait for the socket to accept.
            let deadline = ContinuousClock.now + .seconds(10)
            while !socketIsLive() {
                if ContinuousClock.now > deadline { return .failure(TestKitError("systemd-journald did not come up")) }
                usleep(10_000)
            }
            return .success(())
        } catch {
            return .failure(error as? TestKitError ?? TestKitError("\(error)"))
        }
    }()

    /// Starts journald unless one is already listening.
    public static func start() throws { try started.get() }

    /// Whether something accepts datagrams on journald's socket.
    static func socketIsLive() -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = "/run/systemd/journal/socket"
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }

    /// Entries matching `FIELD=value`, as journalctl's JSON objects (after flushing journald's buffers).
    public static func entries(matching match: String) async throws -> [[String: Any]] {
        _ = try await ChildProcess.run("/bin/journalctl", ["--sync"], timeout: .seconds(20))
        let result = try await ChildProcess.run("/bin/journalctl", ["-o", "json", "--no-pager", match], timeout: .seconds(20))
        return result.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// `journalctl -x` text for entries matching `FIELD=value`.
    public static func explained(matching match: String) async throws -> String {
        _ = try await ChildProcess.run("/bin/journalctl", ["--sync"], timeout: .seconds(20))
        return try await ChildProcess.run("/bin/journalctl", ["-x", "--no-pager", match], timeout: .seconds(20)).stdout
    }
}
