/// One Device1 object: BlueZ's object path for one address under one adapter
/// (`/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`), with that adapter. Opaque to the machine, which keys
/// sightings and links by it and hands it back in actions.
public struct DevicePath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public let adapter: AdapterID

    public init(_ rawValue: String, adapter: AdapterID) {
        self.rawValue = rawValue
        self.adapter = adapter
    }

    public var description: String { rawValue }
    public static func < (lhs: DevicePath, rhs: DevicePath) -> Bool { lhs.rawValue < rhs.rawValue }
}
