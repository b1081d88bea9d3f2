import Identity

/// Collects the `[identity]` sections into Identity's rules, each built through its validating initialiser,
/// so a rule the resolver would refuse is refused here with the line that wrote it.
struct ConfigIdentityRules {
    let file: String
    /// Manufacturer, service and IRK rules in file order.
    private var operatorRules: [IdentityRule] = []
    /// The top-level `[identity] identity-address` flag and its line.
    private var flag: (enabled: Bool, line: Int)? = nil
    /// The line of an `[identity "…"]` section that is `identity-address = yes`.
    private var namedIdentityAddressLine: Int? = nil
    /// IRK label → line, across every section, because labels name identities and must be unique.
    private var labels: [String: Int] = [:]

    init(file: String) { self.file = file }

    /// Public and static random addresses are identities unless the operator turns that off.
    var rules: [IdentityRule] {
        let identityAddress = namedIdentityAddressLine != nil || (flag?.enabled ?? true)
        return operatorRules + (identityAddress ? [.identityAddress] : [])
    }

    mutating func applyFlags(_ r: ConfigSectionReader) throws(ConfigError) {
        guard let enabled = try r.bool("identity-address"), let entry = r.entry("identity-address") else { return }
        if !enabled, let named = namedIdentityAddressLine {
            throw r.fail(.invalidValue, entry, "contradicts the identity-address rule on line \(named)")
        }
        flag = (enabled, entry.line)
    }

    private static let ruleKinds = ["manufacturer", "service", "irk", "identity-address"]
    private static let payloadKeys = ["bytes", "expect", "expect-offset", "expect-mask"]

    mutating func applyRule(_ r: ConfigSectionReader) throws(ConfigError) {
        let kinds = Self.ruleKinds.filter(r.has)
        guard let kind = kinds.first else {
            throw r.fail(.incompleteSection, nil, "an identity rule needs one of \(Self.ruleKinds.joined(separator: ", "))")
        }
        if kinds.count > 1 {
            throw r.fail(.incompleteSection, r.entry(kinds[1]), "this section is already a \(kind) rule; write one rule per section")
        }
        switch kind {
        case "manufacturer", "service":
            operatorRules.append(try payloadRule(r, kind: kind))
        case "irk":
            try rejectPayloadKeys(r, kind: kind)
            var keys: [IdentityResolvingKey] = []
            for entry in r.section.entries where entry.key == "irk" {
                keys.append(try resolvingKey(entry, r))
            }
            operatorRules.append(.resolvingKeys(keys))
        default:
            try rejectPayloadKeys(r, kind: kind)
            guard let entry = r.entry("identity-address"), try r.bool("identity-address") == true else {
                throw r.fail(.invalidValue, r.entry("identity-address"), "in a named [identity] section this can only be yes; to turn identity addresses off set it in [identity]")
            }
            if let flag, !flag.enabled {
                throw r.fail(.invalidValue, entry, "contradicts identity-address = no on line \(flag.line)")
            }
            namedIdentityAddressLine = namedIdentityAddressLine ?? entry.line
        }
    }

    private func rejectPayloadKeys(_ r: ConfigSectionReader, kind: String) throws(ConfigError) {
        if let key = Self.payloadKeys.first(where: r.has) {
            throw r.fail(.incompleteSection, r.entry(key), "applies only to manufacturer and service rules, not to \(kind)")
        }
    }

    private func payloadRule(_ r: ConfigSectionReader, kind: String) throws(ConfigError) -> IdentityRule {
        guard let (text, bytesEntry) = try r.rawText("bytes") else {
            throw r.fail(.incompleteSection, nil, "a \(kind) rule needs `bytes = <start>..<<end>`, the identity's bytes")
        }
        guard let range = ConfigValue.halfOpenRange(text) else {
            let hint = text.contains("...") ? " (write the half-open form: 2...7 is 2..<8)" : ""
            throw r.fail(.invalidValue, bytesEntry, "\"\(text)\" is not a half-open byte range like 2..<8\(hint)")
        }
        let expected = try pattern(r)
        if kind == "manufacturer" {
            guard let company = try r.integer("manufacturer", in: 0...0xFFFF) else {
                throw r.fail(.incompleteSection, nil, "needs `manufacturer = <company id>`")
            }
            do {
                return .manufacturerData(try ManufacturerDataRule(companyID: UInt16(company), byteRange: range, expected: expected))
            } catch {
                throw r.fail(.invalidValue, bytesEntry, error.message)
            }
        }
        guard let uuidText = try r.text("service"), let serviceEntry = r.entry("service") else {
            throw r.fail(.invalidValue, r.entry("service"), "needs a service UUID")
        }
        let uuid: ServiceUUID
        do { uuid = try ServiceUUID(uuidText) } catch { throw r.fail(.invalidValue, serviceEntry, error.message) }
        do {
            return .serviceData(try ServiceDataRule(uuid: uuid, byteRange: range, expected: expected))
        } catch {
            throw r.fail(.invalidValue, bytesEntry, error.message)
        }
    }

    /// Builds the pattern step by step so the error lands on the key that broke it.
    private func pattern(_ r: ConfigSectionReader) throws(ConfigError) -> BytePattern? {
        guard let bytes = try r.text("expect"), let bytesEntry = r.entry("expect") else {
            if let orphan = ["expect-offset", "expect-mask"].first(where: r.has) {
                throw r.fail(.incompleteSection, r.entry(orphan), "needs `expect = <hex bytes>` in the same section")
            }
            return nil
        }
        do { _ = try BytePattern(offset: 0, hex: bytes) } catch { throw r.fail(.invalidValue, bytesEntry, error.message) }
        let mask = try r.text("expect-mask")
        if let mask {
            do { _ = try BytePattern(offset: 0, hex: bytes, maskHex: mask) } catch {
                throw r.fail(.invalidValue, r.entry("expect-mask"), error.message)
            }
        }
        let offset = try r.integer("expect-offset", in: 0...IdentityRule.maximumPayloadLength) ?? 0
        do {
            return try BytePattern(offset: offset, hex: bytes, maskHex: mask)
        } catch {
            throw r.fail(.invalidValue, r.entry("expect-offset") ?? bytesEntry, error.message)
        }
    }

    private mutating func resolvingKey(_ entry: ConfigDocument.Entry, _ r: ConfigSectionReader) throws(ConfigError) -> IdentityResolvingKey {
        guard let value = entry.value, let colon = value.firstIndex(of: ":") else {
            throw r.fail(.invalidValue, entry, "expected `irk = <label>:<32 hex digits>`")
        }
        let label = String(value[..<colon])
        let key: IdentityResolvingKey
        do {
            key = try IdentityResolvingKey(hex: String(value[value.index(after: colon)...]), label: label)
        } catch {
            throw r.fail(.invalidValue, entry, error.message)
        }
        if let first = labels[label] {
            throw r.fail(.invalidValue, entry, "the IRK label '\(label)' is already used on line \(first); each device needs its own label")
        }
        labels[label] = entry.line
        return key
    }

    /// A wanted device whose id no rule can produce would wait forever; that is a typo, not a wish.
    func checkReachable(_ identity: FleetIdentity, device r: ConfigSectionReader) throws(ConfigError) {
        let reachable: Bool
        let missing: String
        switch identity {
        case .manufacturer(let company, let key):
            reachable = operatorRules.contains {
                if case .manufacturerData(let rule) = $0 { rule.companyID == company && rule.byteRange.count == key.count } else { false }
            }
            let hex = String(company, radix: 16)
            missing = "no [identity] rule takes \(key.count) bytes of company 0x\(String(repeating: "0", count: 4 - hex.count) + hex)'s manufacturer data"
        case .service(let uuid, let key):
            reachable = operatorRules.contains {
                if case .serviceData(let rule) = $0 { rule.uuid == uuid && rule.byteRange.count == key.count } else { false }
            }
            missing = "no [identity] rule takes \(key.count) bytes of service \(uuid.compactDescription)'s data"
        case .resolvingKey(let label):
            reachable = labels[label] != nil
            missing = "no [identity] section has an irk labelled '\(label)'"
        case .address:
            reachable = true
            missing = ""
        }
        guard reachable else {
            throw ConfigError(.unreachableDevice, file: file, line: r.section.line, section: r.section.header,
                              "\(missing), so this device could never be recognised")
        }
    }
}
