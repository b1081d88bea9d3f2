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
        if let credentialsFile { _ = try BrokerCredentials.load(from: credentialsFile) }
        return self
    }
}

extension BrokerTLS {
    func validate() throws(BrokerError) {
        guard (certificateFile == nil) == (keyFile == nil) else {
            throw BrokerError(.invalidConfiguration, "a TLS client certificate needs its key file and a key file needs its certificate"
                              + " (certificate: \(certificateFile ?? "none"), key: \(keyFile ?? "none"))")
        }
        for (role, path) in [("CA", caFile), ("client certificate", certificateFile), ("client key", keyFile)] {
            guard let path else { continue }
            guard access(path, R_OK) == 0 else {
                let code = errno
                throw BrokerError(.tlsFileUnreadable, "cannot read the TLS \(role) file \(path)",
                                  cause: .system(errno: code, text: String(cString: strerror(code))), path: path)
            }
        }
    }
}
