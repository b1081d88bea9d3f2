import FleetPlatform
import Foundation
import Synchronization

/// The simulator as a process serves it: owns `org.bluez` on a connection, exports the world model's
/// objects through a `DBusObjectTree`, turns incoming calls into world calls, and runs the world's
/// timers on a clock thread in (scaled) real time. The test-control interface is `SimulatorControl`.
public final class BlueZSimulator: @unchecked Sendable {
    // @unchecked: `wakeup` (NSCondition) is thread-safe but not annotated Sendable; all else is Mutex/let.
    public let bus: DBusConnection
    public let tree: DBusObjectTree
    let state: Mutex<DriverState>
    private let wakeup = NSCondition()
    private var dirty = false
    let floodCount = Atomic<UInt64>(0)
    let flooding = Atomic<Bool>(false)
    /// Method tables shared by every object of an interface, built once.
    let sharedSpecs = Mutex<[BlueZInterface: DBusInterfaceSpec]>([:])
    /// Peaks a chaos soak checks (SimulatorObservations).
    let observations = Mutex(SimulatorObservations())

    struct DriverState {
        var world: SimulatorWorld
        var clock: SimulatorClock
        /// Calls the world will answer later (Connect, ReadValue, …), by reply token.
        var pending: [ReplyToken: DBusMessage] = [:]
        var nextToken: ReplyToken = 0
        /// Pending Device1.Connect calls, by reply token: ConnectConcurrency counts each until its reply.
        var connects: [ReplyToken: SimulatorObservations.ConnectKey] = [:]
        var stopped = false
    }

    /// A simulator over `world`, not yet exported: call `start()`.
    public init(bus: DBusConnection, world: SimulatorWorld, timeScale: Double = 1) {
        self.bus = bus
        tree = DBusObjectTree(connection: bus, objectManagerPath: "/")
        state = Mutex(DriverState(world: world, clock: SimulatorClock(start: .now, scale: timeScale)))
    }

    /// Exports `/org/bluez` and the adapters, starts the clock, then takes the name `org.bluez`
    /// (so that a client seeing the name finds the objects already there).
    public func start(busName: String = "org.bluez") async throws {
        state.withLock { s in apply(s.world.initialEffects(), &s) }
        let thread = Thread { [self] in runClock() }
        thread.name = "bluez-sim-clock"
        thread.start()
        let departures = try await bus.signals(matching: DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged"))
        Task { [weak self] in
            for await message in departures {
                guard message.body.count == 3, case .string(let name) = message.body[0], name.hasPrefix(":"),
                      case .string(let newOwner) = message.body[2], newOwner.isEmpty else { continue }
                self?.withWorld { world in world.clientVanished(name) }
            }
        }
        try await bus.requestName(busName)
    }

    /// Stops the clock thread and flood mode, and closes the connection.
    public func stop() {
        flooding.store(false, ordering: .relaxed)
        state.withLock { $0.stopped = true }
        kick()
        bus.close()
    }

    /// Simulated time now.
    public var now: Duration { state.withLock { $0.clock.now(at: .now) } }

    /// Runs `body` on the world brought up to date, applies its effects; for control operations.
    @discardableResult
    public func withWorld<T>(_ body: (inout SimulatorWorld) throws -> (T, [BusEffect])) rethrows -> T {
        let result = try state.withLock { s -> T in
            apply(s.world.advance(to: s.clock.now(at: .now)), &s)
            let (value, effects) = try body(&s.world)
            apply(effects, &s)
            return value
        }
        kick()
        return result
    }

    public func withWorld(_ body: (inout SimulatorWorld) -> [BusEffect]) {
        withWorld { world -> ((), [BusEffect]) in ((), body(&world)) }
    }

    /// Jumps simulated time forward, running every timer due on the way.
    public func advanceTime(by delta: Duration) {
        state.withLock { s in
            let real = ContinuousClock.now
            s.clock.advance(by: delta, at: real)
            apply(s.world.advance(to: s.clock.now(at: real)), &s)
        }
        kick()
    }

    public func setTimeScale(_ scale: Double) {
        state.withLock { s in s.clock.setScale(scale, at: .now) }
        kick()
    }

    /// A call whose reply the world may give now or later: it gets a token, and the effect
    /// `.reply(token, …)` answers it. A thrown BlueZError is the error reply.
    func perform(_ call: DBusMethodCall, _ body: (inout SimulatorWorld, ReplyToken) throws(BlueZError) -> [BusEffect]) {
        state.withLock { s in
            apply(s.world.advance(to: s.clock.now(at: .now)), &s)
            s.nextToken &+= 1
            let token = s.nextToken
            s.pending[token] = call.message
            if call.message.member == "Connect", call.message.interface == "org.bluez.Device1" {
                let key = SimulatorObservations.ConnectKey(adapter: BlueZPath(call.path).map { "hci\($0.adapter)" } ?? "?",
                                                           client: call.sender)
                s.connects[token] = key
                observations.withLock { $0.connectStarted(key) }
            }
            do throws(BlueZError) {
                apply(try body(&s.world, token), &s)
            } catch {
                if let message = s.pending.removeValue(forKey: token) { bus.reply(to: message, error: error.dbus) }
                connectAnswered(token, &s)
            }
        }
        kick()
    }

    /// Performs effects in order; runs under the state lock so that signals leave in the world's order.
    func apply(_ effects: [BusEffect], _ s: inout DriverState) {
        observeLinks(effects, in: s.world)
        for effect in effects {
            switch effect {
            case .addObject(let path, let interfaces):
                // Paths come from parsed addresses and fixed handles, so they are always valid.
                try? tree.add(path: path, interfaces: interfaces.map { (spec(for: $0.interface, path: path), $0.properties) })
            case .removeObject(let path):
                tree.remove(path: path)
            case .changeProperties(let path, let interface, let changed, let invalidated, let always):
                tree.update(path: path, interface: interface.rawValue, changed, invalidated: invalidated, emitUnchanged: always)
            case .setQuietly(let path, let interface, let changed):
                tree.update(path: path, interface: interface.rawValue, changed, signal: false)
            case .callAgent(let call):
                callAgent(call)
            case .reply(let token, let result):
                // Sent here, between the effects before and after it, as bluetoothd sends its reply between
                // its signals: the Connect reply, then the GATT objects and ServicesResolved=true.
                guard let call = s.pending.removeValue(forKey: token) else { continue }
                // Counted as answered just before the reply leaves, so a client's next Connect never overlaps it.
                connectAnswered(token, &s)
                switch result {
                case .success(let values): bus.reply(to: call, with: values)
                case .failure(let error): bus.reply(to: call, error: error.dbus)
                }
            }
        }
    }

    private func connectAnswered(_ token: ReplyToken, _ s: inout DriverState) {
        if let key = s.connects.removeValue(forKey: token) { observations.withLock { $0.connectAnswered(key) } }
    }

    private func kick() {
        wakeup.lock()
        dirty = true
        wakeup.signal()
        wakeup.unlock()
    }

    /// The clock thread: runs due timers, then sleeps until the next one (or until a call changes things).
    private func runClock() {
        while true {
            let (stopped, delay) = state.withLock { s -> (Bool, Duration?) in
                let real = ContinuousClock.now
                apply(s.world.advance(to: s.clock.now(at: real)), &s)
                guard let deadline = s.world.nextDeadline else { return (s.stopped, nil) }
                return (s.stopped, s.clock.realDelay(until: deadline, at: real))
            }
            if stopped { return }
            wakeup.lock()
            if !dirty {
                let seconds = delay.map { max(0, min(1.0, Double($0.components.seconds) + Double($0.components.attoseconds) * 1e-18)) } ?? 1.0
                _ = wakeup.wait(until: Date().addingTimeInterval(seconds))
            }
            dirty = false
            wakeup.unlock()
        }
    }
}
