import FleetPlatform
import Synchronization

/// Keeps every log record in memory so tests can assert what was logged.
public final class RecordingLogHandler: LogHandler, Sendable {
    private let storage = Mutex<[LogRecord]>([])
    public init() {}
    public func log(_ record: LogRecord) { storage.withLock { $0.append(record) } }
    public var records: [LogRecord] { storage.withLock { $0 } }
    public func records(id: String) -> [LogRecord] { records.filter { $0.messageID == id } }
}
