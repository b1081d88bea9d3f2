import FleetTestKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's mosquitto broker for one test: a private configuration in a temporary directory, a free loopback
/// port, started in the foreground (never daemonised: PID 1 here does not reap) and killed on deinit. It can be
/// stopped and started again on the same port, keeping its persistence file (subscriptions and queued messages of
/// persistent sessions survive, as on a real deployment with `persistence true`).
public final class MosquittoBroker: @unchecked Sendable {
    // @unchecked: `process` is changed only by the one test task that owns the broker.

    /// What the broker's listener demands.
    public struct Options: Sendable {
        /// Accounts in the broker's password file; empty means anonymous clients are allowed.
        public var users: [String: String]
        /// A TLS listener with these certificates (the server's and the CA that signed it).
        public var tls: TestCertificates?
        /// With ``tls``: clients must present a certificate signed by the CA.
        public var requireClientCertificate: Bool
        /// Lines of an ACL file (mosquitto.conf(5) `acl_file`); nil for none. Lines before any `user` line
        /// apply to anonymous clients.
        public var acl: [String]?
        /// `set_tcp_nodelay true`: PUBACKs leave without waiting for Nagle's algorithm (off by default in
        /// Mosquitto, as in most deployments).
        public var tcpNoDelay: Bool
        /// More lines for mosquitto.conf (`message_size_limit 400`, …), after the harness's own.
        public var extraConfiguration: [String]

        public init(users: [String: String] = [:], tls: TestCertificates? = nil, requireClientCertificate: Bool = false,
                    acl: [String]? = nil, tcpNoDelay: Bool = false, extraConfiguration: [String] = []) {
            self.users = users
            self.tls = tls
            self.requireClientCertificate = requireClientCertificate
            self.acl = acl
            self.tcpNoDelay = tcpNoDelay
            self.extraConfiguration = extraConfiguration
        }
    }

    public static let executable = "/usr/sbin/mosquitto"
    public let options: Options
    public let directory: TemporaryDirectory
    public private(set) var port: Int = 0
    public let host = "127.0.0.1"
    private var process: ChildProcess?

    public var configPath: String { directory.path + "/mosquitto.conf" }
    public var logPath: String { directory.path + "/mosquitto.log" }
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Writes the configuration and starts the broker on a free port, waiting until it accepts connections.
    public init(_ options: Options = Options()) async throws {
        self.options = options
        directory = try TemporaryDirectory(prefix: "fleet-test-mosquitto")
        if !options.users.isEmpty {
            let passwords = directory.path + "/passwords"
            for (index, (user, password)) in options.users.sorted(by: { $0.key < $1.key }).enumerated() {
                let arguments = (index == 0 ? ["-c"] : []) + ["-b", passwords, user, password]
                let result = try await ChildProcess.run("/usr/bin/mosquitto_passwd", arguments, timeout: .seconds(30))
                guard result.code == 0 else { throw TestKitError("mosquitto_passwd failed: \(result.stderr)") }
            }
        }
        // Another process may take the port between probing it and the broker binding it: try a few.
        var lastError: (any Error)?
        for _ in 0..<5 {
            port = try Self.freePort()
            try writeConfiguration()
            do {
                try await start()
                return
            } catch {
                lastError = error
                stop()
            }
        }
        throw lastError ?? TestKitError("mosquitto did not start")
    }

    deinit { try? process?.kill(signal: SIGKILL) }

    private func writeConfiguration() throws {
        var lines = [
            "listener \(port) \(host)",
            "allow_anonymous \(options.users.isEmpty)",
            "persistence true",
            "persistence_location \(directory.path)/",
            "autosave_interval 0",
            // Unlimited queues for persistent subscribers: a test's backlog must not be dropped by the broker.
            "max_queued_messages 0",
            "max_inflight_messages 0",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            "connection_messages true",
        ]
        if getuid() == 0 { lines.append("user root") }
        if options.tcpNoDelay { lines.append("set_tcp_nodelay true") }
        if !options.users.isEmpty { lines.append("password_file \(directory.path)/passwords") }
        if let acl = options.acl {
            try (acl.joined(separator: "\n") + "\n").write(toFile: directory.path + "/acl", atomically: true, encoding: .utf8)
            lines.append("acl_file \(directory.path)/acl")
        }
        if let tls = options.tls {
            lines += ["cafile \(tls.caCertificate)", "certfile \(tls.serverCertificate)", "keyfile \(tls.serverKey)",
                      "require_certificate \(options.requireClientCertificate)"]
        }
        lines += options.extraConfiguration
        try (lines.joined(separator: "\n") + "\n").write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Starts the broker (again) and waits until its port accepts TCP connections.
    public func start() async throws {
        let child = try ChildProcess(Self.executable, ["-c", configPath], stdout: logPath, stderr: logPath)
        process = child
        let port = self.port
        try await waitUntil("mosquitto to accept connections on port \(port)") {
            guard child.isRunning else { throw TestKitError("mosquitto exited: \(self.log)") }
            return Self.accepts(port: port)
        }
    }

    /// SIGTERM, as systemd stops it: mosquitto saves its persistence file and exits.
    public func stop() {
        guard let process else { return }
        try? process.kill(signal: SIGCONT)
        try? process.kill(signal: SIGTERM)
        if process.wait(timeout: .seconds(10)) == nil { try? process.kill(signal: SIGKILL) }
        self.process = nil
    }

    /// SIGSTOP: the broker keeps its sockets open but answers nothing, like a broker behind a dead network path.
    public func freeze() throws { try process?.kill(signal: SIGSTOP) }

    /// SIGCONT after ``freeze()``.
    public func thaw() throws { try process?.kill(signal: SIGCONT) }

    /// Stops and starts the broker on the same port.
    public func restart() async throws {
        stop()
        try await start()
    }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A port the kernel just handed out for 127.0.0.1 (bound to port 0 and released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestKitError("socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestKitError("cannot bind a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The arguments that point a mosquitto_pub or mosquitto_sub at this broker.
    public func clientArguments(username: String? = nil, password: String? = nil) -> [String] {
        var arguments = ["-h", host, "-p", String(port)]
        if let username { arguments += ["-u", username] }
        if let password { arguments += ["-P", password] }
        if let tls = options.tls {
            arguments += ["--cafile", tls.caCertificate]
            if options.requireClientCertificate { arguments += ["--cert", tls.clientCertificate, "--key", tls.clientKey] }
        }
        return arguments
    }
}
