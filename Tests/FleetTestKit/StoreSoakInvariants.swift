import Foundation

/// The storage fault soak's rules (issue 41), as a pure checker: the soak feeds it what each consumer received,
/// the faults it injected and what fleetd said, and it answers with violations. No I/O, no clock: the unit tests
/// feed it made-up observations (Tests/SoakTests/StoreSoakInvariantsTests.swift).
///
/// The delivery semantics held to are exactly the documented ones:
/// - MQTT (docs/mqtt.md, "Delivery: QoS 1, at least once"): after a lost connection the unacknowledged publishes
///   are sent again, so a subscriber may see a reading twice, but never one "out of nowhere".
/// - The durable watch consumer (docs/state-store.md, `Acknowledge`): a crash of fleetd can make a consumer see
///   again at most `commit-delay` of acknowledgements, never skip.
/// So a consumer may go back within a (device, epoch) only to re-deliver a (seq, value) it already saw, and only
/// after an event that permits it (`allowRedelivery`: a fleetd kill for both consumers, a broker restart or a
/// refused publish for MQTT). Anything else going backwards is a violation.
public struct StoreSoakInvariants: Sendable {
    public enum Rule: String, Sendable, CaseIterable {
        /// (a) a consumer saw a seq lower than or equal to one it saw before, within an epoch, not as a permitted
        /// re-delivery.
        case backwards = "sequence-backwards"
        /// (b) (device, epoch, seq) named two different values.
        case conflicting = "conflicting-value"
        /// (c) a delivered reading fleetd never committed.
        case outOfNowhere = "out-of-nowhere"
        /// (c) committed readings neither delivered to a consumer nor counted dropped with a reason.
        case unaccounted = "unaccounted"
        /// (d) READY while the outbox could not be written.
        case readyWithoutOutbox = "ready-without-outbox"
    }

    public struct Violation: Sendable, CustomStringConvertible, Equatable {
        public var rule: Rule
        public var detail: String
        public var description: String { "\(rule.rawValue): \(detail)" }
    }

    public struct Key: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var device: String
        public var epoch: String
        public init(device: String, epoch: String) { self.device = device; self.epoch = epoch }
        public var description: String { "\(device)@\(epoch)" }
        public static func < (a: Key, b: Key) -> Bool { (a.device, a.epoch) < (b.device, b.epoch) }
    }

    public struct Reading: Hashable, Sendable {
        public var key: Key
        public var seq: Int64
        public var value: UInt32
        public init(device: String, epoch: String, seq: Int64, value: UInt32) {
            key = Key(device: device, epoch: epoch); self.seq = seq; self.value = value
        }
    }

    private struct Stream: Sendable {
        var last: Int64 = 0
        var seen: [Int64: UInt32] = [:]
        /// Set by a permitting event; the next step back (to a seen reading) consumes it.
        var mayRewind = false
    }

    /// Every (key, seq) → value named by anyone (consumers, the outbox).
    private var named: [Key: [Int64: UInt32]] = [:]
    private var streams: [String: [Key: Stream]] = [:]
    private var outboxWritable = true
    public private(set) var violations: [Violation] = []
    public private(set) var readyCount = 0
    public private(set) var redeliveries: [String: Int] = [:]

    public init(consumers: [String]) {
        for c in consumers { streams[c] = [:] }
    }

    public var consumers: [String] { streams.keys.sorted() }

    // MARK: (b) one value per number

    @discardableResult
    private mutating func name(_ r: Reading, by who: String) -> Violation? {
        if let v = named[r.key, default: [:]][r.seq], v != r.value {
            let found = Violation(rule: .conflicting, detail: "\(r.key) seq \(r.seq) is \(v) and \(r.value) (\(who))")
            violations.append(found)
            return found
        }
        named[r.key, default: [:]][r.seq] = r.value
        return nil
    }

    /// A reading fleetd's outbox holds (read with sqlite3 or `fleetctl readings`).
    @discardableResult
    public mutating func committed(_ r: Reading) -> [Violation] {
        name(r, by: "outbox").map { [$0] } ?? []
    }

    // MARK: (a) never backwards within an epoch

    /// An event after which `consumer` may be sent again what it saw (a fleetd kill; for MQTT also a broker
    /// restart or refusal).
    public mutating func allowRedelivery(_ consumer: String) {
        guard var s = streams[consumer] else { return }
        for k in s.keys { s[k]!.mayRewind = true }
        streams[consumer] = s
    }

    @discardableResult
    public mutating func delivered(_ r: Reading, to consumer: String) -> [Violation] {
        var found: [Violation] = []
        if let v = name(r, by: consumer) { found.append(v) }
        var s = streams[consumer, default: [:]][r.key, default: Stream()]
        if r.seq > s.last {
            s.last = r.seq
        } else if s.mayRewind, s.seen[r.seq] == r.value {
            // A re-delivery from the acknowledged cursor: from here the replay must go forward again.
            s.mayRewind = false
            s.last = r.seq
            redeliveries[consumer, default: 0] += 1
        } else {
            // A duplicate without a permitting event is not excused either.
            let v = Violation(rule: .backwards,
                              detail: "\(consumer): \(r.key) seq \(r.seq) after \(s.last)\(s.seen[r.seq] == nil ? " (never seen)" : "")")
            violations.append(v); found.append(v)
        }
        s.seen[r.seq] = r.value
        streams[consumer]![r.key] = s
        return found
    }

    // MARK: (d) READY only with a writable outbox

    /// The soak made the outbox unwritable (filesystem full, file unopenable) or gave it back.
    public mutating func outbox(writable: Bool) { outboxWritable = writable }

    @discardableResult
    public mutating func ready(_ detail: String = "") -> [Violation] {
        readyCount += 1
        guard !outboxWritable else { return [] }
        let v = Violation(rule: .readyWithoutOutbox, detail: "READY=1 while the outbox could not be written \(detail)")
        violations.append(v)
        return [v]
    }

    // MARK: (c) the end: every committed reading delivered or counted dropped

    public struct Figures: Sendable, CustomStringConvertible {
        public var committed = 0
        public var delivered: [String: Int] = [:]
        public var undelivered: [String: Int] = [:]
        public var dropped: [String: Int] = [:]
        public var description: String {
            let d = delivered.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let r = dropped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "readings committed \(committed), delivered \(d.isEmpty ? "none" : d), dropped \(r.isEmpty ? "none" : r)"
        }
    }

    /// Reconciles at the end. `committed` is every reading fleetd committed during the run (the outbox read
    /// along the run plus what the moved-aside files held); `dropped` is fleetd's own count by reason (stats:
    /// retention, in memory; a moved-aside file's readings). For each consumer, the committed readings it did not
    /// receive must be covered by the counted drops; a delivered reading must have been committed.
    public mutating func reconcile(committed: Set<Reading>, dropped: [String: Int]) -> (Figures, [Violation]) {
        var figures = Figures(committed: committed.count, dropped: dropped.filter { $0.value > 0 })
        var found: [Violation] = []
        let counted = dropped.values.reduce(0, +)
        let committedNumbers = Set(committed.map { NumberKey(key: $0.key, seq: $0.seq) })
        for (consumer, keys) in streams.sorted(by: { $0.key < $1.key }) {
            var got = Set<NumberKey>()
            for (k, s) in keys { for seq in s.seen.keys { got.insert(NumberKey(key: k, seq: seq)) } }
            figures.delivered[consumer] = got.count
            let nowhere = got.subtracting(committedNumbers)
            if let first = nowhere.sorted().first {
                found.append(Violation(rule: .outOfNowhere,
                                       detail: "\(consumer) received \(nowhere.count) readings never committed, first \(first.key) seq \(first.seq)"))
            }
            let missing = committedNumbers.subtracting(got)
            figures.undelivered[consumer] = missing.count
            if missing.count > counted, let first = missing.sorted().first {
                found.append(Violation(rule: .unaccounted,
                                       detail: "\(consumer) lacks \(missing.count) committed readings, fleetd counted \(counted) dropped; first \(first.key) seq \(first.seq)"))
            }
        }
        violations += found
        return (figures, found)
    }

    private struct NumberKey: Hashable, Comparable {
        var key: Key
        var seq: Int64
        static func < (a: NumberKey, b: NumberKey) -> Bool { (a.key, a.seq) < (b.key, b.seq) }
    }
}
