/// Every kind of section fleetd's configuration file has and the keys each accepts: the single list that the
/// parser enforces, `docs/configuration.md` describes and `deploy/fleetd.conf` shows (a test keeps the three
/// in step).
public enum ConfigSection: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `[daemon]`: files, sockets, logging and daemon-wide timers.
    case daemon
    /// `[adapters]`: which adapters to use and their default pool.
    case adapters
    /// `[adapter "hci1"]`: one adapter's own pool.
    case adapter
    /// `[scan]`: the discovery filter.
    case scan
    /// `[identity]` with no name: flags for the built-in rules.
    case identity
    /// `[identity "name"]`: one operator identity rule.
    case identityRule
    /// `[policy "critical"]`, `"normal"`, `"opportunistic"`: one class's reconnect policy.
    case policy
    /// `[device "<stable id>"]`: one wanted device.
    case device
    /// `[outbox]`: the durable store of readings.
    case outbox
    /// `[mqtt]`: the fleet's MQTT broker the readings are published to.
    case mqtt

    /// The name in the brackets.
    public var kind: String { self == .identityRule ? "identity" : rawValue }

    /// How the header is written, with a placeholder for the quoted name.
    public var description: String {
        switch self {
        case .daemon, .adapters, .scan, .identity, .outbox, .mqtt: "[\(kind)]"
        case .adapter: "[adapter \"<hciN>\"]"
        case .identityRule: "[identity \"<rule name>\"]"
        case .policy: "[policy \"<class>\"]"
        case .device: "[device \"<stable id>\"]"
        }
    }

    public var keys: [String] {
        switch self {
        case .daemon:
            ["snapshot", "store", "control-socket", "control-group", "log-level", "log-target", "leave-links-on-exit",
             "eviction-hold-off", "setup-timeout", "metrics-textfile", "agent-default", "agent-capability"]
        case .adapters: ["use", "capacity"]
        case .adapter: ["capacity"]
        case .scan: ["service-uuids", "duplicate-data"]
        case .identity: ["identity-address"]
        case .identityRule:
            ["manufacturer", "service", "bytes", "expect", "expect-offset", "expect-mask", "irk", "identity-address"]
        case .policy:
            ["connect-timeout", "backoff-base", "backoff-factor", "backoff-cap", "backoff-floor", "jitter",
             "stable-after", "recovery-window", "retry-budget", "min-hold"]
        case .device: ["name", "class", "subscribe", "read", "profile", "pairing", "passkey", "passkey-file", "numeric-comparison", "re-pair",
                       "re-pair-elsewhere"]
        case .outbox: ["path", "commit-delay", "max-age", "max-rows", "racp-delete"]
        case .mqtt:
            ["host", "port", "protocol", "gateway-id", "topic-prefix", "keep-alive", "ca-file", "cert-file", "key-file",
             "credentials-file", "allow-plaintext-password"]
        }
    }

    /// Keys that may be given more than once in one section; every other key is an error the second time.
    public var repeatableKeys: Set<String> { self == .identityRule ? ["irk"] : [] }

    /// The kind of `section`, or the error explaining why fleetd does not know it.
    public static func of(_ section: ConfigDocument.Section, file: String) throws(ConfigError) -> ConfigSection {
        func fail(_ message: String) -> ConfigError {
            ConfigError(.unknownSection, file: file, line: section.line, section: section.header, message)
        }
        let kind: ConfigSection
        switch section.kind {
        case "identity": kind = section.name == nil ? .identity : .identityRule
        case let name:
            guard let known = ConfigSection(rawValue: name), known != .identityRule else {
                let all = ConfigSection.allCases.map(\.description).joined(separator: ", ")
                throw fail("unknown section; fleetd reads \(all)")
            }
            kind = known
        }
        switch kind {
        case .daemon, .adapters, .scan, .outbox, .mqtt:
            guard section.name == nil else { throw fail("[\(kind.kind)] takes no name") }
        case .adapter, .policy, .device:
            guard let name = section.name, !name.isEmpty else { throw fail("needs a name: \(kind)") }
        case .identity, .identityRule:
            guard section.name != "" else { throw fail("an identity rule needs a non-empty name") }
        }
        return kind
    }
}
