/// Where the supervisor takes the tree's changes of one event: one array kept across events, so that an advert or
/// a notification appends to storage already there instead of allocating its own (issue 18).
///
/// Emptied before each event. Storage that grew past `keptCapacity` is let go rather than kept: a rare event
/// makes a change per object (bluetoothd leaving: every adapter and device, 25 000 in FleetBench, about 150 bytes
/// each), and holding that room for the life of the process would count against the RSS budget.
struct TreeChangeBuffer {
    /// Room kept between events: an event makes at most a few changes, bar the rare one above.
    static let keptCapacity = 16

    private(set) var changes: [BlueZTree.Change] = []

    /// Empty, ready for the next event.
    mutating func startEvent() {
        if changes.capacity > Self.keptCapacity {
            changes = []
        } else {
            changes.removeAll(keepingCapacity: true)
        }
    }

    /// Applies `event` to `tree`, appending what changed.
    mutating func apply(_ event: BlueZEvent, arrival: UInt64, to tree: inout BlueZTree) {
        tree.apply(event, arrival: arrival, into: &changes)
    }
}
