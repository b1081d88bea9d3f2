/// Why an outbox call was refused or did not complete.
public enum OutboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The outbox has been closed.
    case closed
    /// A consumer acknowledged a cursor the outbox has not committed yet.
    case acknowledgementBeyondCommitted(consumer: String, cursor: Int64, lastCommitted: Int64)
    /// A consumer name that is empty, longer than 200 bytes, or has control characters.
    case invalidConsumerName(String)
    /// A replay limit below 1.
    case invalidLimit(Int)
    /// The database refused the write or read (a full disk, an I/O error, corruption).
    case storage(SQLiteError)

    public var description: String {
        switch self {
        case .closed: return "the outbox is closed"
        case .acknowledgementBeyondCommitted(let consumer, let cursor, let last):
            return "consumer \(consumer) acknowledged \(cursor), beyond the last committed reading \(last)"
        case .invalidConsumerName(let name): return "invalid consumer name \(String(reflecting: name)): 1–200 bytes, no control characters"
        case .invalidLimit(let limit): return "invalid replay limit \(limit): must be at least 1"
        case .storage(let error): return error.description
        }
    }
}
