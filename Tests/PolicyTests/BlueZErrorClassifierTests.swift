import Testing
@testable import Policy

@Suite("BlueZErrorClassifier")
struct BlueZErrorClassifierTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let message: String
        let decision: RetryDecision
        var testDescription: String { "\(name) \(message)" }
    }

    /// What fleetd must do for each error, as BlueZ 5.66 sends it (src/error.c, src/device.c).
    static let expectations: [Case] = [
        Case(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-remote", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.Failed", message: "le-connection-timeout", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.Failed", message: "le-connection-refused", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.Failed", message: "le-connection-concurrent-connection-limit", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.Failed", message: "le-connection-already-connected", decision: .alreadyDone),
        Case(name: "org.bluez.Error.Failed", message: "le-connection-adapter-not-powered", decision: .waitForAdapter),
        Case(name: "org.bluez.Error.Failed", message: "le-connection-not-supported", decision: .giveUp),
        Case(name: "org.bluez.Error.Failed", message: "le-connection-key-missing", decision: .giveUp),
        Case(name: "org.bluez.Error.Failed", message: "br-connection-canceled", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.Failed", message: "Software caused connection abort", decision: .retryWithBackoff),
        // device_connect_le's -EALREADY: a connect BlueZ still works on that fleetd did not start (a killed fleetd's).
        Case(name: "org.bluez.Error.Failed", message: "Operation already in progress", decision: .clearStaleStateThenRetry),
        Case(name: "org.bluez.Error.InProgress", message: "In Progress", decision: .clearStaleStateThenRetry),
        Case(name: "org.bluez.Error.InProgress", message: "br-connection-busy", decision: .clearStaleStateThenRetry),
        Case(name: "org.bluez.Error.InProgress", message: "Operation already in progress", decision: .clearStaleStateThenRetry),
        Case(name: "org.bluez.Error.NotReady", message: "Resource Not Ready", decision: .waitForAdapter),
        Case(name: "org.bluez.Error.NotReady", message: "br-connection-adapter-not-powered", decision: .waitForAdapter),
        Case(name: "org.freedesktop.DBus.Error.UnknownObject", message: "Method \"Connect\" with signature \"\" on interface \"org.bluez.Device1\" doesn't exist", decision: .retryWithBackoff),
        Case(name: "org.freedesktop.DBus.Error.NoReply", message: "Did not receive a reply", decision: .retrySoon),
        Case(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "The name org.bluez was not provided by any .service files", decision: .waitForAdapter),
        Case(name: "org.bluez.Error.NotSupported", message: "Operation is not supported", decision: .giveUp),
        Case(name: "org.bluez.Error.NotPermitted", message: "Not Permitted", decision: .giveUp),
        Case(name: "org.bluez.Error.NotAuthorized", message: "Operation Not Authorized", decision: .giveUp),
        Case(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed", decision: .giveUp),
        Case(name: "org.bluez.Error.AuthenticationTimeout", message: "Authentication Timeout", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.AuthenticationCanceled", message: "Authentication Canceled", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.AlreadyConnected", message: "Already Connected", decision: .alreadyDone),
        Case(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.NotConnected", message: "Not Connected", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.NotAvailable", message: "br-connection-profile-unavailable", decision: .retryWithBackoff),
        Case(name: "org.bluez.Error.NoSuchAdapter", message: "No such adapter", decision: .waitForAdapter),
    ]

    @Test(arguments: expectations)
    func eachErrorMapsToItsDecision(_ expected: Case) {
        let classification = BlueZErrorClassifier.classify(name: expected.name, message: expected.message)
        #expect(classification.decision == expected.decision)
        #expect(classification.isKnown)
    }

    @Test func theConcurrentConnectionLimitSignalsCapacity() {
        #expect(BlueZErrorClassifier.classify(name: "org.bluez.Error.Failed", message: "le-connection-concurrent-connection-limit").signalsCapacityLimit)
        #expect(BlueZErrorClassifier.classify(.local(.linkDropped(hciReason: 0x09))).signalsCapacityLimit)
        #expect(!BlueZErrorClassifier.classify(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local").signalsCapacityLimit)
    }

    @Test func unknownErrorsGetTheSafeDefaultAndAreMarkedUnknown() {
        let classification = BlueZErrorClassifier.classify(name: "org.example.Error.Weird", message: "what")
        #expect(classification.decision == .retryWithBackoff)
        #expect(!classification.isKnown)
        #expect(classification.code == "unknown")
        #expect(classification.explanation.contains("org.example.Error.Weird"))
        let empty = BlueZErrorClassifier.classify(name: "", message: "")
        #expect(empty.decision == .retryWithBackoff && !empty.isKnown)
    }

    @Test func surroundingWhitespaceDoesNotHideAKnownError() {
        let classification = BlueZErrorClassifier.classify(name: " org.bluez.Error.Failed", message: "le-connection-not-supported\n")
        #expect(classification.decision == .giveUp)
        #expect(classification.code == "le-connection-not-supported")
    }

    @Test func everyTableRowIsReachableAndNotShadowed() {
        for row in BlueZErrorClassifier.table {
            let found = BlueZErrorClassifier.row(name: row.name, message: row.message ?? "no such message text")
            #expect(found == row, "\(row.name) \(row.message ?? "*")")
        }
    }

    @Test func stringsNewerThanDebian12AreMarked() {
        let newer = BlueZErrorClassifier.table.filter { $0.since != "5.66" }.compactMap { $0.message ?? $0.name }
        #expect(Set(newer) == ["le-connection-key-missing", "br-connection-key-missing", "org.bluez.Error.BREDR.ProfileUnavailable"])
    }

    @Test func localCausesMapToTheirDecisions() {
        #expect(BlueZErrorClassifier.classify(.local(.connectTimedOut)).decision == .retryWithBackoff)
        #expect(BlueZErrorClassifier.classify(.local(.adapterPoweredOff)).decision == .waitForAdapter)
        #expect(BlueZErrorClassifier.classify(.local(.adapterRemoved)).decision == .waitForAdapter)
        #expect(BlueZErrorClassifier.classify(.local(.linkDropped(hciReason: nil))).decision == .retryWithBackoff)
        #expect(BlueZErrorClassifier.classify(.local(.linkDropped(hciReason: 0x08))).decision == .retryWithBackoff)
        #expect(BlueZErrorClassifier.classify(.local(.linkDropped(hciReason: 0x13))).decision == .retryWithBackoff)
        #expect(BlueZErrorClassifier.classify(.local(.linkDropped(hciReason: 0x3E))).decision == .retryWithBackoff)
        #expect(BlueZErrorClassifier.classify(.local(.linkDropped(hciReason: 0x1A))).decision == .giveUp)
        #expect(BlueZErrorClassifier.classify(.local(.linkDropped(hciReason: 0x05))).decision == .giveUp)
        let unknownReason = BlueZErrorClassifier.classify(.local(.linkDropped(hciReason: 0xEE)))
        #expect(unknownReason.decision == .retryWithBackoff && !unknownReason.isKnown && unknownReason.code == "hci-0xee")
        #expect(BlueZErrorClassifier.classify(.local(.linkDropped(hciReason: 0x08))).code == "hci-0x08")
    }
}
