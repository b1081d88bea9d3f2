import FleetPlatform

/// Replies in order with signals. A Connect's reply comes back through its call while bluetoothd's signals
/// come through the event stream, so under load the reply can reach the machine before signals bluetoothd sent
/// earlier: a failed Connect is counted, then its late `Connected=true` is adopted as a new link and its
/// `Connected=false` counted again (two failures for one attempt, seen as a stale bond never detected). A reply
/// is therefore handled only once the event loop has handled every signal delivered before it.
extension FleetSupervisor {
    /// Returns once the event loop has handled `marker` (from `client.marker()`, taken after the reply
    /// arrived), or at once when the loop has ended.
    func eventsHandled(through marker: UInt64) async {
        guard !eventsOver, lastMarker < marker else { return }
        await withCheckedContinuation { markerWaiters.append((marker, $0)) }
    }

    /// The event loop reached `number`: every reply waiting for it (or an earlier one) goes on.
    func markerReached(_ number: UInt64) {
        lastMarker = max(lastMarker, number)
        let due = markerWaiters.filter { $0.marker <= number }
        markerWaiters.removeAll { $0.marker <= number }
        for waiter in due { waiter.continuation.resume() }
    }

    /// The event loop ended (stop, bus lost): nothing will reach a marker any more.
    func releaseMarkerWaiters() {
        eventsOver = true
        let all = markerWaiters
        markerWaiters.removeAll()
        for waiter in all { waiter.continuation.resume() }
    }
}
