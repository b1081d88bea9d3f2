import FleetSystem
#if canImport(Glibc)
import Glibc
#endif

/// Human-readable log lines on stderr: `2026-12-01T08:00:00Z info fleetd: connected [device=… adapter=hci0]`.
/// Used when not running under systemd (or when asked). Messages and metadata carry text from outside (device
/// names from adverts), so their control characters are escaped (`DisplayText`): one record is one line, and
/// nothing in it reaches the terminal as an escape sequence.
public struct StderrLogHandler: LogHandler {
    /// Where lines go: standard error, or (in tests) another descriptor the caller keeps open.
    let descriptor: Int32

    public init(descriptor: Int32 = STDERR_FILENO) {
        self.descriptor = descriptor
    }

    public func log(_ record: LogRecord) {
        var line = "\(Self.timestamp()) \(record.level) \(record.label): \(DisplayText.escaped(record.message))"
        if !record.metadata.isEmpty {
            line += " [" + record.metadata.keys.sorted().map { "\(DisplayText.escaped($0))=\(DisplayText.escaped(record.metadata[$0]!))" }
                .joined(separator: " ") + "]"
        }
        line += "\n"
        // One write(2) per line, so lines from several threads never interleave. A failed write to stderr
        // has nowhere left to be reported, so it is dropped here, deliberately.
        FileDescriptor.borrowing(descriptor) { stderr in try? stderr.writeAll(line.utf8) }
    }

    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ v: Int32, _ width: Int = 2) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let millis = pad(Int32(now.tv_nsec / 1_000_000), 3)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)).\(millis)Z"
    }
}
