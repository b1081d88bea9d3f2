import FleetControlServer
import FleetProtocol
import Foundation
import Synchronization

/// A running `VarlinkServer` on a fresh socket path backed by an `InMemoryBackend`, for one test.
public final class ServerFixture: Sendable {
    public let server: VarlinkServer
    public let backend: InMemoryBackend
    public let directory: String
    public let path: String
    public let logs = LogRecorder()

    public init(configure: (inout VarlinkServer.Configuration) -> Void = { _ in }, backend: InMemoryBackend = InMemoryBackend()) throws {
        var template = Array("/tmp/fleetctl-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw ControlSocketError(operation: "mkdtemp", errno: .current) }
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

    public func stop() {
        server.stop()
        rmdir(directory)
    }
}

/// Collects the server's log lines so tests can check that a note was written.
public final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public func record(_ line: String) { lines.withLock { $0.append(line) } }

    public var all: [String] { lines.withLock { $0 } }
}
