/// One row of the error-class table: which D-Bus error (and, where BlueZ puts the detail in the message,
/// which message) leads to which decision, and where the string comes from.
public struct ErrorClassRow: Sendable, Hashable {
    /// The D-Bus error name, e.g. `org.bluez.Error.Failed`.
    public let name: String
    /// The exact message, or `nil` for "any message of this name" (the fallback row for the name).
    public let message: String?
    public let decision: RetryDecision
    public let signalsCapacityLimit: Bool
    /// ``ErrorClassification/isLeftoverConnect``.
    public let isLeftoverConnect: Bool
    /// The BlueZ release range that sends this string, e.g. "5.66" for strings present in Debian 12's
    /// bluetoothd, "5.69+" for strings added later (kept so a newer bluetoothd is classified too).
    public let since: String
    public let explanation: String

    init(
        _ name: String,
        _ message: String? = nil,
        _ decision: RetryDecision,
        limit: Bool = false,
        leftover: Bool = false,
        since: String = "5.66",
        _ explanation: String
    ) {
        self.name = name
        self.message = message
        self.decision = decision
        self.signalsCapacityLimit = limit
        self.isLeftoverConnect = leftover
        self.since = since
        self.explanation = explanation
    }
}
