import Pairing
import Policy
import Testing

@Suite struct PasskeyTests {
    @Test(arguments: [("123456", 123456), ("012345", 12345), ("7", 7), (" 999999\n", 999999), ("000000\r\n", 0)])
    func parsesOneToSixDigits(text: String, value: UInt32) {
        #expect(Passkey(text: text)?.value == value)
    }

    @Test(arguments: ["", "1234567", "12a456", "-12345", "+12345", "12 345", "１２３４５６"])
    func rejectsAnythingElse(text: String) {
        #expect(Passkey(text: text) == nil)
    }

    @Test func showsSixDigitsAndStopsAt999999() {
        #expect(Passkey(42)?.description == "000042")
        #expect(Passkey(1_000_000) == nil)
    }
}

@Suite struct PairingOutcomeTests {
    @Test(arguments: [
        ("org.bluez.Error.AuthenticationFailed", "Authentication Failed", PairingDecision.needsOperator),
        ("org.bluez.Error.AuthenticationTimeout", "Authentication Timeout", .retryWithBackoff),
        ("org.bluez.Error.ConnectionAttemptFailed", "Page Timeout", .retryWithBackoff),
        ("org.bluez.Error.AuthenticationCanceled", "Authentication Canceled", .retryWithBackoff),
        ("org.bluez.Error.AuthenticationRejected", "Authentication Rejected", .retryWithBackoff),
        ("org.bluez.Error.AlreadyExists", "Already Exists", .paired),
        ("org.bluez.Error.AlreadyExists", "Already Paired", .paired),
        ("org.bluez.Error.InProgress", "In Progress", .retrySoon),
        ("org.bluez.Error.NotReady", "Resource Not Ready", .waitForAdapter),
        ("org.bluez.Error.Failed", "Input/output error", .retryWithBackoff),
        ("org.freedesktop.DBus.Error.NoReply", "Did not receive a reply", .retryWithBackoff),
    ])
    func classifiesPairReplies(name: String, message: String, decision: PairingDecision) {
        let verdict = PairingOutcome.classify(name: name, message: message)
        #expect(verdict.decision == decision && verdict.isKnown)
    }

    @Test func anUnknownErrorRetriesAndSaysSo() {
        let verdict = PairingOutcome.classify(name: "org.example.Weird", message: "?")
        #expect(verdict.decision == .retryWithBackoff && !verdict.isKnown && verdict.code == "unknown")
    }

    @Test func decisionsMapToTheSupervisors() {
        #expect(PairingDecision.needsOperator.retryDecision == .giveUp)
        #expect(PairingDecision.paired.retryDecision == .alreadyDone)
        #expect(PairingOutcome.success.decision == .paired)
    }
}

@Suite struct GattSecurityFailureTests {
    static let policy = PairingPolicy(method: .justWorks)

    @Test(arguments: [("org.bluez.Error.NotPermitted", "Not paired"), ("org.bluez.Error.Failed", "Operation failed with ATT error: 0x05"),
                      ("org.bluez.Error.Failed", "Operation failed with ATT error: 0x0f"), ("org.bluez.Error.Failed", "Operation failed with ATT error: 0x0C")])
    func securityErrorsMeanPairThenRetryOnce(name: String, message: String) {
        #expect(GattSecurityFailure.step(name: name, message: message, policy: Self.policy, alreadyRetried: false) == .pairThenRetryOnce)
        #expect(GattSecurityFailure.step(name: name, message: message, policy: Self.policy, alreadyRetried: true) == .fail(.stillRefusedAfterPairing))
        #expect(GattSecurityFailure.step(name: name, message: message, policy: PairingPolicy(method: .none), alreadyRetried: false)
                == .fail(.pairingNotConfigured))
    }

    @Test(arguments: [("org.bluez.Error.NotPermitted", "Read not permitted"), ("org.bluez.Error.NotAuthorized", "Operation Not Authorized"),
                      ("org.bluez.Error.Failed", "Not connected"), ("org.bluez.Error.Failed", "Operation failed with ATT error: 0x0e")])
    func otherErrorsAreNotAboutPairing(name: String, message: String) {
        #expect(GattSecurityFailure.step(name: name, message: message, policy: Self.policy, alreadyRetried: false) == .fail(.notASecurityError))
    }
}

@Suite struct StaleBondRuleTests {
    static let staleConnect = ReconnectEvidence(bonded: true, linkCameUp: true, errorName: "org.bluez.Error.Failed", errorMessage: "br-connection-canceled")

    @Test func threeAuthenticationFailuresInARowTriggerThePolicy() {
        for (rePair, step) in [(RePair.auto, StaleBondStep.removeBondAndPair), (.manual, .needsPairing)] {
            var rule = StaleBondRule(threshold: 3)
            #expect(rule.reconnectFailed(Self.staleConnect, rePair: rePair) == .keepTrying)
            #expect(rule.reconnectFailed(Self.staleConnect, rePair: rePair) == .keepTrying)
            #expect(rule.reconnectFailed(Self.staleConnect, rePair: rePair) == step)
            #expect(rule.consecutiveFailures == 0, "counting starts again after the verdict")
        }
    }

    @Test func aWorkingReconnectResetsAndAnAbsentDeviceDoesNotCount() {
        var rule = StaleBondRule(threshold: 2)
        _ = rule.reconnectFailed(Self.staleConnect, rePair: .auto)
        rule.reconnected()
        #expect(rule.reconnectFailed(Self.staleConnect, rePair: .auto) == .keepTrying)
        let away = ReconnectEvidence(bonded: true, linkCameUp: false, errorName: "org.bluez.Error.Failed", errorMessage: "le-connection-abort-by-local")
        #expect(rule.reconnectFailed(away, rePair: .auto) == .keepTrying)
        #expect(rule.consecutiveFailures == 1, "a device out of range says nothing about its keys")
        #expect(rule.reconnectFailed(Self.staleConnect, rePair: .auto) == .removeBondAndPair)
    }

    @Test func whatCountsAsAnAuthenticationFailure() {
        #expect(Self.staleConnect.isAuthenticationFailure)
        #expect(ReconnectEvidence(bonded: true, linkCameUp: false, errorName: "org.bluez.Error.AuthenticationFailed").isAuthenticationFailure)
        #expect(ReconnectEvidence(bonded: true, linkCameUp: true, errorName: "org.bluez.Error.NotPermitted", errorMessage: "Not paired").isAuthenticationFailure)
        #expect(!ReconnectEvidence(bonded: false, linkCameUp: true, errorName: "org.bluez.Error.Failed", errorMessage: "br-connection-canceled").isAuthenticationFailure,
                "without a bond it is not a stale bond")
        #expect(!ReconnectEvidence(bonded: true, linkCameUp: true).isAuthenticationFailure)
    }
}

@Suite struct AgentRegistrationTests {
    @Test func keyboardDisplayOnlyWhenSomeDeviceTypesAPasskey() {
        let justWorks = PairingPolicy(method: .justWorks)
        let passkey = PairingPolicy(method: .passkey(.file(path: "/etc/fleetd/meter.passkey")))
        #expect(AgentRegistration.plan(for: [justWorks, PairingPolicy()], requestDefault: false)
                == AgentRegistration(capability: .noInputNoOutput, requestDefault: false))
        #expect(AgentRegistration.plan(for: [justWorks, passkey], requestDefault: true)
                == AgentRegistration(capability: .keyboardDisplay, requestDefault: true))
        #expect(AgentRegistration.plan(for: [], requestDefault: false).capability == .noInputNoOutput)
    }

    @Test(arguments: [(UInt32(0o600), nil), (0o400, nil), (0o640, "group-readable; it must be 0600 or 0400"),
                      (0o604, "world-readable; it must be 0600 or 0400"), (0o620, "group-writable; it must be 0600 or 0400"),
                      (0o644, "group-readable, world-readable; it must be 0600 or 0400"), (0o610, "open to group or others; it must be 0600 or 0400")])
    func passkeyFilesMustBeTheOwnersAlone(mode: UInt32, problem: String?) {
        #expect(PasskeyFileMode.problem(mode: mode) == problem)
    }
}
