import Foundation

/// The storage soak's faults (issue 41), drawn from a seed: a pure function, so `make soak-store SEED=…`
/// replays a run's schedule exactly.
public enum StoreSoakFaultKind: String, Sendable, CaseIterable, Comparable {
    /// Fill the outbox's small filesystem, hold it full, free it.
    case diskFull = "disk-full"
    /// Step the wall clock (libfaketime's timestamp file) forward or back by minutes to hours.
    case clockStep = "clock-step"
    /// Restart mosquitto (persistence on).
    case brokerRestart = "broker-restart"
    /// The reason-code proxy refuses publishes with a transient code (0x97 quota exceeded, 0x80) for a while.
    case brokerRefusal = "broker-refusal"
    /// SIGKILL fleetd and start it again.
    case fleetdKill = "fleetd-kill"
    /// Stop fleetd, corrupt a page of the outbox file, start it (a new epoch must begin).
    case corruptPage = "corrupt-page"
    /// Stop fleetd, fill the filesystem, start it (no READY), free it (READY).
    case startFull = "start-full"

    var weight: Int {
        switch self {
        case .diskFull: 6
        case .clockStep: 8
        case .brokerRestart: 4
        case .brokerRefusal: 6
        case .fleetdKill: 4
        case .corruptPage: 1
        case .startFull: 1
        }
    }

    /// Kinds that stop or restart fleetd; kept `fleetdSpacing` apart.
    var stopsFleetd: Bool { self == .fleetdKill || self == .corruptPage || self == .startFull }

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

public struct StoreSoakFault: Sendable, Equatable, CustomStringConvertible {
    /// Seconds from the start of the run.
    public var at: Double
    public var kind: StoreSoakFaultKind
    /// How long the fault holds (disk full, refusal, broker or fleetd down), in seconds.
    public var duration: Double
    /// clock-step: seconds the wall clock moves (±); broker-refusal: the reason code; corrupt-page: the page.
    public var amount: Int

    public var description: String {
        let t = String(format: "%7.2f", at)
        switch kind {
        case .clockStep: return "\(t) \(kind.rawValue) \(amount >= 0 ? "+" : "")\(amount)s"
        case .brokerRefusal: return "\(t) \(kind.rawValue) 0x\(String(amount, radix: 16)) for \(String(format: "%.1f", duration))s"
        case .corruptPage: return "\(t) \(kind.rawValue) page \(amount)"
        default: return "\(t) \(kind.rawValue) for \(String(format: "%.1f", duration))s"
        }
    }
}

public struct StoreSoakSchedule: Sendable {
    public var seed: UInt64
    public var seconds: Double
    public var faults: [StoreSoakFault]

    /// Mean gap between faults, and the least gap between two that stop fleetd.
    public static let meanGap = 4.0
    public static let fleetdSpacing = 10.0
    /// Transient reason codes the proxy answers with (MQTT 5: quota exceeded, unspecified error).
    public static let refusalCodes = [0x97, 0x80]

    /// The faults of `seconds` of run. Every run with more than `2 * fleetdSpacing` seconds holds at least one
    /// start-full and one corrupt-page (invariant (d) and the new-epoch path must be exercised each run): they
    /// are placed first, then the rest is drawn.
    public init(seed: UInt64, seconds: Double) {
        self.seed = seed
        self.seconds = seconds
        var random = SoakRandom(seed: seed)
        var faults: [StoreSoakFault] = []
        var stops: [Double] = []
        let end = seconds - 5  // the last seconds are quiet: the run then reconciles
        func fits(_ t: Double) -> Bool { stops.allSatisfy { abs($0 - t) >= Self.fleetdSpacing } }
        func draw(_ kind: StoreSoakFaultKind, at t: Double) -> StoreSoakFault {
            switch kind {
            case .clockStep:
                let magnitude = Int(Double.random(in: 60...7200, using: &random))
                return StoreSoakFault(at: t, kind: kind, duration: 0, amount: Bool.random(using: &random) ? magnitude : -magnitude)
            case .brokerRefusal:
                return StoreSoakFault(at: t, kind: kind, duration: Double.random(in: 0.5...3, using: &random),
                                      amount: Self.refusalCodes.randomElement(using: &random)!)
            case .corruptPage:
                return StoreSoakFault(at: t, kind: kind, duration: 0.5, amount: Int.random(in: 1...4, using: &random))
            case .diskFull, .startFull:
                return StoreSoakFault(at: t, kind: kind, duration: Double.random(in: 1...4, using: &random), amount: 0)
            case .brokerRestart, .fleetdKill:
                return StoreSoakFault(at: t, kind: kind, duration: Double.random(in: 0.2...2, using: &random), amount: 0)
            }
        }
        if end > 2 * Self.fleetdSpacing {
            for kind in [StoreSoakFaultKind.startFull, .corruptPage] {
                var t: Double
                repeat { t = Double.random(in: 3...end, using: &random) } while !fits(t)
                stops.append(t)
                faults.append(draw(kind, at: t))
            }
        }
        let total = StoreSoakFaultKind.allCases.map(\.weight).reduce(0, +)
        var t = 2.0
        while true {
            t += random.exponential(mean: Self.meanGap)
            guard t < end else { break }
            var pick = Int.random(in: 0..<total, using: &random)
            var kind = StoreSoakFaultKind.allCases[0]
            for k in StoreSoakFaultKind.allCases { if pick < k.weight { kind = k; break }; pick -= k.weight }
            if kind.stopsFleetd {
                guard fits(t) else { continue }
                stops.append(t)
            }
            faults.append(draw(kind, at: t))
        }
        self.faults = faults.sorted { $0.at < $1.at }
    }

    public var countsByKind: [StoreSoakFaultKind: Int] {
        faults.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }

    /// `faults injected: disk-full 3, clock-step 5, …` (the line scripts grep).
    public static func figureLine(_ counts: [StoreSoakFaultKind: Int]) -> String {
        "faults injected: " + StoreSoakFaultKind.allCases.map { "\($0.rawValue) \(counts[$0, default: 0])" }.joined(separator: ", ")
    }
}
