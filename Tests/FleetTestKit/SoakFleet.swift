import Foundation

/// The soak's fleet: simulated peripherals (one identity each, named by a serial in their manufacturer data,
/// company 0xFFFF) and the fleetd configuration that wants all of them. It depends only on the device and
/// adapter counts, never on the seed, so that a seed names a fault schedule over the same fleet.
public struct SoakFleet: Sendable {
    /// One simulated peripheral and the wanted device it is to fleetd.
    public struct Device: Sendable, Hashable {
        /// The simulator's label (`p001`), used by its control methods.
        public var label: String
        /// fleetd's stable identity id (`mfr-ffff-5a000001`).
        public var id: String
        /// The scenario line that puts it on the air (also what AddDevice takes back after a pause).
        public var definition: String
        public var policyClass: String
        /// Characteristics fleetd subscribes to, 128-bit lowercase as the simulator reports them.
        public var subscribe: [String]
    }

    public static let company = "ffff"
    static let battery = "00002a19-0000-1000-8000-00805f9b34fb"
    static let heartRate = "00002a37-0000-1000-8000-00805f9b34fb"
    /// Advertising interval of every device, simulated seconds (well inside BlueZ's 30 s TemporaryTimeout).
    public static let advertisingInterval = 4.0

    public let devices: [Device]
    public let adapters: Int
    /// LE links per adapter, in the simulator and in fleetd: the most either allows (64), so that every device
    /// fits while all adapters are up. With one of 4 adapters off, 192 slots are fewer than 200 devices: the
    /// lowest classes are evicted until it is back, as the policy says.
    public let capacity = 64

    public init(devices count: Int, adapters: Int) {
        self.adapters = adapters
        devices = (1...max(1, count)).map { n in
            let serial = String(format: "5a%06x", n)
            let label = String(format: "p%03d", n)
            // Every twentieth device is a phone-like peripheral rotating its private address by itself.
            let rotating = n % 20 == 7
            let address = rotating ? String(format: "5A:50:AC:%02X:%02X:%02X", (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff)
                                   : String(format: "C0:FF:EE:%02X:%02X:%02X", (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff)
            // Every tenth device also streams heart rate (1 s); the rest notify their battery level (10 s).
            let heart = n % 10 == 3
            var line = "device \(label) address=\(address) name=\"Soak \(label)\" manufacturer=0x\(Self.company):\(serial)"
            line += " profile=\(heart ? "heart-rate,battery" : "battery") rssi=\(-50 - n % 30) jitter=0 interval=\(Self.advertisingInterval)"
            if rotating { line += " rotate=120" }
            let policyClass = switch n % 5 {
            case 0: "critical"
            case 1, 2, 3: "normal"
            default: "opportunistic"
            }
            return Device(label: label, id: "mfr-\(Self.company)-\(serial)", definition: line, policyClass: policyClass,
                          subscribe: heart ? [Self.heartRate, Self.battery] : [Self.battery])
        }
    }

    public func device(label: String) -> Device? { devices.first { $0.label == label } }
    public func device(id: String) -> Device? { devices.first { $0.id == id } }

    public var scenario: String {
        (["# fleet-soak: \(devices.count) devices on \(adapters) adapters", "adapters \(adapters)", "capacity \(capacity)"]
            + devices.map(\.definition)).joined(separator: "\n") + "\n"
    }

    /// fleetd.conf for the soak: fleetd's documented defaults (deploy/fleetd.conf) with every duration divided
    /// by `policyScale`, and `classes` overriding some devices' class (a reload's change).
    public func configuration(policy: SoakPolicy, classes: [String: String] = [:]) -> String {
        var lines = [
            "# fleet-soak: policy durations are fleetd's defaults divided by \(policy.scale) (see docs/soak.md)",
            "[daemon]",
            "setup-timeout = \(policy.ms(policy.setUpTimeout))",
            "eviction-hold-off = \(policy.ms(policy.evictionHoldOff))",
            "[adapters]",
            "capacity = \(capacity)",
            "[identity \"soak\"]",
            "manufacturer = 0x\(Self.company)",
            "bytes = 2..<6",
        ]
        for policyClass in ["critical", "normal", "opportunistic"] {
            let c = policy.classes[policyClass] ?? SoakPolicy.Class()
            lines += [
                "[policy \"\(policyClass)\"]",
                "connect-timeout = \(policy.ms(c.connectTimeout))",
                "backoff-base = \(policy.ms(c.base))",
                "backoff-factor = 2",
                "backoff-cap = \(policy.ms(c.cap))",
                "backoff-floor = \(policy.ms(c.floor))",
                "stable-after = \(policy.ms(c.stableAfter))",
                "recovery-window = \(policy.ms(c.recoveryWindow))",
                "retry-budget = \(c.retryBudget.map(String.init) ?? "forever")",
                "min-hold = \(policy.ms(c.minHold))",
            ]
        }
        for device in devices {
            lines += ["[device \"\(device.id)\"]", "name = Soak \(device.label)", "class = \(classes[device.id] ?? device.policyClass)",
                      "subscribe = " + device.subscribe.map { String($0.dropFirst(4).prefix(4)) }.joined(separator: " ")]
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The reconnect policy the soak gives fleetd, in simulated seconds, and how it is written for fleetd.
///
/// The simulator runs `timeScale` simulated seconds per real second; fleetd's timers run in real time. So that
/// both share one time base, the soak writes every policy duration divided by `scale` (by default the time
/// scale): a 60 s backoff cap becomes 6 s of fleetd's time at time scale 10, which is 60 simulated seconds.
/// fleetd's fixed constants (e.g. the 10 s disconnect deadline) are not configurable and stay real seconds,
/// so in simulated time they are `timeScale` times longer; the bound accounts for that.
public struct SoakPolicy: Sendable {
    /// One class's values, in simulated seconds (fleetd's documented defaults).
    public struct Class: Sendable {
        public var connectTimeout = 30.0
        public var base = 1.0
        public var cap = 60.0
        public var floor = 0.25
        public var stableAfter = 60.0
        public var recoveryWindow = 30.0
        public var retryBudget: Int? = 10
        public var minHold = 30.0
    }

    /// Simulated seconds per second of fleetd's configured time (1: fleetd keeps its real-time defaults).
    public var scale: Double
    public var setUpTimeout = 30.0
    public var evictionHoldOff = 60.0
    public var classes: [String: Class] = [
        "critical": Class(recoveryWindow: 5, retryBudget: nil),
        "normal": Class(),
        "opportunistic": Class(retryBudget: nil),
    ]

    public init(scale: Double) { self.scale = scale }

    /// A simulated duration as fleetd reads it: real milliseconds.
    func ms(_ simulatedSeconds: Double) -> String { "\(max(1, Int((simulatedSeconds / scale * 1000).rounded())))ms" }

    /// The largest value of a per-class field.
    func maximum(_ field: (Class) -> Double) -> Double { classes.values.map(field).max() ?? 0 }
}
