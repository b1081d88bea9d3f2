import FleetPlatform
import GATTProfiles
import Supervision

/// BlueZ events in, through the tree copy and the state machine.
extension FleetSupervisor {
    /// One read turn's worth of events: one actor hop for the lot, and admission (a scan of the fleet) and the
    /// publication of what Status reports (`StatusBoard`) once at its end rather than after each event. A re-read
    /// of the tree suspends the actor, so neither is held across it.
    func handle(_ batch: [BlueZSignal]) async {
        guard !stopping else { return }
        metrics.handled(bluezEvents: batch.count)
        machine.deferAdmission()
        statusPublicationDeferred = true
        for signal in batch {
            if case .serviceAppeared = signal.event {
                admit()
                // The re-read of the tree suspends the actor: what runs meanwhile (a timer, a reply) publishes its
                // own changes, so Status is not held at the state before this batch for a whole D-Bus round trip.
                statusPublicationDeferred = false
                publishStatus()
                await handle(signal.event, arrival: signal.arrival)
                statusPublicationDeferred = true
                machine.deferAdmission()
            } else {
                take(signal.event, arrival: signal.arrival)
            }
            // Per event, not per batch: a reply waiting for an event early in the batch may go on while a re-read
            // of the tree later in it suspends the actor.
            tookSignal(signal.arrival)
        }
        admit()
        statusPublicationDeferred = false
        publishStatus()
    }

    private func admit() {
        let actions = machine.resumeAdmission(now: now())
        if !stopping { perform(actions) }
    }

    func handle(_ event: BlueZEvent, arrival: UInt64) async {
        guard !stopping else { return }
        if case .serviceAppeared = event {
            logger.notice("bluetoothd appeared on the bus; reading its objects")
            bluezOnBus = true
            do { try await reconcile() } catch { logger.error("cannot read BlueZ's objects: \(error)") }
            updateStatus()
            return
        }
        take(event, arrival: arrival)
    }

    /// Every event but bluetoothd's appearance (which re-reads the tree, suspending the actor): synchronous, so
    /// that a batch of hundreds of adverts makes no async call per event.
    func take(_ event: BlueZEvent, arrival: UInt64) {
        guard !stopping else { return }
        if case .malformed(let what) = event {
            logger.warning("malformed BlueZ signal: \(what)", id: FleetMessageID.malformedReply.rawValue, metadata: ["reason": "malformed-signal"])
            return
        }
        if case .serviceLost = event {
            bluezOnBus = false
            logger.warning("bluetoothd left the bus; waiting for it to return", id: FleetMessageID.waitingForBlueZ.rawValue,
                           metadata: ["reason": "service-lost"])
        }
        // A signal that arrived before the reply the tree was last read from is already in it.
        treeChanges.startEvent()
        treeChanges.apply(event, arrival: arrival, to: &tree)
        reportProblems()
        let now = now()
        // Walks a copy of the array (a retain), so an event taken while performing these could not disturb it.
        for change in treeChanges.changes {
            switch change {
            case .tree(let change):
                switch change {
                case .link(let path, up: false), .deviceRemoved(let path): recordSyncLinkLost(path)
                default: break
                }
                perform(machine.apply(change, now: now))
            case .value(let characteristic, let bytes):
                notification(characteristic, bytes)
            }
        }
    }

    /// The event loop has taken the signal that arrived as `arrival`: replies waiting for it may go on.
    func tookSignal(_ arrival: UInt64) {
        handledArrival = max(handledArrival, arrival)
        guard arrivalWaiters.contains(where: { $0.mark <= handledArrival }) else { return }
        let ready = arrivalWaiters.filter { $0.mark <= handledArrival }
        arrivalWaiters.removeAll { $0.mark <= handledArrival }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once the event loop has taken every signal up to `mark` (`BlueZEvents.lastDelivered`, read after
    /// a reply came). fleetd's handling of signals can lag behind the bus; a reply acted on before the signals
    /// bluetoothd sent ahead of it would be judged against an older world: a Connect refused because its
    /// adapter had just powered off counted as the device's failure, before the adapter-off is heard. Before
    /// the event loop runs (start-up) and once it has ended, nothing waits.
    func caughtUp(to mark: UInt64) async {
        guard eventTask != nil, !stopping, !busLost, mark > handledArrival else { return }
        await withCheckedContinuation { arrivalWaiters.append((mark, $0)) }
    }

    func releaseArrivalWaiters() {
        let waiters = arrivalWaiters
        arrivalWaiters.removeAll()
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// A Value change on a subscribed characteristic of a fleet device: numbered and kept.
    func notification(_ characteristic: CharacteristicObject, _ bytes: [UInt8]) {
        // A value is the link doing its job: eviction takes the least recently active link first.
        guard let path = tree.devices.devicePath(of: characteristic.device),
              let id = machine.subscribedValue(on: path, characteristic: characteristic.uuid, now: now()) else { return }
        // BlueZ's Value change does not say which ATT PDU carried it; a characteristic that can only indicate did.
        let indicated = characteristic.flags.contains("indicate") && !characteristic.flags.contains("notify")
        feed.publish(device: id, kind: .notification(characteristic: characteristic.uuid, value: bytes),
                     text: indicated ? "indication (\(bytes.count) bytes)" : "notification (\(bytes.count) bytes)")
        // An RACP answer is the procedure talking, not a reading; a record is stored before its sync hears of it, so
        // a mark the sync then reaches is queued behind it (docs/records.md).
        if AssignedNumber(uuid: characteristic.uuid) == RecordSyncPlan.controlPoint {
            _ = recordSyncHeard(id, characteristic: characteristic, bytes)
            return
        }
        readings?.record(device: id, characteristic: characteristic.uuid, kind: indicated ? .indication : .notification, value: bytes)
        _ = recordSyncHeard(id, characteristic: characteristic, bytes)
    }
}
