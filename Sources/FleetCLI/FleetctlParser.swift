import FleetProtocol

/// Turns fleetctl's arguments into a `FleetctlInvocation`; pure (environment passed in), so tests inspect the value.
///
/// Options may come before or after the subcommand; `--opt=value` and `--opt value` are both accepted;
/// `--` ends option parsing (so a device named `--x` can still be given).
public enum FleetctlParser {
    public static func parse(_ arguments: [String], environment: [String: String] = [:]) throws(FleetctlUsageError) -> FleetctlInvocation {
        var socketPath: String?
        var json = false
        var wantsHelp = false
        var wantsVersion = false
        var commandWord: String?
        var positionals: [String] = []
        var flags: Set<String> = []
        var values: [String: String] = [:]
        var index = 0
        var optionsEnded = false

        func spec() -> FleetctlCommandSpec? { commandWord.flatMap(FleetctlCommandSpec.named) }

        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                if commandWord == nil {
                    guard FleetctlCommandSpec.named(argument) != nil else { throw FleetctlUsageError("unknown command '\(argument)'") }
                    commandWord = argument
                } else {
                    positionals.append(argument)
                }
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(FleetctlUsageError) -> String {
                if let inlineValue { return inlineValue }
                guard index < arguments.count else { throw FleetctlUsageError("option \(name) needs a value", command: spec()?.name) }
                index += 1
                return arguments[index - 1]
            }
            func noValue() throws(FleetctlUsageError) {
                if inlineValue != nil { throw FleetctlUsageError("option \(name) takes no value", command: spec()?.name) }
            }
            switch name {
            case "--socket": socketPath = try value()
            case "--json": try noValue(); json = true
            case "-h", "--help": try noValue(); wantsHelp = true
            case "--version": try noValue(); wantsVersion = true
            case "-q", "--quiet", "--no-response":
                try noValue()
                flags.insert(name == "-q" ? "--quiet" : name)
            case "--count", "--timeout", "--since", "--consumer", "--limit": values[name] = try value()
            default: throw FleetctlUsageError("unknown option '\(name)'", command: spec()?.name)
            }
        }

        if wantsHelp { return .help(spec()?.help ?? FleetctlCommandSpec.topLevelHelp) }
        if wantsVersion, commandWord == nil { return .version }
        guard let spec = spec() else { throw FleetctlUsageError("missing command") }

        let allowedFlags: Set<String> = switch spec.name {
        case "devices": ["--quiet"]
        case "write": ["--no-response"]
        default: []
        }
        if wantsVersion { throw FleetctlUsageError("--version takes no command", command: spec.name) }
        if let flag = flags.subtracting(allowedFlags).sorted().first {
            throw FleetctlUsageError("\(spec.name) has no option \(flag)", command: spec.name)
        }
        let allowedValues: Set<String> = switch spec.name {
        case "watch": ["--count", "--timeout", "--since", "--consumer"]
        case "readings": ["--since", "--limit"]
        default: []
        }
        if let option = Set(values.keys).subtracting(allowedValues).sorted().first {
            throw FleetctlUsageError("\(spec.name) has no option \(option)", command: spec.name)
        }
        func cursor(_ option: String) throws(FleetctlUsageError) -> Int64? {
            guard let text = values[option] else { return nil }
            guard let parsed = Int64(text), parsed >= 0 else {
                throw FleetctlUsageError("\(option) needs a cursor (a whole number, 0 or more), not '\(text)'", command: spec.name)
            }
            return parsed
        }
        let required = spec.arguments.filter { !$0.hasSuffix("?") }
        guard positionals.count >= required.count else {
            throw FleetctlUsageError("\(spec.name) needs \(required.dropFirst(positionals.count).joined(separator: " "))", command: spec.name)
        }
        guard positionals.count <= spec.arguments.count else {
            throw FleetctlUsageError("unexpected argument '\(positionals[spec.arguments.count])'", command: spec.name)
        }
        for (position, text) in positionals.enumerated() where text.trimmingWhitespace.isEmpty {
            throw FleetctlUsageError("\(spec.arguments[position].filter { $0 != "?" }) must not be empty", command: spec.name)
        }
        func argument(_ position: Int) -> String { positionals[position] }

        let subcommand: FleetctlSubcommand
        switch spec.name {
        case "status": subcommand = .status
        case "devices": subcommand = .devices(idsOnly: flags.contains("--quiet"))
        case "show": subcommand = .show(device: argument(0))
        case "connect": subcommand = .connect(device: argument(0))
        case "disconnect": subcommand = .disconnect(device: argument(0))
        case "evict": subcommand = .evict(device: argument(0))
        case "forget": subcommand = .forget(device: argument(0))
        case "pair": subcommand = .pair(device: argument(0))
        case "unpair": subcommand = .unpair(device: argument(0))
        case "records": subcommand = .records(device: argument(0))
        case "set-policy": subcommand = .setPolicy(device: argument(0), policyClass: argument(1))
        case "watch":
            var count: Int?
            if let text = values["--count"] {
                guard let parsed = Int(text), parsed > 0 else { throw FleetctlUsageError("--count needs a positive integer, not '\(text)'", command: "watch") }
                count = parsed
            }
            var timeout: Duration?
            if let text = values["--timeout"] {
                guard let parsed = Self.watchTimeout(text) else {
                    throw FleetctlUsageError("--timeout needs a positive number of seconds, at most \(Self.longestWatchTimeoutSeconds), not '\(text)'",
                                             command: "watch")
                }
                timeout = parsed
            }
            var consumer: String?
            if let name = values["--consumer"] {
                guard !name.trimmingWhitespace.isEmpty, name.utf8.count <= 200, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
                    throw FleetctlUsageError("--consumer needs a name of 1–200 bytes without control characters, not '\(name)'", command: "watch")
                }
                consumer = name
            }
            subcommand = .watch(device: positionals.first, count: count, timeout: timeout, since: try cursor("--since"), consumer: consumer)
        case "readings":
            var limit: Int?
            if let text = values["--limit"] {
                guard let parsed = Int(text), (1...Self.longestReadingsLimit).contains(parsed) else {
                    throw FleetctlUsageError("--limit needs a whole number from 1 to \(Self.longestReadingsLimit), not '\(text)'", command: "readings")
                }
                limit = parsed
            }
            subcommand = .readings(device: argument(0), since: try cursor("--since"), limit: limit)
        case "read": subcommand = .read(device: argument(0), characteristic: argument(1))
        case "write":
            guard let value = HexBytes.decode(argument(2)) else {
                throw FleetctlUsageError("HEX must be pairs of hex digits (e.g. 01ff or 01:ff), not '\(argument(2))'", command: "write")
            }
            subcommand = .write(device: argument(0), characteristic: argument(1), value: value, withResponse: !flags.contains("--no-response"))
        case "reload": subcommand = .reload
        default: subcommand = .metrics
        }
        let path = socketPath ?? environment["FLEETCTL_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? FleetInterface.defaultSocketPath
        return .run(FleetctlCommand(socketPath: path, json: json, subcommand: subcommand))
    }

    /// The largest `readings --limit` (the daemon's bound on one page).
    public static let longestReadingsLimit = 10_000

    /// The longest `watch --timeout`: a year, far beyond any use, and small enough that the deadline it sets
    /// cannot overflow `Duration` or the clock (1e16 seconds used to trap on the conversion to milliseconds).
    public static let longestWatchTimeoutSeconds = 31_536_000

    /// Seconds as a `Duration`, or nil for text that is not a finite number in (0, a year].
    static func watchTimeout(_ text: String) -> Duration? {
        guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= Double(longestWatchTimeoutSeconds) else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
