internal import CSystemd
#if canImport(Glibc)
import Glibc
#endif

/// Writes records to journald with `sd_journal_sendv`: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, MESSAGE_ID when
/// given, CODE_FILE/CODE_LINE/CODE_FUNC, and each metadata key as a sanitised `FLEET_…` field.
public struct JournalLogHandler: LogHandler {
    public var identifier: String

    public init(identifier: String) { self.identifier = identifier }

    public func log(_ record: LogRecord) {
        var fields = [
            "MESSAGE=\(record.message)",
            "PRIORITY=\(record.level.syslogPriority)",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(record.file)",
            "CODE_LINE=\(record.line)",
            "CODE_FUNC=\(record.function)",
        ]
        if let id = record.messageID { fields.append("MESSAGE_ID=\(id)") }
        for key in record.metadata.keys.sorted() {
            fields.append("\(JournalField.name(forMetadataKey: key))=\(record.metadata[key]!)")
        }
        let result = Self.send(fields)
        if result < 0 {
            // journald refused the entry (e.g. a stale socket): the record still goes somewhere visible.
            StderrLogHandler().log(LogRecord(level: record.level, message: "\(record.message) (journald unavailable: error \(-result))",
                                             messageID: record.messageID, metadata: record.metadata, label: record.label,
                                             file: record.file, line: record.line, function: record.function))
        }
    }

    /// Sends raw `FIELD=value` entries; returns sd_journal_sendv's result (0 also when nobody listens).
    @discardableResult
    static func send(_ fields: [String]) -> Int32 {
        // Each iovec must point at storage that outlives the call, so the bytes are copied into one buffer.
        let encoded = fields.map { Array($0.utf8) }
        let total = encoded.reduce(0) { $0 + $1.count }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(total, 1)) { buffer in
            var vectors: [iovec] = []
            vectors.reserveCapacity(encoded.count)
            var offset = 0
            for field in encoded {
                let start = buffer.baseAddress! + offset
                field.withUnsafeBufferPointer { source in
                    start.update(from: source.baseAddress!, count: source.count)
                }
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(start), iov_len: field.count))
                offset += field.count
            }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
    }
}

/// Chooses the log destination the way systemd daemons do.
public enum LogDestination: String, Sendable {
    case journal, stderr, automatic

    /// journald when asked, or when `JOURNAL_STREAM` says our stderr is already connected to the journal
    /// (we were started by systemd); stderr otherwise.
    public func handler(identifier: String, environment: [String: String]) -> any LogHandler {
        switch self {
        case .journal: return JournalLogHandler(identifier: identifier)
        case .stderr: return StderrLogHandler()
        case .automatic:
            return Self.stderrIsJournal(environment["JOURNAL_STREAM"]) ? JournalLogHandler(identifier: identifier) : StderrLogHandler()
        }
    }

    /// `JOURNAL_STREAM` is `device:inode` of the stream journald handed us; it counts only if fd 2 is that stream.
    static func stderrIsJournal(_ value: String?) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
