import Policy

/// Connect attempts, links coming up and going down, and the set-up that makes a linked device ready.
extension FleetStateMachine {
    /// The driver's report on a `.connect` action.
    public mutating func connectFinished(device id: DeviceID, token: UInt64, error: BlueZError?, now: Duration) -> [FleetAction] {
        unsaved.insert(device: id)
        // Every failure BlueZ answers is counted, even for an attempt the machine has since given up on.
        let classification = error.map { BlueZErrorClassifier.classify($0.connectFailure) }
        let counted: [FleetAction] = classification.map { [.outcome(.connectFailed(id, errorClass: $0.code))] } ?? []
        if let answered = adapters.first(where: { $0.value.unansweredConnect.map { $0.device == id && $0.token == token } ?? false })?.key {
            // A Connect sent before its adapter went off, answered now: the adapter may start the next one.
            adapters[answered]?.unansweredConnect = nil
            adapters[answered]?.slots.connectFinished(device: id.rawValue)
            return counted + pump(now: now)
        }
        guard var device = devices[id], device.connectToken == token, let path = device.linkPath else { return counted }
        let adapter = path.adapter
        device.connectToken = nil
        let pending = adapters[adapter]?.slots.connectInFlight
        let took = pending?.device == id.rawValue ? pending.map { now - $0.startedAt } : nil
        adapters[adapter]?.slots.connectFinished(device: id.rawValue)
        var actions = counted
        if let error, let classification {
            let failure = error.connectFailure
            // The aborted connects (per device) that a full pool explains, this one included.
            let poolAborts: [DeviceID: Int]? = classification.signalsCapacityLimit
                ? [id: 1]
                : learnsFullPool(adapter, error, device: id, took: took, refusalWithin: Self.poolRefusalWindow(settings.policy[device.policyClass].connectTimeout))
            if let poolAborts {
                var message: String?
                if var slots = adapters[adapter]?.slots, let change = slots.reportLimitReached(now: now) {
                    adapters[adapter]?.slots = slots
                    message = change.message
                }
                takeBackPoolAborts(poolAborts, except: id, on: adapter, now: now, into: &actions)
                if let message {
                    let devices = poolAborts.keys.sorted().map(\.rawValue).joined(separator: ", ")
                    actions.append(.event(LifecycleEvent(.capacityLowered, message + "; the failed connects of \(devices) were the pool's, not counted",
                                                         adapter: adapter, reason: "capacity-limit", warning: true)))
                }
            }
            if error.timedOut {
                // BlueZ keeps trying after our deadline; cancel its attempt so the slot really is free.
                actions.append(.disconnect(device: id, path: path))
            }
            if classification.decision == .alreadyDone {
                actions += linkEstablished(&device, path: path, now: now, adopted: false)
                devices[id] = device
                return actions + pump(now: now)
            }
            if error.name == Self.unknownObject {
                // BlueZ has no such object any more: fleetd's copy of the tree lags behind a removal whose signal
                // is still on its way (an adapter going off, a temporary device expiring). The path failed, not
                // the device: the path is forgotten and the device competes again through the ones left, with
                // nothing counted. It cannot loop: a path comes back only when BlueZ reports the object again.
                device.lastReason = "\(error.name)\(error.message.isEmpty ? "" : ": \(error.message)")"
                device.linkPath = nil
                device.sightings.removeValue(forKey: path)
                owners.removeValue(forKey: path)
                device.phase = device.sightings.isEmpty ? .unknown : .discovered
                devices[id] = device
                return actions + pump(now: now)
            }
            device.lastReason = "\(error.name)\(error.message.isEmpty ? "" : ": \(error.message)")"
            device.failedConnects[adapter, default: 0] += 1
            let staleBond = staleBondCheck(&device, path: path, error: error, token: token, now: now)
            actions += staleBond.actions
            device.linkPath = nil
            if staleBond.stopped {
                devices[id] = device
                return actions + pump(now: now)
            }
            if let earlier = poolAborts?[id] {
                // The pool was full: this device's earlier aborts in the streak are taken back, this one is not counted.
                device.reconnect.takeBack(failures: earlier - 1)
                apply(device.reconnect.poolFull(failure, using: &rng), to: &device, now: now, into: &actions)
            } else {
                noteFailure(&device, on: adapter, now: now)
                let step = device.reconnect.connectFailed(failure, now: now, using: &rng)
                apply(step, to: &device, now: now, into: &actions, stuckAt: path)
            }
        } else {
            // A connect that succeeds with fewer other links than the streak's aborts saw is no evidence against
            // a pool full at that count: a link dropped meanwhile made the room (soak seed 106, invariant 4).
            if let streak = adapters[adapter]?.abortStreak, let slots = adapters[adapter]?.slots,
               slots.links.count - (slots.links[id.rawValue] == nil ? 0 : 1) >= streak.links {
                adapters[adapter]?.abortStreak = nil
            }
            actions += linkEstablished(&device, path: path, now: now, adopted: false)
            if device.sightings[path]?.servicesResolved == true { actions += beginSetUp(&device, now: now) }
        }
        devices[id] = device
        return actions + pump(now: now)
    }

    /// D-Bus's answer for a call to an object path that does not exist.
    static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"

    /// The driver's report on a `.setUp` action: subscriptions armed and reads done, or what failed; `read`
    /// lists the characteristics it read (and recorded) before it finished or failed; `armed`, the standard profile
    /// characteristics it subscribed to for a device with none configured.
    public mutating func setUpFinished(device id: DeviceID, token: UInt64, error: BlueZError?, read: [String] = [], armed: [String] = [],
                                       now: Duration) -> [FleetAction] {
        unsaved.insert(device: id)
        guard var device = devices[id], device.connectToken == token, device.phase == .resolving, let path = device.linkPath else { return [] }
        device.connectToken = nil
        device.linkSetUp.read.formUnion(read)
        device.linkSetUp.armed.formUnion(armed)
        var actions: [FleetAction] = []
        clearTimer(&device, into: &actions)
        if let error, let pairing = pairAfterSecurityFailure(&device, path: path, error: error, now: now) {
            devices[id] = device
            return actions + pairing
        }
        if let error {
            device.lastReason = error.description
            actions.append(.event(LifecycleEvent(.setUpFailed, "set-up of \(id) failed: \(error)", device: id, address: device.address,
                                                 adapter: device.adapter, reason: error.name, warning: true)))
            abandonLink(&device, path: path, into: &actions)
        } else {
            device.phase = .ready
            device.bond.staleBond.reconnected()
            device.bond.abortedConnect = nil
            device.adopted = false
            device.attempt = 0
            device.failedConnects = [:]
            // A session that reached ready clears the failures: its end (a cuff that uploads and hangs up) is a
            // session ending, not one more failure against the budget.
            device.reconnect.ready(now: now)
            // Nothing before this session is left to take back.
            device.beforeLastFailure = nil
            actions.append(.event(LifecycleEvent(.ready, "\(id) is ready: \(device.wanted.subscribe.count + device.linkSetUp.armed.count) subscription(s) armed",
                                                 device: id, address: device.address, adapter: device.adapter)))
            actions.append(.persist)
        }
        devices[id] = device
        // The adapter's connect is over (ready or failed): the next device may start.
        return actions + pump(now: now)
    }

    mutating func linkEstablished(_ device: inout FleetDevice, path: DevicePath, now: Duration, adopted: Bool) -> [FleetAction] {
        var actions: [FleetAction] = []
        guard device.sightings[path] != nil else { return [] }
        device.linkPath = path
        device.phase = .connected
        device.linkUpAt = now
        device.linkSetUp = LinkSetUp()
        device.nextRetry = nil
        device.adopted = adopted
        clearTimer(&device, into: &actions)
        device.reconnect.connected(now: now)
        if device.isWanted {
            // Counts from link-up: a link whose services never resolve must not hold its slot forever.
            setTimer(&device, .setUpDeadline, after: settings.setUpTimeout, into: &actions)
        }
        adapters[path.adapter]?.slots.linkUp(device: device.id.rawValue, policyClass: device.policyClass, rssi: device.sightings[path]?.rssi, now: now)
        guard device.isWanted else {
            // A link to a device the operator released: leave it to whoever made it.
            return actions
        }
        if let down = device.linkDownAt {
            device.linkDownAt = nil
            actions.append(.outcome(.reconnected(device.id, after: now - down)))
        }
        actions.append(.event(LifecycleEvent(.connected, adopted ? "adopted the existing link to \(device.id)" : "connected \(device.id)",
                                             device: device.id, address: device.sightings[path]?.address, adapter: path.adapter,
                                             reason: adopted ? "adopted" : "connect", attempt: device.attempt)))
        if device.sightings[path]?.servicesResolved == true { actions += beginSetUp(&device, now: now) }
        return actions
    }

    mutating func beginSetUp(_ device: inout FleetDevice, now: Duration) -> [FleetAction] {
        guard device.phase == .connected, let path = device.linkPath, device.isWanted else { return [] }
        if let pairing = pairBeforeSetUp(&device, path: path, now: now) { return pairing }
        var actions: [FleetAction] = []
        device.phase = .resolving
        let token = newToken()
        device.connectToken = token
        if device.timer?.purpose != .setUpDeadline {
            setTimer(&device, .setUpDeadline, after: settings.setUpTimeout, into: &actions)
        }
        let session = device.linkSetUp.session ?? token
        device.linkSetUp.session = session
        let read = device.wanted.readOnConnect.filter { !device.linkSetUp.read.contains($0) }
        actions.append(.setUp(device: device.id, path: path, subscribe: device.wanted.subscribe, read: read,
                              armProfiles: device.wanted.armsStandardProfiles, token: token, session: session))
        return actions
    }

    /// The link of a device dropped (Connected went false, or its Device1 object vanished).
    mutating func linkLost(_ device: inout FleetDevice, now: Duration, failure: ConnectFailure?) -> [FleetAction] {
        var actions: [FleetAction] = []
        let path = device.linkPath
        let adapter = path?.adapter
        if let adapter {
            _ = adapters[adapter]?.slots.linkDown(device: device.id.rawValue)
            // The link may come and go before the Connect reply; that attempt is over too.
            if device.connectToken != nil { adapters[adapter]?.slots.connectFinished(device: device.id.rawValue) }
        }
        let wasPhase = device.phase
        let connecting = device.connectToken
        device.linkPath = nil
        device.linkUpAt = nil
        device.linkDownAt = now
        device.connectToken = nil
        // An evicted device keeps its hold-off timer; any other timer belonged to the link.
        if case .evicted = wasPhase {} else { clearTimer(&device, into: &actions) }
        actions.append(.event(LifecycleEvent(.disconnected, "\(device.id) disconnected (was \(wasPhase))", device: device.id,
                                             address: path.flatMap { device.sightings[$0]?.address }, adapter: adapter,
                                             reason: "link-lost", warning: device.isWanted)))
        switch wasPhase {
        case .evicted, .idle, .failed, .needsPairing:
            return actions
        default:
            break
        }
        guard device.isWanted else {
            device.phase = .idle
            return actions
        }
        if let adapter, adapters[adapter]?.powered == false {
            let step = device.reconnect.connectFailed(.local(.adapterPoweredOff), now: now, using: &rng)
            apply(step, to: &device, now: now, into: &actions)
            return actions
        }
        if wasPhase == .connecting, let path, let connecting {
            // Up and down before the Connect reply: for a bonded device, the evidence of a stale bond.
            let staleBond = staleBondAtLinkLoss(&device, path: path, token: connecting, now: now)
            actions += staleBond.actions
            if staleBond.stopped { return actions }
        } else if let path {
            // Up and down just after a Connect that failed `le-connection-abort-by-local`: bluetoothd 5.66's
            // order for a stale bond (reply first, then the signals).
            let staleBond = staleBondAfterAbort(&device, path: path, now: now)
            actions += staleBond.actions
            if staleBond.stopped { return actions }
        }
        noteFailure(&device, on: adapter, now: now)
        let step = device.reconnect.linkLost(failure, now: now, using: &rng)
        apply(step, to: &device, now: now, into: &actions)
        return actions
    }

    /// Carries out Policy's reconnect step for a device without a link. `stuckAt` is the object whose answer
    /// asked for stale state to be cleared (a Connect's path); without it, the device's newest sighting.
    mutating func apply(_ step: ReconnectStep, to device: inout FleetDevice, now: Duration, into actions: inout [FleetAction],
                        stuckAt: DevicePath? = nil) {
        let stuck = stuckAt.flatMap { device.sightings[$0] } ?? device.bestSighting
        device.lastReason = step.reason
        func scheduleRetry(_ delay: Duration) {
            device.phase = .backoff(until: now + delay)
            device.nextRetry = now + delay
            setTimer(&device, .retry, after: delay, into: &actions)
            actions.append(.event(LifecycleEvent(.backoffScheduled, "\(device.id): \(step.reason)", device: device.id,
                                                 address: device.address, adapter: device.adapter,
                                                 reason: step.classification?.code ?? "reconnect", failures: step.failures, delay: delay)))
        }
        switch step.action {
        case .connect(let delay):
            scheduleRetry(delay)
        case .disconnectThenConnect(let delay):
            if let path = stuck?.path {
                actions.append(.disconnect(device: device.id, path: path))
                actions.append(.event(LifecycleEvent(.staleStateCleared, "\(device.id): clearing a stuck BlueZ state with Disconnect",
                                                     device: device.id, reason: "disconnect")))
            }
            scheduleRetry(delay)
        case .removeDeviceThenConnect(let delay):
            if let sighting = stuck { actions += clearStuckState(device, sighting: sighting) }
            scheduleRetry(delay)
        case .waitForAdapter:
            if device.sightings.values.contains(where: { adapters[$0.adapter]?.powered == true }),
               let retry = device.reconnect.adapterReturned(now: now, using: &rng),
               case .connect(let delay) = retry.action {
                // Another adapter that sees the device is powered (it moves there, spread over the recovery
                // window), or BlueZ said the adapter is not ready while it reports itself powered (no second
                // Powered=true will come): either way it is retried, with nothing counted.
                scheduleRetry(delay)
            } else {
                device.phase = .waitingForAdapter
                device.nextRetry = nil
            }
        case .giveUp:
            device.phase = .failed(reason: step.reason)
            device.nextRetry = nil
            actions.append(.event(LifecycleEvent(.gaveUp, "gave up on \(device.id): \(step.reason)", device: device.id,
                                                 reason: step.classification?.code ?? "budget", failures: step.failures, warning: true)))
            actions.append(.persist)
        case .connected:
            break
        }
    }

    /// BlueZ 5.66 reports a controller with no free connection as a plain `le-connection-abort-by-local`
    /// (every LE connect-socket error becomes ECONNABORTED). When two different devices abort in a row at
    /// the same link count, with links held, the pool is taken to be full at that count; one flaky device
    /// alone never lowers it. Returns, once the pool is learned full, the aborts of the streak per device (this
    /// one included): they were the pool's, not the devices' (`takeBackPoolAborts`).
    ///
    /// Only an abort that came at once can be the controller's refusal: an absent device (or one that no longer
    /// answers at the address tried, after a rotation) aborts the same way, but after the kernel's LE connection
    /// timeout (HCI_LE_CONN_TIMEOUT, 20 s on Linux 6.1). Such a slow abort says nothing about the pool and leaves
    /// the streak as it was (soak seed 108: two devices rotated away timed out one after the other on one adapter,
    /// and its capacity was "learned" as 16 of 64, leaving 51 devices out).
    mutating func learnsFullPool(_ adapter: AdapterID, _ error: BlueZError, device: DeviceID, took: Duration?,
                                 refusalWithin window: Duration) -> [DeviceID: Int]? {
        let isAbort = error.name == "org.bluez.Error.Failed" && error.message == "le-connection-abort-by-local"
        if isAbort, let took, took > window { return nil }
        guard isAbort, let links = adapters[adapter]?.slots.links.count, links > 0 else {
            adapters[adapter]?.abortStreak = nil
            return nil
        }
        var streak = adapters[adapter]?.abortStreak ?? (links, [:])
        if streak.links != links { streak = (links, [:]) }
        streak.devices[device, default: 0] += 1
        guard streak.devices.count >= 2 else {
            adapters[adapter]?.abortStreak = streak
            return nil
        }
        adapters[adapter]?.abortStreak = nil
        return streak.devices
    }

    /// How soon a refused connect aborts at the latest: a quarter of the class's connect timeout, at most 5 s,
    /// well inside the kernel's 20 s LE connection timeout, and scaled with the policy (the soak's time scale).
    static func poolRefusalWindow(_ connectTimeout: Duration) -> Duration {
        min(connectTimeout / 4, .seconds(5))
    }

    /// An adapter's pool was found full: the failures its aborted connects counted against other devices are
    /// taken back (a device that spent its budget on them resumes).
    /// Each device whose count changes is told on its own (`fleetctl watch DEV`, FLEET_FAILURES): the count its
    /// abort event showed is not the one fleetd keeps.
    mutating func takeBackPoolAborts(_ aborts: [DeviceID: Int], except current: DeviceID, on adapter: AdapterID, now: Duration,
                                     into actions: inout [FleetAction]) {
        for (id, count) in aborts.sorted(by: { $0.key < $1.key }) where id != current {
            guard var device = devices[id] else { continue }
            let before = device.reconnect.failures
            let gaveUp = device.reconnect.hasGivenUp
            device.reconnect.takeBack(failures: count)
            guard device.reconnect.failures != before else { continue }
            actions.append(.event(LifecycleEvent(.capacityLowered, Self.poolAbortsTakenBack(id, adapter: adapter, from: before, to: device.reconnect.failures),
                                                 device: id, adapter: adapter, reason: "capacity-limit", failures: device.reconnect.failures)))
            if gaveUp, !device.reconnect.hasGivenUp, case .failed = device.phase {
                apply(device.reconnect.poolFull(.dbus(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local"), using: &rng),
                      to: &device, now: now, into: &actions)
                actions.append(.persist)
            }
            devices[id] = device
            // Another device's failures changed: its row must be saved too.
            unsaved.insert(device: id)
        }
    }

    /// The per-device event of `takeBackPoolAborts`; the soak (FleetTestKit `SoakWatchEvent`) reads this wording.
    static func poolAbortsTakenBack(_ id: DeviceID, adapter: AdapterID, from before: Int, to after: Int) -> String {
        "\(id): its failed connects on \(adapter.name) were the full pool's, not its own; failures \(before) → \(after)"
    }

    /// How long a requested Disconnect may take to show as Connected=false.
    static let disconnectDeadline: Duration = .seconds(10)

    /// Disconnects a link that failed set-up, and writes it off if BlueZ never confirms (`disconnectDeadline`).
    mutating func abandonLink(_ device: inout FleetDevice, path: DevicePath, into actions: inout [FleetAction]) {
        actions.append(.disconnect(device: device.id, path: path))
        device.phase = .disconnecting
        setTimer(&device, .disconnectDeadline, after: Self.disconnectDeadline, into: &actions)
    }
}
