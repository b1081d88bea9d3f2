import FleetManager
import Testing

@Suite struct DaemonArgumentsTests {
    @Test func defaultsAndOverrides() throws {
        #expect(try DaemonArguments.parse([]) == DaemonArguments())
        let parsed = try DaemonArguments.parse(["--config", "/etc/x.conf", "--bus=unix:path=/tmp/b", "--log-target", "journal",
                                                "--snapshot", "/var/lib/s.json", "--socket", "/run/s.sock", "--log-level", "debug"])
        #expect(parsed.configPath == "/etc/x.conf")
        #expect(parsed.busAddress == "unix:path=/tmp/b")
        #expect(parsed.logTarget == "journal")
        #expect(parsed.snapshotPath == "/var/lib/s.json")
        #expect(parsed.socketPath == "/run/s.sock")
        #expect(parsed.logLevel == "debug")
        #expect(try DaemonArguments.parse(["--check-config", "/tmp/f.conf"]).checkConfig == "/tmp/f.conf")
        #expect(try DaemonArguments.parse(["-h"]).showHelp)
        #expect(try DaemonArguments.parse(["--outbox=/var/lib/o.db"]).outboxPath == "/var/lib/o.db")
        #expect(try DaemonArguments.parse(["--store", "/var/lib/f.db"]).storePath == "/var/lib/f.db")
    }

    @Test("bad usage names the option and exits 2", arguments: [["--nope"], ["--config"], ["--log-target", "syslog"], ["--socket", "--bus"], ["--outbox", "relative.db"], ["--store", "relative.db"]])
    func badUsage(arguments: [String]) {
        #expect {
            _ = try DaemonArguments.parse(arguments)
        } throws: { error in
            guard let usage = error as? DaemonArguments.UsageError else { return false }
            return usage.exitCode == 2 && !usage.message.isEmpty
        }
    }
}
