import Foundation

/// The kinds of fault the soak injects (issue 14's list), with how often each is drawn.
public enum SoakFaultKind: String, Sendable, CaseIterable, Comparable {
    case linkDrop = "link-drop"
    case sessionEnd = "session-end"
    case addressRotation = "address-rotation"
    case powerCycle = "power-cycle"
    case inProgress = "in-progress"
    case neverComplete = "never-complete"
    case advertPause = "advert-pause"
    case reload = "reload"
    case fleetdKill = "fleetd-kill"
    case bluetoothdRestart = "bluetoothd-restart"

    /// Relative frequency.
    var weight: Int {
        switch self {
        case .linkDrop: 20
        case .sessionEnd: 10
        case .addressRotation: 10
        case .powerCycle: 8
        case .inProgress: 8
        case .neverComplete: 6
        case .advertPause: 10
        case .reload: 6
        case .fleetdKill: 4
        case .bluetoothdRestart: 4
        }
    }

    /// Kinds that hit the whole fleet at once; two of them are kept `globalSpacing` apart.
    var isGlobal: Bool { self == .fleetdKill || self == .bluetoothdRestart }

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

/// One thing the injector does; a fault is one or more of them (e.g. power off, then on).
public enum SoakStep: Sendable, Hashable, CustomStringConvertible {
    case dropLink(String)
    /// Drop the link once the device has been ready for this many simulated seconds (a peripheral that
    /// hangs up after its session).
    case dropAfterSession(String, session: Double)
    case rotateAddress(String)
    case power(adapter: Int, on: Bool)
    /// SetConnectBehaviour: `in-progress`, `never-complete` or `normal`.
    case connectBehaviour(String, String)
    /// The device stops advertising: it leaves the air (RemoveDevice) ...
    case removeDevice(String)
    /// ... and comes back with the same definition (AddDevice).
    case addDevice(String)
    /// SIGHUP, after rewriting fleetd.conf with this device's class changed (nil: the file as it is).
    case reload(ClassChange?)
    /// SIGKILL fleetd, wait this many simulated seconds, start it again.
    case killFleetd(downtime: Double)
    /// SIGKILL the simulator (bluetoothd), wait, start it again on the same scenario and seed.
    case restartBluetoothd(downtime: Double)

    public struct ClassChange: Sendable, Hashable {
        public var id: String
        public var to: String
    }

    public var description: String {
        switch self {
        case .dropLink(let d): "DropLink \(d)"
        case .dropAfterSession(let d, let s): "DropLink \(d) after a \(Self.seconds(s)) session"
        case .rotateAddress(let d): "RotateAddress \(d)"
        case .power(let a, let on): "PowerAdapter hci\(a) \(on ? "on" : "off")"
        case .connectBehaviour(let d, let b): "SetConnectBehaviour \(d) \(b)"
        case .removeDevice(let d): "RemoveDevice \(d) (stops advertising)"
        case .addDevice(let d): "AddDevice \(d) (advertises again)"
        case .reload(let change): "SIGHUP" + (change.map { " with \($0.id) now \($0.to)" } ?? "")
        case .killFleetd(let down): "SIGKILL fleetd, restart after \(Self.seconds(down))"
        case .restartBluetoothd(let down): "SIGKILL bluez-sim, restart after \(Self.seconds(down))"
        }
    }

    static func seconds(_ s: Double) -> String { String(format: "%.1f s", s) }
}

/// One fault: its kind, what it hits, and its steps at simulated times (seconds since the fault phase began).
public struct SoakFault: Sendable {
    public enum Target: Sendable, Hashable {
        case device(String)
        case adapter(Int)
        case fleet
    }

    public var index: Int
    public var kind: SoakFaultKind
    public var target: Target
    public var steps: [(at: Double, step: SoakStep)]
    public var start: Double { steps.first?.at ?? 0 }
    public var end: Double { steps.last?.at ?? 0 }

    public var description: String {
        "#\(index) \(kind.rawValue) at \(SoakStep.seconds(start)): " + steps.map { step in
            step.at == start ? step.step.description : "\(step.step) at \(SoakStep.seconds(step.at))"
        }.joined(separator: "; ")
    }
}

/// The fault schedule of one seed: a pure function of the seed, the fleet and the phase length, so that
/// `make soak SEED=…` replays the same faults at the same simulated times.
///
/// Faults arrive as a Poisson process (mean gap `meanGap` simulated seconds). Each draws a kind by weight and
/// a target that no other fault holds at the time: one fault per device at a time (a device's fault holds it
/// until its last step plus `settle`), one per adapter, and fleet-wide faults at least `globalSpacing` apart.
/// Every step falls inside the phase.
public struct SoakSchedule: Sendable {
    public let seed: UInt64
    public let length: Double
    public private(set) var faults: [SoakFault]

    /// The same schedule without the faults of these kinds.
    public func skipping(_ kinds: Set<SoakFaultKind>) -> SoakSchedule {
        var copy = self
        copy.faults.removeAll { kinds.contains($0.kind) }
        return copy
    }

    public static let settle = 10.0
    public static let globalSpacing = 30.0

    /// Every step of every fault in time order: (time, fault index, step).
    public var steps: [(at: Double, fault: Int, step: SoakStep)] {
        faults.flatMap { fault in fault.steps.map { ($0.at, fault.index, $0.step) } }
            .enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element)
    }

    public var countsByKind: [SoakFaultKind: Int] {
        faults.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }

    public init(seed: UInt64, fleet: SoakFleet, length: Double, meanGap: Double = 2.5) {
        self.seed = seed
        self.length = length
        var random = SoakRandom(seed: seed)
        var faults: [SoakFault] = []
        var deviceFree: [String: Double] = [:]
        var adapterFree: [Int: Double] = [:]
        var nextGlobal = 0.0
        var classes: [String: String] = [:]
        let totalWeight = SoakFaultKind.allCases.map(\.weight).reduce(0, +)
        let labels = fleet.devices.map(\.label)
        var t = 5.0
        while true {
            t += random.exponential(mean: meanGap)
            guard t < length else { break }
            var pick = Int.random(in: 0..<totalWeight, using: &random)
            let kind = SoakFaultKind.allCases.first { pick -= $0.weight; return pick < 0 } ?? .linkDrop
            // Draws happen in the same order whether or not the fault fits, so one skipped fault does not
            // reshuffle the rest of the schedule.
            let label = labels[Int.random(in: 0..<labels.count, using: &random)]
            let adapter = Int.random(in: 0..<fleet.adapters, using: &random)
            let span = Double.random(in: 0..<1, using: &random)
            let index = faults.count + 1
            var steps: [(Double, SoakStep)] = []
            var target = SoakFault.Target.device(label)
            switch kind {
            case .linkDrop:
                steps = [(t, .dropLink(label))]
            case .sessionEnd:
                steps = [(t, .dropAfterSession(label, session: 2 + 18 * span))]
            case .addressRotation:
                steps = [(t, .rotateAddress(label))]
            case .powerCycle:
                target = .adapter(adapter)
                steps = [(t, .power(adapter: adapter, on: false)), (t + 3 + 27 * span, .power(adapter: adapter, on: true))]
            case .inProgress:
                steps = [(t, .connectBehaviour(label, "in-progress")), (t, .dropLink(label)), (t + 5 + 35 * span, .connectBehaviour(label, "normal"))]
            case .neverComplete:
                // Longer than the connect timeout, so at least one attempt hangs until fleetd gives it up.
                steps = [(t, .connectBehaviour(label, "never-complete")), (t, .dropLink(label)), (t + 35 + 55 * span, .connectBehaviour(label, "normal"))]
            case .advertPause:
                steps = [(t, .removeDevice(label)), (t + 10 + 50 * span, .addDevice(label))]
            case .reload:
                target = .fleet
                if span < 0.5, let device = fleet.device(label: label) {
                    let current = classes[device.id] ?? device.policyClass
                    let others = ["critical", "normal", "opportunistic"].filter { $0 != current }
                    let to = others[Int(span * 4) % others.count]
                    target = .device(label)
                    steps = [(t, .reload(SoakStep.ClassChange(id: device.id, to: to)))]
                } else {
                    steps = [(t, .reload(nil))]
                }
            case .fleetdKill:
                target = .fleet
                steps = [(t, .killFleetd(downtime: 5 * span))]
            case .bluetoothdRestart:
                target = .fleet
                steps = [(t, .restartBluetoothd(downtime: 5 * span))]
            }
            let end = steps.map(\.0).max() ?? t
            // A session-end holds its device while it waits for the session (at most 60 s, see the injector).
            let holds = end + Self.settle + (kind == .sessionEnd ? 60 : 0)
            guard end < length else { continue }
            switch target {
            case .device(let l):
                guard deviceFree[l, default: 0] <= t else { continue }
                deviceFree[l] = holds
            case .adapter(let a):
                guard adapterFree[a, default: 0] <= t else { continue }
                adapterFree[a] = holds
            case .fleet:
                if kind.isGlobal {
                    guard nextGlobal <= t else { continue }
                    nextGlobal = t + Self.globalSpacing
                }
            }
            for (_, step) in steps { if case .reload(let change?) = step { classes[change.id] = change.to } }
            faults.append(SoakFault(index: index, kind: kind, target: target, steps: steps.map { (at: $0.0, step: $0.1) }))
        }
        self.faults = faults
    }
}
