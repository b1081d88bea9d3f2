/// A configuration or usage mistake detected by the Policy library, with a code for programs and a message
/// naming what was wrong for people.
public struct PolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake it was.
    public enum Code: String, Sendable, Hashable {
        case invalidBackoff
        case invalidClassConfiguration
        case invalidCapacity
        /// A second connect was started on an adapter that already has one in flight.
        case connectAlreadyInFlight
        /// A link or connect was reported for a device that already holds a link on this adapter.
        case alreadyLinked
        /// A link came up while the table had no free slot for it.
        case noFreeSlot
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
