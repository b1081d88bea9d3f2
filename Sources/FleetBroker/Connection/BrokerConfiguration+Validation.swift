import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Policy

extension BrokerConfiguration {
    /// Checks every value, naming the first one that is wrong; the TLS files must be readable now.
    public func validated() throws(BrokerError) -> BrokerConfiguration {
        func invalid(_ message: String) -> BrokerError { BrokerError(.invalidConfiguration, message) }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace }) else {
            throw invalid("broker host '\(host)' must be a host name or address without spaces")
        }
        guard (1...65_535).contains(port) else { throw invalid("broker port \(port) must lie in 1…65535") }
        _ = try ReadingTopics(prefix: topicPrefix, gateway: gatewayID)
        let keepAliveSeconds = keepAlive.components.seconds
        guard keepAlive.components.attoseconds == 0, keepAliveSeconds == 0 || (5...65_535).contains(keepAliveSeconds) else {
            throw invalid("keep-alive \(keepAlive) must be whole seconds, 0 (off) or 5…65535 s (MQTT's 16-bit field)")
        }
        guard connectTimeout > .zero else { throw invalid("connect timeout \(connectTimeout) must be positive") }
        guard shutdownTimeout >= .zero else { throw invalid("shutdown timeout \(shutdownTimeout) must not be negative") }
        guard (1...65_535).contains(maxInFlight) else {
            throw invalid("max in flight \(maxInFlight) must lie in 1…65535 (MQTT's 16-bit packet identifiers)")
        }
        do { _ = try backoff.validated() } catch { throw invalid("broker reconnect backoff: \(error.message)") }
        guard quickReconnectFor >= .zero, quickReconnectCap > .zero else {
            throw invalid("quick reconnects for \(quickReconnectFor) capped at \(quickReconnectCap): the span must not be negative, the cap must be positive")
        }
        if let tls { try tls.validate() }
        if let credentialsFile {
            if tls == nil {
                guard allowPlaintextPassword else {
                    throw invalid("the credentials file \(credentialsFile) would send its password to the broker at \(host) in clear, without TLS;"
                                  + " set ca-file to the CA of the broker's certificate, or, for a broker on this machine only,"
                                  + " allow-plaintext-password = yes")
                }
                guard Self.isLoopback(host: host) else {
                    throw invalid("allow-plaintext-password = yes is only for a broker on this machine (a loopback address: 127.0.0.0/8, ::1,"
                                  + " localhost), and \(host) is not one: the password would cross the network in clear; set ca-file to use TLS")
                }
            }
            _ = try BrokerCredentials.load(from: credentialsFile)
        }
        return self
    }

    /// Whether `host` names this machine by a loopback address: `localhost` (any case, a trailing dot allowed), an
    /// IPv4 address in 127.0.0.0/8, `::1`, or `::ffff:127.x.y.z`. A name that merely resolves to one does not count:
    /// what it resolves to can change.
    public static func isLoopback(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
        return bytes[..<12].elementsEqual([UInt8](repeating: 0, count: 10) + [0xFF, 0xFF]) && bytes[12] == 127
    }
}

extension BrokerTLS {
    func validate() throws(BrokerError) {
        guard (certificateFile == nil) == (keyFile == nil) else {
            throw BrokerError(.invalidConfiguration, "a TLS client certificate needs its key file and a key file needs its certificate"
                              + " (certificate: \(certificateFile ?? "none"), key: \(keyFile ?? "none"))")
        }
        for (role, path) in [("CA", caFile), ("client certificate", certificateFile)] {
            guard let path else { continue }
            guard access(path, R_OK) == 0 else {
                let code = errno
                throw BrokerError(.tlsFileUnreadable, "cannot read the TLS \(role) file \(path)",
                                  cause: .system(errno: code, text: String(cString: strerror(code))), path: path)
            }
        }
        if let keyFile { try Self.checkKeyFile(keyFile) }
    }

    /// The client key is a secret like the password: it must be readable, and is refused when its group or others
    /// have any permission on it (the credentials file's rule; the mode is taken from the opened descriptor).
    public static func checkKeyFile(_ path: String) throws(BrokerError) {
        func unreadable(_ code: Int32) -> BrokerError {
            BrokerError(.tlsFileUnreadable, "cannot read the TLS client key file \(path)",
                        cause: .system(errno: code, text: String(cString: strerror(code))), path: path)
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw unreadable(errno) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw unreadable(errno) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw BrokerError(.tlsFileUnreadable, "the TLS client key file \(path) is not a regular file", path: path)
        }
        let permissions = status.st_mode & 0o7777
        guard permissions & 0o077 == 0 else {
            throw BrokerError(.tlsKeyFileExposed,
                              "the TLS client key file \(path) has mode \(String(permissions, radix: 8, uppercase: false).leftPadded(to: 4)),"
                              + " readable or writable beyond its owner; refused (chmod 600 \(path))", path: path)
        }
    }
}
