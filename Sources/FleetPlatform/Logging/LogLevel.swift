/// Severity of a log record, in the order of swift-log's levels, with the syslog priority journald stores.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error, critical

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

    /// The syslog priority (journald's PRIORITY field).
    public var syslogPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        case .critical: "critical"
        }
    }

    /// Parses a level name as written in a config file or on the command line.
    public init?(name: String) {
        guard let level = LogLevel.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
        self = level
    }
}
