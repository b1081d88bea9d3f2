import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process driven through its stdin, whose merged stdout/stderr is read back with deadlines:
/// for interactive tools like bluetoothctl, where each command must wait for the previous one's output.
/// Spawned like `ChildProcess` (posix_spawn, cleared signal mask); ANSI colour codes and CRs are stripped.
public final class InteractiveProcess: @unchecked Sendable {
    // @unchecked: `output` and the fds are touched only by the one test task that owns this value.
    public let pid: pid_t
    private let stdinFD: Int32
    private let stdoutFD: Int32
    /// Everything read so far, cleaned.
    public private(set) var output = ""
    /// UTF-8 length of the output already matched by `expect`.
    private var consumed = 0
    private var raw: [UInt8] = []

    public init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        var input: [Int32] = [-1, -1], out: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&out) == 0 else { throw TestKitError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, out[1], 2)
        for fd in [input[0], input[1], out[0], out[1]] { posix_spawn_file_actions_addclose(&actions, fd) }
        var child: pid_t = 0
        let rc = ChildProcess.spawn(&child, executable, arguments, environment: environment, actions: &actions)
        Glibc.close(input[0])
        Glibc.close(out[1])
        guard rc == 0 else {
            Glibc.close(input[1]); Glibc.close(out[0])
            throw TestKitError("cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdinFD = input[1]
        stdoutFD = out[0]
        _ = fcntl(stdoutFD, F_SETFL, fcntl(stdoutFD, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        Glibc.close(stdinFD)
        Glibc.close(stdoutFD)
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    /// Writes one line to the child's stdin.
    public func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBufferPointer { write(stdinFD, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestKitError("could not write '\(line)' to pid \(pid)") }
    }

    /// Waits until output after the last match contains `text`; returns that output (up to and including
    /// the match). Throws with everything seen when the deadline passes first.
    @discardableResult
    public func expect(_ text: String, timeout: Duration = .seconds(30)) throws -> String {
        try expect(text, from: consumed, timeout: timeout)
    }

    /// Waits until the whole output (matched or not) contains `text`, for lines whose order relative to
    /// others the tool does not fix; does not move the match position.
    public func expectAnywhere(_ text: String, timeout: Duration = .seconds(30)) throws {
        let saved = consumed
        _ = try expect(text, from: 0, timeout: timeout)
        consumed = saved
    }

    private func expect(_ text: String, from start: Int, timeout: Duration) throws -> String {
        consumed = start
        let deadline = ContinuousClock.now + timeout
        while true {
            let tail = String(decoding: Array(output.utf8.dropFirst(consumed)), as: UTF8.self)
            if let range = tail.range(of: text) {
                let seen = String(tail[..<range.upperBound])
                consumed += seen.utf8.count
                return seen
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw TestKitError("timed out after \(timeout) waiting for '\(text)'; output since last match:\n\(tail)")
            }
            var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)]
            let ms = Int32(min(1000, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1))
            guard poll(&fds, 1, ms) >= 0 || errno == EINTR else { throw TestKitError("poll failed: errno \(errno)") }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(stdoutFD, &buffer, buffer.count)
                if n <= 0 { break }
                raw += buffer[0..<n]
            }
            output = Self.clean(raw)
        }
    }

    /// Removes ANSI escape sequences and carriage returns (bluetoothctl colours its prompt).
    static func clean(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "[") {
                    i += 1
                    while i < bytes.count, !(0x40...0x7E).contains(bytes[i]) { i += 1 }
                }
                i += 1
                continue
            }
            if b != UInt8(ascii: "\r") && b != 0x01 && b != 0x02 { out.append(b) }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
