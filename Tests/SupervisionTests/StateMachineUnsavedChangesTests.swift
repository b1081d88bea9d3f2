@testable import Supervision
import Identity
import Policy
import TestScheduling
import Testing

/// `UnsavedChanges` is what lets a save look at a few devices instead of the whole fleet, so it must never miss
/// one: whatever happens between two saves, every device and identity whose saved values changed is named (or
/// everything is). Checked against the whole-state comparison it replaces, over seeded random runs of every
/// kind of event: adverts from several addresses and adapters, links, services, removals, connect, set-up and
/// timer outcomes, adapters powering off and on, operator commands, evictions, bonds and strangers.
@Suite(.offCooperativePool) struct StateMachineUnsavedChangesTests {
    static let fleet = (1...8).map { Peripheral(UInt8($0)) }
    /// Advertise under the fleet's company id but are not wanted: the registry still records them.
    static let strangers = (40...42).map { Peripheral(UInt8($0)) }
    static let adapters = [FleetFixture.hci0, FleetFixture.hci1]

    /// The saved values, keyed for comparison.
    struct Saved: Equatable {
        var devices: [DeviceID: FleetSnapshot.Device]
        var identities: [String: IdentityRegistry.Entry]
        var evictions: [FleetStateMachine.EvictionRecord]

        init(_ machine: FleetStateMachine) {
            let snapshot = machine.snapshot
            devices = Dictionary(uniqueKeysWithValues: snapshot.devices.map { ($0.wanted.id, $0) })
            identities = snapshot.registry.entries
            evictions = snapshot.evictions
        }

        /// What a whole-state comparison finds changed from `self` to `now`.
        func changed(to now: Saved) -> (devices: Set<DeviceID>, identities: Set<String>) {
            let devices = Set(self.devices.keys).union(now.devices.keys).filter { self.devices[$0] != now.devices[$0] }
            let identities = Set(self.identities.keys).union(now.identities.keys).filter { self.identities[$0] != now.identities[$0] }
            return (devices, identities)
        }
    }

    @Test(arguments: (UInt64(1)...12).map { $0 })
    func everyChangeIsNamed(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let wanted = Self.fleet.enumerated().map { $0.element.wanted($0.offset == 0 ? .critical : ($0.offset % 3 == 0 ? .opportunistic : .normal)) }
        var settings = FleetFixture.settings(capacity: 2)
        settings.evictionHoldOff = .seconds(20)
        var driver = ManualDriver(try FleetFixture.machine(wanted, settings: settings, seed: seed))
        // As the supervisor does: the machine's notes, plus the devices named by every action performed.
        var unsaved = driver.machine.takeUnsavedChanges()
        #expect(unsaved.everything, "a machine just made has saved nothing")
        unsaved = UnsavedChanges()
        var saved = Saved(driver.machine)
        var pendingConnects: [ConnectRequest] = []
        var pendingSetUps: [SetUpRequest] = []
        var knownPaths: [DeviceReport] = []
        var everythingSteps = 0

        for step in 0..<1000 {
            let actions: [FleetAction]
            let roll = random.next() % 100
            func pick<T>(_ list: [T]) -> T { list[Int(random.next() % UInt64(list.count))] }
            switch roll {
            case 0..<30:
                let peripheral = random.next() % 6 == 0 ? pick(Self.strangers) : pick(Self.fleet)
                var report = peripheral.object(UInt8(random.next() % 3), adapter: pick(Self.adapters), rssi: -40 - Int(random.next() % 50))
                report.bonded = random.next() % 5 == 0
                if !knownPaths.contains(where: { $0.path == report.path }) { knownPaths.append(report) }
                actions = driver.see(report)
            case 30..<38 where !knownPaths.isEmpty:
                actions = driver.linkUp(pick(knownPaths))
            case 38..<44 where !knownPaths.isEmpty:
                actions = driver.linkDown(pick(knownPaths))
            case 44..<50 where !knownPaths.isEmpty:
                actions = driver.resolved(pick(knownPaths))
            case 50..<54 where !knownPaths.isEmpty:
                let report = pick(knownPaths)
                knownPaths.removeAll { $0.path == report.path }
                actions = driver.remove(report.path)
            case 54..<66 where !pendingConnects.isEmpty:
                let connect = pendingConnects.remove(at: Int(random.next() % UInt64(pendingConnects.count)))
                let errors: [BlueZError?] = [nil, nil, FleetFixture.abortByLocal(connect.path), FleetFixture.connectTimeout(connect.path),
                                             FleetFixture.connectError(connect.path, "org.bluez.Error.NotSupported"),
                                             FleetFixture.connectError(connect.path, "org.freedesktop.DBus.Error.UnknownObject")]
                let error = pick(errors)
                if error == nil, let report = knownPaths.first(where: { $0.path == connect.path }) { driver.linkUp(report) }
                actions = driver.connectFinished(connect, error: error)
            case 66..<74 where !pendingSetUps.isEmpty:
                let setUp = pendingSetUps.remove(at: Int(random.next() % UInt64(pendingSetUps.count)))
                actions = driver.setUpFinished(setUp, error: random.next() % 3 == 0
                    ? BlueZError(operation: "StartNotify", path: setUp.path.rawValue, name: "org.bluez.Error.Failed", message: "no") : nil)
            case 74..<84:
                actions = driver.advance(by: .milliseconds(Int64(random.next() % 40_000)))
            case 84..<88:
                let adapter = pick(Self.adapters)
                actions = random.next() % 4 == 0 ? driver.adapter(adapter, powered: true) : driver.power(random.next() % 2 == 0, adapter: adapter)
            default:
                let id = random.next() % 10 == 0 ? DeviceID("mfr-0059-0a1b2c3d4e99") : pick(Self.fleet).id
                let outcome: FleetStateMachine.OperatorOutcome?
                switch random.next() % 5 {
                case 0: outcome = driver.command { $0.operatorConnect(id, now: $1) }
                case 1: outcome = try? driver.command { try $0.operatorDisconnect(id, now: $1) }
                case 2: outcome = try? driver.command { try $0.operatorEvict(id, now: $1) }
                case 3: outcome = try? driver.command { try $0.operatorSetPolicy(id, pick([.critical, .normal, .opportunistic]), now: $1) }
                default: outcome = random.next() % 4 == 0 ? try? driver.command { try $0.operatorForget(id, now: $1) } : nil
                }
                actions = outcome?.actions ?? []
            }
            pendingConnects += actions.connects
            pendingSetUps += actions.setUps
            unsaved.formUnion(driver.machine.takeUnsavedChanges())
            unsaved.note(actions)

            let now = Saved(driver.machine)
            let changed = saved.changed(to: now)
            if unsaved.everything {
                everythingSteps += 1
            } else {
                let missedDevices = changed.devices.subtracting(unsaved.devices)
                let missedIdentities = changed.identities.subtracting(unsaved.identities)
                #expect(missedDevices.isEmpty && missedIdentities.isEmpty,
                        "step \(step) (roll \(roll)): changed but not named: devices \(missedDevices.sorted()), identities \(missedIdentities.sorted())")
                if !missedDevices.isEmpty || !missedIdentities.isEmpty { return }
            }
            // Saves come at random points, as the coalesced `.persist` does.
            if random.next() % 3 == 0 {
                saved = now
                unsaved = UnsavedChanges()
            }
        }
        // The run exercised the precise path, not only "everything" (adapter changes).
        #expect(everythingSteps < 700)
    }

    @Test func restoreAndReloadCompareEverything() throws {
        let peripheral = Self.fleet[0]
        var machine = try FleetFixture.machine([peripheral.wanted()])
        _ = machine.takeUnsavedChanges()
        machine.restore(machine.snapshot)
        #expect(machine.takeUnsavedChanges().everything)
        _ = try machine.reload(rules: FleetFixture.rules(), wanted: [peripheral.wanted()], previouslyConfigured: [peripheral.id], now: .seconds(1))
        #expect(machine.takeUnsavedChanges().everything)
        #expect(machine.takeUnsavedChanges().isEmpty)
    }

    @Test func anEventNamesWhatItTouches() throws {
        let (a, b) = (Self.fleet[0], Self.fleet[1])
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted()], settings: FleetFixture.settings(capacity: 5)))
        driver.adapter()
        _ = driver.machine.takeUnsavedChanges()
        let connect = try #require(driver.see(a.object()).connects.first)
        var unsaved = driver.machine.takeUnsavedChanges()
        #expect(unsaved.devices == [a.id] && unsaved.identities == [a.id.rawValue], "a new path: its owner and the identity recorded")
        driver.see(a.object(rssi: -70))
        #expect(driver.machine.takeUnsavedChanges().devices == [a.id], "a known path's advert: its owner")
        let actions = driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        unsaved = driver.machine.takeUnsavedChanges()
        unsaved.note(actions)
        #expect(unsaved.devices == [a.id] && unsaved.identities.isEmpty && !unsaved.everything, "b is not looked at")
    }
}
