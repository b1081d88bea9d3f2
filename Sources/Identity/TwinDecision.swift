/// One address a device is live under right now, as the supervisor tracks it.
public struct LiveAddress: Hashable, Sendable, Codable {
    public var address: BluetoothAddress
    /// When BlueZ last reported an advert (or property change) from this address.
    public var lastAdvert: Duration
    public var isConnected: Bool

    public init(address: BluetoothAddress, lastAdvert: Duration, isConnected: Bool) {
        self.address = address
        self.lastAdvert = lastAdvert
        self.isConnected = isConnected
    }
}

/// Which of several live addresses of one identity is the device now, and which are stale twins the
/// supervisor should disconnect or forget.
///
/// Order: a connected address beats an unconnected one (dropping a working link for a fresher advert would
/// cost a reconnect for nothing); then the most recent advert wins; on an exact tie the lower address
/// wins, so the answer never depends on the order addresses were listed.
public struct TwinDecision: Hashable, Sendable {
    public let current: LiveAddress
    /// Every other address, most recently seen first.
    public let stale: [LiveAddress]

    /// Nil when `live` is empty. Duplicate entries for one address count once (the most favourable).
    public init?(live: [LiveAddress]) {
        let ranked = live.sorted(by: Self.ranksBefore)
        guard let current = ranked.first else { return nil }
        var seen: Set<BluetoothAddress> = [current.address]
        self.current = current
        self.stale = ranked.dropFirst().filter { seen.insert($0.address).inserted }
    }

    /// True when there is at least one twin to drop.
    public var hasTwins: Bool { !stale.isEmpty }

    static func ranksBefore(_ a: LiveAddress, _ b: LiveAddress) -> Bool {
        if a.isConnected != b.isConnected { return a.isConnected }
        if a.lastAdvert != b.lastAdvert { return a.lastAdvert > b.lastAdvert }
        return a.address < b.address
    }
}
