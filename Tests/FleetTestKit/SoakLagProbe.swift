/// How far behind real time the path a value takes runs: the simulator, the bus, fleetd's event loop, its Watch
/// stream and the soak's reader. Measured by probes: the soak asks the simulator (`Notify`) to send a marked
/// value now on a ready device's subscription, and times it from the request to its arrival on the Watch stream.
///
/// Rule 3's allowances for late values and for link losses fleetd has not heard yet are this measured lag plus
/// the poll and probe periods (docs/soak.md), not a fixed second: on a loaded 2-core machine with a debug fleetd
/// the lag after a restart or an adapter's return reaches seconds, and values are late but not lost.
///
/// A value type fed with real time (seconds since the soak began). The path is first in, first out (one bus
/// connection from the simulator, fleetd's events in arrival order, one Watch stream), so a probe that arrives
/// accounts for every earlier one still outstanding: those were lost (counted, never waited for again).
///
/// For the same reason a probe that comes back shows that everything sent before it got through, and nothing
/// more: what was sent since may still be on its way, however late (`sinceLatestArrival`).
public struct SoakLagProbe: Sendable {
    /// The first bytes of a probe's value; a battery level is one byte, so no real value starts like this.
    public static let marker: [UInt8] = [0xF0, 0x0D]

    /// The value of probe `number`: the marker, then the number (4 bytes, big-endian).
    public static func value(_ number: Int) -> [UInt8] {
        let n = UInt32(truncatingIfNeeded: number)
        return marker + [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
    }

    /// The probe number a value carries, or nil if it is not a probe's.
    public static func number(in value: [UInt8]) -> Int? {
        guard value.count == 6, Array(value.prefix(2)) == marker else { return nil }
        return value[2...].reduce(0) { $0 << 8 | Int($1) }
    }

    /// Probes on their way, oldest first.
    private var outstanding: [(number: Int, sent: Double)] = []
    /// Recent arrivals (the last minute), for the largest lag over a stretch of time.
    private var samples: [(at: Double, lag: Double)] = []
    private var lastLag: Double?
    /// When the last probe that arrived had been sent.
    private var lastArrivedSent: Double?
    private var nextNumber = 1

    /// Probes that arrived, were lost (a later one arrived first), or were given up at a restart.
    public private(set) var arrivals = 0
    public private(set) var lost = 0
    public private(set) var abandoned = 0
    public private(set) var largest = 0.0
    private var total = 0.0

    public init() {}

    /// The mean lag of the probes that arrived.
    public var mean: Double { arrivals == 0 ? 0 : total / Double(arrivals) }

    /// A new probe, sent at `now` (before the request, so that its arrival can never come first); returns its
    /// number. `withdraw` it if the simulator had nothing to send it on.
    public mutating func send(at now: Double) -> Int {
        let number = nextNumber
        nextNumber += 1
        outstanding.append((number, now))
        return number
    }

    /// The simulator sent nothing for this probe (no notify session any more).
    public mutating func withdraw(_ number: Int) {
        outstanding.removeAll { $0.number == number }
    }

    /// Probe `number` arrived on the Watch stream at `now`. Returns its lag, or nil for a probe no longer
    /// awaited.
    @discardableResult
    public mutating func arrived(_ number: Int, at now: Double) -> Double? {
        guard let index = outstanding.firstIndex(where: { $0.number == number }) else { return nil }
        let lag = max(0, now - outstanding[index].sent)
        lastArrivedSent = outstanding[index].sent
        lost += index
        outstanding.removeFirst(index + 1)
        arrivals += 1
        total += lag
        largest = max(largest, lag)
        lastLag = lag
        samples.append((now, lag))
        if let first = samples.first, now - first.at > 60 { samples.removeAll { now - $0.at > 60 } }
        return lag
    }

    /// fleetd was restarted: the probes on their way will not come, and the new fleetd's lag is its own.
    public mutating func restarted() {
        abandoned += outstanding.count
        outstanding.removeAll()
        lastLag = nil
    }

    /// The simulator was killed at `now`: the probes on their way will not come, but how long they had been
    /// travelling is a measure of the lag fleetd still has to work off (it hears the kill behind them), so the
    /// lag stays at least that until a probe arrives again.
    public mutating func pathCut(at now: Double) {
        lastLag = lag(at: now)
        abandoned += outstanding.count
        outstanding.removeAll()
    }

    /// How long the oldest probe still on its way has been travelling at `now`.
    public func oldestOutstanding(at now: Double) -> Double? {
        outstanding.first.map { now - $0.sent }
    }

    /// How long ago the latest probe that came back had been sent (nil before the first): anything sent since
    /// then is not known to have got through.
    public func sinceLatestArrival(at now: Double) -> Double? {
        lastArrivedSent.map { now - $0 }
    }

    /// The lag at `now`: the last arrival's, or more while a probe sent since is still on its way.
    public func lag(at now: Double) -> Double {
        max(lastLag ?? 0, oldestOutstanding(at: now) ?? 0)
    }

    /// When the first probe sent at or after `from` came back (among the last minute's arrivals; a later one
    /// serves when the first has aged out), nil while none has.
    public func firstArrival(sentFrom from: Double) -> Double? {
        samples.first { $0.at - $0.lag >= from }?.at
    }

    /// When the latest probe that had come back by `time` was sent (among the last minute's arrivals), nil while
    /// none had: fleetd had taken in every signal sent before it by then (the path is first in, first out), and
    /// is not known to have taken in any sent after it.
    public func sentOfLatestArrival(by time: Double) -> Double? {
        samples.last { $0.at <= time }.map { $0.at - $0.lag }
    }

    /// Whether a probe came back between `from` and `to` (among the last minute's arrivals).
    public func anyArrival(from: Double, to: Double) -> Bool {
        samples.contains { $0.at >= from && $0.at <= to }
    }

    /// The largest lag measured from `from` to `now` (arrivals in between, and the lag now).
    public func largestLag(from: Double, to now: Double) -> Double {
        samples.reduce(lag(at: now)) { $1.at >= from ? max($0, $1.lag) : $0 }
    }
}
