import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A chaos soak (issue 14, docs/soak.md): fleetd on the BlueZ simulator under a seeded fault schedule, with
/// its invariants checked continuously by a poller (every 250 ms) and on the Watch stream, and the value path's
/// lag measured by a prober of its own (every 250 ms). `run()` prints the seed, the bound's derivation, any
/// violation with the history that led to it, and the figures.
public final class SoakRun: @unchecked Sendable {
    // @unchecked: the mutable state below is only touched under `lock`.
    public let options: SoakOptions
    public let fleet: SoakFleet
    public let schedule: SoakSchedule
    let policy: SoakPolicy
    /// Invariant 5's reader of fleetd's state file: nil when it is readable, else what is wrong.
    let stateFileProblem: @Sendable (String) -> String?

    private let lock = NSLock()
    private var invariants: SoakInvariants
    private var violations: [SoakInvariants.Violation] = []
    private var history: [String] = []
    private var deviceHistory: [String: [String]] = [:]
    private var stopped = false
    private var finished = false
    private var fleetdDown = false
    private var simulatorDown = false
    private var phaseStart: Double?
    private var classes: [String: String] = [:]
    private var injected: [SoakFaultKind: Int] = [:]
    private var notes: [String] = []
    private var stepErrors = 0
    private var linksUpBefore = 0
    private var lastSequence = 0
    private var watchGaps = 0
    private var logsKept: String?
    private let began = ContinuousClock.now
    private var harness: FleetHarness?
    /// The running children, as the checker may look at them (the harness's own references change under
    /// the injector's restarts).
    private var fleetdProcess: ChildProcess?
    private var simulatorProcess: ChildProcess?

    public init(options: SoakOptions, stateFileProblem: @escaping @Sendable (String) -> String?) {
        self.options = options
        self.stateFileProblem = stateFileProblem
        fleet = SoakFleet(devices: options.devices, adapters: options.adapters)
        policy = options.policy
        schedule = SoakSchedule(seed: options.seed, fleet: fleet, length: options.minutes * 60, meanGap: options.meanGap).skipping(options.skip)
        invariants = SoakInvariants(fleet: fleet, timeScale: options.timeScale)
    }

    var simulatorArguments: [String] { ["--time-scale", String(options.timeScale), "--seed", String(options.seed)] }

    // MARK: Time

    /// Real seconds since the soak began.
    func now() -> Double { Self.seconds(ContinuousClock.now - began) }
    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
    /// Simulated seconds since the fault phase began (negative before it).
    func simulated(_ real: Double) -> Double { (real - locked { phaseStart ?? real }) * options.timeScale }
    func stamp(_ real: Double) -> String { String(format: "t=%7.1f s", simulated(real)) }
    /// Wall-clock time of day (UTC, as fleetd's log prints it), to find the moment in fleetd.log.
    static func clock() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        return String(format: "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec, now.tv_nsec / 1_000_000)
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    func record(_ line: String, device: String? = nil) {
        let entry = "\(stamp(now())) \(Self.clock())  \(line)"
        locked {
            if let device {
                deviceHistory[device, default: []].append(entry)
                if deviceHistory[device]!.count > 40 { deviceHistory[device]!.removeFirst() }
            } else {
                history.append(entry)
                if history.count > 2000 { history.removeFirst(history.count - 2000) }
            }
        }
        if options.verbose && device == nil { say("  " + entry) }
    }

    // MARK: The run

    /// Runs the soak; returns the exit status (0 clean, 1 violation, 2 setup failure).
    public func run() async -> Int32 {
        say("soak: seed \(options.seed): \(fleet.devices.count) devices on \(fleet.adapters) adapters, \(Self.number(options.minutes)) simulated minutes of faults at time scale \(Self.number(options.timeScale)) (\(Self.number(options.minutes * 60 / options.timeScale)) s real)")
        say("soak: \(schedule.faults.count) faults scheduled: " + Self.kinds(schedule.countsByKind)
            + (options.skip.isEmpty ? "" : " (skipping " + options.skip.sorted().map(\.rawValue).joined(separator: ", ") + ")"))
        say("soak: fleetd's policy durations are its defaults " + (options.scaledPolicy
            ? "divided by \(Self.number(policy.scale)), so fleetd and the simulator share simulated time"
            : "in real seconds (\(Self.number(options.timeScale))× longer in simulated time)"))
        let harness: FleetHarness
        do {
            harness = try await FleetHarness(scenario: fleet.scenario, configuration: fleet.configuration(policy: policy),
                                             simulatorArguments: simulatorArguments)
        } catch {
            say("soak: cannot start the simulator and fleetd: \(error)")
            return 2
        }
        locked {
            self.harness = harness
            fleetdProcess = harness.fleetd
            simulatorProcess = harness.simulator
        }
        defer { harness.stop() }
        let watch = SoakWatch(socketPath: harness.socketPath) { [weak self] event in self?.watched(event) }
        watch.start()
        defer { watch.stop() }
        let checker = Task { await self.check(harness) }
        defer { checker.cancel() }
        let prober = Task { await self.probe(harness) }
        defer { prober.cancel() }

        // The fleet comes up: how long one connect and set-up holds an adapter feeds the bound.
        let started = now()
        guard await waitForAllReady(until: started + 180) else {
            fail(SoakInvariants.Violation(rule: .readyWithinBound, detail: "the fleet did not come up within 180 s of fleetd's start: not ready: \(notReadyList())",
                                          devices: [], at: now()))
            return await finish(harness, convergence: nil, bound: nil)
        }
        let upIn = now() - started
        let cycle = max(0.5, 2 * upIn * options.timeScale * Double(fleet.adapters) / Double(fleet.devices.count))
        let bound = SoakBound(policy: policy, fleet: fleet, timeScale: options.timeScale, connectCycle: cycle)
        say("soak: all \(fleet.devices.count) devices ready \(String(format: "%.1f", upIn)) s after fleetd's start; faults begin")
        say("soak: invariant 6's bound, after the last fault (simulated seconds):\n" + bound.derivation(timeScale: options.timeScale))

        locked { phaseStart = now() }
        say("soak: t=0 is \(Self.clock()) UTC in fleetd's log")
        await inject(harness)
        await waitForSessionEnds()
        let lastFault = now()
        guard !isStopped else { return await finish(harness, convergence: nil, bound: bound) }

        // After the last fault: every wanted, present device ready within the bound.
        say("soak: last fault at \(stamp(lastFault)); waiting for every device to be ready (bound \(String(format: "%.1f", bound.seconds)) s simulated)")
        let converged = await waitForAllReady(until: lastFault + bound.seconds / options.timeScale, after: lastFault)
        let convergence = now() - lastFault
        locked { invariants.convergenceChecked() }
        if !converged && !isStopped {
            fail(SoakInvariants.Violation(rule: .readyWithinBound,
                                          detail: String(format: "%.1f s simulated after the last fault (the bound), not ready: ", bound.seconds) + notReadyList(),
                                          devices: locked { invariants.notReady(fleet.devices.map(\.id)) }, at: now()))
        }
        // A steady spell, so invariant 3 sees every device's values flow after the last reconnect.
        let steady = now() + 3 * 10 / options.timeScale + 2
        while now() < steady && !isStopped { try? await Task.sleep(for: .milliseconds(100)) }
        return await finish(harness, convergence: converged ? convergence : nil, bound: bound)
    }

    var isStopped: Bool { locked { stopped } }

    func notReadyList() -> String {
        let states = locked { invariants.lastDevices }
        let missing = fleet.devices.filter { states[$0.id]?.isReady != true }
        return missing.prefix(20).map { "\($0.id) (\($0.label)) \(states[$0.id]?.state ?? "absent")" }.joined(separator: ", ")
            + (missing.count > 20 ? ", … (\(missing.count) in all)" : "")
    }

    /// `after`: the last fault; only a poll that speaks for the time after it counts (`fleetReady(after:)`).
    func waitForAllReady(until deadline: Double, after lastFault: Double? = nil) async -> Bool {
        while now() < deadline && !isStopped {
            let ready = locked {
                if let lastFault { return invariants.fleetReady(after: lastFault) }
                return invariants.lastDevices.values.filter(\.isReady).count == fleet.devices.count
            }
            if ready && !locked({ fleetdDown }) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    // MARK: Watch and poll

    func watched(_ event: SoakWatchEvent) {
        let at = now()
        locked {
            if event.sequence > lastSequence + 1 && lastSequence > 0 { watchGaps += event.sequence - lastSequence - 1 }
            lastSequence = event.sequence
            if event.kind == "notification", let characteristic = event.characteristic {
                if let probe = event.value.flatMap(SoakLagProbe.number(in:)) {
                    invariants.probeArrived(probe, at: at)
                } else {
                    invariants.value(device: event.device, characteristic: characteristic, at: at)
                }
            }
        }
        if event.kind != "notification" {
            locked {
                invariants.lifecycle(device: event.device, state: event.state)
                if let adapter = event.connectingVia { invariants.connecting(device: event.device, via: adapter, at: at) }
                if event.poolAbortsTakenBack { invariants.failuresTakenBack(device: event.device, at: at) }
            }
        }
        // Identity merges repeat whenever an adapter sees the device again; they would crowd the history out.
        if event.kind != "notification" && !event.text.contains(" is another address of ") {
            record("fleetd \(event.state ?? event.kind): \(event.text)", device: event.device)
        }
    }

    /// The checker: polls fleetd and the simulator every 250 ms until the soak stops.
    func check(_ harness: FleetHarness) async {
        while !Task.isCancelled && !isStopped {
            try? await Task.sleep(for: .milliseconds(250))
            let (fleetd, simulator) = locked { (fleetdDown ? nil : fleetdProcess, simulatorDown ? nil : simulatorProcess) }
            guard let fleetd else { continue }
            if !fleetd.isRunning, !locked({ fleetdDown }) {
                fail(SoakInvariants.Violation(rule: .processes, detail: "fleetd exited on its own (status \(fleetd.wait()))", devices: [], at: now()))
                return
            }
            if let simulator, !simulator.isRunning, !locked({ simulatorDown }) {
                fail(SoakInvariants.Violation(rule: .processes, detail: "bluez-sim exited on its own (status \(simulator.wait()))", devices: [], at: now()))
                return
            }
            let devices: [String: SoakDeviceState]
            let asked = now()
            do {
                devices = try await harness.soakDevices()
            } catch {
                let found = locked { fleetdDown ? [] : invariants.controlFailed(at: now(), error: "\(error)") }
                found.forEach(fail)
                continue
            }
            let view = locked({ simulatorDown }) ? nil : try? await harness.soakSimulatorView()
            let found = locked { fleetdDown ? [] : invariants.observe(devices: devices, simulator: simulatorDown ? nil : view, at: now(), askedAt: asked) }
            for violation in found { fail(await withSimulatorCounts(violation, harness)) }
        }
    }

    /// The prober's state; only its task touches it.
    private var probeTarget = 0
    private var lastProbeTurn: Double?
    /// The longest time between two of the prober's turns (locked): how well it kept its period.
    private var longestProbeGap = 0.0

    /// The lag prober: a probe (`SoakLagProbe`) every probe period on a task of its own. Not after each poll: a
    /// poll waits for fleetd's ListDevices, which fleetd answers behind the very backlog the probes are to
    /// measure (issue 14: a 0.7 s poll left the path unprobed for 1 s while values were 2.4 s late).
    func probe(_ harness: FleetHarness) async {
        let period = locked { invariants.thresholds.probePeriod }
        while !Task.isCancelled && !isStopped {
            let turn = now()
            if let last = lastProbeTurn { locked { longestProbeGap = max(longestProbeGap, turn - last) } }
            lastProbeTurn = turn
            await sendProbe(harness)
            let rest = turn + period - now()
            if rest > 0 { try? await Task.sleep(for: .milliseconds(Int64(rest * 1000))) }
        }
    }

    /// One probe: a marked battery value on the next device fleetd reported ready at the last poll.
    func sendProbe(_ harness: FleetHarness) async {
        guard !locked({ fleetdDown || simulatorDown }) else { return }
        let devices = locked { invariants.lastDevices }
        let count = fleet.devices.count
        guard let index = (0..<count).lazy.map({ (self.probeTarget + $0) % count }).first(where: { devices[self.fleet.devices[$0].id]?.isReady == true }) else { return }
        probeTarget = index + 1
        let device = fleet.devices[index]
        let number = locked { invariants.probeSent(at: now()) }
        let answer = try? await harness.sim("Notify", [.string(device.label), .string(SoakFleet.battery), .bytes(SoakLagProbe.value(number))])
        if answer?.first != .boolean(true) { locked { invariants.probeWithdrawn(number) } }
    }

    /// A device's violation with what the simulator counted for it (since the simulator last started), so
    /// that "fleetd lost the values" and "the simulator never sent them" can be told apart.
    func withSimulatorCounts(_ violation: SoakInvariants.Violation, _ harness: FleetHarness) async -> SoakInvariants.Violation {
        guard let id = violation.devices.first, let label = fleet.device(id: id)?.label, !locked({ simulatorDown }),
              let counts = try? await harness.counters(device: label) else { return violation }
        var enriched = violation
        enriched.detail += "; the simulator counts for \(label): " + ["LinksUp", "LinksLost", "Disconnects", "ConnectsAttempted", "NotificationsSent"]
            .map { "\($0) \(counts[$0] ?? 0)" }.joined(separator: ", ")
        return enriched
    }

    // MARK: Faults

    /// Runs the schedule's steps at their simulated times (or as soon as the step before them is done).
    func inject(_ harness: FleetHarness) async {
        let steps = schedule.steps
        var reported = 0.0
        for (offset, item) in steps.enumerated() {
            let due = locked { phaseStart ?? 0 } + item.at / options.timeScale
            while now() < due && !isStopped { try? await Task.sleep(for: .milliseconds(min(50, max(1, Int((due - now()) * 1000))))) }
            guard !isStopped, let fault = schedule.faults.first(where: { $0.index == item.fault }) else { return }
            if offset == steps.firstIndex(where: { $0.fault == item.fault }) { locked { injected[fault.kind, default: 0] += 1 } }
            await perform(item.step, of: fault, harness)
            if item.at - reported >= 60 {
                reported = item.at
                let ready = locked { invariants.lastDevices }.values.filter(\.isReady).count
                say(String(format: "soak: %4.1f simulated minutes: %d faults injected, %d/%d ready, %d violation(s)",
                           item.at / 60, locked { injected.values.reduce(0, +) }, ready, fleet.devices.count, locked { violations.count }))
            }
        }
    }

    func perform(_ step: SoakStep, of fault: SoakFault, _ harness: FleetHarness) async {
        let at = now()
        record("#\(fault.index) \(fault.kind.rawValue): \(step)")
        if case .dropAfterSession = step {} else {
            locked { invariants.touched(fault.target, fault: fault.index, at: at) }
        }
        do {
            switch step {
            case .power(adapter: let adapter, on: false):
                locked { invariants.openOutageWindows(fault: fault.index, adapter: adapter, at: at) }
                try await harness.soakSimulatorStep(step, fleet: fleet)
            case .restartBluetoothd(let downtime):
                locked { invariants.openOutageWindows(fault: fault.index, adapter: nil, at: at) }
                let links = (try? await harness.soakLinksUp()) ?? 0
                locked {
                    linksUpBefore += links
                    simulatorDown = true
                    simulatorProcess = nil
                    invariants.simulatorKilled(at: now())
                }
                try await harness.killSimulator()
                try? await Task.sleep(for: .milliseconds(Int64(downtime / options.timeScale * 1000)))
                try await harness.startSimulator(arguments: simulatorArguments)
                locked {
                    invariants.simulatorRestarted()
                    simulatorProcess = harness.simulator
                    simulatorDown = false
                }
            case .killFleetd(let downtime):
                locked {
                    fleetdDown = true
                    fleetdProcess = nil
                }
                try await harness.killDaemon()
                let problem = stateFileProblem(harness.storePath)
                locked { invariants.stateFileChecked(problem: problem, at: now()) }.forEach(fail)
                try? await Task.sleep(for: .milliseconds(Int64(downtime / options.timeScale * 1000)))
                try await harness.startDaemon()
                locked {
                    invariants.fleetdRestarted()
                    fleetdProcess = harness.fleetd
                    fleetdDown = false
                }
            case .reload(let change):
                if let change {
                    let configuration = locked { () -> String in
                        classes[change.id] = change.to
                        return fleet.configuration(policy: policy, classes: classes)
                    }
                    try configuration.write(toFile: harness.configPath, atomically: true, encoding: .utf8)
                }
                try await harness.signalDaemon(SIGHUP)
            case .dropAfterSession(let label, let session):
                let limit = now() + 60 / options.timeScale
                Task { await self.dropAfterSession(label, session: session, fault: fault, until: limit, harness) }
            default:
                try await harness.soakSimulatorStep(step, fleet: fleet)
            }
        } catch {
            locked { stepErrors += 1 }
            record("#\(fault.index) \(step) failed: \(error)")
            // A restart that failed leaves the soak without that process: nothing after it would mean anything.
            if case .killFleetd = step { fail(SoakInvariants.Violation(rule: .processes, detail: "fleetd could not be restarted: \(error)", devices: [], at: now())) }
            if case .restartBluetoothd = step { fail(SoakInvariants.Violation(rule: .processes, detail: "bluez-sim could not be restarted: \(error)", devices: [], at: now())) }
        }
    }

    private var sessionEnds = 0

    /// A peripheral that hangs up after its session: once the device has been ready for `session` simulated
    /// seconds, its link drops. Skipped if it is not ready within 60 simulated seconds.
    func dropAfterSession(_ label: String, session: Double, fault: SoakFault, until limit: Double, _ harness: FleetHarness) async {
        locked { sessionEnds += 1 }
        defer { locked { sessionEnds -= 1 } }
        guard let id = fleet.device(label: label)?.id else { return }
        var readyAt: Double?
        while now() < limit && !isStopped {
            let ready = locked { invariants.lastDevices[id]?.isReady == true && !fleetdDown && !simulatorDown }
            if !ready { readyAt = nil } else if readyAt == nil { readyAt = now() }
            if let readyAt, now() - readyAt >= session / options.timeScale {
                locked { invariants.touched(fault.target, fault: fault.index, at: now()) }
                do {
                    try await harness.soakSimulatorStep(.dropLink(label), fleet: fleet)
                    record("#\(fault.index) session-end: DropLink \(label) after \(String(format: "%.1f", session)) s ready")
                } catch {
                    locked { stepErrors += 1 }
                    record("#\(fault.index) session-end: DropLink \(label) failed: \(error)")
                }
                return
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        locked { notes.append("#\(fault.index) session-end skipped: \(label) was not ready for \(String(format: "%.1f", session)) s within 60 s") }
    }

    func waitForSessionEnds() async {
        while locked({ sessionEnds }) > 0 && !isStopped { try? await Task.sleep(for: .milliseconds(50)) }
    }

    // MARK: Violations and the report

    func fail(_ violation: SoakInvariants.Violation) {
        guard !locked({ finished }) else { return }
        let first = locked { () -> Bool in
            violations.append(violation)
            if !options.keepGoing { stopped = true }
            return violations.count == 1
        }
        var lines = ["", "VIOLATION of invariant \(violation.rule) at \(stamp(violation.at)) simulated, seed \(options.seed)",
                     "  " + violation.detail, "history (faults and fleetd events, most recent last):"]
        let (global, perDevice) = locked { (history.suffix(40), violation.devices.prefix(3).map { ($0, deviceHistory[$0] ?? []) }) }
        lines += global.map { "  " + $0 }
        for (id, events) in perDevice {
            lines.append("fleetd's events for \(id) (\(fleet.device(id: id)?.label ?? "?")):")
            lines += events.suffix(25).map { "  " + $0 }
        }
        lines.append("replay: make soak SEED=\(options.seed) MINUTES=\(Self.number(options.minutes))" + (options.devices == 200 ? "" : " (with --devices \(options.devices))"))
        if first, let kept = keepLogs() { lines.append("logs: \(kept)") }
        say(lines.joined(separator: "\n"))
    }

    /// Copies fleetd's and the simulator's logs (and the scenario, configuration and state file) out of the
    /// private directory, which goes when the soak ends.
    func keepLogs() -> String? {
        guard let harness = locked({ harness }) else { return nil }
        let target = options.logs ?? "/tmp/fleet-soak-\(options.seed)"
        try? FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        for name in ["fleetd.log", "sim.log", "fleetd.conf", "test.scenario", "snapshot.json"] {
            let destination = target + "/" + name
            try? FileManager.default.removeItem(atPath: destination)
            try? FileManager.default.copyItem(atPath: harness.directory + "/" + name, toPath: destination)
        }
        locked { logsKept = target }
        return target
    }

    func finish(_ harness: FleetHarness, convergence: Double?, bound: SoakBound?) async -> Int32 {
        // From here the processes are stopped on purpose: the checker must not take that for a crash.
        locked {
            finished = true
            stopped = true
        }
        let current = locked({ simulatorDown }) ? 0 : ((try? await harness.soakLinksUp()) ?? 0)
        let links = locked { linksUpBefore } + current
        // Again at the end, so the logs cover every violation of a --keep-going run.
        if !locked({ self.violations.isEmpty }) { _ = keepLogs() }
        let (invariants, violations, injected, notes, stepErrors, gaps, probeGap) = locked {
            (self.invariants, self.violations, self.injected, self.notes, self.stepErrors, self.watchGaps, self.longestProbeGap)
        }
        let scale = options.timeScale
        var lines = ["", "soak: seed \(options.seed)",
                     "faults injected: \(injected.values.reduce(0, +)) of \(schedule.faults.count) scheduled: " + Self.kinds(injected)]
        lines += notes.map { "  " + $0 }
        if stepErrors > 0 { lines.append("fault steps that failed: \(stepErrors) (see the history)") }
        lines.append("reconnects: \(max(0, links - fleet.devices.count)) (links made after each device's first)")
        if let worst = invariants.timesToReady.max(by: { $0.seconds < $1.seconds }) {
            let mean = invariants.timesToReady.map(\.seconds).reduce(0, +) / Double(invariants.timesToReady.count)
            let fault = schedule.faults.first { $0.index == worst.fault }
            lines.append(String(format: "time to ready after a fault: max %.1f s simulated (%.2f s real), mean %.1f s, over %d recoveries",
                                worst.seconds * scale, worst.seconds, mean * scale, invariants.timesToReady.count)
                         + "; the max: \(worst.device) after " + (fault.map { "#\($0.index) \($0.kind.rawValue)" } ?? "#\(worst.fault)"))
        }
        if let convergence, let bound {
            lines.append(String(format: "after the last fault: all %d devices ready in %.1f s simulated (bound %.1f s)", fleet.devices.count, convergence * scale, bound.seconds))
        }
        let lag = invariants.lag
        lines.append(String(format: "processing lag (probes from the simulator to the Watch stream, real time): max %.2f s, mean %.3f s over %d probes (%d lost, %d given up at restarts); the prober's longest turn %.2f s (period %.2f s)",
                            lag.largest, lag.mean, lag.arrivals, lag.lost, lag.abandoned, probeGap, invariants.thresholds.probePeriod))
        lines.append("invariant checks: " + SoakInvariants.Rule.allCases.map { "\($0.rawValue): \(invariants.checks[$0] ?? 0)" }.joined(separator: ", ")
                     + " (rule 4 windows dropped for another fault: \(invariants.excludedWindows), not observed: \(invariants.unobservedWindows); Watch gaps: \(gaps))")
        lines.append("violations: \(violations.count)")
        say(lines.joined(separator: "\n"))
        return violations.isEmpty ? 0 : 1
    }

    static func number(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(format: "%.1f", x) }
    static func kinds(_ counts: [SoakFaultKind: Int]) -> String {
        SoakFaultKind.allCases.compactMap { kind in counts[kind].map { "\(kind.rawValue) \($0)" } }.joined(separator: ", ")
    }
}
