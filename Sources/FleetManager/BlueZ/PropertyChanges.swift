import FleetPlatform

/// The properties a PropertiesChanged carries (its `a{sv}`): the decoded entries kept as they came, each value
/// unwrapped from its variant when read.
///
/// Why not `[String: DBusValue]`: building one per signal was a malloc and a hash of every name, on every advert
/// and notification, to read one or two names back (issue 18). A signal names a property at most once in
/// practice; if one names it twice, the last one counts, as a dictionary built in wire order kept it.
public struct PropertyChanges: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// String keys only (checked when made), each name once.
    private let entries: [DBusDictEntry]

    /// The properties of a decoded `a{sv}`; nil when `value` is not a dictionary keyed by strings.
    init?(_ value: DBusValue) {
        guard case .dictionary(_, _, let entries) = value else { return nil }
        for entry in entries {
            guard case .string = entry.key else { return nil }
        }
        self.entries = Self.lastOfEachName(entries)
    }

    public init(_ properties: [String: DBusValue]) {
        entries = properties.map { DBusDictEntry(.string($0.key), $0.value) }
    }

    public init(dictionaryLiteral elements: (String, DBusValue)...) {
        entries = Self.lastOfEachName(elements.map { DBusDictEntry(.string($0.0), $0.1) })
    }

    /// The value of the property `name`, unwrapped; nil when the signal does not carry it.
    public subscript(name: String) -> DBusValue? {
        for entry in entries {
            if case .string(let key) = entry.key, key == name { return entry.value.unwrapped }
        }
        return nil
    }

    public var isEmpty: Bool { entries.isEmpty }

    public var count: Int { entries.count }

    public struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[DBusDictEntry]>

        public mutating func next() -> (name: String, value: DBusValue)? {
            guard let entry = base.next(), case .string(let name) = entry.key else { return nil }
            return (name, entry.value.unwrapped)
        }
    }

    public func makeIterator() -> Iterator { Iterator(base: entries.makeIterator()) }

    public var description: String {
        "[" + map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "]"
    }

    /// `entries` with each name once, at its last place. A signal carries one to a few properties: the check
    /// compares names pairwise rather than allocating a set.
    private static func lastOfEachName(_ entries: [DBusDictEntry]) -> [DBusDictEntry] {
        guard entries.count > 1 else { return entries }
        func repeatedLater(_ i: Int) -> Bool { entries[(i + 1)...].contains { $0.key == entries[i].key } }
        guard entries.indices.contains(where: repeatedLater) else { return entries }
        return entries.indices.filter { !repeatedLater($0) }.map { entries[$0] }
    }
}
