/// The fleet tables (`devices`, `identities`, `evictions`): one transaction per save with only the rows that
/// changed, and one read of every row at start.
extension StateStore {
    /// `devices`' columns in the order the statements bind and read them. A new field is appended here, in
    /// `bind(_:to:)` and in `device(from:repeated:)`.
    static let deviceColumns = ["id", "name", "class", "subscribe", "read_on_connect", "wanted", "configured",
                                "last_addresses", "failures", "gave_up", "last_reason", "updated_wall_ns", "bond_adapter", "needs_pairing"]
    static let identityColumns = ["id", "address_type", "display_name", "addresses", "first_seen_ns", "last_seen_ns", "updated_wall_ns"]

    static func upsertSQL(_ table: String, _ columns: [String]) -> String {
        let placeholders = (1...columns.count).map { "?\($0)" }.joined(separator: ", ")
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT (id) DO UPDATE SET \(updates)"
    }

    static let upsertDevice = upsertSQL("devices", deviceColumns)
    static let upsertIdentity = upsertSQL("identities", identityColumns)

    /// Writes `change` and `metadata` (see `metadata(_:)`) in one transaction: all of it or none. A no-op when
    /// both are empty.
    public func apply(_ change: FleetStateChange, metadata: [String: String] = [:]) throws(SQLiteError) {
        guard !change.isEmpty || !metadata.isEmpty else { return }
        let now = StoreClock.wallNanoseconds()
        try withConnection("save fleet state") { (c: Connection) throws(SQLiteError) in
            try c.database.transaction { () throws(SQLiteError) in
                if !change.devices.isEmpty {
                    let upsert = try c.statement(Self.upsertDevice)
                    for row in change.devices { try Self.bind(row, now: now, to: upsert) }
                }
                if !change.removedDevices.isEmpty {
                    let delete = try c.statement("DELETE FROM devices WHERE id = ?1")
                    for id in change.removedDevices { try delete.run([.text(id)]) }
                }
                if !change.identities.isEmpty {
                    let upsert = try c.statement(Self.upsertIdentity)
                    for row in change.identities {
                        try upsert.run([.text(row.id), Self.optional(row.addressType), Self.optional(row.displayName),
                                        .text(row.addresses.joined(separator: " ")), .integer(row.firstSeenNanoseconds),
                                        .integer(row.lastSeenNanoseconds), .integer(now)])
                    }
                }
                if !change.removedIdentities.isEmpty {
                    let delete = try c.statement("DELETE FROM identities WHERE id = ?1")
                    for id in change.removedIdentities { try delete.run([.text(id)]) }
                }
                if let evictions = change.evictions {
                    try c.database.execute("DELETE FROM evictions")
                    let insert = try c.statement("INSERT INTO evictions (position, victim, admitted, reason, at_ns) VALUES (?1, ?2, ?3, ?4, ?5)")
                    for (position, row) in evictions.enumerated() {
                        try insert.run([.integer(Int64(position)), .text(row.victim), .text(row.admitted), .text(row.reason), .integer(row.atNanoseconds)])
                    }
                }
                for (key, value) in metadata {
                    try c.upsert.run([.text(StateKind.metadata.rawValue), .text(key), .blob(Array(value.utf8)), .integer(now)])
                }
            }
            c.writes += 1
        }
    }

    static func bind(_ row: DeviceRow, now: Int64, to upsert: SQLiteStatement) throws(SQLiteError) {
        try upsert.run([
            .text(row.id), optional(row.name), .text(row.policyClass), .text(row.subscribe.joined(separator: " ")),
            .text(row.readOnConnect.joined(separator: " ")), .integer(row.wanted ? 1 : 0),
            row.configured.map { .integer($0 ? 1 : 0) } ?? .null, .text(row.lastAddresses.joined(separator: " ")),
            .integer(Int64(row.failures)), .integer(row.gaveUp ? 1 : 0), optional(row.lastReason), .integer(now),
            optional(row.bondAdapter), optional(row.needsPairing),
        ])
    }

    static func optional(_ text: String?) -> SQLiteValue { text.map { .text($0) } ?? .null }

    /// Every row of the fleet tables.
    public func fleetState() throws(SQLiteError) -> StoredFleetState {
        var state = StoredFleetState()
        try readFleetState(device: { state.devices.append($0) }, identity: { state.identities.append($0) },
                           eviction: { state.evictions.append($0) })
        return state
    }

    /// Every row of the fleet tables, handed over one at a time as it is read (devices by id, identities by id,
    /// evictions oldest first), in one read transaction so the three tables come from the same commit. What a
    /// restore uses: no array of rows is built between SQLite and the caller's own values.
    /// `counts` comes first, with how many device and identity rows follow (for the caller's capacity).
    public func readFleetState(counts: (_ devices: Int, _ identities: Int) -> Void = { _, _ in }, device: (DeviceRow) -> Void,
                               identity: (IdentityRow) -> Void, eviction: (EvictionRow) -> Void) throws(SQLiteError) {
        try withConnection("restore fleet state") { (c: Connection) throws(SQLiteError) in
            try c.database.transaction(.deferred) { () throws(SQLiteError) in
                try c.statement("SELECT (SELECT count(*) FROM devices), (SELECT count(*) FROM identities)").forEachRow { s in
                    counts(Int(s.int64(at: 0)), Int(s.int64(at: 1)))
                }
                var repeated = RepeatedText()
                try c.statement(Self.selectDevices).forEachRow { s in device(Self.device(from: s, repeated: &repeated)) }
                try c.statement(Self.selectIdentities).forEachRow { s in
                    identity(IdentityRow(id: s.text(at: 0), addressType: repeated.optionalText(s, 1), displayName: Self.optionalText(s, 2),
                                         addresses: s.textList(at: 3), firstSeenNanoseconds: s.int64(at: 4), lastSeenNanoseconds: s.int64(at: 5)))
                }
                try c.statement("SELECT victim, admitted, reason, at_ns FROM evictions ORDER BY position").forEachRow { s in
                    eviction(EvictionRow(victim: s.text(at: 0), admitted: s.text(at: 1), reason: s.text(at: 2), atNanoseconds: s.int64(at: 3)))
                }
            }
        }
    }

    static let selectDevices = "SELECT \(deviceColumns.joined(separator: ", ")) FROM devices ORDER BY id"
    static let selectIdentities = "SELECT \(identityColumns.joined(separator: ", ")) FROM identities ORDER BY id"

    /// Columns a fleet's devices mostly share (class, subscriptions, reasons) are read through `repeated`, which
    /// hands back the previous row's value when the bytes are the same: one string (or list) for the fleet
    /// instead of one per row.
    static func device(from s: SQLiteStatement, repeated: inout RepeatedText) -> DeviceRow {
        DeviceRow(id: s.text(at: 0), name: optionalText(s, 1), policyClass: repeated.text(s, 2), subscribe: repeated.list(s, 3),
                  readOnConnect: repeated.list(s, 4), wanted: s.int64(at: 5) != 0, configured: s.isNull(at: 6) ? nil : s.int64(at: 6) != 0,
                  lastAddresses: s.textList(at: 7), failures: Int(s.int64(at: 8)), gaveUp: s.int64(at: 9) != 0,
                  lastReason: repeated.optionalText(s, 10), bondAdapter: repeated.optionalText(s, 12), needsPairing: repeated.optionalText(s, 13))
    }

    static func optionalText(_ s: SQLiteStatement, _ index: Int32) -> String? { s.isNull(at: index) ? nil : s.text(at: index) }

    /// A value of the store's own bookkeeping (e.g. where a JSON snapshot was imported from), kept in `state`
    /// under kind `meta`; nil when never set.
    public func metadata(_ key: String) throws(SQLiteError) -> String? {
        try row(kind: .metadata, key: key).map { String(decoding: $0.payload, as: UTF8.self) }
    }

    public func setMetadata(_ key: String, _ value: String) throws(SQLiteError) {
        try upsert(kind: .metadata, key: key, payload: Array(value.utf8))
    }
}
