import FleetPlatform
import Synchronization

/// What a chaos soak asks the simulator to watch, as peaks since the last reset: how many Connect calls one
/// client had pending at once on one adapter, and how many links one peripheral had at once (across adapters
/// and addresses). Counted at the bus, where BlueZ meets its clients, so they hold whatever the world model's
/// internals do. Exposed by `ConnectConcurrency`, `LinkPeaks` and `ResetConcurrency` (docs/simulator.md).
public struct SimulatorObservations: Sendable {
    /// An adapter (`hci0`) and a client's unique bus name (`:1.42`).
    public struct ConnectKey: Sendable, Hashable {
        public var adapter: String
        public var client: String
        /// `hci0 :1.42`, the key of ConnectConcurrency's answer.
        public var description: String { adapter + " " + client }
    }

    /// Connect calls received and not yet answered, per adapter and client.
    public private(set) var pendingConnects: [ConnectKey: Int] = [:]
    public private(set) var peakConnects: [ConnectKey: Int] = [:]
    /// Peak simultaneous links per peripheral label.
    public private(set) var peakLinks: [String: Int] = [:]

    public init() {}

    mutating func connectStarted(_ key: ConnectKey) {
        let now = pendingConnects[key, default: 0] + 1
        pendingConnects[key] = now
        peakConnects[key] = max(peakConnects[key] ?? 0, now)
    }

    mutating func connectAnswered(_ key: ConnectKey) {
        let left = pendingConnects[key, default: 1] - 1
        pendingConnects[key] = left > 0 ? left : nil
    }

    mutating func linksNow(_ label: String, _ links: Int) {
        peakLinks[label] = max(peakLinks[label] ?? 0, links)
    }

    /// Starts new peaks from what is pending and linked now (a pending Connect stays counted).
    mutating func reset(links: [String: Int]) {
        peakConnects = pendingConnects
        peakLinks = links.filter { $0.value > 0 }
    }
}

extension BlueZSimulator {
    /// Looks for links coming up among effects about to be applied (Connected=true, signalled or set quietly)
    /// and records how many links that peripheral has now. Runs under the state lock, after the world changed.
    func observeLinks(_ effects: [BusEffect], in world: SimulatorWorld) {
        for effect in effects {
            let path: String
            switch effect {
            case .setQuietly(let p, .device, let changed) where changed["Connected"] == .boolean(true): path = p
            case .changeProperties(let p, .device, let changed, _, _) where changed["Connected"] == .boolean(true): path = p
            default: continue
            }
            guard let (label, links) = world.links(ofPeripheralAt: path) else { continue }
            observations.withLock { $0.linksNow(label, links) }
        }
    }
}
