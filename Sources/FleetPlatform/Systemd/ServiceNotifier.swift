internal import CSystemd
import FleetSystem

/// The sd_notify protocol: tells the service manager we are ready, what we are doing, that we are alive,
/// and that we are stopping. Without `NOTIFY_SOCKET` every call is a no-op that returns false.
public struct ServiceNotifier: Sendable {
    public init() {}

    /// Sends raw `KEY=value` lines; true when a service manager received them. A failed send is false
    /// like an absent manager (the notifications are advisory); `deliver` says why it failed.
    @discardableResult
    public func notify(_ lines: [String]) -> Bool {
        (try? deliver(lines)) ?? false
    }

    /// Sends raw `KEY=value` lines: true when delivered, false when `NOTIFY_SOCKET` is unset, and the
    /// errno sd_notify met otherwise (a stale socket is `.connectionRefused`).
    public func deliver(_ lines: [String]) throws(Errno) -> Bool {
        let result = lines.joined(separator: "\n").withCString { sd_notify(0, $0) }
        // libsystemd reports failure as a negated errno rather than through errno.
        if result < 0 { throw Errno(rawValue: -result) }
        return result > 0
    }

    @discardableResult public func ready(status: String? = nil) -> Bool {
        notify(["READY=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
    }
    @discardableResult public func status(_ text: String) -> Bool { notify(["STATUS=\(text)"]) }
    @discardableResult public func watchdog() -> Bool { notify(["WATCHDOG=1"]) }
    @discardableResult public func stopping(status: String? = nil) -> Bool {
        notify(["STOPPING=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
    }
    @discardableResult public func reloading() -> Bool { notify(["RELOADING=1"]) }

    /// The watchdog interval the manager expects pings within, from `WATCHDOG_USEC` (and `WATCHDOG_PID`
    /// when set, which must be ours); nil when the watchdog is off.
    public func watchdogInterval() -> Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(usec))
    }
}
