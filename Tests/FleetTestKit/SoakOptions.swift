import Foundation

/// What one soak run does, from fleet-soak's command line (parsed without side effects).
public struct SoakOptions: Sendable, Equatable {
    public var seed: UInt64
    /// Simulated minutes of faults.
    public var minutes: Double = 10
    public var devices = 200
    public var adapters = 4
    /// Simulated seconds per real second (the simulator's --time-scale).
    public var timeScale = 10.0
    /// Whether fleetd's policy durations are divided by the time scale (the default) or kept as real seconds.
    public var scaledPolicy = true
    /// Mean simulated seconds between faults.
    public var meanGap = 2.5
    /// Report every violation and run on, instead of stopping at the first.
    public var keepGoing = false
    /// Where fleetd's and the simulator's logs are copied when something fails (default /tmp/fleet-soak-SEED).
    public var logs: String?
    /// Print each fault as it is injected.
    public var verbose = false
    /// Fault kinds left out of the run (drawn as usual, so the other faults keep their times).
    public var skip: Set<SoakFaultKind> = []

    public init(seed: UInt64) { self.seed = seed }

    public static let usage = """
        usage: fleet-soak [--seed N] [--minutes M] [--short] [--devices N] [--adapters N] [--time-scale X]
                          [--fault-gap S] [--real-time-policy] [--skip KIND,…] [--keep-going] [--logs DIR] [--verbose]

        Runs fleetd on the BlueZ simulator under faults drawn from the seed, checking its invariants all along
        (docs/soak.md). Exit status: 0 no violation, 1 a violation (the seed replays it), 2 bad usage or setup.

          --seed N            fault schedule (default: from the clock; printed)
          --minutes M         simulated minutes of faults (default 10)
          --short             the `make test` soak: 3 simulated minutes (about a minute of real time)
          --devices N         simulated devices, all wanted (default 200)
          --adapters N        adapters (default 4)
          --time-scale X      simulated seconds per real second (default 10)
          --fault-gap S       mean simulated seconds between faults (default 2.5)
          --real-time-policy  keep fleetd's policy durations in real seconds instead of dividing them by the
                              time scale (its backoff then looks X times longer to the simulated world)
          --skip KIND,…       leave these fault kinds out (the others keep their times), to tell bugs apart;
                              kinds: \(SoakFaultKind.allCases.map(\.rawValue).joined(separator: ", "))
          --keep-going        report every violation and run to the end
          --logs DIR          where logs go when something fails (default /tmp/fleet-soak-SEED)
          --verbose           print every fault step as it is injected
        """

    /// A command-line mistake.
    public struct UsageError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { "fleet-soak: \(message)\n\(SoakOptions.usage)" }
    }

    public enum Command: Sendable, Equatable {
        case run(SoakOptions)
        case help
    }

    /// Parses the arguments; `defaultSeed` is used when `--seed` is absent.
    public static func parse(_ arguments: [String], defaultSeed: UInt64) throws(UsageError) -> Command {
        var options = SoakOptions(seed: defaultSeed)
        var minutesGiven = false
        var short = false
        var i = 0
        func value(_ flag: String) throws(UsageError) -> String {
            i += 1
            guard i < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
            return arguments[i]
        }
        func number(_ flag: String, _ range: ClosedRange<Double>) throws(UsageError) -> Double {
            let text = try value(flag)
            guard let x = Double(text), range.contains(x) else {
                throw UsageError(message: "\(flag) must be a number in \(range.lowerBound)…\(range.upperBound), got '\(text)'")
            }
            return x
        }
        while i < arguments.count {
            let argument = arguments[i]
            switch argument {
            case "-h", "--help": return .help
            case "--seed":
                let text = try value(argument)
                guard let seed = UInt64(text) else { throw UsageError(message: "--seed must be a non-negative integer, got '\(text)'") }
                options.seed = seed
            case "--minutes":
                options.minutes = try number(argument, 0.1...1440)
                minutesGiven = true
            case "--short": short = true
            case "--devices": options.devices = Int(try number(argument, 1...2000))
            case "--adapters": options.adapters = Int(try number(argument, 1...16))
            case "--time-scale": options.timeScale = try number(argument, 1...100)
            case "--fault-gap": options.meanGap = try number(argument, 0.1...3600)
            case "--real-time-policy": options.scaledPolicy = false
            case "--keep-going": options.keepGoing = true
            case "--logs": options.logs = try value(argument)
            case "--verbose": options.verbose = true
            case "--skip":
                for name in try value(argument).split(separator: ",") {
                    guard let kind = SoakFaultKind(rawValue: String(name)) else { throw UsageError(message: "--skip: no fault kind '\(name)'") }
                    options.skip.insert(kind)
                }
            default: throw UsageError(message: "unknown argument '\(argument)'")
            }
            i += 1
        }
        if short && !minutesGiven { options.minutes = 3 }
        return .run(options)
    }

    public var policy: SoakPolicy { SoakPolicy(scale: scaledPolicy ? timeScale : 1) }
}
