import Foundation

/// Invariant 6's bound: how long after the last fault every wanted, present device may take to be ready,
/// derived from the policy fleetd was given, in simulated seconds (see `SoakPolicy` for the time base).
///
/// The longest path back to ready once faults stop: the device is in backoff (or waiting for an adapter's or
/// bluetoothd's recovery window, which Policy keeps within the cap, or evicted while an adapter was off and
/// waiting its hold-off); its retry may go to an address it no
/// longer answers at (a rotation, a pause) and fail after the connect timeout or BlueZ's LE connection
/// timeout, whichever is longer; it backs off once more; it waits its turn on its adapter, where connects are
/// serial (one connect and set-up at a time); and it must be heard once (an advertising interval). Control
/// polling and fleetd's own processing run in real time: one real second is added for them.
public struct SoakBound: Sendable {
    public struct Term: Sendable {
        public var seconds: Double
        public var why: String
    }

    public let terms: [Term]
    public var seconds: Double { terms.map(\.seconds).reduce(0, +) }

    /// BlueZ 5.66's kernel LE connection timeout (HCI_LE_CONN_TIMEOUT), as the simulator models it.
    public static let leConnectionTimeout = 20.0

    /// - Parameter connectCycle: simulated seconds one successful connect and set-up holds an adapter
    ///   (measured while the fleet first came up).
    public init(policy: SoakPolicy, fleet: SoakFleet, timeScale: Double, connectCycle: Double) {
        let cap = policy.maximum(\.cap)
        let recovery = policy.maximum(\.recoveryWindow)
        let timeout = max(policy.maximum(\.connectTimeout), Self.leConnectionTimeout)
        let perAdapter = (fleet.devices.count + fleet.adapters - 1) / fleet.adapters
        terms = [
            Term(seconds: max(cap, recovery, policy.evictionHoldOff),
                 why: "a retry scheduled just before the last fault: backoff cap \(Self.s(cap)) (an adapter's return spreads reconnects over the recovery window, \(Self.s(recovery)); a device evicted while an adapter was off waits the eviction hold-off, \(Self.s(policy.evictionHoldOff)))"),
            Term(seconds: timeout, why: "one attempt to an address the device no longer answers at fails (max of connect timeout \(Self.s(policy.maximum(\.connectTimeout))), LE connection timeout \(Self.s(Self.leConnectionTimeout)))"),
            Term(seconds: cap, why: "its retry after that failure (backoff cap)"),
            Term(seconds: Double(perAdapter) * connectCycle,
                 why: "serial connects per adapter: \(perAdapter) devices × \(Self.s(connectCycle)) per connect and set-up"),
            Term(seconds: SoakFleet.advertisingInterval, why: "heard once more (advertising interval)"),
            Term(seconds: timeScale, why: "1 real second of control polling and fleetd processing"),
        ]
    }

    /// The derivation, one term per line, as the soak prints it.
    public func derivation(timeScale: Double) -> String {
        var lines = terms.map { "  + " + String(format: "%7.1f s  ", $0.seconds) + $0.why }
        lines.append(String(format: "  = %7.1f s simulated (%.1f s real at time scale %g)", seconds, seconds / timeScale, timeScale))
        return lines.joined(separator: "\n")
    }

    static func s(_ seconds: Double) -> String { String(format: "%g s", (seconds * 10).rounded() / 10) }
}
