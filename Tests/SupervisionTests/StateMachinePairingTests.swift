@testable import Supervision
import Pairing
import Policy
import Testing

/// Pairing in the state machine: before set-up, after a GATT security refusal (once), Pair's outcomes, stale
/// bonds under `re-pair = auto | manual`, bonds kept on their adapter, and no RemoveDevice of a bonded object.
@Suite struct StateMachinePairingTests {
    let meter = Peripheral(0x51, name: "Meter")
    static let passkey = PairingPolicy(method: .passkey(.value(Passkey(123456)!)))

    func driver(_ pairing: DevicePairing?, adapters: [AdapterID] = [FleetFixture.hci0]) throws -> ManualDriver {
        var machine = try FleetFixture.machine([meter.wanted()], settings: FleetFixture.settings(policy: FleetFixture.slowRetries()))
        if let pairing { machine.configurePairing([meter.id: pairing]) }
        var driver = ManualDriver(machine)
        for adapter in adapters { driver.adapter(adapter) }
        return driver
    }

    func bonded(_ rotation: UInt8 = 0, adapter: AdapterID = FleetFixture.hci0) -> DeviceReport {
        var report = meter.object(rotation, adapter: adapter)
        report.bonded = true
        return report
    }

    /// Connect, link up, services resolved; returns the actions of the resolution (pair or set-up).
    func link(_ driver: inout ManualDriver, _ object: DeviceReport) throws -> [FleetAction] {
        let connect = try #require(driver.see(object).connects.first)
        driver.linkUp(object)
        driver.connectFinished(connect)
        return driver.resolved(object)
    }

    static func pairs(_ actions: [FleetAction]) -> [(path: DevicePath, token: UInt64)] {
        actions.compactMap { if case let .pair(_, path, _, token) = $0 { (path, token) } else { nil } }
    }

    static func unpairs(_ actions: [FleetAction]) -> [DevicePath] {
        actions.compactMap { if case let .unpair(_, _, path) = $0 { path } else { nil } }
    }

    static func error(_ name: String, _ message: String, operation: String = "Pair", timedOut: Bool = false) -> BlueZError {
        BlueZError(operation: operation, path: "/", name: name, message: message, timedOut: timedOut)
    }

    @Test func requiredPairsBeforeSetUpAndRecordsTheBondAdapter() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey, required: true))
        let resolved = try link(&driver, meter.object())
        #expect(resolved.setUps.isEmpty, "no set-up before pairing")
        let pair = try #require(Self.pairs(resolved).first)
        #expect(driver.phase(meter) == .pairing)
        #expect(resolved.events(.pairingStarted).first?.reason == "pair-before-set-up")
        let done = driver.send { $0.pairFinished(device: meter.id, token: pair.token, error: nil, now: $1) }
        let setUp = try #require(done.setUps.first)
        #expect(done.events(.paired).first?.message == "\(meter.id) paired; its bond is on hci0")
        #expect(driver.machine.devices[meter.id]?.bond.adapter == FleetFixture.hci0)
        driver.setUpFinished(setUp)
        #expect(driver.phase(meter) == .ready)
        #expect(driver.machine.snapshot.devices.first?.bondAdapter == "hci0")
    }

    @Test func aBondedLinkIsNotPairedAgain() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey, required: true))
        let resolved = try link(&driver, bonded())
        #expect(Self.pairs(resolved).isEmpty)
        #expect(resolved.setUps.count == 1)
        #expect(driver.machine.devices[meter.id]?.bond.adapter == FleetFixture.hci0, "learned from Bonded")
    }

    @Test func aSecurityRefusalPairsThenRetriesSetUpOncePerLink() throws {
        var driver = try driver(DevicePairing(policy: PairingPolicy(method: .justWorks)))
        let first = try #require(try link(&driver, meter.object()).setUps.first)
        let refused = Self.error("org.bluez.Error.NotPermitted", "Not paired", operation: "StartNotify")
        let afterRefusal = driver.setUpFinished(first, error: refused)
        let pair = try #require(Self.pairs(afterRefusal).first)
        #expect(afterRefusal.disconnects.isEmpty)
        #expect(afterRefusal.events(.pairingStarted).first?.reason == "security-required")
        let paired = driver.send { $0.pairFinished(device: meter.id, token: pair.token, error: nil, now: $1) }
        let second = try #require(paired.setUps.first, "set-up runs again after pairing")
        let again = driver.setUpFinished(second, error: refused)
        #expect(Self.pairs(again).isEmpty, "only one retry per link")
        #expect(again.disconnects.count == 1)
        #expect(driver.machine.devices[meter.id]?.lastReason?.contains("Not paired") == true)
    }

    /// The reads on connect ran (and were recorded) before StartNotify was refused: set-up after pairing, on
    /// the same link, must not read them again, and continues the link's reading session. A new link reads again.
    @Test func setUpAfterPairingNeitherReadsAgainNorStartsANewSession() throws {
        var driver = try driver(DevicePairing(policy: PairingPolicy(method: .justWorks)))
        let first = try #require(try link(&driver, meter.object()).setUps.first)
        #expect(first.read == [FleetFixture.battery])
        let refused = Self.error("org.bluez.Error.NotPermitted", "Not paired", operation: "StartNotify")
        let pair = try #require(Self.pairs(driver.setUpFinished(first, error: refused, read: [FleetFixture.battery])).first)
        let paired = driver.send { $0.pairFinished(device: meter.id, token: pair.token, error: nil, now: $1) }
        let second = try #require(paired.setUps.first)
        #expect(second.read.isEmpty, "read again after pairing: \(second.read)")
        #expect(second.subscribe == first.subscribe)
        #expect(second.session == first.session, "a new reading session on the same link")
        #expect(second.token != first.token)
        driver.setUpFinished(second)
        #expect(driver.phase(meter) == .ready)
        // The next link is a new session and reads on connect again.
        driver.linkDown(meter.object())
        driver.advance(by: .seconds(60))
        let connect = try #require(driver.history.connects.last)
        var bonded = meter.object()
        bonded.bonded = true
        driver.see(bonded)
        driver.linkUp(bonded)
        driver.connectFinished(connect)
        let third = try #require(driver.resolved(bonded).setUps.first)
        #expect(third.read == [FleetFixture.battery])
        #expect(third.session != first.session)
    }

    @Test func aDeviceWithoutPairingIsNotPairedOnARefusal() throws {
        var driver = try driver(nil)
        let setUp = try #require(try link(&driver, meter.object()).setUps.first)
        let actions = driver.setUpFinished(setUp, error: Self.error("org.bluez.Error.Failed", "Operation failed with ATT error: 0x05", operation: "ReadValue"))
        #expect(Self.pairs(actions).isEmpty)
        #expect(actions.disconnects.count == 1)
    }

    @Test func aWrongPasskeyStopsForTheOperator() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey, required: true))
        let pair = try #require(Self.pairs(try link(&driver, meter.object())).first)
        let failed = driver.send {
            $0.pairFinished(device: meter.id, token: pair.token, error: Self.error("org.bluez.Error.AuthenticationFailed", "Authentication Failed"), now: $1)
        }
        guard case .needsPairing(let reason)? = driver.phase(meter) else { Issue.record("phase \(String(describing: driver.phase(meter)))"); return }
        #expect(reason.contains("authentication-failed"))
        #expect(failed.disconnects.count == 1)
        let line = try #require(failed.events(.needsPairing).first)
        #expect(line.warning && line.reason == "authentication-failed")
        // The link goes down: nothing is retried.
        driver.linkDown(meter.object())
        driver.advance(by: .seconds(600))
        #expect(driver.history.connects.count == 1)
        if case .needsPairing = driver.phase(meter) {} else { Issue.record("left needs-pairing") }
        #expect(driver.machine.counts.failed == 1)
        #expect(driver.machine.snapshot.devices.first?.needsPairing == reason)

        // fleetctl pair: wanted again, pairs on its next link.
        let outcome = try driver.command { try $0.operatorPair(meter.id, now: $1) }
        #expect(outcome.message.contains("pairs on its next link"))
        driver.advance(by: .seconds(60))
        let connect = try #require(driver.history.connects.last)
        #expect(driver.history.connects.count == 2)
        driver.linkUp(meter.object())
        driver.connectFinished(connect)
        #expect(Self.pairs(driver.resolved(meter.object())).count == 1)
    }

    @Test func aPairingTimeoutCancelsAndRetriesWithBackoff() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey, required: true))
        let pair = try #require(Self.pairs(try link(&driver, meter.object())).first)
        let failed = driver.send {
            $0.pairFinished(device: meter.id, token: pair.token, error: Self.error("org.freedesktop.DBus.Error.NoReply", "timed out", timedOut: true), now: $1)
        }
        #expect(failed.contains(.cancelPairing(device: meter.id, path: pair.path)))
        #expect(failed.disconnects.count == 1)
        #expect(failed.events(.pairingFailed).count == 1)
        driver.linkDown(meter.object())
        guard case .backoff? = driver.phase(meter) else { Issue.record("not backing off: \(String(describing: driver.phase(meter)))"); return }
    }

    @Test func inProgressWaitsForTheOtherPairingToShowAsBonded() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey, required: true))
        let pair = try #require(Self.pairs(try link(&driver, meter.object())).first)
        let waiting = driver.send {
            $0.pairFinished(device: meter.id, token: pair.token, error: Self.error("org.bluez.Error.InProgress", "In Progress"), now: $1)
        }
        #expect(waiting.disconnects.isEmpty)
        #expect(driver.phase(meter) == .pairing)
        let bondedNow = driver.see(bonded())
        #expect(bondedNow.setUps.count == 1)
        #expect(driver.machine.devices[meter.id]?.bond.adapter == FleetFixture.hci0)
    }

    @Test func aPairingThatNeverEndsIsCancelledAtItsDeadline() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey, required: true))
        let pair = try #require(Self.pairs(try link(&driver, meter.object())).first)
        let fired = driver.advance(by: driver.machine.settings.pairingTimeout)
        #expect(fired.contains(.cancelPairing(device: meter.id, path: pair.path)))
        #expect(fired.disconnects.count == 1)
        #expect(fired.events(.pairingFailed).first?.reason == "pairing-timeout")
    }

    /// A bonded device whose peripheral lost its keys: the link comes up and Connect fails.
    mutating func failStaleReconnects(_ driver: inout ManualDriver, count: Int) throws -> [FleetAction] {
        var all: [FleetAction] = []
        for _ in 0..<count {
            let connect = try #require(driver.history.connects.last)
            driver.linkUp(bonded())
            all += driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "br-connection-canceled"))
            all += driver.linkDown(bonded())
            all += driver.advance(by: .seconds(200))
        }
        return all
    }

    @Test mutating func aStaleBondUnderAutoIsRemovedAndPairedAgain() throws {
        var policy = Self.passkey
        policy.rePair = .auto
        var driver = try driver(DevicePairing(policy: policy))
        driver.see(bonded())
        let first = try failStaleReconnects(&driver, count: 2)
        #expect(Self.unpairs(first).isEmpty, "not stale before three failures")
        let third = try failStaleReconnects(&driver, count: 1)
        #expect(Self.unpairs(third) == [meter.path()])
        #expect(third.events(.staleBond).first?.reason == "re-pair-auto")
        #expect(third.events(.bondRemoved).first?.reason == "stale-bond")
        #expect(third.removals.isEmpty, "the bond goes through unpair, never the stuck-state RemoveDevice")
        #expect(driver.machine.devices[meter.id]?.bond.adapter == nil)
        // BlueZ removes the object; it is found again unbonded, connects and pairs before set-up.
        driver.remove(meter.path())
        driver.advance(by: .seconds(200))
        let connect = try #require(driver.see(meter.object()).connects.first ?? driver.history.connects.last)
        driver.linkUp(meter.object())
        driver.connectFinished(connect)
        #expect(Self.pairs(driver.resolved(meter.object())).count == 1)
    }

    @Test mutating func aStaleBondUnderManualMarksTheDeviceNeedsPairing() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey))
        driver.see(bonded())
        let actions = try failStaleReconnects(&driver, count: 3)
        #expect(Self.unpairs(actions).isEmpty, "manual never removes the bond")
        #expect(actions.events(.staleBond).first?.reason == "re-pair-manual")
        #expect(actions.events(.needsPairing).first?.reason == "stale-bond")
        guard case .needsPairing? = driver.phase(meter) else { Issue.record("phase \(String(describing: driver.phase(meter)))"); return }
        let connects = driver.history.connects.count
        driver.advance(by: .seconds(900))
        #expect(driver.history.connects.count == connects, "stopped")
        let unpaired = try driver.command { try $0.operatorUnpair(meter.id, now: $1) }
        #expect(Self.unpairs(unpaired.actions) == [meter.path()])
    }

    @Test func aBondedDeviceIsAdmittedOnlyThroughItsBondAdapter() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey), adapters: [FleetFixture.hci0, FleetFixture.hci1])
        var restored = driver.machine.snapshot
        restored.devices[0].bondAdapter = "hci0"
        driver.machine.restore(restored)
        let elsewhere = driver.see(meter.object(adapter: FleetFixture.hci1))
        #expect(elsewhere.connects.isEmpty, "hci1 holds no keys for it")
        driver.advance(by: .seconds(120))
        #expect(driver.history.connects.isEmpty)
        let home = driver.see(meter.object(1, adapter: FleetFixture.hci0))
        #expect(home.connects.first?.adapter == FleetFixture.hci0)
    }

    /// The other order: the bond adapter heard the device first, and another adapter, which may not connect it,
    /// heard a newer address since. Weighing that address against the bond adapter's would leave the device with
    /// no candidate until the bond adapter reported an advert again.
    @Test func aBondedDeviceHeardLaterElsewhereStillConnectsThroughItsBondAdapter() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey), adapters: [FleetFixture.hci0, FleetFixture.hci1])
        var restored = driver.machine.snapshot
        restored.devices[0].bondAdapter = "hci0"
        driver.machine.restore(restored)
        let first = try #require(driver.see(meter.object(1, adapter: FleetFixture.hci0)).connects.first)
        #expect(first.adapter == FleetFixture.hci0)
        driver.connectFinished(first, error: FleetFixture.abortByLocal(first.path))
        driver.clock.advance(by: .milliseconds(100))
        driver.see(meter.object(2, adapter: FleetFixture.hci1))
        let retry = driver.advanceUntilConnect(within: .seconds(120))
        #expect(retry?.path == meter.path(1, adapter: FleetFixture.hci0))
    }

    @Test func rePairElsewhereLetsAnotherAdapterConnect() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey, rePairElsewhere: true), adapters: [FleetFixture.hci0, FleetFixture.hci1])
        var restored = driver.machine.snapshot
        restored.devices[0].bondAdapter = "hci0"
        driver.machine.restore(restored)
        #expect(driver.see(meter.object(adapter: FleetFixture.hci1)).connects.first?.adapter == FleetFixture.hci1)
    }

    /// #14 point 4: two InProgress answers clear stuck state with RemoveDevice — never for a bonded object.
    @Test func aBondedDeviceIsNeverRemovedToClearStuckState() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey))
        driver.see(bonded())
        var actions: [FleetAction] = []
        for _ in 0..<3 {
            let connect = try #require(driver.history.connects.last)
            actions += driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.InProgress", "In Progress"))
            actions += driver.advance(by: .seconds(200))
        }
        #expect(actions.removals.isEmpty, "RemoveDevice would delete the bond")
        #expect(Self.unpairs(actions).isEmpty)
        #expect(actions.disconnects.count >= 3, "Disconnect instead")
        #expect(actions.events(.staleStateCleared).contains { $0.reason == "disconnect-bonded" })
    }

    @Test func anUnbondedDeviceStillGetsRemoveDeviceAfterTwoInProgress() throws {
        var driver = try driver(nil)
        driver.see(meter.object())
        var actions: [FleetAction] = []
        for _ in 0..<2 {
            let connect = try #require(driver.history.connects.last)
            actions += driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.InProgress", "In Progress"))
            actions += driver.advance(by: .seconds(200))
        }
        #expect(actions.removals.count == 1)
    }

    /// #14 point 4: a Disconnect BlueZ never confirms is written off with Disconnect, not RemoveDevice, for a
    /// bonded object.
    @Test func anUnconfirmedDisconnectOfABondedDeviceFallsBackToDisconnect() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey))
        let setUp = try #require(try link(&driver, bonded()).setUps.first)
        driver.setUpFinished(setUp, error: Self.error("org.bluez.Error.Failed", "boom", operation: "ReadValue"))
        #expect(driver.phase(meter) == .disconnecting)
        let deadline = driver.advance(by: .seconds(10))
        #expect(deadline.removals.isEmpty)
        #expect(deadline.disconnects.count == 1)
    }

    @Test func pairAndUnpairRefusals() throws {
        var driver = try driver(nil)
        #expect(throws: FleetStateMachine.PairingRefusal.pairingNotConfigured(meter.id)) { try driver.command { try $0.operatorPair(meter.id, now: $1) } }
        #expect(throws: FleetStateMachine.PairingRefusal.notBonded(meter.id)) { try driver.command { try $0.operatorUnpair(meter.id, now: $1) } }
        #expect(throws: FleetStateMachine.PairingRefusal.unknownDevice(DeviceID("nope"))) { try driver.command { try $0.operatorPair(DeviceID("nope"), now: $1) } }
    }

    @Test func pairingALinkedReadyDeviceNow() throws {
        var driver = try driver(DevicePairing(policy: PairingPolicy(method: .justWorks)))
        let setUp = try #require(try link(&driver, meter.object()).setUps.first)
        driver.setUpFinished(setUp)
        let outcome = try driver.command { try $0.operatorPair(meter.id, now: $1) }
        let pair = try #require(Self.pairs(outcome.actions).first)
        #expect(driver.phase(meter) == .pairing)
        let done = driver.send { $0.pairFinished(device: meter.id, token: pair.token, error: nil, now: $1) }
        #expect(done.setUps.count == 1)
        #expect(driver.machine.deviceInfoBond == "hci0")
    }

    @Test func theAgentKnowsWantedDevicesOnly() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey))
        driver.see(meter.object())
        // The meter's id is read from its manufacturer data, and it has no bond yet: a first pairing said loudly.
        #expect(driver.machine.pairingCandidate(path: meter.path().rawValue)
                == PairingCandidate(device: meter.id.rawValue, policy: Self.passkey, spoofableFirstPairing: true))
        #expect(driver.machine.pairingCandidate(path: "/org/bluez/hci0/dev_00_11_22_33_44_55") == nil)
    }

    /// Issue 41, point 10: before, a second object advertising the meter's manufacturer data resolved to the meter
    /// and was handed its passkey although BlueZ already held the meter's bond at its own address.
    @Test func anotherAddressClaimingABondedIdentityGetsNoPasskey() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey))
        driver.see(bonded())
        driver.see(meter.object(1))
        let impostor = try #require(driver.machine.pairingCandidate(path: meter.path(1).rawValue))
        #expect(impostor.bondedAt == meter.address())
        #expect(!impostor.spoofableFirstPairing)
        let answer = AgentDecision.answer(.requestPasskey, for: PairingCandidate(device: impostor.device, policy: impostor.policy,
                                                                                  passkey: .known(Passkey(123456)!), bondedAt: impostor.bondedAt))
        #expect(answer == .reject(.bondedElsewhere(device: meter.id.rawValue, address: meter.address())))
        // The bonded object itself is the meter: asked again (a re-encryption that needs the agent), it is answered.
        let real = try #require(driver.machine.pairingCandidate(path: meter.path().rawValue))
        #expect(real.bondedAt == nil && !real.spoofableFirstPairing)
    }
}

extension FleetStateMachine {
    /// The bond adapter of the only device, for brevity.
    fileprivate var deviceInfoBond: String? { devices.values.first?.bond.adapter?.name }
}

extension StateMachinePairingTests {
    /// The driver may apply `Connected=false` before the failed Connect reply (they travel separately): the
    /// link still came up during that connect, so it counts towards a stale bond.
    @Test func aStaleBondIsSeenWhenTheLinkDownOvertakesTheReply() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey))
        driver.see(bonded())
        var actions: [FleetAction] = []
        for _ in 0..<3 {
            let connect = try #require(driver.history.connects.last)
            driver.linkUp(bonded())
            driver.linkDown(bonded())
            actions += driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "br-connection-canceled"))
            actions += driver.advance(by: .seconds(200))
        }
        #expect(driver.history.events(.needsPairing).first?.reason == "stale-bond", "\(driver.history.events.map(\.message))")
        #expect(actions.events(.needsPairing).isEmpty, "decided at the link-down, not at the stale reply")
    }
}

extension StateMachinePairingTests {
    /// The failed reply may also overtake the `Connected=true` signal: `br-connection-canceled` itself says a
    /// link came up and went away (device_remove_connection).
    @Test func aStaleBondIsSeenWhenTheReplyOvertakesTheLinkUp() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey))
        driver.see(bonded())
        for _ in 0..<3 {
            let connect = try #require(driver.history.connects.last)
            driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "br-connection-canceled"))
            driver.linkUp(bonded())
            driver.linkDown(bonded())
            driver.advance(by: .seconds(200))
        }
        #expect(driver.history.events(.needsPairing).first?.reason == "stale-bond", "\(driver.history.events.map(\.message))")
    }
}

extension StateMachinePairingTests {
    /// bluetoothd 5.66's order on the rig (btmon, docs/bluez-fidelity.md): the ATT socket's error is dispatched
    /// before the queued mgmt events, so Connect fails `le-connection-abort-by-local` first and Connected goes
    /// true then false just after it.
    func failReplyFirst(_ driver: inout ManualDriver, _ object: DeviceReport, count: Int) throws -> [FleetAction] {
        var all: [FleetAction] = []
        for _ in 0..<count {
            let connect = try #require(driver.history.connects.last)
            all += driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "le-connection-abort-by-local"))
            all += driver.linkUp(object)
            all += driver.linkDown(object)
            all += driver.advance(by: .seconds(200))
        }
        return all
    }

    @Test func aStaleBondInBluetoothdsReplyFirstOrderIsRemovedAndPairedAgainUnderAuto() throws {
        var policy = Self.passkey
        policy.rePair = .auto
        var driver = try driver(DevicePairing(policy: policy))
        driver.see(bonded())
        let first = try failReplyFirst(&driver, bonded(), count: 2)
        #expect(Self.unpairs(first).isEmpty, "not stale before three failures")
        #expect(driver.machine.devices[meter.id]?.bond.staleBond.consecutiveFailures == 2, "each failed reconnect counted once")
        let third = try failReplyFirst(&driver, bonded(), count: 1)
        #expect(Self.unpairs(third) == [meter.path()])
        #expect(third.events(.staleBond).first?.reason == "re-pair-auto")
        driver.remove(meter.path())
        driver.advance(by: .seconds(200))
        let connect = try #require(driver.see(meter.object()).connects.first ?? driver.history.connects.last)
        driver.linkUp(meter.object())
        driver.connectFinished(connect)
        #expect(Self.pairs(driver.resolved(meter.object())).count == 1)
    }

    @Test func aStaleBondInBluetoothdsReplyFirstOrderMarksNeedsPairingUnderManual() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey))
        driver.see(bonded())
        let actions = try failReplyFirst(&driver, bonded(), count: 3)
        #expect(actions.events(.needsPairing).first?.reason == "stale-bond", "\(driver.history.events.map(\.message))")
        #expect(actions.events(.staleBond).count == 1)
        guard case .needsPairing? = driver.phase(meter) else { Issue.record("phase \(String(describing: driver.phase(meter)))"); return }
    }

    @Test func anUnbondedDevicesBlipAfterAnAbortIsNoStaleBond() throws {
        var policy = Self.passkey
        policy.rePair = .auto
        var driver = try driver(DevicePairing(policy: policy))
        driver.see(meter.object())
        let actions = try failReplyFirst(&driver, meter.object(), count: 5)
        #expect(actions.events(.staleBond).isEmpty && actions.events(.needsPairing).isEmpty)
        #expect(driver.machine.devices[meter.id]?.bond.staleBond.consecutiveFailures == 0)
    }

    @Test func anAbortWithoutABlipIsNoStaleBond() throws {
        var driver = try driver(DevicePairing(policy: Self.passkey))
        driver.see(bonded())
        for _ in 0..<4 {
            let connect = try #require(driver.history.connects.last)
            driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "le-connection-abort-by-local"))
            driver.advance(by: .seconds(200))
        }
        #expect(driver.history.events(.staleBond).isEmpty, "an aborted connect alone is a device away, not a stale bond")
    }
}
