import Policy

extension FleetConfiguration {
    /// Applies one `[policy "<class>"]` section over that class's defaults and validates it with Policy.
    mutating func applyPolicy(_ r: ConfigSectionReader) throws(ConfigError) {
        guard let name = r.section.name, let policyClass = PolicyClass(rawValue: name) else {
            throw ConfigError(.unknownSection, file: r.file, line: r.section.line, section: r.section.header,
                              "\"\(r.section.name ?? "")\" is not a policy class; use critical, normal or opportunistic")
        }
        let defaults = Self.defaults.policy[policyClass]
        let configured = try Self.classConfiguration(r, over: defaults)
        do {
            policy[policyClass] = try configured.validated()
        } catch {
            throw ConfigError(.invalidValue, file: r.file, line: Self.culprit(r, over: defaults)?.line ?? r.section.line,
                              section: r.section.header, key: Self.culprit(r, over: defaults)?.key, error.message)
        }
    }

    /// The section's values over `base`, each checked for its own spelling only; Policy judges the whole.
    private static func classConfiguration(_ r: ConfigSectionReader, over base: ClassConfiguration) throws(ConfigError) -> ClassConfiguration {
        var c = base
        if let d = try r.duration("connect-timeout") { c.connectTimeout = d }
        if let d = try r.duration("backoff-base") { c.backoff.base = d }
        if let (text, entry) = try r.rawText("backoff-factor") {
            guard let factor = Double(text), factor.isFinite else {
                throw r.fail(.invalidValue, entry, "\"\(text)\" is not a number")
            }
            c.backoff.factor = factor
        }
        if let d = try r.duration("backoff-cap") { c.backoff.cap = d }
        if let d = try r.duration("backoff-floor") { c.backoff.floor = d }
        if let jitter = try r.choice("jitter", of: ["full", "none"]) { c.backoff.jitter = jitter == "full" ? .full : .none }
        if let d = try r.duration("stable-after") { c.backoff.stableAfter = d }
        if let d = try r.duration("recovery-window") { c.backoff.recoveryWindow = d }
        if let (text, entry) = try r.rawText("retry-budget") {
            if text == "forever" {
                c.retryBudget = nil
            } else {
                guard let n = ConfigValue.integer(text), n >= 1 else {
                    throw r.fail(.invalidValue, entry, "\"\(text)\" is neither `forever` nor a number of attempts ≥ 1")
                }
                c.retryBudget = n
            }
        }
        if let d = try r.duration("min-hold") { c.minimumHoldTime = d }
        return c
    }

    /// The entry to blame when Policy rejects the section as a whole (e.g. a cap below the base): the last
    /// one that, reverted to its default, makes the class valid. Nil when no single entry does.
    private static func culprit(_ r: ConfigSectionReader, over base: ClassConfiguration) -> ConfigDocument.Entry? {
        for entry in r.section.entries.reversed() {
            var trimmed = r.section
            trimmed.entries.removeAll { $0.key == entry.key }
            guard let reader = try? ConfigSectionReader(file: r.file, section: trimmed, kind: r.kind),
                let candidate = try? classConfiguration(reader, over: base)
            else { continue }
            if (try? candidate.validated()) != nil { return entry }
        }
        return nil
    }
}
