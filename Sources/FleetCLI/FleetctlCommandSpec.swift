import FleetProtocol

/// The declared shape of each fleetctl subcommand: names, positional arguments, options and help text.
struct FleetctlCommandSpec: Sendable {
    var name: String
    var aliases: [String] = []
    /// Positional argument names, in order; a trailing `?` marks an optional one.
    var arguments: [String] = []
    var abstract: String
    /// Extra options: (synopsis, description).
    var options: [(String, String)] = []
    var discussion: String?

    static let all: [FleetctlCommandSpec] = [
        .init(name: "status", abstract: "Show the daemon, its adapters' slots and device counts."),
        .init(name: "devices", aliases: ["list"], abstract: "List every device with its state, adapter, address, RSSI and retry timing.",
              options: [("-q, --quiet", "Print only identity ids, one a line.")]),
        .init(name: "show", arguments: ["DEVICE"], abstract: "Show one device in detail, with its characteristics."),
        .init(name: "connect", arguments: ["DEVICE"], abstract: "Want DEVICE connected now; admission may evict another device, and says so."),
        .init(name: "disconnect", arguments: ["DEVICE"], abstract: "Disconnect DEVICE and stop wanting it."),
        .init(name: "evict", arguments: ["DEVICE"], abstract: "Free DEVICE's slot; it stays wanted and retries after a hold-off."),
        .init(name: "forget", arguments: ["DEVICE"], abstract: "Drop DEVICE from the fleet, with its stored identity."),
        .init(name: "set-policy", arguments: ["DEVICE", "CLASS"], abstract: "Move DEVICE to policy class CLASS."),
        .init(name: "watch", arguments: ["DEVICE?"], abstract: "Stream lifecycle events and notifications (of DEVICE, or all) until Ctrl-C.",
              options: [("--count N", "Stop after N events."),
                        ("--timeout SECONDS", "Stop after SECONDS (at most a year); exit 1 if --count was not reached."),
                        ("--since CURSOR", "Replay the stored values after CURSOR, then follow new ones (no lifecycle events)."),
                        ("--consumer NAME", "Continue after what consumer NAME acknowledged, and acknowledge what is printed.")],
              discussion: """
              With --json, each event is printed as one JSON object per line.

              With --since or --consumer the stream is durable: values come from fleetd's outbox, each with its cursor \
              (CUR) and its device's sequence number (SEQ), in the order they were stored; nothing is lost while the \
              watcher is slow or away, as long as retention keeps it. With --consumer, fleetctl acknowledges the \
              cursor of what it printed when the stream pauses, every 256 values and when it stops, so a consumer \
              restarted after a crash sees again at most what it printed since its last acknowledgement. \
              Acknowledging needs root or the control group. A cursor older than what the outbox keeps ends the \
              stream with the values lost, and exit code 1. The names mqtt and fhir, and names starting with fleetd \
              or _, are fleetd's own consumers and are refused (exit code 2).
              """),
        .init(name: "readings", arguments: ["DEVICE"], abstract: "Show DEVICE's stored values: the newest, or those after a cursor.",
              options: [("--since CURSOR", "Values stored after CURSOR, oldest first (default: the newest)."),
                        ("--limit N", "At most N values (default 100, at most 10000).")],
              discussion: "The last line says the cursor to pass as --since for the next page."),
        .init(name: "records", arguments: ["DEVICE"], abstract: "Show DEVICE's stored-record syncs (glucose meter, CGM): mark, records held, last sync.",
              discussion: """
              One line per service synced through its Record Access Control Point: the mark (the highest record \
              known stored with nothing missing below it), the records the device said it holds, when and how its \
              last sync ended, the duplicates not stored again and the sequence resets found (docs/records.md).
              """),
        .init(name: "read", arguments: ["DEVICE", "CHAR"], abstract: "Read characteristic CHAR (a UUID) of DEVICE; prints hex."),
        .init(name: "write", arguments: ["DEVICE", "CHAR", "HEX"], abstract: "Write HEX (e.g. 01ff or 01:ff) to characteristic CHAR of DEVICE.",
              options: [("--no-response", "Write without response.")]),
        .init(name: "pair", arguments: ["DEVICE"], abstract: "Pair DEVICE with fleetd's agent now, or on its next link; ends a needs-pairing stop."),
        .init(name: "unpair", arguments: ["DEVICE"], abstract: "Remove DEVICE's bond from the adapter holding it; it stays wanted."),
        .init(name: "reload", abstract: "Make the daemon re-read its configuration."),
        .init(name: "metrics", abstract: "Print the daemon's metrics in Prometheus text format."),
    ]

    static func named(_ word: String) -> FleetctlCommandSpec? {
        all.first { $0.name == word || $0.aliases.contains(word) }
    }

    var usage: String {
        var line = "fleetctl \(name)"
        for argument in arguments {
            line += argument.hasSuffix("?") ? " [\(argument.dropLast())]" : " \(argument)"
        }
        for (synopsis, _) in options {
            let long = synopsis.split(separator: ",").last.map { $0.trimmingCharacters() } ?? synopsis
            line += " [\(long)]"
        }
        return line + " [--json] [--socket PATH]"
    }

    var help: String {
        var text = "\(abstract)\n\nUSAGE: \(usage)\n"
        if !aliases.isEmpty { text += "\nALIASES: \(aliases.joined(separator: ", "))\n" }
        if arguments.contains(where: { $0.hasPrefix("DEVICE") }) {
            text += "\nDEVICE is an identity id, a unique id prefix, a display name or a current address.\n"
        }
        text += "\nOPTIONS:\n"
        let rows = options + FleetctlCommandSpec.globalOptions
        let width = rows.map(\.0.count).max() ?? 0
        for (synopsis, description) in rows {
            text += "  " + synopsis.padding(to: width) + "  " + description + "\n"
        }
        if let discussion { text += "\n" + discussion + "\n" }
        text += "\n" + FleetctlExitCode.helpText + "\n"
        return text
    }

    static let globalOptions: [(String, String)] = [
        ("--json", "Print the reply as JSON."),
        ("--socket PATH", "Control socket (default: $FLEETCTL_SOCKET or \(FleetInterface.defaultSocketPath))."),
        ("-h, --help", "Show help."),
    ]

    static var topLevelHelp: String {
        var text = "fleetctl: control a running fleetd.\n\nUSAGE: fleetctl [--socket PATH] [--json] <command> [arguments]\n\nCOMMANDS:\n"
        let width = all.map { ($0.name + ($0.aliases.isEmpty ? "" : ", " + $0.aliases.joined(separator: ", "))).count }.max() ?? 0
        for spec in all {
            let names = spec.name + (spec.aliases.isEmpty ? "" : ", " + spec.aliases.joined(separator: ", "))
            text += "  " + names.padding(to: width) + "  " + spec.abstract + "\n"
        }
        text += "\nOPTIONS:\n"
        let rows = globalOptions + [("--version", "Show fleetctl's version.")]
        let width2 = rows.map(\.0.count).max() ?? 0
        for (synopsis, description) in rows { text += "  " + synopsis.padding(to: width2) + "  " + description + "\n" }
        text += "\nSee 'fleetctl <command> --help' for a command's arguments.\n\n" + FleetctlExitCode.helpText + "\n"
        return text
    }
}

extension String {
    /// Left-aligned in a field of `width` characters (never truncated).
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

extension Substring {
    func trimmingCharacters() -> String { String(self).trimmingWhitespace }
}

extension String {
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.isWhitespace { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
