import FleetProtocol
import Supervision

/// Publishing what `Status` reports (`StatusBoard`), and answering Status from the publication without
/// entering the actor.
extension FleetSupervisor {
    /// The Status reply: the actor's state as last published, the uptime from the clock, and the outbox and
    /// broker figures, which are safe to read from any thread.
    public nonisolated func statusInfo(version: String) -> StatusInfo {
        let published = statusBoard.latest
        let uptime = now() - startedAt
        let counts = published.counts
        return StatusInfo(daemon: DaemonInfo(version: version, uptimeSeconds: Double(uptime.milliseconds) / 1000, state: published.state),
                          adapters: published.adapters,
                          counts: DeviceCounts(wanted: counts.wanted, ready: counts.ready, backingOff: counts.backingOff, failed: counts.failed),
                          broker: broker?.linkInfo(),
                          outbox: readings.map { OutboxStatus($0.outbox.stats(), wallNow: clock.wallNow()) })
    }

    /// The state changed: publish it, unless a batch of events or a reconciliation is being applied (its end
    /// publishes once for all its changes).
    func statusChanged() {
        if !statusPublicationDeferred { publishStatus() }
    }

    func publishStatus() {
        let counts = machine.countInPlace()
        statusBoard.publish(Self.statusEntry(counts: counts, machine: machine, tree: tree, isReady: isReady, stopping: stopping))
    }

    /// Runs `body` (which changes the state many times) with one publication at its end.
    func deferringStatusPublication(_ body: () -> Void) {
        let outer = statusPublicationDeferred
        statusPublicationDeferred = true
        body()
        statusPublicationDeferred = outer
        statusChanged()
    }

    static func statusEntry(counts: FleetStateMachine.Counts, machine: FleetStateMachine, tree: BlueZTree, isReady: Bool,
                            stopping: Bool) -> StatusBoard.Entry {
        let adapters = machine.adapters.values.sorted { $0.id < $1.id }.map { adapter in
            AdapterInfo(name: adapter.name, address: tree.adapters[adapter.id.objectPath]?.address, powered: adapter.powered,
                        slotsUsed: adapter.slots.occupied, slotsCapacity: adapter.slots.capacity)
        }
        return StatusBoard.Entry(counts: counts, adapters: adapters, state: stopping ? .stopping : (isReady ? .running : .starting))
    }
}
