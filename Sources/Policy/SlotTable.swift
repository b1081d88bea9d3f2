/// The connection slots of one adapter: its capacity, the links it holds, and the one connect it may have in
/// flight. A pure value: the supervisor asks ``admit(device:policyClass:now:)`` before each connect and tells
/// the table what happened.
///
/// The capacity starts at the configured value and is lowered when the adapter reports it is full at fewer
/// links (``reportLimitReached(now:)``); it never goes below one and is kept across adapter resets, since a
/// controller's limit does not change when it is power-cycled.
public struct SlotTable: Sendable, Hashable {
    public let adapter: String
    public let configuredCapacity: Int
    public private(set) var capacity: Int
    public let configuration: PolicyConfiguration
    public private(set) var links: [String: Link] = [:]
    public private(set) var connectInFlight: PendingConnect?

    public init(adapter: String, capacity: Int, configuration: PolicyConfiguration = PolicyConfiguration()) throws(PolicyError) {
        guard capacity >= 1 else {
            throw PolicyError(.invalidCapacity, "adapter \(adapter): capacity must be at least 1, got \(capacity)")
        }
        self.adapter = adapter
        self.configuredCapacity = capacity
        self.capacity = capacity
        self.configuration = configuration
    }

    /// Slots taken by links and by the connect in flight.
    public var occupied: Int { links.count + (connectInFlight == nil ? 0 : 1) }

    /// Slots still free; zero (never negative) when links adopted at start-up exceed a learned capacity.
    public var freeSlots: Int { max(0, capacity - occupied) }

    public var hasFreeSlot: Bool { freeSlots > 0 }

    /// A connect to `device` is starting now. Fails if another connect is in flight or the device is linked.
    public mutating func connectStarted(device: String, policyClass: PolicyClass, now: Duration) throws(PolicyError) {
        if let pending = connectInFlight {
            throw PolicyError(.connectAlreadyInFlight,
                              "adapter \(adapter) is already connecting \(pending.device); cannot start \(device)")
        }
        if links[device] != nil {
            throw PolicyError(.alreadyLinked, "\(device) already holds a link on \(adapter)")
        }
        guard hasFreeSlot else {
            throw PolicyError(.noFreeSlot, "adapter \(adapter) has no free slot for \(device) (\(occupied) of \(capacity) used)")
        }
        connectInFlight = PendingConnect(device: device, policyClass: policyClass, startedAt: now)
    }

    /// The connect to `device` ended (success or failure); frees the in-flight marker if it was this device's.
    public mutating func connectFinished(device: String) {
        if connectInFlight?.device == device { connectInFlight = nil }
    }

    /// `device`'s link is up (after a connect, or adopted from BlueZ at start-up). Also ends its connect.
    public mutating func linkUp(device: String, policyClass: PolicyClass, rssi: Int?, now: Duration) {
        connectFinished(device: device)
        links[device] = Link(device: device, policyClass: policyClass, linkedAt: now, rssi: rssi)
    }

    /// The device did something useful at `now`; `rssi` updates the link's signal when given.
    public mutating func recordActivity(device: String, now: Duration, rssi: Int? = nil) {
        // In place: every notification lands here, and a copy out and back hashed the id twice and retained the
        // link's strings (issue 18).
        guard let index = links.index(forKey: device) else { return }
        links.values[index].lastActivity = max(links.values[index].lastActivity, now)
        if let rssi { links.values[index].rssi = rssi }
    }

    /// `device`'s class changed (a reload, `fleetctl set-policy`): its link and its connect in flight are held
    /// under the new class from now on, keeping when the link came up, its activity and its signal.
    public mutating func reclassify(device: String, as policyClass: PolicyClass) {
        if let link = links[device] {
            links[device] = Link(device: device, policyClass: policyClass, linkedAt: link.linkedAt, lastActivity: link.lastActivity,
                                 rssi: link.rssi)
        }
        if let pending = connectInFlight, pending.device == device {
            connectInFlight = PendingConnect(device: device, policyClass: policyClass, startedAt: pending.startedAt)
        }
    }

    /// `device`'s link is gone (dropped, disconnected, or evicted). Returns the link that was held.
    @discardableResult
    public mutating func linkDown(device: String) -> Link? {
        links.removeValue(forKey: device)
    }

    /// The adapter was reset or powered off: every link is gone, and the connect in flight too unless
    /// `keepingPendingConnect` (BlueZ has not answered it yet: the adapter starts no other until it does, or
    /// two Connects would be pending on it). Returns the links that were held.
    @discardableResult
    public mutating func adapterReset(keepingPendingConnect: Bool = false) -> [Link] {
        let dropped = Array(links.values)
        links.removeAll()
        if !keepingPendingConnect { connectInFlight = nil }
        return dropped.sorted { $0.device < $1.device }
    }

    /// The adapter refused a connect because it is full (`le-connection-concurrent-connection-limit`, HCI
    /// 0x09/0x0D…). Lowers the capacity to the links held now (at least 1). Returns nil if nothing changed.
    public mutating func reportLimitReached(now: Duration) -> CapacityChange? {
        let learned = max(1, links.count)
        guard learned < capacity else { return nil }
        let old = capacity
        capacity = learned
        return CapacityChange(
            adapter: adapter, oldCapacity: old, newCapacity: learned,
            message: "\(adapter) reported full at \(links.count) links; capacity lowered from \(old) to \(learned)"
        )
    }
}
