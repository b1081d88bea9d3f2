/// A peripheral's GATT database as a simulated device serves it: services, characteristics, descriptors.
public struct GattProfile: Sendable, Hashable {
    public var services: [GattServiceSpec]
    public init(services: [GattServiceSpec]) { self.services = services }
    public static let empty = GattProfile(services: [])
}

/// One primary service of a simulated device.
public struct GattServiceSpec: Sendable, Hashable {
    public var uuid: String
    public var characteristics: [GattCharacteristicSpec]
    public init(uuid: String, characteristics: [GattCharacteristicSpec]) {
        self.uuid = BluetoothUUID.normalise(uuid) ?? uuid
        self.characteristics = characteristics
    }
}

/// How a notifying characteristic's value evolves with each notification.
public enum NotifyPattern: Sendable, Hashable {
    /// Heart Rate Measurement (0x2A37): flags byte 0, then a bpm oscillating around `base`.
    case heartRate(base: UInt8)
    /// Battery Level (0x2A19): one byte that drops by one every `every` notifications, never below 1.
    case batteryLevel(every: Int)
    /// The last byte counts up, wrapping (a generic sensor).
    case counter
    /// The notification's own number (0, 1, 2…) as 4 bytes big-endian: a test tells exactly which values
    /// reached the consumer, and which did not.
    case sequence
    /// A standard measurement laid out as its SIG spec says, from a ground truth a test can recompute.
    case measurement(SimulatedMeasurement)
}

/// One characteristic: BlueZ `Flags` strings (`read`, `write`, `write-without-response`, `notify`,
/// `indicate`), its initial value and, for notify/indicate, how often and how the value changes.
public struct GattCharacteristicSpec: Sendable, Hashable {
    public var uuid: String
    public var flags: [String]
    public var value: [UInt8]
    public var notifyInterval: Duration?
    public var pattern: NotifyPattern
    public var descriptors: [GattDescriptorSpec]

    public init(uuid: String, flags: [String], value: [UInt8], notifyInterval: Duration? = nil,
                pattern: NotifyPattern = .counter, descriptors: [GattDescriptorSpec] = []) {
        self.uuid = BluetoothUUID.normalise(uuid) ?? uuid
        self.flags = flags
        self.value = value
        self.notifyInterval = notifyInterval
        self.pattern = pattern
        self.descriptors = descriptors
    }

    public var canNotify: Bool { flags.contains("notify") || flags.contains("indicate") }
    public var canRead: Bool { flags.contains("read") }
    public var canWriteRequest: Bool { flags.contains("write") || flags.contains("reliable-write") }
    public var canWriteCommand: Bool { flags.contains("write-without-response") }
}

/// A characteristic descriptor (the Client Characteristic Configuration 0x2902 is added automatically
/// to notifying characteristics, as every real device has one).
public struct GattDescriptorSpec: Sendable, Hashable {
    public var uuid: String
    public var value: [UInt8]
    public init(uuid: String, value: [UInt8]) {
        self.uuid = BluetoothUUID.normalise(uuid) ?? uuid
        self.value = value
    }
}

extension NotifyPattern {
    /// The value of notification number `n` (0-based) given the characteristic's initial value.
    func value(number n: UInt64, initial: [UInt8]) -> [UInt8] {
        switch self {
        case .heartRate(let base):
            let swing = [0, 2, 4, 6, 8, 6, 4, 2, 0, -2, -4, -6, -8, -6, -4, -2][Int(n % 16)]
            return [0x00, UInt8(clamping: Int(base) + swing)]
        case .batteryLevel(let every):
            let start = Int(initial.first ?? 100)
            return [UInt8(clamping: max(1, start - Int(n) / max(1, every)))]
        case .counter:
            var v = initial.isEmpty ? [0] : initial
            v[v.count - 1] = v[v.count - 1] &+ UInt8(truncatingIfNeeded: n &+ 1)
            return v
        case .sequence:
            return (0..<4).map { UInt8(truncatingIfNeeded: n >> (24 - 8 * UInt64($0))) }
        case .measurement(let measurement):
            return measurement.value(number: n)
        }
    }
}
