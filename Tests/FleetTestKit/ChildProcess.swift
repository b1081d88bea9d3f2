import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn and a cleared signal mask.
///
/// Foundation's Process leaves SIGTERM blocked in children started from async code (swift-corelibs-foundation
/// #4772), so they could never be stopped; this spawns them with default dispositions and an empty mask.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    public let executable: String
    private var reaped: Int32?
    private let lock = NSLock()

    /// Starts `executable` (a path, or a name looked up on PATH). Output goes to the given files (or
    /// /dev/null); stdin is /dev/null. `extraFD` is dup'ed to fd 3 in the child.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                stdout stdoutPath: String? = nil, stderr stderrPath: String? = nil, fd3 extraFD: Int32? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if let extraFD { posix_spawn_file_actions_adddup2(&actions, extraFD, 3) }

        var child: pid_t = 0
        let rc = Self.spawn(&child, executable, arguments, environment: environment ?? ProcessInfo.processInfo.environment,
                            actions: &actions)
        guard rc == 0 else { throw TestKitError("cannot start \(executable): \(String(cString: strerror(rc)))") }
        pid = child
        self.executable = executable
    }

    /// A process that talks to children must not die of SIGPIPE when one exits first: a write to its
    /// stdin (InteractiveProcess) then fails with EPIPE instead. Children get every signal back at default.
    private static let pipeSignalIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// posix_spawn(p) with default signal dispositions and an empty signal mask, so the child can be
    /// stopped with SIGTERM whatever its parent blocks; returns posix_spawn's error code (0 on success).
    static func spawn(_ pid: inout pid_t, _ executable: String, _ arguments: [String], environment: [String: String],
                      actions: inout posix_spawn_file_actions_t) -> Int32 {
        _ = pipeSignalIgnored
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let cArgs = ([executable] + arguments).map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        return executable.contains("/")
            ? posix_spawn(&pid, executable, &actions, &attributes, cArgs, cEnv)
            : posix_spawnp(&pid, executable, &actions, &attributes, cArgs, cEnv)
    }

    deinit { _ = try? kill(signal: SIGKILL) }

    /// Sends a signal; the exit status is collected by `wait`.
    public func kill(signal: Int32 = SIGTERM) throws {
        lock.lock()
        defer { lock.unlock() }
        guard reaped == nil else { return }
        _ = Glibc.kill(pid, signal)
        if signal == SIGKILL {
            var status: Int32 = 0
            if waitpid(pid, &status, 0) == pid { reaped = status }
        }
    }

    /// Waits for the child to exit and returns its exit code (128+signal when killed by one).
    @discardableResult
    public func wait() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let reaped { return Self.code(reaped) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = status
        return Self.code(status)
    }

    /// Waits up to `timeout`; nil if it is still running (then it is left alone).
    public func wait(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            lock.lock()
            if let reaped { lock.unlock(); return Self.code(reaped) }
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { reaped = status; lock.unlock(); return Self.code(status) }
            lock.unlock()
            // Process exit has no pollable event here without pidfd; 5 ms granularity bounded by the deadline.
            usleep(5_000)
        }
        return nil
    }

    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if reaped != nil { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { reaped = status; return false }
        return true
    }

    static func code(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Runs a command to completion, returning its exit code and output (stdout then stderr files).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           timeout: Duration = .seconds(60)) throws -> (code: Int32, stdout: String, stderr: String) {
        let dir = try TemporaryDirectory(prefix: "fleet-run")
        let out = dir.path + "/stdout", err = dir.path + "/stderr"
        let child = try ChildProcess(executable, arguments, environment: environment, stdout: out, stderr: err)
        guard let code = child.wait(timeout: timeout) else {
            try child.kill(signal: SIGKILL)
            throw TestKitError("\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        return (code, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}

extension ChildProcess {
    /// The same, awaited from async code: the child runs while this task is suspended, never on one of the two
    /// cooperative threads (a test blocked in waitpid there starves every in-process server in the run).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           timeout: Duration = .seconds(60)) async throws -> (code: Int32, stdout: String, stderr: String) {
        try await offPool { try run(executable, arguments, environment: environment, timeout: timeout) }
    }

    /// `wait(timeout:)` awaited from async code, off the cooperative pool.
    public func wait(timeout: Duration) async -> Int32? {
        (try? await offPool { [self] in self.wait(timeout: timeout) }) ?? nil
    }
}

/// A test-infrastructure failure, with what went wrong.
public struct TestKitError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A fresh directory under /tmp, removed on deinit.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String
    public init(prefix: String) throws {
        var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestKitError("mkdtemp failed") }
        path = String(cString: made)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
