import Identity

/// Reads typed values out of one section, turning every refusal into a ``ConfigError`` that names the file,
/// line, section and key. Getters return nil when the key is absent, so callers keep their default.
struct ConfigSectionReader {
    let file: String
    let section: ConfigDocument.Section
    let kind: ConfigSection

    /// Checks every key is known to the section and, unless repeatable, given once.
    init(file: String, section: ConfigDocument.Section, kind: ConfigSection) throws(ConfigError) {
        self.file = file
        self.section = section
        self.kind = kind
        var seen: [String: Int] = [:]
        let known = Set(kind.keys)
        for entry in section.entries {
            guard known.contains(entry.key) else {
                throw fail(.unknownKey, entry, "unknown key; \(kind) has \(kind.keys.joined(separator: ", "))")
            }
            if let first = seen[entry.key], !kind.repeatableKeys.contains(entry.key) {
                throw fail(.duplicateKey, entry, "given twice in this section (first on line \(first))")
            }
            seen[entry.key] = seen[entry.key] ?? entry.line
        }
    }

    func fail(_ code: ConfigError.Code, _ entry: ConfigDocument.Entry?, _ message: String) -> ConfigError {
        ConfigError(code, file: file, line: entry?.line ?? section.line, section: section.header, key: entry?.key, message)
    }

    func entry(_ key: String) -> ConfigDocument.Entry? { section.entries.first { $0.key == key } }

    func has(_ key: String) -> Bool { entry(key) != nil }

    /// The raw text of `key`, which must have `= value` (possibly empty).
    func rawText(_ key: String) throws(ConfigError) -> (String, ConfigDocument.Entry)? {
        guard let entry = entry(key) else { return nil }
        guard let value = entry.value else { throw fail(.invalidValue, entry, "needs `= value`") }
        return (value, entry)
    }

    /// A non-empty value.
    func text(_ key: String) throws(ConfigError) -> String? {
        guard let (value, entry) = try rawText(key) else { return nil }
        guard !value.isEmpty else { throw fail(.invalidValue, entry, "needs a value") }
        return value
    }

    func duration(_ key: String, allowZero: Bool = true) throws(ConfigError) -> Duration? {
        guard let (value, entry) = try rawText(key) else { return nil }
        guard let duration = ConfigValue.duration(value) else {
            throw fail(.invalidValue, entry, "\"\(value)\" is not a duration (e.g. 500ms, 30s, 5min, 1h)")
        }
        guard allowZero || duration > .zero else { throw fail(.invalidValue, entry, "must be longer than 0") }
        return duration
    }

    func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let entry = entry(key) else { return nil }
        // A bare key is git-config's way of writing a true boolean.
        guard let value = entry.value else { return true }
        guard let flag = ConfigValue.bool(value) else {
            throw fail(.invalidValue, entry, "\"\(value)\" is not a boolean (yes/no, true/false, on/off, 1/0)")
        }
        return flag
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let (value, entry) = try rawText(key) else { return nil }
        guard let number = ConfigValue.integer(value) else { throw fail(.invalidValue, entry, "\"\(value)\" is not a whole number") }
        guard range.contains(number) else {
            throw fail(.invalidValue, entry, "\(number) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    func choice(_ key: String, of choices: [String]) throws(ConfigError) -> String? {
        guard let (value, entry) = try rawText(key) else { return nil }
        guard choices.contains(value) else {
            throw fail(.invalidValue, entry, "\"\(value)\" is not one of \(choices.joined(separator: ", "))")
        }
        return value
    }

    /// An absolute path.
    func path(_ key: String) throws(ConfigError) -> String? {
        guard let value = try text(key), let entry = entry(key) else { return nil }
        return try checkedPath(value, entry)
    }

    /// An absolute path, where an empty value means "none" (returned as `.some(nil)`).
    func optionalPath(_ key: String) throws(ConfigError) -> String?? {
        guard let (value, entry) = try rawText(key) else { return nil }
        if value.isEmpty { return .some(nil) }
        return .some(try checkedPath(value, entry))
    }

    private func checkedPath(_ value: String, _ entry: ConfigDocument.Entry) throws(ConfigError) -> String {
        guard value.hasPrefix("/") else { throw fail(.invalidValue, entry, "\"\(value)\" is not an absolute path") }
        guard !value.contains("\n"), !value.contains("\0") else {
            throw fail(.invalidValue, entry, "a path may not contain a newline or NUL")
        }
        return value
    }

    /// UUIDs in the canonical lowercase 128-bit form; a UUID listed twice is an error.
    func uuids(_ key: String) throws(ConfigError) -> [String]? {
        guard let (value, entry) = try rawText(key) else { return nil }
        var result: [String] = []
        for word in ConfigValue.words(value) {
            let uuid: ServiceUUID
            do { uuid = try ServiceUUID(word) } catch { throw fail(.invalidValue, entry, error.message) }
            guard !result.contains(uuid.description) else {
                throw fail(.invalidValue, entry, "\(word) is listed twice")
            }
            result.append(uuid.description)
        }
        return result
    }
}
