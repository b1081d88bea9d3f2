/// A Bluetooth controller as the machine knows it: by its name (`hci0`), which configuration, logs and
/// fleetctl use. The BlueZ room maps it to and from BlueZ's object path.
public struct AdapterID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let name: String

    public init(name: String) { self.name = name }

    public var description: String { name }
    public static func < (lhs: AdapterID, rhs: AdapterID) -> Bool { lhs.name < rhs.name }
}
