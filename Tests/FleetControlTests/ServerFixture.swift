import FleetControl
import Foundation
import Synchronization

/// A running `VarlinkServer` on a fresh socket path backed by an `InMemoryBackend`, for one test.
final class ServerFixture: Sendable {
    let server: VarlinkServer
    let backend: InMemoryBackend
    let directory: String
    let path: String
    let logs = LogRecorder()

    init(configure: (inout VarlinkServer.Configuration) -> Void = { _ in }, backend: InMemoryBackend = InMemoryBackend()) throws {
        var template = Array("/tmp/fleetctl-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw ControlSocketError(operation: "mkdtemp", errno: errno) }
        directory = String(cString: created)
        // Other users (permission tests) must be able to reach the socket inside.
        chmod(directory, 0o755)
        path = directory + "/io.fleetd.sock"
        var configuration = VarlinkServer.Configuration(socketPath: path)
        configure(&configuration)
        self.backend = backend
        let logs = self.logs
        server = try VarlinkServer(configuration: configuration,
                                   service: FleetService(backend: backend, info: ServiceInfo(version: "0.1.0-test"),
                                                        log: { line in logs.record(line) }))
    }

    func stop() {
        server.stop()
        rmdir(directory)
    }
}

/// Runs blocking socket or process work on a thread of its own, so it never occupies Swift's small
/// cooperative pool (where the server's call handlers run). Not Dispatch: its Linux pool adds threads
/// for blocked work only about once a second.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Output and exit status of a finished child process.
struct ProcessResult: Sendable {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs `executable` to completion (off the cooperative pool) and captures its output.
func runProcess(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> ProcessResult {
    try await blocking {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
                             standardError: String(decoding: errData, as: UTF8.self))
    }
}

/// The directory holding the test binary, where SwiftPM also puts the built `fleetctl`.
var buildProductsDirectory: String {
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
    // On Linux the test runner may live inside `<name>.xctest`; step out of any such bundle.
    while url.pathExtension == "xctest" { url = url.deletingLastPathComponent() }
    return url.path
}

/// Collects the server's log lines so tests can check that a note was written.
final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    func record(_ line: String) { lines.withLock { $0.append(line) } }

    var all: [String] { lines.withLock { $0 } }
}
