extension IdentityRegistry: Codable {
    private enum CodingKeys: String, CodingKey { case schemaVersion, entries }

    /// Writes `schemaVersion` and the entries sorted by stable id, so snapshots diff cleanly.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.schemaVersion, forKey: .schemaVersion)
        try c.encode(sortedEntries, forKey: .entries)
    }

    /// Refuses a snapshot of another schema version with `IdentityError.Code.unsupportedSchemaVersion`,
    /// rather than guessing at fields it does not know.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decode(Int.self, forKey: .schemaVersion)
        guard version == Self.schemaVersion else {
            throw IdentityError(.unsupportedSchemaVersion, "identity registry snapshot has schema version \(version); this fleetd reads version \(Self.schemaVersion)")
        }
        self.init(entries: try c.decode([Entry].self, forKey: .entries))
    }
}
