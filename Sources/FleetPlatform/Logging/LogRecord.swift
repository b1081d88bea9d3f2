/// One log event as handed to a `LogHandler`.
public struct LogRecord: Sendable {
    public var level: LogLevel
    public var message: String
    /// A journald MESSAGE_ID (32 hex digits) for events that have a catalog entry.
    public var messageID: String?
    /// Metadata keys as written in code (e.g. `device`); handlers render them their own way.
    public var metadata: [String: String]
    public var label: String
    public var file: String
    public var line: UInt
    public var function: String

    public init(level: LogLevel, message: String, messageID: String? = nil, metadata: [String: String] = [:],
                label: String, file: String = #fileID, line: UInt = #line, function: String = #function) {
        self.level = level
        self.message = message
        self.messageID = messageID
        self.metadata = metadata
        self.label = label
        self.file = file
        self.line = line
        self.function = function
    }
}

/// Where log records go: journald, stderr, memory in tests. Handlers must be safe to call from any thread.
public protocol LogHandler: Sendable {
    func log(_ record: LogRecord)
}
