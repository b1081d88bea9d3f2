import Testing
@testable import Policy

@Suite("ReconnectState")
struct ReconnectStateTests {
    let abort = ConnectFailure.dbus(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")
    let notReady = ConnectFailure.dbus(name: "org.bluez.Error.NotReady", message: "Resource Not Ready")

    func delay(of step: ReconnectStep) -> Duration? {
        switch step.action {
        case let .connect(after), let .disconnectThenConnect(after), let .removeDeviceThenConnect(after): after
        default: nil
        }
    }

    @Test func adapterOffPausesWithoutConsumingAttempts() throws {
        var rng = SplitMix64(seed: 5)
        var state = ReconnectState(policyClass: .normal)
        for second in 0..<3 { _ = state.connectFailed(abort, now: .seconds(second), using: &rng) }
        #expect(state.failures == 3)
        for second in 3..<50 {
            let step = state.connectFailed(notReady, now: .seconds(second), using: &rng)
            #expect(step.action == .waitForAdapter)
        }
        #expect(state.connectFailed(.local(.adapterPoweredOff), now: .seconds(51), using: &rng).action == .waitForAdapter)
        #expect(state.failures == 3)
        #expect(state.isWaitingForAdapter)
        let back = try #require(state.adapterReturned(now: .seconds(60), using: &rng))
        #expect(!state.isWaitingForAdapter)
        let wait = delay(of: back)
        #expect(wait != nil && wait! <= PolicyConfiguration().normal.backoff.recoveryWindow)
        #expect(state.failures == 3)
        #expect(state.adapterReturned(now: .seconds(61), using: &rng) == nil, "a device no longer waiting gets no second reconnect")
    }

    @Test func aNormalDeviceGivesUpWhenItsBudgetIsSpent() {
        var rng = SplitMix64(seed: 6)
        var state = ReconnectState(policyClass: .normal, configuration: PolicyConfiguration(normal: ClassConfiguration(retryBudget: 4)))
        let actions = (0..<4).map { state.connectFailed(abort, now: .seconds($0), using: &rng).action }
        #expect(actions.prefix(3).allSatisfy { if case .connect = $0 { true } else { false } })
        #expect(actions.last == .giveUp)
        #expect(state.hasGivenUp)
    }

    @Test func aCriticalDeviceIsNeverGivenUp() {
        var rng = SplitMix64(seed: 7)
        var state = ReconnectState(policyClass: .critical)
        for second in 0..<200 {
            let step = state.connectFailed(abort, now: .seconds(second), using: &rng)
            #expect(step.action != .giveUp)
        }
        let permanent = state.connectFailed(.dbus(name: "org.bluez.Error.NotSupported", message: "Operation is not supported"), now: .seconds(300), using: &rng)
        #expect(permanent.action == .connect(after: .seconds(60)))
        #expect(permanent.reason.contains("never given up"))
        #expect(!state.hasGivenUp)
    }

    @Test func aNormalDeviceGivesUpOnAPermanentError() {
        var rng = SplitMix64(seed: 8)
        var state = ReconnectState(policyClass: .normal)
        let step = state.connectFailed(.dbus(name: "org.bluez.Error.NotPermitted", message: "Not Permitted"), now: .zero, using: &rng)
        #expect(step.action == .giveUp)
        #expect(step.classification?.code == "NotPermitted")
    }

    @Test func aStuckInProgressIsClearedWithDisconnectThenRemoveDevice() {
        var rng = SplitMix64(seed: 9)
        var state = ReconnectState(policyClass: .critical)
        let inProgress = ConnectFailure.dbus(name: "org.bluez.Error.InProgress", message: "In Progress")
        let first = state.connectFailed(inProgress, now: .zero, using: &rng)
        let second = state.connectFailed(inProgress, now: .seconds(2), using: &rng)
        guard case .disconnectThenConnect = first.action, case .removeDeviceThenConnect = second.action else {
            Issue.record("expected Disconnect, then RemoveDevice; got \(first.action), \(second.action)")
            return
        }
        #expect(state.failures == 2)
        state.connected(now: .seconds(5))
        _ = state.linkLost(nil, now: .seconds(6), using: &rng)
        let afterSuccess = state.connectFailed(inProgress, now: .seconds(7), using: &rng)
        guard case .disconnectThenConnect = afterSuccess.action else {
            Issue.record("a success should restart clearing at Disconnect; got \(afterSuccess.action)")
            return
        }
    }

    /// Soak seed 210: fleetd was killed while BlueZ ran its Connect to a device that never answers; 75 s later its
    /// successor's Connect was answered `Operation already in progress`, and the device, which had done nothing,
    /// was counted a failure. Cancelling the leftover is free the first time; the same answer again counts.
    @Test func aConnectLeftByAnEarlierFleetdIsCancelledWithoutBurningAnAttempt() {
        var rng = SplitMix64(seed: 11)
        var state = ReconnectState(policyClass: .normal)
        let leftover = ConnectFailure.dbus(name: "org.bluez.Error.Failed", message: "Operation already in progress")
        let first = state.connectFailed(leftover, now: .zero, using: &rng)
        guard case .disconnectThenConnect(let after) = first.action else {
            Issue.record("expected Disconnect, then connect; got \(first.action)")
            return
        }
        #expect(state.failures == 0)
        #expect(first.failures == 0)
        #expect(after >= state.configuration.backoff.floor && after <= state.configuration.backoff.floor * 2)
        let second = state.connectFailed(leftover, now: .seconds(1), using: &rng)
        guard case .removeDeviceThenConnect = second.action else {
            Issue.record("a leftover back after the Disconnect is stuck state; got \(second.action)")
            return
        }
        #expect(state.failures == 1)
        // An InProgress is not known to be a predecessor's: it counts from the first.
        var other = ReconnectState(policyClass: .normal)
        _ = other.connectFailed(.dbus(name: "org.bluez.Error.InProgress", message: "In Progress"), now: .zero, using: &rng)
        #expect(other.failures == 1)
    }

    @Test func dBusHiccupsRetrySoonAFewTimesThenBackOff() {
        var rng = SplitMix64(seed: 10)
        var state = ReconnectState(policyClass: .normal)
        let noReply = ConnectFailure.dbus(name: "org.freedesktop.DBus.Error.NoReply", message: "Did not receive a reply")
        for index in 0..<9 {
            let step = state.connectFailed(noReply, now: .seconds(index), using: &rng)
            let wait = delay(of: step)
            #expect(wait != nil && wait! >= .milliseconds(250) && wait! <= .milliseconds(500))
        }
        #expect(state.failures == 0)
        _ = state.connectFailed(noReply, now: .seconds(10), using: &rng)
        #expect(state.failures == 1)
    }

    @Test func alreadyConnectedCountsAsSuccess() {
        var rng = SplitMix64(seed: 11)
        var state = ReconnectState(policyClass: .normal)
        let step = state.connectFailed(.dbus(name: "org.bluez.Error.AlreadyConnected", message: "Already Connected"), now: .zero, using: &rng)
        #expect(step.action == .connected)
        #expect(state.failures == 0)
    }

    @Test func aStableLinkResetsTheBackoffWhenItDrops() {
        var rng = SplitMix64(seed: 12)
        var state = ReconnectState(policyClass: .normal, configuration: PolicyConfiguration(normal: ClassConfiguration(retryBudget: nil)))
        for second in 0..<8 { _ = state.connectFailed(abort, now: .seconds(second), using: &rng) }
        state.connected(now: .seconds(100))
        let step = state.linkLost(.local(.linkDropped(hciReason: 0x08)), now: .seconds(161), using: &rng)
        #expect(state.failures == 1)
        let wait = delay(of: step)
        #expect(wait != nil && wait! <= .seconds(1))
    }

    @Test func aShortLivedLinkKeepsBackingOff() {
        var rng = SplitMix64(seed: 13)
        var state = ReconnectState(policyClass: .normal, configuration: PolicyConfiguration(normal: ClassConfiguration(retryBudget: nil)))
        for second in 0..<8 { _ = state.connectFailed(abort, now: .seconds(second), using: &rng) }
        state.connected(now: .seconds(100))
        _ = state.linkLost(.local(.linkDropped(hciReason: 0x08)), now: .seconds(110), using: &rng)
        #expect(state.failures == 9)
    }

    @Test func aLinkLostToAnAdapterPowerOffWaitsWithoutCounting() {
        var rng = SplitMix64(seed: 14)
        var state = ReconnectState(policyClass: .critical)
        state.connected(now: .zero)
        let step = state.linkLost(.local(.adapterPoweredOff), now: .seconds(30), using: &rng)
        #expect(step.action == .waitForAdapter)
        #expect(state.failures == 0)
    }

    @Test func theFirstConnectIsSpreadOverTheRecoveryWindow() {
        var rng = SplitMix64(seed: 15)
        let state = ReconnectState(policyClass: .critical)
        let delays = (0..<500).compactMap { _ in delay(of: state.firstConnect(now: .zero, using: &rng)) }
        #expect(delays.count == 500)
        #expect(delays.allSatisfy { $0 <= .seconds(5) })
        #expect(delays.contains { $0 > .seconds(4) } && delays.contains { $0 < .seconds(1) })
    }
}

/// Issue 14 point 3: a device that connects, uploads and hangs up within a minute is healthy.
@Suite("ReconnectState: healthy short sessions")
struct HealthySessionTests {
    let drop = ConnectFailure.local(.linkDropped(hciReason: nil))
    let abort = ConnectFailure.dbus(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")

    func delay(of step: ReconnectStep) -> Duration? {
        if case let .connect(after) = step.action { after } else { nil }
    }

    @Test func aCuffThatUploadsAndHangsUpIsNeverGivenUp() throws {
        var rng = SplitMix64(seed: 14)
        var state = ReconnectState(policyClass: .normal, configuration: PolicyConfiguration(normal: ClassConfiguration(retryBudget: 10)))
        var now = Duration.zero
        for session in 1...30 {
            state.connected(now: now)
            state.ready(now: now + .seconds(2))
            now += .seconds(10)
            let step = state.linkLost(drop, now: now, using: &rng)
            #expect(step.action != .giveUp, "session \(session) must not spend the budget")
            #expect(state.failures == 0)
            #expect(state.shortSessions == session)
            let wait = try #require(delay(of: step))
            #expect(state.backoff.bounds(afterFailures: session).contains(wait), "short sessions still back off (n = \(session))")
            now += wait
        }
        #expect(!state.hasGivenUp)
    }

    @Test func linksLostBeforeReadyStillSpendTheBudget() {
        var rng = SplitMix64(seed: 15)
        var state = ReconnectState(policyClass: .normal, configuration: PolicyConfiguration(normal: ClassConfiguration(retryBudget: 3)))
        var actions: [ReconnectStep.Action] = []
        for second in 0..<3 {
            state.connected(now: .seconds(second * 10))
            actions.append(state.linkLost(drop, now: .seconds(second * 10 + 1), using: &rng).action)
        }
        #expect(actions.last == .giveUp)
        #expect(state.failures == 3)
    }

    @Test func readyClearsEarlierFailuresAndAStableSessionClearsShortSessions() throws {
        var rng = SplitMix64(seed: 16)
        var state = ReconnectState(policyClass: .normal)
        for second in 0..<4 { _ = state.connectFailed(abort, now: .seconds(second), using: &rng) }
        #expect(state.failures == 4)
        state.connected(now: .seconds(10))
        state.ready(now: .seconds(11))
        #expect(state.failures == 0, "the attempts before a ready session are no longer failures")
        _ = state.linkLost(drop, now: .seconds(20), using: &rng)
        state.connected(now: .seconds(25))
        state.ready(now: .seconds(26))
        _ = state.linkLost(drop, now: .seconds(30), using: &rng)
        #expect(state.shortSessions == 2)
        state.connected(now: .seconds(40))
        state.ready(now: .seconds(41))
        let afterStable = state.linkLost(drop, now: .seconds(200), using: &rng)
        #expect(state.shortSessions == 0)
        let wait = try #require(delay(of: afterStable))
        #expect(wait <= .seconds(1), "after a stable session the next reconnect starts at n = 1")
    }

    @Test func aFailureAfterShortSessionsBacksOffFromTheCombinedCount() throws {
        var rng = SplitMix64(seed: 17)
        var state = ReconnectState(policyClass: .normal)
        for i in 0..<3 {
            state.connected(now: .seconds(i * 10))
            state.ready(now: .seconds(i * 10 + 1))
            _ = state.linkLost(drop, now: .seconds(i * 10 + 2), using: &rng)
        }
        let step = state.connectFailed(abort, now: .seconds(40), using: &rng)
        #expect(state.failures == 1)
        let wait = try #require(delay(of: step))
        #expect(state.backoff.bounds(afterFailures: 4).contains(wait))
    }
}
