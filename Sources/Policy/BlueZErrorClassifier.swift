/// Maps what BlueZ (or fleetd itself) reports about a failed connect or a lost link to a ``RetryDecision``.
///
/// The D-Bus rows come from BlueZ's `src/error.h` and `src/error.c` at tag 5.66 (Debian 12), where
/// `Device1.Connect` fails with `org.bluez.Error.Failed` and one of the `le-connection-*` /
/// `br-connection-*` strings (`btd_error_le_conn_from_errno`), and from `src/device.c` 5.66, whose
/// `connect_profiles` answers `InProgress: br-connection-busy` and `NotReady:
/// br-connection-adapter-not-powered` even for LE devices. Strings added after 5.66 (`le-connection-key-missing`,
/// `org.bluez.Error.BREDR.ProfileUnavailable`, both 5.69) are marked `since: "5.69+"`; 5.69 also dropped
/// `br-connection-profile-unavailable`.
///
/// bleak-retry-connector (4.4, `src/bleak_retry_connector/__init__.py`) treats `le-connection-abort-by-local`
/// and `br-connection-canceled` as transient, maps `org.freedesktop.DBus.Error.UnknownObject` to "device
/// missing", and retries any D-Bus error or timeout after 0.25 s up to nine times (`MAX_TRANSIENT_ERRORS`);
/// those become `retryWithBackoff` (the first three) and `retrySoon` (D-Bus hiccups) here.
///
/// Anything not in the table is classified `retryWithBackoff` with `isKnown == false`, so an unexpected error
/// is retried safely and can be logged as unknown.
public enum BlueZErrorClassifier {
    /// Classifies one failure.
    public static func classify(_ failure: ConnectFailure) -> ErrorClassification {
        switch failure {
        case let .dbus(name, message):
            return classifyDBus(failure, name: name, message: message)
        case let .local(cause):
            return classifyLocal(failure, cause)
        }
    }

    /// Classifies a D-Bus error reply.
    public static func classify(name: String, message: String) -> ErrorClassification {
        classify(.dbus(name: name, message: message))
    }

    /// The row a D-Bus error matches: the exact (name, message) row, else the name's any-message row.
    public static func row(name: String, message: String) -> ErrorClassRow? {
        let name = name.trimmed
        let message = message.trimmed
        return rowsByNameAndMessage[RowKey(name: name, message: message)]
            ?? rowsByNameAndMessage[RowKey(name: name, message: nil)]
    }

    private static func classifyDBus(_ failure: ConnectFailure, name: String, message: String) -> ErrorClassification {
        guard let row = row(name: name, message: message) else {
            return ErrorClassification(
                failure: failure,
                decision: .retryWithBackoff,
                code: "unknown",
                isKnown: false,
                signalsCapacityLimit: false,
                explanation: "unknown error \(failure); retrying with backoff as the safe default"
            )
        }
        return ErrorClassification(
            failure: failure,
            decision: row.decision,
            code: row.message ?? lastComponent(of: row.name),
            isKnown: true,
            signalsCapacityLimit: row.signalsCapacityLimit,
            explanation: row.explanation,
            isLeftoverConnect: row.isLeftoverConnect
        )
    }

    private static func classifyLocal(_ failure: ConnectFailure, _ cause: LocalCause) -> ErrorClassification {
        switch cause {
        case .connectTimedOut:
            return ErrorClassification(
                failure: failure, decision: .retryWithBackoff, code: "connect-timeout", isKnown: true,
                signalsCapacityLimit: false,
                explanation: "Connect did not complete in time; the device is out of range or not advertising. "
                    + "Disconnect cancels BlueZ's pending connect; retry with backoff"
            )
        case .adapterPoweredOff:
            return ErrorClassification(
                failure: failure, decision: .waitForAdapter, code: "adapter-off", isKnown: true,
                signalsCapacityLimit: false, explanation: "the adapter is powered off; wait for it, no attempt is burnt"
            )
        case .adapterRemoved:
            return ErrorClassification(
                failure: failure, decision: .waitForAdapter, code: "adapter-removed", isKnown: true,
                signalsCapacityLimit: false, explanation: "the adapter is gone; wait for it, no attempt is burnt"
            )
        case .linkDropped(nil):
            return ErrorClassification(
                failure: failure, decision: .retryWithBackoff, code: "link-dropped", isKnown: true,
                signalsCapacityLimit: false, explanation: "the link dropped; reconnect with backoff"
            )
        case let .linkDropped(reason?):
            let code = "hci-0x" + String(reason, radix: 16).leftPadded(to: 2)
            guard let hci = hciReasons[reason] else {
                return ErrorClassification(
                    failure: failure, decision: .retryWithBackoff, code: code, isKnown: false,
                    signalsCapacityLimit: false,
                    explanation: "link dropped with unknown HCI reason \(code); reconnect with backoff as the safe default"
                )
            }
            return ErrorClassification(
                failure: failure, decision: hci.decision, code: code, isKnown: true,
                signalsCapacityLimit: hci.signalsCapacityLimit, explanation: "\(hci.name): \(hci.explanation)"
            )
        }
    }

    private struct RowKey: Hashable {
        let name: String
        let message: String?
    }

    private static let rowsByNameAndMessage: [RowKey: ErrorClassRow] = {
        var rows: [RowKey: ErrorClassRow] = [:]
        // The first row for a key wins, so the table reads top to bottom like a match statement.
        for row in table where rows[RowKey(name: row.name, message: row.message)] == nil {
            rows[RowKey(name: row.name, message: row.message)] = row
        }
        return rows
    }()

    private static func lastComponent(of name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }
}

extension String {
    var trimmed: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
