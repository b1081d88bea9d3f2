import FleetPlatform
import Policy

/// The simulated radio world and BlueZ's view of it, as a value: peripherals on the air, adapters with
/// their discovery sessions and Device1 objects, links and GATT state, and a timer queue.
///
/// Time is `Duration` since the world began (simulated time); every mutating method takes `now` and
/// returns the `BusEffect`s a BlueZ client would observe, in BlueZ's order. Nothing here does I/O or
/// reads a clock: the driver (`BlueZSimulator`) feeds it calls and time and performs the effects.
public struct SimulatorWorld: Sendable {
    public let configuration: WorldConfiguration
    var adapters: [AdapterState]
    var peripherals: [Int: Peripheral] = [:]
    var nextPeripheralID = 0
    var timers = TimerQueue<TimerEvent>()
    var random: SplitMix64
    var nextAttempt: UInt64 = 0
    var faults: [ScriptedFault] = []
    var security = SecurityState()
    public internal(set) var counters = SimulatorCounters()
    public private(set) var now: Duration = .zero

    public init(configuration: WorldConfiguration) {
        self.configuration = configuration
        random = SplitMix64(seed: configuration.seed)
        adapters = (0..<max(1, configuration.adapters)).map { AdapterState(index: $0, capacity: configuration.capacity) }
    }

    /// The objects that exist before any device is seen: `/org/bluez` and the adapters.
    public func initialEffects() -> [BusEffect] {
        var effects: [BusEffect] = [.addObject(path: "/org/bluez", interfaces: [
            InterfaceProperties(.agentManager, [:]), InterfaceProperties(.profileManager, [:]),
        ])]
        for adapter in adapters {
            effects.append(.addObject(path: adapter.path, interfaces: [
                InterfaceProperties(.adapter, adapter.properties),
                InterfaceProperties(.gattManager, [:]),
                InterfaceProperties(.advertisingManager, [
                    "ActiveInstances": .byte(0), "SupportedInstances": .byte(5),
                    "SupportedIncludes": .strings(["tx-power", "appearance", "local-name"]),
                    "SupportedSecondaryChannels": .strings([]),
                ]),
            ]))
        }
        return effects
    }

    /// When the next timer is due (the driver sleeps until then), nil when nothing is scheduled.
    public var nextDeadline: Duration? { timers.earliest }

    /// Runs every timer due at or before `now`, in time order, and moves the clock to `now`.
    public mutating func advance(to newNow: Duration) -> [BusEffect] {
        var effects: [BusEffect] = []
        while let (at, event) = timers.popDue(newNow) {
            now = max(now, at)
            fire(event, effects: &effects)
        }
        now = max(now, newNow)
        return effects
    }

    mutating func schedule(_ event: TimerEvent, after delay: Duration) {
        timers.schedule(event, at: now + delay)
    }

    /// Public view for tests and benchmarks: how many Device1 objects an adapter exports.
    public func deviceObjectCount(adapter: Int) -> Int { adapters.indices.contains(adapter) ? adapters[adapter].objects.count : 0 }
    public var peripheralCount: Int { peripherals.count }

    /// The peripheral a scenario label or current/original address names.
    func peripheralID(named name: String) -> Int? {
        if let match = peripherals.first(where: { $0.value.spec.label == name }) { return match.key }
        guard let address = BluetoothAddress(name) else { return nil }
        return peripherals.first(where: { $0.value.address == address || $0.value.spec.address == address })?.key
    }

    /// The current advertising address of a peripheral named by label or address.
    public func currentAddress(of name: String) -> BluetoothAddress? {
        peripheralID(named: name).flatMap { peripherals[$0]?.address }
    }

    public func deviceCounters(of name: String) -> SimulatorCounters? {
        peripheralID(named: name).flatMap { peripherals[$0]?.counters }
    }

    public mutating func resetCounters() {
        counters = SimulatorCounters()
        for id in peripherals.keys { peripherals[id]?.counters = SimulatorCounters() }
    }

    mutating func count(_ keyPath: WritableKeyPath<SimulatorCounters, UInt64>, peripheral: Int?) {
        counters.add(keyPath)
        if let peripheral { peripherals[peripheral]?.counters.add(keyPath) }
    }

    func object(at path: String) -> (BlueZPath, DeviceObject)? {
        guard let parsed = BlueZPath(path), adapters.indices.contains(parsed.adapter),
              let object = adapters[parsed.adapter].objects[parsed.address] else { return nil }
        return (parsed, object)
    }

    private mutating func fire(_ event: TimerEvent, effects: inout [BusEffect]) {
        switch event {
        case .advert(let id, let generation):
            advertise(id, generation: generation, effects: &effects)
        case .rotate(let id, let generation):
            rotate(id, generation: generation, effects: &effects)
        case .expiry(let adapter, let address):
            expire(adapter: adapter, address: address, effects: &effects)
        case .connectOutcome(let adapter, let address, let attempt):
            completeConnect(adapter: adapter, address: address, attempt: attempt, effects: &effects)
        case .linkDown(let adapter, let address, let attempt):
            finishDisconnect(adapter: adapter, address: address, attempt: attempt, effects: &effects)
        case .notify(let adapter, let address, let handle, let attempt):
            notify(adapter: adapter, address: address, handle: handle, attempt: attempt, effects: &effects)
        case .gattComplete(let adapter, let address, let attempt, let op):
            completeGatt(adapter: adapter, address: address, attempt: attempt, op: op, effects: &effects)
        case .fault(let index):
            runScripted(index, effects: &effects)
        case .powerOn(let adapter):
            effects += setPowered(adapter: adapter, true)
        case .security(let timer):
            fireSecurity(timer, effects: &effects)
        case .records(let timer):
            fireRecords(timer, effects: &effects)
        }
    }
}

/// Timers the world schedules; the ids they carry make stale ones harmless.
enum TimerEvent: Sendable, Hashable {
    case advert(Int, generation: UInt64)
    case rotate(Int, generation: UInt64)
    case expiry(adapter: Int, address: BluetoothAddress)
    case connectOutcome(adapter: Int, address: BluetoothAddress, attempt: UInt64)
    case linkDown(adapter: Int, address: BluetoothAddress, attempt: UInt64)
    case notify(adapter: Int, address: BluetoothAddress, handle: UInt16, attempt: UInt64)
    case gattComplete(adapter: Int, address: BluetoothAddress, attempt: UInt64, op: GattOperation)
    case fault(Int)
    case powerOn(Int)
    case security(SecurityTimer)
    case records(RecordTimer)
}

/// A GATT request on the air, completed by a timer.
enum GattOperation: Sendable, Hashable {
    case read(handle: UInt16, offset: Int)
    case write(handle: UInt16, value: [UInt8], offset: Int, token: ReplyToken)
}

/// A peripheral on the air and the server side of its GATT database.
struct Peripheral: Sendable {
    var spec: PeripheralSpec
    var address: BluetoothAddress
    var addressType: AddressType
    var behaviour: ConnectBehaviour = .normal
    var responseDelay: Duration = .zero
    var generation: UInt64 = 0
    var table: GattTable
    /// Current values by value handle (and descriptor handle).
    var values: [UInt16: [UInt8]] = [:]
    var notifications: [UInt16: UInt64] = [:]
    var records: RecordMemory?
    var counters = SimulatorCounters()
}

/// One controller: its properties, discovery sessions by client, and the Device1 objects it exports.
struct AdapterState: Sendable {
    var index: Int
    var capacity: Int
    var powered = true
    var alias: String?
    /// Discovery sessions by client unique name, each with its filter (nil: an unfiltered scan).
    var sessions: [String: DiscoveryFilter?] = [:]
    /// Filters set by clients that have not (yet) started discovery.
    var filters: [String: DiscoveryFilter] = [:]
    var objects: [BluetoothAddress: DeviceObject] = [:]
    /// Addresses a Connect was started for, and when; cleared once none of them is still pending
    /// (`scanPausedForConnect`), so no transition out of `.connecting` has to remember it.
    var connectsStarted: [BluetoothAddress: Duration] = [:]

    var path: String { BlueZPath.adapterPath(index) }
    var address: BluetoothAddress { BluetoothAddress(bytes: [0x00, 0x1A, 0x7D, 0xDA, 0x71, UInt8(truncatingIfNeeded: index)])! }
    var name: String { "bluez-sim" + (index == 0 ? "" : " #\(index)") }
    var discovering: Bool { powered && !sessions.isEmpty }
    /// adapter->filtered_discovery: every running session has a filter.
    var filtered: Bool { !sessions.isEmpty && sessions.values.allSatisfy { $0 != nil } }
    var duplicateData: Bool { sessions.values.contains { $0?.duplicateData ?? false } }
    var activeLinks: Int { objects.values.filter { $0.link.occupiesSlot }.count }

    /// Whether an LE connect is pending here. The kernel disables the LE scan for an LE Create Connection
    /// and bluetoothd restarts discovery once it completes (btmon on 5.66 / Linux 6.1), so no advert
    /// reaches a Device1 object meanwhile; the kernel gives a connect up after `timeout` at the latest.
    mutating func scanPausedForConnect(now: Duration, timeout: Duration) -> Bool {
        guard !connectsStarted.isEmpty else { return false }
        // Runs on every advert: a lookup, no copy, while a connect is pending.
        let pending = connectsStarted.contains { address, started in
            guard now - started < timeout, case .connecting = objects[address]?.link else { return false }
            return true
        }
        if !pending { connectsStarted.removeAll() }
        return pending
    }

    var properties: [String: DBusValue] {
        [
            "Address": .string(address.description), "AddressType": .string("public"),
            "Name": .string(name), "Alias": .string(alias ?? name), "Class": .uint32(0),
            "Powered": .boolean(powered), "Discoverable": .boolean(false), "DiscoverableTimeout": .uint32(180),
            "Pairable": .boolean(true), "PairableTimeout": .uint32(0), "Discovering": .boolean(discovering),
            "UUIDs": .strings(["00001801-0000-1000-8000-00805f9b34fb", "00001800-0000-1000-8000-00805f9b34fb",
                               "0000180a-0000-1000-8000-00805f9b34fb"]),
            "Modalias": .string("usb:v1D6Bp0246d0542"), "Roles": .strings(["central", "peripheral"]),
        ]
    }
}

/// BlueZ's Device1 object for one address on one adapter.
struct DeviceObject: Sendable {
    enum Link: Sendable, Hashable {
        case idle
        /// token nil once the Connect has been answered; `outcome` decided at request time.
        case connecting(token: ReplyToken, attempt: UInt64, outcome: ReplyResult?)
        case connected(attempt: UInt64)
        case disconnecting(attempt: UInt64, tokens: [ReplyToken])

        var occupiesSlot: Bool { if case .idle = self { false } else { true } }
        var isConnected: Bool {
            switch self {
            case .connected, .disconnecting: true
            default: false
            }
        }
        var attempt: UInt64? {
            switch self {
            case .idle: nil
            case .connecting(_, let a, _), .connected(let a), .disconnecting(let a, _): a
            }
        }
    }

    var peripheral: Int
    var adapter: Int
    var address: BluetoothAddress
    var addressType: AddressType
    var path: String
    var name: String?
    var alias: String?
    var rssi: Int16?
    var txPower: Int16?
    var manufacturerData: [UInt16: [UInt8]] = [:]
    var serviceData: [String: [UInt8]] = [:]
    var uuids: [String] = []
    var link: Link = .idle
    var servicesResolved = false
    var temporary = true
    var trusted = false
    var blocked = false
    var lastSeen: Duration
    var expiryArmed = false
    var gattExported = false
    /// Notify sessions by characteristic declaration handle: client unique names.
    var notifying: [UInt16: Set<String>] = [:]
    var reads: [UInt16: (offset: Int, tokens: [ReplyToken])] = [:]
    var writes: Set<UInt16> = []
    var mtu: UInt16
    var security = DeviceSecurity()

    var isPrivate: Bool { addressType == .random && address.isPrivateWhenRandom }
}
