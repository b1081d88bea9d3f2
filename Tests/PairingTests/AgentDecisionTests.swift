import Pairing
import Testing

/// Every rule of who may pair with the gateway, and with what.
@Suite struct AgentDecisionTests {
    static let passkey = Passkey(123456)!
    static let meter = PairingCandidate(device: "mfr-0059-meter", policy: PairingPolicy(method: .passkey(.value(passkey))),
                                        passkey: .known(passkey))
    static let strap = PairingCandidate(device: "addr-strap", policy: PairingPolicy(method: .justWorks))

    static let everyRequest: [AgentRequest] = [
        .requestPasskey, .requestPinCode, .displayPasskey(passkey, entered: 0), .displayPinCode("0000"),
        .requestConfirmation(passkey), .requestAuthorization, .authorizeService(uuid: "00001808-0000-1000-8000-00805f9b34fb"),
    ]

    @Test(arguments: everyRequest)
    func aStrangerIsAlwaysRejected(request: AgentRequest) {
        #expect(AgentDecision.answer(request, for: nil) == .reject(.stranger))
        #expect(RejectReason.stranger.description == "not a wanted device: strangers may not pair")
    }

    @Test(arguments: everyRequest)
    func aWantedDeviceWithPairingNoneIsRejected(request: AgentRequest) {
        let quiet = PairingCandidate(device: "addr-quiet", policy: PairingPolicy(method: .none))
        #expect(AgentDecision.answer(request, for: quiet) == .reject(.pairingNotConfigured(device: "addr-quiet")))
    }

    @Test func aPasskeyDeviceGetsItsPasskey() {
        #expect(AgentDecision.answer(.requestPasskey, for: Self.meter) == .passkey(Self.passkey))
    }

    @Test func anUnreadablePasskeyFileIsARejectionNamingWhy() {
        var meter = Self.meter
        meter.passkey = .unavailable(reason: "/etc/fleetd/meter.passkey is world-readable")
        #expect(AgentDecision.answer(.requestPasskey, for: meter)
                == .reject(.passkeyUnavailable(device: meter.device, reason: "/etc/fleetd/meter.passkey is world-readable")))
        meter.passkey = .notNeeded
        #expect(AgentDecision.answer(.requestPasskey, for: meter).isReject)
    }

    @Test func aJustWorksDeviceGetsNoPasskeyButItsAuthorization() {
        #expect(AgentDecision.answer(.requestPasskey, for: Self.strap) == .reject(.methodMismatch(device: "addr-strap", configured: "just-works")))
        #expect(AgentDecision.answer(.requestAuthorization, for: Self.strap) == .accept)
    }

    @Test func aPasskeyDeviceRefusesADowngradeToJustWorks() {
        #expect(AgentDecision.answer(.requestAuthorization, for: Self.meter) == .reject(.methodMismatch(device: Self.meter.device, configured: "passkey")))
    }

    @Test(arguments: [Permission.allow, .refuse])
    func numericComparisonFollowsTheDevicesSetting(permission: Permission) {
        for var candidate in [Self.meter, Self.strap] {
            candidate.policy.numericComparison = permission
            let answer = AgentDecision.answer(.requestConfirmation(Self.passkey), for: candidate)
            #expect(answer == (permission == .allow ? .accept : .reject(.numericComparisonRefused(device: candidate.device))))
        }
    }

    @Test func pinCodesAreRefusedServicesAndDisplaysAccepted() {
        #expect(AgentDecision.answer(.requestPinCode, for: Self.meter) == .reject(.pinCodeNotSupported(device: Self.meter.device)))
        #expect(AgentDecision.answer(.displayPinCode("1234"), for: Self.strap).isReject)
        #expect(AgentDecision.answer(.authorizeService(uuid: "x"), for: Self.strap) == .accept)
        #expect(AgentDecision.answer(.displayPasskey(Self.passkey, entered: 2), for: Self.meter) == .accept)
    }

    @Test func rejectReasonsHaveStableCodes() {
        let reasons: [RejectReason] = [.stranger, .pairingNotConfigured(device: "d"), .methodMismatch(device: "d", configured: "x"),
                                       .numericComparisonRefused(device: "d"), .passkeyUnavailable(device: "d", reason: "r"),
                                       .pinCodeNotSupported(device: "d")]
        #expect(Set(reasons.map(\.code)).count == reasons.count)
    }
}

extension AgentAnswer {
    var isReject: Bool { if case .reject = self { true } else { false } }
}
