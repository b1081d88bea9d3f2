@testable import Supervision
import Policy
import Testing

/// Plays the supervisor driver's part for state-machine tests: feeds events stamped with a manual clock,
/// keeps the timers the machine scheduled (and drops the ones it cancelled), and fires due timers when the
/// test advances time. It performs no BlueZ call: the test answers every connect and set-up itself.
struct ManualDriver {
    var machine: FleetStateMachine
    var clock = ManualClock()
    /// Live timers and the instant each is due.
    private(set) var timers: [TimerID: Duration] = [:]
    /// Every action of every event, in order.
    private(set) var history: [FleetAction] = []
    /// Device paths BlueZ has shown, so that a path's first report is its appearance.
    private var appeared: Set<DevicePath> = []

    init(_ machine: FleetStateMachine) {
        self.machine = machine
    }

    var now: Duration { clock.now }

    /// Feeds one event at the current time and records what it asked for.
    @discardableResult
    mutating func send(_ event: (inout FleetStateMachine, Duration) -> [FleetAction]) -> [FleetAction] {
        let actions = event(&machine, clock.now)
        track(actions)
        return actions
    }

    /// Runs an operator command at the current time; a refusal is rethrown and leaves nothing to track.
    @discardableResult
    mutating func command(_ run: (inout FleetStateMachine, Duration) throws -> FleetStateMachine.OperatorOutcome) rethrows
        -> FleetStateMachine.OperatorOutcome {
        let outcome = try run(&machine, clock.now)
        track(outcome.actions)
        return outcome
    }

    /// Feeds one change of BlueZ's tree, as the BlueZ room would.
    @discardableResult
    mutating func change(_ change: TreeChange) -> [FleetAction] {
        send { $0.apply(change, now: $1) }
    }

    @discardableResult
    mutating func adapter(_ id: AdapterID = FleetFixture.hci0, powered: Bool = true) -> [FleetAction] {
        change(.adapterAppeared(id, powered: powered))
    }

    @discardableResult
    mutating func power(_ on: Bool, adapter id: AdapterID = FleetFixture.hci0) -> [FleetAction] {
        change(.adapterPowered(id, on))
    }

    /// The object is seen: it appears (unlinked) the first time, later its advertising changes.
    @discardableResult
    mutating func see(_ object: DeviceReport) -> [FleetAction] {
        appeared.insert(object.path).inserted ? change(.deviceAppeared(object, .down)) : change(.deviceUpdated(object))
    }

    /// The object appears already linked (a link made before fleetd started, or by someone else).
    @discardableResult
    mutating func appear(_ object: DeviceReport, _ link: LinkState) -> [FleetAction] {
        appeared.insert(object.path)
        return change(.deviceAppeared(object, link))
    }

    @discardableResult
    mutating func linkUp(_ object: DeviceReport) -> [FleetAction] { change(.link(object.path, up: true)) }

    @discardableResult
    mutating func linkDown(_ object: DeviceReport) -> [FleetAction] { change(.link(object.path, up: false)) }

    @discardableResult
    mutating func resolved(_ object: DeviceReport) -> [FleetAction] { change(.servicesResolved(object.path, true)) }

    @discardableResult
    mutating func remove(_ path: DevicePath) -> [FleetAction] {
        appeared.remove(path)
        return change(.deviceRemoved(path))
    }

    @discardableResult
    mutating func connectFinished(_ request: ConnectRequest, error: BlueZError? = nil) -> [FleetAction] {
        send { $0.connectFinished(device: request.device, token: request.token, error: error, now: $1) }
    }

    @discardableResult
    /// The driver's report on a set-up; `read` is what it read before it finished (all of the request's reads
    /// when it succeeded, unless given).
    mutating func setUpFinished(_ request: SetUpRequest, error: BlueZError? = nil, read: [String]? = nil) -> [FleetAction] {
        send { $0.setUpFinished(device: request.device, token: request.token, error: error,
                                read: read ?? (error == nil ? request.read : []), now: $1) }
    }

    /// Advances the clock, firing every live timer that falls due on the way, earliest first (as the
    /// driver's sleeping tasks would). Returns the actions of all fires.
    @discardableResult
    mutating func advance(by delta: Duration) -> [FleetAction] {
        let end = clock.now + delta
        var actions: [FleetAction] = []
        while let (timer, due) = timers.filter({ $0.value <= end }).min(by: { ($0.value, $0.key.generation) < ($1.value, $1.key.generation) }) {
            clock.advance(to: max(due, clock.now))
            timers.removeValue(forKey: timer)
            actions += send { $0.timerFired(timer, now: $1) }
        }
        clock.advance(to: end)
        return actions
    }

    /// Advances in 50 ms steps until a connect is asked for, for at most `limit`, so that a test answers it when
    /// it was asked (as the driver would), not at the end of a long advance: how long a connect took matters
    /// (`FleetStateMachine.poolRefusalWindow`).
    mutating func advanceUntilConnect(within limit: Duration) -> ConnectRequest? {
        var waited = Duration.zero
        while waited < limit {
            if let connect = advance(by: .milliseconds(50)).connects.first { return connect }
            waited += .milliseconds(50)
        }
        return nil
    }

    /// The device's live timer of `purpose`, if the machine holds one.
    func timer(_ device: DeviceID, _ purpose: TimerID.Purpose) -> TimerID? {
        timers.keys.first { $0.device == device && $0.purpose == purpose }
    }

    func phase(_ device: Peripheral) -> DevicePhase? { machine.devices[device.id]?.phase }

    private mutating func track(_ actions: [FleetAction]) {
        history += actions
        for action in actions {
            switch action {
            case let .schedule(timer, after): timers[timer] = clock.now + after
            case let .cancel(timer): timers.removeValue(forKey: timer)
            default: break
            }
        }
    }
}

extension ManualDriver {
    /// Takes an advertising `peripheral` through connect, link-up and set-up to `ready`, with BlueZ's usual
    /// order (Connected before the Connect reply, ServicesResolved after). Returns the Device1 path.
    @discardableResult
    mutating func bringUp(_ peripheral: Peripheral, rotation: UInt8 = 0, adapter: AdapterID = FleetFixture.hci0,
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> DevicePath {
        let connect = try #require(see(peripheral.object(rotation, adapter: adapter)).connects.first { $0.device == peripheral.id },
                                   "no connect for \(peripheral.id)", sourceLocation: sourceLocation)
        return try completeLink(peripheral, connect, rotation: rotation, adapter: adapter, sourceLocation: sourceLocation)
    }

    /// Answers a connect that is already in flight and finishes set-up.
    @discardableResult
    mutating func completeLink(_ peripheral: Peripheral, _ connect: ConnectRequest, rotation: UInt8 = 0,
                               adapter: AdapterID = FleetFixture.hci0, sourceLocation: SourceLocation = #_sourceLocation) throws -> DevicePath {
        linkUp(peripheral.object(rotation, adapter: adapter))
        connectFinished(connect)
        let setUp = try #require(resolved(peripheral.object(rotation, adapter: adapter)).setUps.first,
                                 "no set-up for \(peripheral.id)", sourceLocation: sourceLocation)
        setUpFinished(setUp)
        #expect(phase(peripheral) == .ready, sourceLocation: sourceLocation)
        return connect.path
    }
}
