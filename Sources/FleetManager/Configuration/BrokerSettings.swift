import FleetBroker
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The `[mqtt]` section: where this gateway publishes its readings, typed and checked (pure: no file is read).
/// The section without `host` switches publishing off; `fleetd` then runs as before, readings in the outbox only.
public struct BrokerSettings: Sendable, Hashable {
    public var host: String
    /// nil: 8883 with TLS (`ca-file` set), else 1883.
    public var port: Int?
    public var protocolVersion: BrokerConfiguration.ProtocolVersion = .mqtt311
    /// The MQTT client id and the `<gateway>` topic level; nil: this machine's host name (up to the first dot).
    public var gatewayID: String?
    public var topicPrefix: String = ReadingTopics.defaultPrefix
    public var keepAlive: Duration = .seconds(30)
    public var caFile: String?
    public var certificateFile: String?
    public var keyFile: String?
    /// `username=` / `password=` lines; refused when its group or others have any permission on it, and without
    /// TLS unless ``allowPlaintextPassword`` (for a loopback broker only).
    public var credentialsFile: String?
    /// `allow-plaintext-password = yes`: the credentials may go without TLS to a broker on this machine.
    public var allowPlaintextPassword = false

    public init(host: String) { self.host = host }

    /// The port in force: `port`, else the MQTT convention for the transport.
    public var resolvedPort: Int { port ?? (caFile == nil ? 1883 : 8883) }

    /// The gateway id in force: `gateway-id`, else `hostName` up to its first dot.
    public func resolvedGatewayID(hostName: String) -> String {
        gatewayID ?? String(hostName.split(separator: ".", omittingEmptySubsequences: false).first ?? "")
    }

    /// The connection's configuration; `BrokerConnection.init` validates it again (and reads the files).
    public func brokerConfiguration(hostName: String) -> BrokerConfiguration {
        BrokerConfiguration(host: host, port: resolvedPort, gatewayID: resolvedGatewayID(hostName: hostName), topicPrefix: topicPrefix,
                            protocolVersion: protocolVersion, keepAlive: keepAlive,
                            tls: caFile.map { BrokerTLS(caFile: $0, certificateFile: certificateFile, keyFile: keyFile) },
                            credentialsFile: credentialsFile, allowPlaintextPassword: allowPlaintextPassword)
    }
}

extension FleetConfiguration {
    mutating func applyBroker(_ r: ConfigSectionReader) throws(ConfigError) {
        guard let (host, hostEntry) = try r.rawText("host") else {
            if let first = r.section.entries.first {
                throw r.fail(.incompleteSection, first, "[mqtt] needs host = <broker> before any other key (without host, nothing is published)")
            }
            return
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "\t" }) else {
            throw r.fail(.invalidValue, hostEntry, "\"\(host)\" is not a host name or address")
        }
        var settings = BrokerSettings(host: host)
        settings.port = try r.integer("port", in: 1...65_535)
        if let version = try r.choice("protocol", of: ["3.1.1", "5"]) {
            settings.protocolVersion = BrokerConfiguration.ProtocolVersion(rawValue: version) ?? .mqtt311
        }
        if let id = try r.text("gateway-id") {
            do { try TopicSegment.validate(id, field: "gateway id") } catch { throw r.fail(.invalidValue, r.entry("gateway-id"), error.message) }
            settings.gatewayID = id
        }
        if let prefix = try r.text("topic-prefix") {
            do { _ = try ReadingTopics(prefix: prefix, gateway: "gateway") } catch {
                throw r.fail(.invalidValue, r.entry("topic-prefix"), error.message)
            }
            settings.topicPrefix = prefix
        }
        if let keepAlive = try r.duration("keep-alive") {
            let (seconds, attoseconds) = keepAlive.components
            guard attoseconds == 0, seconds == 0 || (5...65_535).contains(seconds) else {
                throw r.fail(.invalidValue, r.entry("keep-alive"), "must be whole seconds, 0 (off) or 5s…65535s (MQTT's 16-bit field)")
            }
            settings.keepAlive = keepAlive
        }
        settings.caFile = try r.path("ca-file")
        settings.certificateFile = try r.path("cert-file")
        settings.keyFile = try r.path("key-file")
        settings.credentialsFile = try r.path("credentials-file")
        if (settings.certificateFile == nil) != (settings.keyFile == nil) {
            let given = settings.certificateFile == nil ? "key-file" : "cert-file"
            throw r.fail(.incompleteSection, r.entry(given), "a client certificate needs both cert-file and key-file")
        }
        if settings.certificateFile != nil, settings.caFile == nil {
            throw r.fail(.incompleteSection, r.entry("cert-file"), "a client certificate is for TLS: set ca-file to the CA that signed the broker's certificate")
        }
        settings.allowPlaintextPassword = try r.bool("allow-plaintext-password") ?? false
        if settings.credentialsFile != nil, settings.caFile == nil {
            // The same rule BrokerConfiguration.validated() applies, here to name the key to change.
            guard settings.allowPlaintextPassword else {
                throw r.fail(.invalidValue, r.entry("credentials-file"),
                             "without ca-file the broker password would cross the network in clear; set ca-file to the CA of the broker's"
                             + " certificate (TLS), or, for a broker on this machine only, allow-plaintext-password = yes")
            }
            guard BrokerConfiguration.isLoopback(host: host) else {
                throw r.fail(.invalidValue, r.entry("allow-plaintext-password"),
                             "only for a broker on this machine (a loopback address: 127.0.0.0/8, ::1, localhost), and host \(host) is not one;"
                             + " set ca-file to use TLS")
            }
        }
        broker = settings
    }

    /// Checks the files `[mqtt]` names as fleetd will use them: the credentials file and the TLS key readable and
    /// private (no permission for group or others), the other TLS files readable. `document` locates the key in errors.
    func checkBrokerFiles(_ document: ConfigDocument) throws(ConfigError) {
        guard let broker else { return }
        let section = document.sections.first { $0.kind == ConfigSection.mqtt.rawValue && $0.name == nil }
        func fail(_ key: String, _ message: String) -> ConfigError {
            ConfigError(.invalidValue, file: document.file, line: section?.entries.first { $0.key == key }?.line ?? section?.line ?? 0,
                        section: section?.header, key: key, message)
        }
        if let path = broker.credentialsFile {
            do { _ = try BrokerCredentials.load(from: path) } catch { throw fail("credentials-file", error.description) }
        }
        for (key, path) in [("ca-file", broker.caFile), ("cert-file", broker.certificateFile)] {
            guard let path else { continue }
            guard access(path, R_OK) == 0 else {
                let code = errno
                throw fail(key, "cannot read \(path): \(String(cString: strerror(code)))")
            }
        }
        if let path = broker.keyFile {
            do { try BrokerTLS.checkKeyFile(path) } catch { throw fail("key-file", error.description) }
        }
    }
}
