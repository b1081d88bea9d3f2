/// What a state row holds: wanted devices, identity registry entries, backoff progress, evictions and bonds.
/// Open-ended so a new kind needs no schema change; the supervisor owns the payload encoding of each.
public struct StateKind: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let wantedDevice = StateKind("wanted-device")
    public static let identity = StateKind("identity")
    public static let backoff = StateKind("backoff")
    public static let eviction = StateKind("eviction")
    public static let bond = StateKind("bond")
    /// The store's own bookkeeping (`StateStore.metadata(_:)`).
    public static let metadata = StateKind("meta")

    public var description: String { rawValue }
    public static func < (a: StateKind, b: StateKind) -> Bool { a.rawValue < b.rawValue }
}

/// One row of the `state` table: an encoded payload under (kind, key), and when it was last written.
public struct StateRow: Sendable, Equatable {
    public var kind: StateKind
    public var key: String
    public var payload: [UInt8]
    /// Wall-clock nanoseconds since the Unix epoch of the last upsert.
    public var updatedWallNanoseconds: Int64

    public init(kind: StateKind, key: String, payload: [UInt8], updatedWallNanoseconds: Int64 = 0) {
        self.kind = kind
        self.key = key
        self.payload = payload
        self.updatedWallNanoseconds = updatedWallNanoseconds
    }
}
