import Foundation

/// The soak's invariants, checked on every poll of fleetd's device list and the simulator's observations
/// (every 250 ms) and on every Watch event. A value type fed with observations and real time (seconds since
/// the soak began), so its rules are tested without any process. See docs/soak.md for each rule.
public struct SoakInvariants: Sendable {
    /// The six invariants of issue 14, plus the processes staying up.
    public enum Rule: Int, Sendable, CaseIterable, CustomStringConvertible {
        case processes = 0
        case oneConnectPerAdapter = 1
        case oneLinkPerIdentity = 2
        case subscriptionsArmed = 3
        case noAttemptForOutages = 4
        case stateFileReadable = 5
        case readyWithinBound = 6

        public var description: String {
            switch self {
            case .processes: "0 (fleetd and bluez-sim stay up, fleetd answers)"
            case .oneConnectPerAdapter: "1 (at most one connect in flight per adapter)"
            case .oneLinkPerIdentity: "2 (at most one link per identity)"
            case .subscriptionsArmed: "3 (a ready device has its subscriptions armed and values flowing)"
            case .noAttemptForOutages: "4 (no attempt counted for adapter-off or bluetoothd restarts)"
            case .stateFileReadable: "5 (the state file is readable after every kill)"
            case .readyWithinBound: "6 (every wanted, present device ready within the bound after the last fault)"
            }
        }
    }

    public struct Violation: Sendable {
        public var rule: Rule
        public var detail: String
        /// Device ids involved, for the history printed with it.
        public var devices: [String]
        public var at: Double
    }

    /// Real-time thresholds (seconds).
    public struct Thresholds: Sendable {
        /// A device counts as ready for rule 3 once fleetd has reported it ready this long.
        public var readyGrace = 1.0
        /// How often the soak polls fleetd and the simulator, and how often its prober sends a lag probe
        /// (`SoakLagProbe`, on a task of its own).
        public var pollPeriod = 0.25
        public var probePeriod = 0.25
        /// Values must arrive within `valueIntervals` × the characteristic's notify interval plus the lag
        /// allowance (`lagAllowance`). A subscription missing in the simulator counts once it stays missing
        /// longer than a poll period plus the lag allowance (fleetd may not have heard a link loss the simulator
        /// already made).
        public var valueIntervals = 3.0
        /// A probe still on its way after this long is a violation itself: fleetd's event path is stuck (the
        /// same limit as rule 0's for the control socket).
        public var lagLimit = 10.0
        /// fleetd's control socket may fail to answer this long before it is a violation.
        public var controlSilence = 10.0
        /// How long a device of a rule-4 window may take to be ready again before the window is dropped.
        public var windowLimit = 120.0
        public init() {}
    }

    /// A device knocked out by an adapter-off or a bluetoothd restart, followed until it is ready again.
    struct OutageWindow: Sendable {
        var fault: Int
        var id: String
        var label: String
        var adapter: String?
        var opened: Double
        /// When the poll that saw the device ready (and gave `before`) was made: a fault on the device between
        /// that poll and `opened` is another fault too (seed 108: an in-progress fault 2.5 simulated seconds
        /// before a bluetoothd restart, on a device the last poll still showed ready).
        var readySeen: Double
        var before: Int
        var counterName: String
        var sawDown = false
        var lastDown: Int?
        /// When `lastDown` was polled, and when that poll was asked.
        var lastDownAt: Double?
        var lastDownAskedAt: Double?
    }

    struct Touch: Sendable {
        var fault: Int
        var at: Double
    }

    let fleet: SoakFleet
    let timeScale: Double
    public var thresholds = Thresholds()

    /// Rule 3's measured lag of the value path.
    public private(set) var lag = SoakLagProbe()
    var reportedStuckProbe = false
    // Rule 3 state, per device id.
    var readySince: [String: Double] = [:]
    var mismatchSince: [String: Double] = [:]
    /// Last value per device and characteristic (128-bit UUID).
    var lastValue: [String: [String: Double]] = [:]
    var reportedReady: Set<String> = []
    // Rules 1 and 2: peaks already reported (a peak stays in the simulator's answer).
    var reportedPeaks: Set<String> = []
    // Rule 4.
    var windows: [OutageWindow] = []
    var touches: [SoakFault.Target: [Touch]] = [:]
    /// Connect attempts per device id (adapter, when), for rule 4's other faults; as long as a window lasts.
    var connects: [String: [(adapter: String, at: Double)]] = [:]
    public private(set) var excludedWindows = 0
    public private(set) var unobservedWindows = 0
    var lastAnswer: Double?
    /// The last poll's device list, for opening rule-4 windows and for the final convergence.
    public private(set) var lastDevices: [String: SoakDeviceState] = [:]
    /// When `lastDevices` was polled (answered), and when that poll was asked.
    var lastPollAt: Double?
    var lastPollAskedAt: Double?

    /// Checks performed, per rule.
    public private(set) var checks: [Rule: Int] = [:]

    // Figures: time to ready after a fault.
    var outSince: [String: (at: Double, cause: Touch?)] = [:]
    public private(set) var timesToReady: [(seconds: Double, fault: Int, device: String)] = []

    public init(fleet: SoakFleet, timeScale: Double) {
        self.fleet = fleet
        self.timeScale = timeScale
    }

    mutating func count(_ rule: Rule, _ n: Int = 1) { checks[rule, default: 0] += n }

    /// Rule 3's allowance for the lag at `now`, for something due since `from`: the largest lag measured since
    /// then plus a probe period (the lag may grow that long between two probes); or, when that is longer, the
    /// time since the latest probe that came back was sent. Nothing sent after that probe is known to have got
    /// through, so nothing due since is missing yet; once a probe sent after it comes back, it is (the path is
    /// first in, first out). At most the lag limit: a prober that stopped defers rule 3, never disables it.
    ///
    /// Issue 14: with the measured lag alone, a stretch no probe covered counted as no lag. The probes were
    /// sent after each poll, a poll waited 0.7 s for fleetd's answer (behind the backlog of two adapters'
    /// re-sightings), and for 1 s no probe was on the path: the lag read 0.1 s while values were 2.4 s late
    /// (all of them came, in order).
    func lagAllowance(from: Double, at now: Double) -> (measured: Double, allowance: Double) {
        let measured = lag.largestLag(from: from, to: now)
        let unconfirmed = min(thresholds.lagLimit, lag.sinceLatestArrival(at: now) ?? 0)
        return (measured, max(measured + thresholds.probePeriod, unconfirmed))
    }

    // MARK: Faults

    /// A fault's step ran at `now` on `target`.
    public mutating func touched(_ target: SoakFault.Target, fault: Int, at now: Double) {
        touches[target, default: []].append(Touch(fault: fault, at: now))
    }

    /// Opens rule-4 windows for the devices ready at the last poll that `fault` knocks out: those on `adapter`,
    /// or all of them (adapter nil: a bluetoothd restart).
    ///
    /// The poll speaks for the time its view was current, not for when it was answered: a fault step is known
    /// to be in that view only if a lag probe sent after it had come back before the poll was asked. Seed 213:
    /// an in-progress fault dropped p033's link; a poll asked 0.01 s later, before fleetd had heard the drop,
    /// saw it ready; a bluetoothd restart then opened its window from that poll, and judged the InProgress
    /// answers the device's own fault had fleetd count.
    public mutating func openOutageWindows(fault: Int, adapter: Int?, at now: Double) {
        let asked = lastPollAskedAt ?? lastPollAt ?? now
        let viewCurrent = min(lag.sentOfLatestArrival(by: asked) ?? asked, now)
        for device in lastDevices.values.sorted(by: { $0.id < $1.id }) where device.isReady {
            guard let label = fleet.device(id: device.id)?.label else { continue }
            if let adapter, device.adapter != "hci\(adapter)" { continue }
            windows.append(OutageWindow(fault: fault, id: device.id, label: label, adapter: adapter.map { "hci\($0)" } ?? device.adapter,
                                        opened: now, readySeen: viewCurrent, before: device.counter,
                                        counterName: device.counterName))
        }
    }

    /// Whether a fault other than `fault` touched the device, one of `adapters` or the fleet since `since`.
    func otherFault(than fault: Int, label: String, adapters: [String], since: Double) -> Bool {
        var targets: [SoakFault.Target] = [.device(label), .fleet]
        for adapter in adapters { if let n = Int(adapter.dropFirst(3)) { targets.append(.adapter(n)) } }
        return targets.contains { target in touches[target, default: []].contains { $0.fault != fault && $0.at >= since } }
    }

    /// The most recent fault that touched the device (directly, through its adapter, or fleet-wide) in the
    /// last `window` seconds: what knocked it out, for the time-to-ready figure.
    func recentCause(label: String, adapter: String?, at now: Double, window: Double = 5) -> Touch? {
        var targets: [SoakFault.Target] = [.device(label), .fleet]
        if let adapter, let n = Int(adapter.dropFirst(3)) { targets.append(.adapter(n)) }
        return targets.compactMap { touches[$0]?.last }.filter { now - $0.at <= window }.max { $0.at < $1.at }
    }

    /// The latest fault step on the device, its adapter or the fleet between two moments.
    func latestTouch(label: String, adapter: String?, from: Double, to: Double) -> Touch? {
        var targets: [SoakFault.Target] = [.device(label), .fleet]
        if let adapter, let n = Int(adapter.dropFirst(3)) { targets.append(.adapter(n)) }
        return targets.flatMap { touches[$0] ?? [] }.filter { $0.at >= from && $0.at <= to }.max { $0.at < $1.at }
    }

    // MARK: Watch

    /// A notification (or read-on-connect value) from the Watch stream.
    public mutating func value(device: String, characteristic: String, at now: Double) {
        lastValue[device, default: [:]][characteristic.lowercased()] = now
    }

    /// A connect attempt on the Watch stream: `device` tries `adapter` at `now`. Rule 4 counts a fault on an
    /// adapter a device goes through during its outage as another fault on it, like one on its own adapter:
    /// fleetd counts a failure there and takes it back when it hears the adapter go off, within its 2 s grace
    /// (seed 1, unloaded: a reconnect through hci1 as a power-cycle turned it off; the poll before ready came
    /// between the two).
    public mutating func connecting(device: String, via adapter: String, at now: Double) {
        connects[device, default: []].removeAll { now - $0.at > thresholds.windowLimit }
        connects[device, default: []].append((adapter, now))
    }

    /// fleetd's Watch stream said at `now` that it took back failures of `device` (its connects aborted on a pool
    /// it then learned was full; soak seed 106): rule 4 does not judge a count polled before that.
    public mutating func failuresTakenBack(device: String, at now: Double) {
        takenBack[device] = now
    }

    /// The latest take-back of each device's failures (`failuresTakenBack`).
    var takenBack: [String: Double] = [:]

    /// A lag probe is about to be requested at `now`; returns its number (`SoakLagProbe`).
    public mutating func probeSent(at now: Double) -> Int { lag.send(at: now) }
    /// The simulator had no notify session to send probe `number` on.
    public mutating func probeWithdrawn(_ number: Int) { lag.withdraw(number) }
    /// Probe `number` came on the Watch stream at `now`.
    public mutating func probeArrived(_ number: Int, at now: Double) {
        if lag.arrived(number, at: now) != nil { reportedStuckProbe = false }
    }

    /// fleetd was restarted: readiness is timed again from its new reports.
    public mutating func fleetdRestarted() {
        readySince.removeAll()
        mismatchSince.removeAll()
        reportedReady.removeAll()
        lastAnswer = nil
        lag.restarted()
        reportedStuckProbe = false
    }

    /// The simulator is killed at `now` (a bluetoothd restart): every link goes with it, so a device fleetd still
    /// reports ready has a stale report until fleetd hears of it. Rule 3 leaves such a device alone until fleetd
    /// reports it down (on the Watch stream or in a poll), for at most `lagLimit`; still ready then is a violation.
    public mutating func simulatorKilled(at now: Double) {
        killedAt = now
        seenDownSinceKill.removeAll()
        lag.pathCut(at: now)
        reportedStuckProbe = false
    }

    /// The simulator was restarted: its peaks start again, so a new one must be reported again.
    public mutating func simulatorRestarted() {
        reportedPeaks.removeAll()
        mismatchSince.removeAll()
    }

    /// A lifecycle event of `device` on the Watch stream (`state`: its state, nil for a link event).
    public mutating func lifecycle(device: String, state: String?) {
        if killedAt != nil, state != "ready" { seenDownSinceKill.insert(device) }
    }

    /// Since the last simulator kill, for rule 3: when, and the devices fleetd has reported down since.
    var killedAt: Double?
    var seenDownSinceKill: Set<String> = []

    // MARK: Polls

    /// fleetd's control socket did not answer at `now`.
    public mutating func controlFailed(at now: Double, error: String) -> [Violation] {
        guard let last = lastAnswer else { lastAnswer = now; return [] }
        count(.processes)
        guard now - last >= thresholds.controlSilence else { return [] }
        lastAnswer = now
        return [Violation(rule: .processes, detail: "fleetd's control socket has not answered ListDevices for \(Int(thresholds.controlSilence)) s: \(error)",
                          devices: [], at: now)]
    }

    /// One poll: fleetd's device list, and the simulator's view when it is up.
    /// `askedAt`: when the poll was sent (`now` when not given).
    public mutating func observe(devices: [String: SoakDeviceState], simulator: SoakSimulatorView?, at now: Double,
                                 askedAt: Double? = nil) -> [Violation] {
        lastAnswer = now
        lastDevices = devices
        lastPollAt = now
        lastPollAskedAt = askedAt ?? now
        count(.processes)
        var violations: [Violation] = []
        if let simulator {
            violations += checkPeaks(simulator, at: now)
        }
        if let age = lag.oldestOutstanding(at: now), age > thresholds.lagLimit, !reportedStuckProbe {
            reportedStuckProbe = true
            violations.append(Violation(rule: .subscriptionsArmed,
                                        detail: "a lag probe sent \(Self.s(age)) ago has not come back on the Watch stream (limit \(Self.s(thresholds.lagLimit))): fleetd's event path is stuck or lost it",
                                        devices: [], at: now))
        }
        for device in fleet.devices {
            guard let state = devices[device.id] else { continue }
            violations += checkReadiness(device, state, simulator: simulator, at: now)
            trackOutage(device, state, at: now)
        }
        violations += checkOutageWindows(devices, at: now)
        return violations
    }

    mutating func checkPeaks(_ view: SoakSimulatorView, at now: Double) -> [Violation] {
        var violations: [Violation] = []
        count(.oneConnectPerAdapter, view.connectPeaks.count)
        for (key, peak) in view.connectPeaks.sorted(by: { $0.key < $1.key }) where peak > 1 && !reportedPeaks.contains("connect " + key) {
            reportedPeaks.insert("connect " + key)
            violations.append(Violation(rule: .oneConnectPerAdapter,
                                        detail: "the simulator saw \(peak) Connect calls pending at once from one client on one adapter (\(key))",
                                        devices: [], at: now))
        }
        count(.oneLinkPerIdentity, fleet.devices.count)
        for (label, peak) in view.linkPeaks.sorted(by: { $0.key < $1.key }) where peak > 1 && !reportedPeaks.contains("link " + label) {
            reportedPeaks.insert("link " + label)
            let id = fleet.device(label: label)?.id
            violations.append(Violation(rule: .oneLinkPerIdentity, detail: "\(id ?? label) (\(label)) had \(peak) links at once",
                                        devices: id.map { [$0] } ?? [], at: now))
        }
        return violations
    }

    mutating func checkReadiness(_ device: SoakFleet.Device, _ state: SoakDeviceState, simulator: SoakSimulatorView?, at now: Double) -> [Violation] {
        if let killed = killedAt, !seenDownSinceKill.contains(device.id) {
            if !state.isReady {
                seenDownSinceKill.insert(device.id)
            } else if now - killed <= thresholds.lagLimit {
                // A ready report from before fleetd heard bluetoothd go: its link is gone, nothing can flow.
                readySince[device.id] = nil
                mismatchSince[device.id] = nil
                return []
            } else {
                seenDownSinceKill.insert(device.id)
                count(.subscriptionsArmed)
                return [Violation(rule: .subscriptionsArmed,
                                  detail: "\(device.id) (\(device.label)) is still reported ready \(Self.s(now - killed)) after bluetoothd was killed (limit \(Self.s(thresholds.lagLimit))): fleetd never heard its link go",
                                  devices: [device.id], at: now)]
            }
        }
        guard state.isReady else {
            readySince[device.id] = nil
            mismatchSince[device.id] = nil
            reportedReady.remove(device.id)
            return []
        }
        let since = readySince[device.id] ?? now
        readySince[device.id] = since
        guard now - since >= thresholds.readyGrace, !reportedReady.contains(device.id) else { return [] }
        var violations: [Violation] = []
        if let simulator {
            count(.subscriptionsArmed)
            let armed = simulator.armed[device.label] ?? []
            let missing = device.subscribe.filter { !armed.contains($0) }
            if missing.isEmpty {
                mismatchSince[device.id] = nil
            } else {
                let first = mismatchSince[device.id] ?? now
                mismatchSince[device.id] = first
                let (measured, allowance) = lagAllowance(from: first, at: now)
                let allowed = thresholds.pollPeriod + allowance
                if now - first > allowed {
                    reportedReady.insert(device.id)
                    violations.append(Violation(rule: .subscriptionsArmed,
                                                detail: "\(device.id) (\(device.label)) has been ready for \(Self.s(now - since)), but the simulator has had no notify session on \(missing.map(SoakFleet.short).joined(separator: ", ")) for \(Self.s(now - first)) (armed: \(armed.isEmpty ? "none" : armed.sorted().map(SoakFleet.short).joined(separator: ", "))); allowed \(Self.s(allowed)) with a measured lag of \(Self.s(measured))\(confirmed(at: now))",
                                                devices: [device.id], at: now))
                }
            }
        }
        count(.subscriptionsArmed)
        for characteristic in device.subscribe where !reportedReady.contains(device.id) {
            let last = max(since, lastValue[device.id]?[characteristic] ?? since)
            let (measured, allowance) = lagAllowance(from: last, at: now)
            let window = thresholds.valueIntervals * SoakFleet.notifyInterval(characteristic) / timeScale + allowance
            if now - last > window {
                reportedReady.insert(device.id)
                let seen = lastValue[device.id]?[characteristic].map { "the last one \(Self.s(now - $0)) ago" } ?? "none since the soak began"
                violations.append(Violation(rule: .subscriptionsArmed,
                                            detail: "\(device.id) (\(device.label)) has been ready for \(Self.s(now - since)) but no value of \(SoakFleet.short(characteristic)) came on the Watch stream for \(Self.s(window)) (\(seen); the window includes a measured lag of \(Self.s(measured))\(confirmed(at: now)))",
                                            devices: [device.id], at: now))
            }
        }
        return violations
    }

    /// Time-to-ready bookkeeping: when a device leaves ready, remember what knocked it out; when it is back,
    /// record how long it took from the end of that fault.
    mutating func trackOutage(_ device: SoakFleet.Device, _ state: SoakDeviceState, at now: Double) {
        if state.isReady {
            lastReady.insert(device.id)
            guard let out = outSince.removeValue(forKey: device.id), let cause = out.cause else { return }
            // Measured from the last fault step that touched the device while it was out (a restoration, a
            // second fault), so a device kept out by a later fault is not charged to the first one.
            let later = latestTouch(label: device.label, adapter: state.adapter, from: out.at, to: now)
            let last = [cause, later].compactMap { $0 }.max { $0.at < $1.at } ?? cause
            timesToReady.append((max(0, now - last.at), last.fault, device.id))
        } else {
            if lastReady.remove(device.id) != nil, outSince[device.id] == nil {
                outSince[device.id] = (now, recentCause(label: device.label, adapter: state.adapter, at: now))
            }
        }
    }

    var lastReady: Set<String> = []

    mutating func checkOutageWindows(_ devices: [String: SoakDeviceState], at now: Double) -> [Violation] {
        var violations: [Violation] = []
        var open: [OutageWindow] = []
        for var window in windows {
            let through = (connects[window.id] ?? []).filter { $0.at >= window.opened }.map(\.adapter)
            if otherFault(than: window.fault, label: window.label, adapters: [window.adapter].compactMap { $0 } + through, since: window.readySeen) {
                excludedWindows += 1
                continue
            }
            guard let state = devices[window.id] else { open.append(window); continue }
            if !state.isReady {
                window.sawDown = true
                window.lastDown = state.counter
                window.lastDownAt = now
                window.lastDownAskedAt = lastPollAskedAt ?? now
                window.counterName = state.counterName
                if now - window.opened > thresholds.windowLimit { unobservedWindows += 1 } else { open.append(window) }
                continue
            }
            // Ready again (or never seen down: the outage fell between two polls).
            guard window.sawDown, let counted = window.lastDown else {
                if now - window.opened > 2 { unobservedWindows += 1 } else { open.append(window) }
                continue
            }
            // fleetd took back failures after the last poll that saw the device down (a pool it then learned was
            // full): the count that poll saw is not the one fleetd kept, and no later poll saw the one it kept.
            // The take-back is known to be in that poll's answer only if a lag probe came back on the Watch
            // stream between the take-back's event and the poll's asking: fleetd emits in order and answers
            // ListDevices on the same actor. Seed 217: the take-back's event arrived 30 ms before a slow poll's
            // answer that fleetd had made before it.
            if let back = takenBack[window.id], back >= window.opened, let asked = window.lastDownAskedAt,
               !lag.anyArrival(from: back, to: asked) {
                unobservedWindows += 1
                continue
            }
            count(.noAttemptForOutages)
            // `failures` must not grow; `attempt` counts the one reconnect the outage needs.
            let allowed = window.before + (window.counterName == "attempt" ? 1 : 0)
            if counted > allowed {
                violations.append(Violation(rule: .noAttemptForOutages,
                                            detail: "\(window.id) (\(window.label)) was ready with \(window.counterName) \(window.before) when fault #\(window.fault) took it down; before it was ready again fleetd reported \(window.counterName) \(counted) (allowed: \(allowed)), with no other fault on it, its adapter or the fleet meanwhile",
                                            devices: [window.id], at: now))
            }
        }
        windows = open
        return violations
    }

    // MARK: Kills and the end

    /// Rule 5: the state file after a kill; `problem` is nil when it is readable.
    public mutating func stateFileChecked(problem: String?, at now: Double) -> [Violation] {
        count(.stateFileReadable)
        guard let problem else { return [] }
        return [Violation(rule: .stateFileReadable, detail: "after SIGKILL, the state file is not readable: \(problem)", devices: [], at: now)]
    }

    /// Rule 6: devices of `wanted` (the present ones) that are not ready.
    public func notReady(_ wanted: [String]) -> [String] {
        wanted.filter { lastDevices[$0]?.isReady != true }
    }

    public mutating func convergenceChecked() { count(.readyWithinBound) }

    /// Rule 6: every device of the fleet ready in a poll that speaks for the time after `lastFault`. fleetd
    /// hears a fault behind its signal batch and its backlog, so a poll it answered before then still shows the
    /// knocked-out device ready (the soak took 0.0 s for convergence after a last link drop). The path is first
    /// in, first out: once a probe sent after the fault is back, fleetd has taken the fault's signals, and a
    /// poll asked after that arrival shows what it made of them.
    public func fleetReady(after lastFault: Double) -> Bool {
        guard let confirmed = lag.firstArrival(sentFrom: lastFault), let asked = lastPollAskedAt, asked >= confirmed else { return false }
        return notReady(fleet.devices.map(\.id)).isEmpty
    }

    static func s(_ seconds: Double) -> String { String(format: "%.1f s", seconds) }

    /// For a rule-3 report: how far back the path is known to have delivered.
    func confirmed(at now: Double) -> String {
        lag.sinceLatestArrival(at: now).map { "; the latest probe back was sent \(Self.s($0)) ago" } ?? "; no probe back yet"
    }
}

extension SoakFleet {
    /// Simulated seconds between notifications of a characteristic the soak subscribes to.
    static func notifyInterval(_ characteristic: String) -> Double { characteristic == heartRate ? 1 : 10 }
    /// `2a19` for a Bluetooth-base UUID.
    static func short(_ uuid: String) -> String {
        uuid.hasPrefix("0000") && uuid.hasSuffix("-0000-1000-8000-00805f9b34fb") ? String(uuid.dropFirst(4).prefix(4)) : uuid
    }
}
