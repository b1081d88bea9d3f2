/// A logger in the shape of swift-log: a value with a label, a minimum level and metadata that every
/// record carries, writing to a pluggable `LogHandler`.
public struct Logger: Sendable {
    public var label: String
    public var level: LogLevel
    public var metadata: [String: String]
    public var handler: any LogHandler

    public init(label: String, level: LogLevel = .info, metadata: [String: String] = [:], handler: any LogHandler) {
        self.label = label
        self.level = level
        self.metadata = metadata
        self.handler = handler
    }

    /// Metadata attached to every record of this logger, by key.
    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, id messageID: String? = nil,
                    metadata extra: [String: String] = [:], file: String = #fileID, line: UInt = #line, function: String = #function) {
        guard level >= self.level else { return }
        var merged = metadata
        for (key, value) in extra { merged[key] = value }
        handler.log(LogRecord(level: level, message: message(), messageID: messageID, metadata: merged, label: label,
                              file: file, line: line, function: function))
    }

    public func trace(_ message: @autoclosure () -> String, id: String? = nil, metadata: [String: String] = [:], file: String = #fileID, line: UInt = #line) {
        log(.trace, message(), id: id, metadata: metadata, file: file, line: line)
    }
    public func debug(_ message: @autoclosure () -> String, id: String? = nil, metadata: [String: String] = [:], file: String = #fileID, line: UInt = #line) {
        log(.debug, message(), id: id, metadata: metadata, file: file, line: line)
    }
    public func info(_ message: @autoclosure () -> String, id: String? = nil, metadata: [String: String] = [:], file: String = #fileID, line: UInt = #line) {
        log(.info, message(), id: id, metadata: metadata, file: file, line: line)
    }
    public func notice(_ message: @autoclosure () -> String, id: String? = nil, metadata: [String: String] = [:], file: String = #fileID, line: UInt = #line) {
        log(.notice, message(), id: id, metadata: metadata, file: file, line: line)
    }
    public func warning(_ message: @autoclosure () -> String, id: String? = nil, metadata: [String: String] = [:], file: String = #fileID, line: UInt = #line) {
        log(.warning, message(), id: id, metadata: metadata, file: file, line: line)
    }
    public func error(_ message: @autoclosure () -> String, id: String? = nil, metadata: [String: String] = [:], file: String = #fileID, line: UInt = #line) {
        log(.error, message(), id: id, metadata: metadata, file: file, line: line)
    }
    public func critical(_ message: @autoclosure () -> String, id: String? = nil, metadata: [String: String] = [:], file: String = #fileID, line: UInt = #line) {
        log(.critical, message(), id: id, metadata: metadata, file: file, line: line)
    }
}

/// Sends every record to several handlers (e.g. journald and a live `watch` feed).
public struct MultiplexLogHandler: LogHandler {
    public var handlers: [any LogHandler]
    public init(_ handlers: [any LogHandler]) { self.handlers = handlers }
    public func log(_ record: LogRecord) {
        for handler in handlers { handler.log(record) }
    }
}
