import FleetBroker
import Testing

/// Each PUBACK reason code of MQTT 5.0 §3.4.2.1 (Table 3-4, "PUBACK Reason Codes"), and what the pump does with it.
/// The meanings quoted are the specification's.
@Suite struct PubackReasonTests {
    func disposition(_ code: Int32) -> PubackDisposition { PubackReason.disposition(of: code) }

    @Test("0x00 Success (§3.4.2.1: the message is accepted): acknowledged")
    func success() { #expect(disposition(0x00) == .accepted) }

    @Test("0x10 No matching subscribers (§3.4.2.1: accepted, but there are no subscribers): acknowledged")
    func noMatchingSubscribers() { #expect(disposition(0x10) == .accepted) }

    @Test("0x80 Unspecified error (§3.4.2.1: not accepted, the reason not revealed): retried")
    func unspecifiedError() { #expect(disposition(0x80) == .retryLater) }

    @Test("0x83 Implementation specific error (§3.4.2.1: the PUBLISH is valid but the receiver is not willing to accept it): retried")
    func implementationSpecificError() { #expect(disposition(0x83) == .retryLater) }

    @Test("0x87 Not authorized (§3.4.2.1: the PUBLISH is not authorized): refused for good")
    func notAuthorized() { #expect(disposition(0x87) == .refused) }

    @Test("0x90 Topic Name invalid (§3.4.2.1: not malformed, but not accepted by this server): refused for good")
    func topicNameInvalid() { #expect(disposition(0x90) == .refused) }

    @Test("0x91 Packet identifier in use (§3.4.2.1: a mismatch in the session state): retried under a new identifier")
    func packetIdentifierInUse() { #expect(disposition(0x91) == .retryLater) }

    @Test("0x97 Quota exceeded (§3.4.2.1: an implementation or administrative limit was exceeded): retried")
    func quotaExceeded() { #expect(disposition(0x97) == .retryLater) }

    @Test("0x99 Payload format invalid (§3.4.2.1: the payload does not match its Payload Format Indicator): refused for good")
    func payloadFormatInvalid() { #expect(disposition(0x99) == .refused) }

    /// Not in the PUBACK table, but Mosquitto answers a payload over its `message_size_limit` with it (§2.4 lists
    /// it; the same message is too large every time).
    @Test("0x95 Packet too large (Mosquitto's answer to a payload over message_size_limit): refused for good")
    func packetTooLarge() { #expect(disposition(0x95) == .refused) }

    /// §2.4: a code below 0x80 is success; a failure code the PUBACK table does not list is the broker's own,
    /// and holding a reading costs less than dropping it on a guess.
    @Test("codes outside the table: below 0x80 acknowledged, from 0x80 retried")
    func codesOutsideTheTable() {
        for code: Int32 in [0x01, 0x11, 0x7F] { #expect(disposition(code) == .accepted, "0x\(String(code, radix: 16))") }
        for code: Int32 in [0x81, 0x89, 0x96, 0x9F, 0xA2, 0xFF] { #expect(disposition(code) == .retryLater, "0x\(String(code, radix: 16))") }
    }

    @Test func theConnectionsEventCarriesTheBrokersCodeAndText() {
        let id = PublishID(session: 3, messageID: 9)
        #expect(BrokerEvent.answer(to: id, reason: 0x00, broker: "b:1883") == .acknowledged(id))
        #expect(BrokerEvent.answer(to: id, reason: 0x10, broker: "b:1883") == .acknowledged(id))
        guard case .refusedForNow(id, let deferred) = BrokerEvent.answer(to: id, reason: 0x97, broker: "b:1883") else {
            Issue.record("0x97 is not refused for now"); return
        }
        #expect(deferred.kind == .publishRefusedForNow && deferred.cause == .reason(code: 0x97, text: "Quota exceeded"))
        #expect(deferred.message.contains("b:1883"))
        guard case .rejected(id, let refused) = BrokerEvent.answer(to: id, reason: 0x87, broker: "b:1883") else { Issue.record("0x87 is not rejected"); return }
        #expect(refused.kind == .publishRejected && refused.cause == .reason(code: 0x87, text: "Not authorized"))
    }
}
