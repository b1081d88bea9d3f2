/// One adapter that can reach a device, as seen when choosing where to connect it.
public struct AdapterCandidate: Sendable, Hashable {
    public let adapter: String
    public let hasFreeSlot: Bool
    /// The device's recent RSSI as heard by this adapter, in dBm; `nil` if not heard recently.
    public let recentRSSI: Int?
    /// Connects of this device that failed through this adapter since it was last ready.
    public let recentFailures: Int

    public init(adapter: String, hasFreeSlot: Bool, recentRSSI: Int?, recentFailures: Int = 0) {
        self.adapter = adapter
        self.hasFreeSlot = hasFreeSlot
        self.recentRSSI = recentRSSI
        self.recentFailures = recentFailures
    }

    /// A candidate from the adapter's slot table and the device's RSSI and failed connects there.
    public init(table: SlotTable, recentRSSI: Int?, recentFailures: Int = 0) {
        self.init(adapter: table.adapter, hasFreeSlot: table.hasFreeSlot, recentRSSI: recentRSSI, recentFailures: recentFailures)
    }
}

/// Which adapter to connect a device through when several can reach it, and why.
public struct AdapterChoice: Sendable, Hashable {
    public let adapter: String
    public let message: String

    /// Prefers an adapter with a free slot, then the fewest failed connects of this device since it was last
    /// ready (a controller that refuses it, full or flaky, is not retried while another can reach it; with
    /// as many failures on each, the choice goes round them), then the best recent RSSI (unheard is worst),
    /// then the adapter name so the choice is reproducible. Nil when there is no candidate.
    public static func choose(for device: String, among candidates: [AdapterCandidate]) -> AdapterChoice? {
        let best = candidates.min { a, b in
            if a.hasFreeSlot != b.hasFreeSlot { return a.hasFreeSlot }
            if a.recentFailures != b.recentFailures { return a.recentFailures < b.recentFailures }
            let rssiA = a.recentRSSI ?? Int.min
            let rssiB = b.recentRSSI ?? Int.min
            if rssiA != rssiB { return rssiA > rssiB }
            return a.adapter < b.adapter
        }
        guard let best else { return nil }
        let signal = best.recentRSSI.map { "\($0) dBm" } ?? "no recent RSSI"
        let slot = (best.hasFreeSlot ? "a free slot" : "no free slot anywhere")
            + (best.recentFailures > 0 ? ", \(best.recentFailures) failed connect(s) there" : "")
        return AdapterChoice(
            adapter: best.adapter,
            message: "\(device) goes through \(best.adapter) (\(slot), \(signal); \(candidates.count) candidate(s))"
        )
    }
}
