/// The state and event handlers behind ``PolicySimulation``.
struct SimulationEngine {
    enum Event {
        case attemptDue(device: Int, generation: Int)
        case connectCompletes(device: Int, generation: Int)
        case linkDrops(device: Int, generation: Int)
        case adapterOff(Int)
        case adapterOn(Int)
    }

    private struct Device {
        let id: String
        let adapter: Int
        let policyClass: PolicyClass
        var state: ReconnectState
        /// Bumped whenever the device's pending event becomes meaningless, so stale fires are dropped.
        var generation = 0
    }

    private let parameters: Parameters
    private var devices: [Device] = []
    private var tables: [SlotTable] = []
    private var adapterPowered: [Bool]
    private var inFlight: [Int]
    /// The device each adapter is connecting, tracked by the model itself.
    private var connecting: [Int?]
    private var readyQueues: [[Int]]
    private var queue = EventQueue<Event>()
    private var returnTime: Duration?
    private var awaitingFirstAttempt: Set<Int> = []
    private var recoveryBuckets: [Int] = []
    private(set) var report = PolicySimulation.Report()

    typealias Parameters = PolicySimulation.Parameters

    init(parameters: Parameters, rng: inout some RandomNumberGenerator) throws(PolicyError) {
        guard parameters.adapterCount >= 1, parameters.deviceCount >= 0,
              parameters.resetAdapter >= 0, parameters.resetAdapter < parameters.adapterCount else {
            throw PolicyError(.invalidCapacity, "simulation needs at least one adapter and a reset adapter among them")
        }
        self.parameters = parameters
        adapterPowered = Array(repeating: true, count: parameters.adapterCount)
        inFlight = Array(repeating: 0, count: parameters.adapterCount)
        connecting = Array(repeating: nil, count: parameters.adapterCount)
        readyQueues = Array(repeating: [], count: parameters.adapterCount)
        for index in 0..<parameters.adapterCount {
            tables.append(try SlotTable(adapter: "hci\(index)", capacity: parameters.capacityPerAdapter,
                                        configuration: parameters.configuration))
        }
        for index in 0..<parameters.deviceCount {
            let draw = Double.random(in: 0..<1, using: &rng)
            let policyClass: PolicyClass = draw < parameters.criticalShare ? .critical
                : draw < parameters.criticalShare + parameters.opportunisticShare ? .opportunistic : .normal
            let state = ReconnectState(policyClass: policyClass, configuration: parameters.configuration)
            devices.append(Device(id: "dev-\(index)", adapter: index % parameters.adapterCount,
                                  policyClass: policyClass, state: state))
        }
    }

    mutating func run(using rng: inout some RandomNumberGenerator) {
        for index in devices.indices {
            apply(devices[index].state.firstConnect(now: .zero, using: &rng), to: index, now: .zero)
        }
        queue.push(.adapterOff(parameters.resetAdapter), at: parameters.resetAt)
        queue.push(.adapterOn(parameters.resetAdapter), at: parameters.resetAt + parameters.resetDowntime)
        while let (now, event) = queue.pop(), now <= parameters.duration {
            report.events += 1
            handle(event, now: now, using: &rng)
        }
        report.linkedAtEnd = tables.reduce(0) { $0 + $1.links.count }
        report.neverRetried = awaitingFirstAttempt.count
        report.busiestRecoverySecond = recoveryBuckets.max() ?? 0
    }

    private mutating func handle(_ event: Event, now: Duration, using rng: inout some RandomNumberGenerator) {
        switch event {
        case let .attemptDue(device, generation):
            guard devices[device].generation == generation else { return }
            attempt(device, now: now, using: &rng)
        case let .connectCompletes(device, generation):
            guard devices[device].generation == generation else { return }
            complete(device, now: now, using: &rng)
        case let .linkDrops(device, generation):
            guard devices[device].generation == generation else { return }
            drop(device, now: now, using: &rng)
        case let .adapterOff(adapter):
            powerOff(adapter, now: now, using: &rng)
        case let .adapterOn(adapter):
            powerOn(adapter, now: now, using: &rng)
        }
    }

    private mutating func attempt(_ device: Int, now: Duration, using rng: inout some RandomNumberGenerator) {
        let adapter = devices[device].adapter
        guard adapterPowered[adapter] else {
            // The supervisor sees Powered=false and does not call Connect; nothing is burnt.
            let step = devices[device].state.connectFailed(.local(.adapterPoweredOff), now: now, using: &rng)
            apply(step, to: device, now: now)
            return
        }
        switch tables[adapter].admit(device: devices[device].id, policyClass: devices[device].policyClass, now: now) {
        case .takeFreeSlot:
            start(device, adapter: adapter, now: now, using: &rng)
        case let .wait(reason) where reason.code == .connectInFlight:
            readyQueues[adapter].append(device)
        case let .wait(reason):
            report.admissionWaits += 1
            schedule(.attemptDue(device: device, generation: devices[device].generation),
                     at: max(reason.retryAt ?? now, now) + .seconds(1))
        case .evict:
            // Capacity covers every device in this model, so eviction is exercised by the unit tests instead.
            report.admissionWaits += 1
            schedule(.attemptDue(device: device, generation: devices[device].generation), at: now + .seconds(1))
        }
    }

    private mutating func start(_ device: Int, adapter: Int, now: Duration, using rng: inout some RandomNumberGenerator) {
        do {
            try tables[adapter].connectStarted(device: devices[device].id, policyClass: devices[device].policyClass, now: now)
        } catch {
            report.slotTableRefusals += 1
            readyQueues[adapter].append(device)
            return
        }
        inFlight[adapter] += 1
        connecting[adapter] = device
        report.maxInFlightPerAdapter = max(report.maxInFlightPerAdapter, inFlight[adapter])
        report.attempts += 1
        recordRecoveryAttempt(device, now: now)
        let latency = Duration.random(in: parameters.connectLatency, using: &rng)
        schedule(.connectCompletes(device: device, generation: devices[device].generation), at: now + latency)
    }

    private mutating func recordRecoveryAttempt(_ device: Int, now: Duration) {
        guard let returnTime, now >= returnTime else { return }
        if awaitingFirstAttempt.remove(device) != nil {
            report.maxWaitAfterReturn = max(report.maxWaitAfterReturn, now - returnTime)
        }
        let second = Int((now - returnTime).nanoseconds / 1_000_000_000)
        guard second < Int(parameters.configuration.normal.backoff.cap.nanoseconds / 1_000_000_000) else { return }
        report.recoveryWindowAttempts += 1
        while recoveryBuckets.count <= second { recoveryBuckets.append(0) }
        recoveryBuckets[second] += 1
    }

    private mutating func complete(_ device: Int, now: Duration, using rng: inout some RandomNumberGenerator) {
        let adapter = devices[device].adapter
        inFlight[adapter] -= 1
        connecting[adapter] = nil
        let draw = Double.random(in: 0..<1, using: &rng)
        let failure: ConnectFailure? =
            draw < parameters.abortProbability
            ? .dbus(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")
            : draw < parameters.abortProbability + parameters.inProgressProbability
            ? .dbus(name: "org.bluez.Error.InProgress", message: "In Progress")
            : draw < parameters.abortProbability + parameters.inProgressProbability + parameters.noReplyProbability
            ? .dbus(name: "org.freedesktop.DBus.Error.NoReply", message: "Did not receive a reply")
            : nil
        if let failure {
            tables[adapter].connectFinished(device: devices[device].id)
            report.failures += 1
            let step = devices[device].state.connectFailed(failure, now: now, using: &rng)
            if let decision = step.classification?.decision { report.decisions[decision, default: 0] += 1 }
            apply(step, to: device, now: now)
        } else {
            report.successes += 1
            tables[adapter].linkUp(device: devices[device].id, policyClass: devices[device].policyClass, rssi: -60, now: now)
            devices[device].state.connected(now: now)
            let lifetime = Duration.random(in: .zero...(parameters.meanLinkLifetime * 2), using: &rng)
            schedule(.linkDrops(device: device, generation: devices[device].generation), at: now + lifetime)
        }
        dispatchNext(on: adapter, now: now, using: &rng)
    }

    private mutating func dispatchNext(on adapter: Int, now: Duration, using rng: inout some RandomNumberGenerator) {
        while inFlight[adapter] == 0, !readyQueues[adapter].isEmpty {
            let next = readyQueues[adapter].removeFirst()
            attempt(next, now: now, using: &rng)
        }
    }

    private mutating func drop(_ device: Int, now: Duration, using rng: inout some RandomNumberGenerator) {
        let adapter = devices[device].adapter
        guard tables[adapter].linkDown(device: devices[device].id) != nil else { return }
        report.linkDrops += 1
        let step = devices[device].state.linkLost(.local(.linkDropped(hciReason: 0x08)), now: now, using: &rng)
        apply(step, to: device, now: now)
    }

    private mutating func powerOff(_ adapter: Int, now: Duration, using rng: inout some RandomNumberGenerator) {
        adapterPowered[adapter] = false
        let dropped = Set(tables[adapter].adapterReset().map(\.device))
        report.droppedByReset = dropped.count
        inFlight[adapter] = 0
        let interrupted = connecting[adapter]
        connecting[adapter] = nil
        let queued = Set(readyQueues[adapter])
        readyQueues[adapter] = []
        for index in devices.indices where devices[index].adapter == adapter {
            let wasLinked = dropped.contains(devices[index].id)
            let wasBusy = queued.contains(index)
            guard wasLinked || wasBusy || interrupted == index else { continue }
            let step = wasLinked
                ? devices[index].state.linkLost(.local(.adapterPoweredOff), now: now, using: &rng)
                : devices[index].state.connectFailed(.local(.adapterPoweredOff), now: now, using: &rng)
            apply(step, to: index, now: now)
        }
    }

    private mutating func powerOn(_ adapter: Int, now: Duration, using rng: inout some RandomNumberGenerator) {
        adapterPowered[adapter] = true
        returnTime = now
        for index in devices.indices where devices[index].adapter == adapter && devices[index].state.isWaitingForAdapter {
            guard let step = devices[index].state.adapterReturned(now: now, using: &rng) else { continue }
            report.waitingAtReturn += 1
            awaitingFirstAttempt.insert(index)
            apply(step, to: index, now: now)
        }
    }

    private mutating func apply(_ step: ReconnectStep, to device: Int, now: Duration) {
        devices[device].generation += 1
        let generation = devices[device].generation
        switch step.action {
        case let .connect(after):
            schedule(.attemptDue(device: device, generation: generation), at: now + after)
        case let .disconnectThenConnect(after), let .removeDeviceThenConnect(after):
            report.staleStateClears += 1
            schedule(.attemptDue(device: device, generation: generation), at: now + after)
        case .giveUp:
            report.gaveUp += 1
        case .waitForAdapter, .connected:
            break
        }
    }

    private mutating func schedule(_ event: Event, at time: Duration) {
        queue.push(event, at: time)
    }
}
