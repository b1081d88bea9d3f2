import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private system-like dbus-daemon for one test suite: its own config, socket and policy, started in the
/// foreground (never `--fork`: PID 1 here does not reap) and killed by `stop()` or deinit.
public final class PrivateBus: @unchecked Sendable {
    public let address: String
    public let directory: TemporaryDirectory
    private let daemon: ChildProcess

    public init() throws {
        directory = try TemporaryDirectory(prefix: "fleet-test-bus")
        let socket = directory.path + "/bus"
        let config = """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow receive_sender="*"/>
            <allow send_type="method_call"/>
          </policy>
          <limit name="max_replies_per_connection">100000</limit>
          <limit name="max_incoming_bytes">1000000000</limit>
          <limit name="max_outgoing_bytes">1000000000</limit>
          <limit name="max_message_size">134217728</limit>
          <limit name="max_connections_per_user">10000</limit>
          <limit name="max_match_rules_per_connection">100000</limit>
          <limit name="reply_timeout">300000</limit>
        </busconfig>
        """
        let configPath = directory.path + "/bus.conf"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw TestKitError("pipe failed") }
        daemon = try ChildProcess("/usr/bin/dbus-daemon", ["--config-file=\(configPath)", "--nofork", "--print-address=3"],
                                  stderr: directory.path + "/dbus.log", fd3: fds[1])
        Glibc.close(fds[1])
        defer { Glibc.close(fds[0]) }
        // dbus-daemon prints its address once it listens: reading it is waiting for readiness.
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !collected.contains(UInt8(ascii: "\n")) {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            collected += buffer[0..<n]
        }
        let printed = String(decoding: collected, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !printed.isEmpty else {
            let log = (try? String(contentsOfFile: directory.path + "/dbus.log", encoding: .utf8)) ?? ""
            throw TestKitError("dbus-daemon did not start: \(log)")
        }
        address = printed
    }

    /// Environment for child processes that should use this bus as their system bus.
    public func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        for (k, v) in extra { env[k] = v }
        return env
    }

    public func stop() { try? daemon.kill(signal: SIGKILL) }

    deinit { stop() }
}
