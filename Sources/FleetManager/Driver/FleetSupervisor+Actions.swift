import FleetPlatform
import FoundationEssentials
import Policy
import Supervision

/// Performing the state machine's actions. I/O runs in tasks whose results come back as events; the actor
/// itself never waits on BlueZ.
extension FleetSupervisor {
    func perform(_ actions: [FleetAction]) {
        unsaved.note(actions)
        for action in actions {
            switch action {
            case .connect(let device, let path, _, let timeout, let token):
                metrics.attempt(machine.devices[device]?.policyClass.rawValue ?? "normal")
                let client = self.client
                // A Disconnect asked for before this Connect on the same adapter (a timed-out connect's cancel,
                // an eviction) must reach bluetoothd first, or the controller has two connects pending.
                let before = callOrder.barrier(on: path.adapter)
                let events = bluezEvents
                Task { [weak self] in
                    for call in before { await call.value }
                    var failure: BlueZError?
                    do throws(BlueZError) { try await client.connect(device: path.rawValue, timeout: timeout) } catch { failure = error }
                    // Judged after the signals bluetoothd sent before its answer (an adapter powering off, a link).
                    await self?.caughtUp(to: events?.lastDelivered ?? 0)
                    await self?.connectDone(device: device, path: path, token: token, error: failure)
                }
            case .disconnect(_, let path):
                let client = self.client
                let logger = self.logger
                startCancelling(on: path.adapter) {
                    do { try await client.disconnect(device: path.rawValue) } catch {
                        logger.debug("disconnect of \(path) answered \(error)")
                    }
                }
            case .removeDevice(_, let adapter, let path):
                let client = self.client
                let logger = self.logger
                startCancelling(on: adapter) {
                    do { try await client.removeDevice(adapter: adapter.objectPath, device: path.rawValue) } catch {
                        logger.warning("RemoveDevice \(path) failed: \(error)")
                    }
                }
            case .setUp(let device, let path, var subscribe, var read, let armProfiles, let token, let session):
                let characteristics = tree.characteristics(of: path)
                var armed: [String] = []
                if armProfiles {
                    let plan = ProfileArming.plan(characteristics)
                    armed = plan.subscribe
                    subscribe += plan.subscribe
                    read += plan.read
                }
                let client = self.client
                let logger = self.logger
                let feed = self.feed
                let readings = self.readings
                let deviceInformation = self.deviceInformation
                readings?.beginSession(device: device, token: session)
                let events = bluezEvents
                Task { [weak self] in
                    let (done, failure) = await Self.setUp(device: device, characteristics: characteristics, subscribe: subscribe, read: read,
                                                           client: client, logger: logger, feed: feed, readings: readings,
                                                           deviceInformation: deviceInformation)
                    let armedNow = failure == nil ? armed : []
                    // A link lost before the last answer is heard first: the device is not reported ready meanwhile.
                    await self?.caughtUp(to: events?.lastDelivered ?? 0)
                    await self?.setUpDone(device: device, token: token, read: done, armed: armedNow, error: failure)
                }
            case .schedule(let timer, let delay):
                timers[timer]?.cancel()
                let clock = self.clock
                let deadline = clock.now() + delay
                timers[timer] = Task { [weak self] in
                    do { try await clock.sleep(until: deadline) } catch { return }
                    await self?.fire(timer)
                }
            case .cancel(let timer):
                timers.removeValue(forKey: timer)?.cancel()
            case .startDiscovery(let adapter):
                let client = self.client
                let logger = self.logger
                let uuids = options.scanServiceUUIDs
                let duplicates = options.duplicateData
                Task {
                    do throws(BlueZError) {
                        try await client.setDiscoveryFilter(adapter: adapter.objectPath, uuids: uuids, duplicateData: duplicates)
                        try await client.startDiscovery(adapter: adapter.objectPath)
                    } catch where error.name == "org.bluez.Error.InProgress" {
                        // Discovery already running for this client.
                    } catch {
                        logger.warning("cannot start discovery on \(adapter.objectPath): \(error)", metadata: ["adapter": adapter.objectPath, "reason": error.name])
                    }
                }
            case .pair, .cancelPairing, .unpair:
                performPairing(action)
            case .persist:
                schedulePersist()
            case .event(let event):
                announce(event)
            case .outcome(let outcome):
                record(outcome)
            }
        }
        updateStatus()
        statusChanged()
    }

    /// Runs a Disconnect or RemoveDevice on `adapter`; a Connect asked for later on that adapter waits for it.
    func startCancelling(on adapter: AdapterID, _ call: @escaping @Sendable () async -> Void) {
        let id = callOrder.reserve()
        // The task reports back through the actor, so it is registered below before it can finish.
        let task = Task { [weak self] in
            await call()
            await self?.cancellingDone(id, on: adapter)
        }
        callOrder.started(id, on: adapter, task: task)
    }

    func cancellingDone(_ id: UInt64, on adapter: AdapterID) { callOrder.finished(id, on: adapter) }

    func connectDone(device: DeviceID, path: DevicePath, token: UInt64, error: BlueZError?) {
        if error == nil {
            // The tree turns the reply into a link change if bluetoothd did not signal one, before the machine
            // hears the reply: the order real controllers report in.
            for change in tree.connectSucceeded(path) { perform(machine.apply(change, now: now())) }
        }
        perform(machine.connectFinished(device: device, token: token, error: error, now: now()))
    }

    func setUpDone(device: DeviceID, token: UInt64, read: [String], armed: [String] = [], error: BlueZError?) {
        perform(machine.setUpFinished(device: device, token: token, error: error, read: read, armed: armed, now: now()))
        if error == nil, machine.devices[device]?.phase == .ready { startRecordSync(device: device, armed: armed) }
        if initialSetUps.remove(device) != nil, initialSetUps.isEmpty { releaseReadyWaiter() }
    }

    func fire(_ timer: TimerID) {
        // A timer no longer registered was cancelled or replaced: its fire is stale.
        guard timers.removeValue(forKey: timer) != nil else { return }
        perform(machine.timerFired(timer, now: now()))
    }

    /// Reads on connect and StartNotify for each configured characteristic. A characteristic the device does
    /// not have is a warning, not a reason to drop the link. Returns the characteristics read (and recorded),
    /// with the error that ended set-up early, if any.
    static func setUp(device: DeviceID, characteristics: [CharacteristicObject], subscribe: [String], read: [String],
                      client: BlueZClient, logger: Logger, feed: EventFeed, readings: ReadingRecorder? = nil,
                      deviceInformation: DeviceInformationBoard? = nil) async -> (read: [String], failure: BlueZError?) {
        func find(_ uuid: String) -> CharacteristicObject? { characteristics.first { $0.uuid == uuid } }
        var done: [String] = []
        for uuid in read {
            guard let characteristic = find(uuid) else {
                logger.warning("\(device) has no characteristic \(uuid) to read", metadata: ["device": device.rawValue, "reason": "missing-characteristic"])
                continue
            }
            do throws(BlueZError) {
                let value = try await client.readLong(characteristic: characteristic.path, mtu: characteristic.mtu)
                feed.publish(device: device, kind: .notification(characteristic: uuid, value: value),
                             text: "read on connect (\(value.count) bytes)")
                readings?.record(device: device, characteristic: uuid, kind: .read, value: value)
                deviceInformation?.record(device: device, characteristic: uuid, value: value)
                done.append(uuid)
            } catch {
                return (done, error)
            }
        }
        for uuid in subscribe {
            guard let characteristic = find(uuid) else {
                // A device is ready only with every configured subscription armed; a missing one is an error
                // that names the characteristic, not a silently partial device.
                return (done, BlueZError(operation: "StartNotify", path: "\(device)", name: "io.fleetd.Error.CharacteristicNotFound",
                                         message: "no characteristic \(uuid) among the \(characteristics.count) BlueZ resolved"))
            }
            do throws(BlueZError) {
                try await client.startNotify(characteristic: characteristic.path)
            } catch where error.name == "org.bluez.Error.InProgress" || error.message.lowercased().contains("already") {
                // Already notifying for us: the subscription is armed.
            } catch {
                return (done, error)
            }
        }
        return (done, nil)
    }

    /// A lifecycle event, told twice: to the log for people, and to the feed for `fleetctl watch`.
    func announce(_ event: LifecycleEvent) {
        let level: LogLevel = event.warning ? .warning : .info
        logger.log(level, event.message, id: event.id.rawValue, metadata: event.metadata)
        if let device = event.device {
            feed.publish(device: device, kind: .lifecycle(event.id, phase: machine.devices[device]?.phase ?? .unknown), text: event.message)
        }
    }

    func record(_ outcome: FleetOutcome) {
        switch outcome {
        case .connectFailed(_, let errorClass):
            metrics.failure(errorClass)
        case .evicted(_, let reason):
            metrics.eviction(reason)
        case .reconnected(let device, let after):
            metrics.reconnected(after: Double(after.milliseconds) / 1000)
            feed.publish(device: device, kind: .reconnected, text: "reconnected")
        }
    }

    /// STATUS= follows the counts, at most twice a second: a burst of changes sends one line.
    func updateStatus() {
        guard isReady, !statusScheduled else { return }
        statusScheduled = true
        Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(500))
            await self?.sendStatus()
        }
    }

    func sendStatus() {
        statusScheduled = false
        // The published counts (`StatusBoard`) are current in a turn of its own, and cost no scan of the fleet.
        let line = statusLine(statusBoard.latest.counts)
        if line != lastStatus {
            lastStatus = line
            notifier.status(line)
        }
    }
}
