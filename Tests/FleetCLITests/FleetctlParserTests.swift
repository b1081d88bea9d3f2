import FleetCLI
import FleetProtocol
import Testing

@Suite struct FleetctlParserTests {
    func command(_ arguments: [String], environment: [String: String] = [:]) throws -> FleetctlCommand {
        guard case .run(let command) = try FleetctlParser.parse(arguments, environment: environment) else {
            throw FleetctlUsageError("expected a command")
        }
        return command
    }

    @Test func parsesEverySubcommand() throws {
        #expect(try command(["status"]).subcommand == .status)
        #expect(try command(["devices"]).subcommand == .devices(idsOnly: false))
        #expect(try command(["list", "-q"]).subcommand == .devices(idsOnly: true))
        #expect(try command(["show", "lamp"]).subcommand == .show(device: "lamp"))
        #expect(try command(["connect", "lamp"]).subcommand == .connect(device: "lamp"))
        #expect(try command(["disconnect", "lamp"]).subcommand == .disconnect(device: "lamp"))
        #expect(try command(["evict", "lamp"]).subcommand == .evict(device: "lamp"))
        #expect(try command(["forget", "lamp"]).subcommand == .forget(device: "lamp"))
        #expect(try command(["set-policy", "lamp", "background"]).subcommand == .setPolicy(device: "lamp", policyClass: "background"))
        #expect(try command(["watch"]).subcommand == .watch(device: nil, count: nil, timeout: nil))
        #expect(try command(["watch", "lamp", "--count", "3", "--timeout=1.5"]).subcommand == .watch(device: "lamp", count: 3, timeout: .milliseconds(1500)))
        #expect(try command(["watch", "--since", "42"]).subcommand == .watch(device: nil, count: nil, timeout: nil, since: 42))
        #expect(try command(["watch", "lamp", "--consumer=archiver"]).subcommand == .watch(device: "lamp", count: nil, timeout: nil, consumer: "archiver"))
        #expect(try command(["readings", "lamp"]).subcommand == .readings(device: "lamp", since: nil, limit: nil))
        #expect(try command(["readings", "lamp", "--since", "0", "--limit", "5"]).subcommand == .readings(device: "lamp", since: 0, limit: 5))
        #expect(throws: FleetctlUsageError.self) { try command(["watch", "--since", "-1"]) }
        #expect(throws: FleetctlUsageError.self) { try command(["watch", "--since", "x"]) }
        #expect(throws: FleetctlUsageError.self) { try command(["watch", "--consumer", ""]) }
        #expect(throws: FleetctlUsageError.self) { try command(["readings", "lamp", "--limit", "0"]) }
        #expect(throws: FleetctlUsageError.self) { try command(["readings", "lamp", "--count", "3"]) }
        #expect(throws: FleetctlUsageError.self) { try command(["status", "--since", "3"]) }
        #expect(throws: FleetctlUsageError.self) { try command(["readings"]) }
        #expect(try command(["read", "lamp", "2a19"]).subcommand == .read(device: "lamp", characteristic: "2a19"))
        #expect(try command(["write", "lamp", "2a19", "01:FF"]).subcommand == .write(device: "lamp", characteristic: "2a19", value: [1, 255], withResponse: true))
        #expect(try command(["write", "--no-response", "lamp", "2a19", "00"]).subcommand == .write(device: "lamp", characteristic: "2a19", value: [0], withResponse: false))
        #expect(try command(["reload"]).subcommand == .reload)
        #expect(try command(["metrics"]).subcommand == .metrics)
    }

    @Test func socketComesFromOptionThenEnvironmentThenDefault() throws {
        #expect(try command(["status"]).socketPath == "/run/fleetd/io.fleetd.sock")
        #expect(try command(["status"], environment: ["FLEETCTL_SOCKET": "/e.sock"]).socketPath == "/e.sock")
        #expect(try command(["--socket", "/o.sock", "status"], environment: ["FLEETCTL_SOCKET": "/e.sock"]).socketPath == "/o.sock")
        #expect(try command(["status", "--socket=/p.sock"]).socketPath == "/p.sock")
    }

    @Test func jsonWorksBeforeOrAfterTheCommand() throws {
        #expect(try command(["--json", "devices"]).json)
        #expect(try command(["show", "x", "--json"]).json)
        #expect(try !command(["show", "x"]).json)
    }

    @Test func doubleDashLetsADeviceStartWithADash() throws {
        #expect(try command(["show", "--", "-odd-"]).subcommand == .show(device: "-odd-"))
    }

    @Test func helpAndVersion() throws {
        guard case .help(let top) = try FleetctlParser.parse(["--help"]) else { Issue.record("no help"); return }
        #expect(top.contains("set-policy") && top.contains("5  daemon unreachable"))
        guard case .help(let write) = try FleetctlParser.parse(["write", "-h"]) else { Issue.record("no help"); return }
        #expect(write.contains("USAGE: fleetctl write DEVICE CHAR HEX [--no-response]") && write.contains("EXIT CODES"))
        // Help wins over missing arguments, as users expect.
        #expect(try FleetctlParser.parse(["show", "--help"]) != .version)
        #expect(try FleetctlParser.parse(["--version"]) == .version)
        for spec in ["status", "devices", "show", "connect", "disconnect", "evict", "forget", "set-policy", "watch", "read", "write", "reload", "metrics"] {
            guard case .help(let text) = try FleetctlParser.parse([spec, "--help"]) else { Issue.record("\(spec) has no help"); continue }
            #expect(text.contains("USAGE: fleetctl \(spec)"))
        }
    }

    @Test(arguments: [
        ([], nil), (["frob"], nil), (["show"], "show"), (["show", "a", "b"], "show"), (["status", "--bogus"], "status"),
        (["watch", "--count", "0"], "watch"), (["watch", "--count", "x"], "watch"), (["watch", "--timeout", "-1"], "watch"),
        (["write", "d", "c", "0g"], "write"), (["write", "d", "c", "012"], "write"), (["status", "--socket"], "status"),
        (["status", "--no-response"], "status"), (["connect", "--count", "2", "x"], "connect"), (["show", " "], "show"),
        (["status", "--json=yes"], "status"), (["status", "--version"], "status"),
        (["watch", "--timeout", "1e16"], "watch"), (["watch", "--timeout", "inf"], "watch"), (["watch", "--timeout", "nan"], "watch"),
        (["watch", "--timeout", "31536001"], "watch"), (["watch", "--timeout", "0"], "watch"),
    ] as [([String], String?)])
    func badUsageIsATypedErrorWithExitCode2(arguments: [String], command: String?) {
        do {
            let parsed = try FleetctlParser.parse(arguments)
            Issue.record("parsed \(arguments) as \(parsed)")
        } catch {
            #expect(error.exitCode == .usage)
            #expect(error.command == command)
            #expect(error.description.contains("--help"))
        }
    }

    @Test func exitCodesAreTheDocumentedNumbers() {
        #expect(FleetctlExitCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(FleetctlExitCode(.unreachable(path: "/x", errno: .noSuchFileOrDirectory)) == .unreachable)
        #expect(FleetctlExitCode(.socketPermissionDenied(path: "/x")) == .permissionDenied)
        #expect(FleetctlExitCode(.remote(.permissionDenied(method: "m"))) == .permissionDenied)
        #expect(FleetctlExitCode(.remote(FleetControlError.ambiguousDevice(reference: "a", candidates: []).varlinkError)) == .deviceNotFound)
        #expect(FleetctlExitCode(.remote(FleetControlError.bluez(name: "n", message: "m").varlinkError)) == .failure)
    }
}
