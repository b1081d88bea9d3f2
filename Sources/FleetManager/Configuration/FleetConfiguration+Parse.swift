import FleetSystem
import FoundationEssentials
import Identity
import Pairing
import Policy

extension FleetConfiguration {
    /// The configuration `text` describes; `file` names it in errors. Pure: reads nothing but `text`.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> FleetConfiguration {
        try FleetConfiguration(document: ConfigDocument.parse(text, file: file))
    }

    /// Reads and parses the file at `path`; an unreadable or non-UTF-8 file is a ``ConfigError`` too, and so is a
    /// file `[mqtt]` names that fleetd could not use (a credentials file others may read, an unreadable CA).
    public static func load(path: String) throws(ConfigError) -> FleetConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigError(.unreadableFile, file: path, line: 0, "cannot read the configuration file: \(readFailure(error))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(.unreadableFile, file: path, line: 0, "the configuration file is not UTF-8 text")
        }
        let document = try ConfigDocument.parse(text, file: path)
        let configuration = try FleetConfiguration(document: document)
        try configuration.checkBrokerFiles(document)
        return configuration
    }

    /// Why a file could not be read, from the errno under FoundationEssentials' error: "No such file or
    /// directory (ENOENT)", "Is a directory (EISDIR)".
    static func readFailure(_ error: any Error) -> String {
        if let posix = (error as? CocoaError)?.underlying as? POSIXError { return Errno(rawValue: posix.code.rawValue).description }
        return "\(error)"
    }

    init(document: ConfigDocument) throws(ConfigError) {
        self = .defaults
        let file = document.file
        var firstLine: [String: Int] = [:]
        var identity = ConfigIdentityRules(file: file)
        var duplicateData: Bool? = nil
        var deviceSections: [(ConfigSectionReader, FleetIdentity)] = []
        for section in document.sections {
            let kind = try ConfigSection.of(section, file: file)
            if let first = firstLine[section.header] {
                throw ConfigError(.duplicateSection, file: file, line: section.line, section: section.header,
                                  "this section already appeared on line \(first); give each section once")
            }
            firstLine[section.header] = section.line
            let reader = try ConfigSectionReader(file: file, section: section, kind: kind)
            switch kind {
            case .daemon: try applyDaemon(reader)
            case .adapters: try applyAdapters(reader)
            case .adapter: try applyAdapter(reader)
            case .scan:
                if let list = try reader.uuids("service-uuids") { scanServiceUUIDs = list }
                if let mode = try reader.choice("duplicate-data", of: ["auto", "yes", "no"]), mode != "auto" {
                    duplicateData = mode == "yes"
                }
            case .identity: try identity.applyFlags(reader)
            case .identityRule: try identity.applyRule(reader)
            case .policy: try applyPolicy(reader)
            case .device: deviceSections.append((reader, try applyDevice(reader)))
            case .outbox:
                if let p = try reader.path("path") { outboxPath = p }
                if let d = try reader.duration("commit-delay", allowZero: false) { outboxCommitDelay = d }
                // 0 switches a bound off.
                if let d = try reader.duration("max-age") { outboxMaxAge = d == .zero ? nil : d }
                if let n = try reader.integer("max-rows", in: 0...Int(Int32.max)) { outboxMaxRows = n == 0 ? nil : n }
                if let delete = try reader.bool("racp-delete") { racpDelete = delete }
            case .mqtt: try applyBroker(reader)
            }
        }
        identityRules = identity.rules
        // Payload rules need every advert, not only those that change a property, to see a serial again
        // after the device object was removed and re-added.
        self.duplicateData = duplicateData ?? identityRules.contains { [.manufacturerData, .serviceData].contains($0.kind) }
        for (reader, id) in deviceSections { try identity.checkReachable(id, device: reader) }
        try checkAgentCapability(document)
    }

    /// An agent-capability that cannot type a passkey, while a device pairs with one: its pairing could
    /// never succeed (the kernel would use Just Works, or fail for want of MITM protection).
    private func checkAgentCapability(_ document: ConfigDocument) throws(ConfigError) {
        guard let capability = agentCapability, !capability.canEnterPasskey,
              let device = devices.first(where: { $0.pairing?.policy.needsPasskeyEntry == true }) else { return }
        let daemon = document.sections.first { $0.header == "[daemon]" }
        let line = daemon?.entries.first { $0.key == "agent-capability" }?.line ?? 0
        throw ConfigError(.invalidValue, file: document.file, line: line, section: "[daemon]", key: "agent-capability",
                          "\(capability.configName) cannot enter the passkey [device \"\(device.id)\"] pairs with; use keyboard-only, keyboard-display or auto")
    }

    private mutating func applyDaemon(_ r: ConfigSectionReader) throws(ConfigError) {
        if let p = try r.path("snapshot") {
            snapshotPath = p
            deprecatedKeys.append("[daemon] snapshot")
        }
        if let p = try r.path("store") { storePath = p }
        if let p = try r.path("control-socket") {
            // sockaddr_un.sun_path holds 108 bytes including the terminating NUL.
            guard p.utf8.count <= 107 else {
                throw r.fail(.invalidValue, r.entry("control-socket"), "a socket path is at most 107 bytes, this one is \(p.utf8.count)")
            }
            controlSocket = p
        }
        if let (group, _) = try r.rawText("control-group") {
            guard group.isEmpty || ConfigValue.isGroupName(group) else {
                throw r.fail(.invalidValue, r.entry("control-group"), "\"\(group)\" is not a group name")
            }
            controlGroup = group
        }
        if let level = try r.choice("log-level", of: ["trace", "debug", "info", "notice", "warning", "error", "critical"]) {
            logLevel = level
        }
        if let target = try r.choice("log-target", of: ["auto", "journal", "stderr"]) { logTarget = target }
        if let flag = try r.bool("leave-links-on-exit") { leaveLinksOnExit = flag }
        if let d = try r.duration("eviction-hold-off") { evictionHoldOff = d }
        if let d = try r.duration("setup-timeout", allowZero: false) { setUpTimeout = d }
        if let flag = try r.bool("agent-default") { agentDefault = flag }
        let capabilities = ["auto"] + AgentCapability.configurable.map(\.configName)
        if let name = try r.choice("agent-capability", of: capabilities) {
            agentCapability = AgentCapability.configurable.first { $0.configName == name }
        }
        if let p = try r.optionalPath("metrics-textfile") {
            // node_exporter's textfile collector reads only *.prom files.
            if let p, !p.hasSuffix(".prom") {
                throw r.fail(.invalidValue, r.entry("metrics-textfile"), "\"\(p)\" must end in .prom for node_exporter to read it")
            }
            metricsTextfile = p
        }
    }

    static let capacityRange = 1...64

    private mutating func applyAdapters(_ r: ConfigSectionReader) throws(ConfigError) {
        if let (value, entry) = try r.rawText("use") {
            var names: [String] = []
            for name in ConfigValue.words(value) {
                guard ConfigValue.isAdapterName(name) else {
                    throw r.fail(.invalidValue, entry, "\"\(name)\" is not an adapter name like hci0")
                }
                guard !names.contains(name) else { throw r.fail(.invalidValue, entry, "\(name) is listed twice") }
                names.append(name)
            }
            adapters = names
        }
        if let n = try r.integer("capacity", in: Self.capacityRange) { defaultCapacity = n }
    }

    private mutating func applyAdapter(_ r: ConfigSectionReader) throws(ConfigError) {
        let name = r.section.name ?? ""
        guard ConfigValue.isAdapterName(name) else {
            throw ConfigError(.unknownSection, file: r.file, line: r.section.line, section: r.section.header,
                              "\"\(name)\" is not an adapter name like hci0")
        }
        if let n = try r.integer("capacity", in: Self.capacityRange) { capacity[name] = n }
    }

    private mutating func applyDevice(_ r: ConfigSectionReader) throws(ConfigError) -> FleetIdentity {
        let written = r.section.name ?? ""
        let identity: FleetIdentity
        do {
            identity = try FleetIdentity(stableID: written)
        } catch {
            throw ConfigError(.unknownSection, file: r.file, line: r.section.line, section: r.section.header, error.message)
        }
        let id = identity.stableID
        if let twin = devices.first(where: { $0.id == id }) {
            throw ConfigError(.duplicateSection, file: r.file, line: r.section.line, section: r.section.header,
                              "names the same device as [device \"\(twin.id)\"]")
        }
        var device = ConfiguredDevice(id: id)
        device.name = try r.text("name")
        if let text = try r.choice("class", of: PolicyClass.allCases.map(\.rawValue)), let c = PolicyClass(rawValue: text) {
            device.policyClass = c
        }
        device.subscribe = try r.uuids("subscribe") ?? []
        device.read = try r.uuids("read") ?? []
        device.standardProfiles = try r.choice("profile", of: ["standard", "none"]).map { $0 == "standard" } ?? true
        device.pairing = try Self.pairing(r)
        devices.append(device)
        return identity
    }
}
