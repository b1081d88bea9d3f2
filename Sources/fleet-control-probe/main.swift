// fleet-control-probe: the control server over the test kit's in-memory fleet, in a process of its own, for
// tests that must change process-wide limits (RLIMIT_NOFILE) without touching the test runner's.
// usage: fleet-control-probe --socket PATH [--nofile N] [--per-peer N] [--max-clients N] [--idle-timeout SECONDS]
// Prints `listening` on stdout once the socket is up, logs the server's notes on stderr, runs until killed.
import FleetControlServer
import FleetTestKit
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fleet-control-probe: \(message)\n".utf8))
    exit(2)
}

func parseOptions(_ words: [String]) -> [String: String] {
    var options: [String: String] = [:]
    var arguments = words[...]
    while let name = arguments.popFirst() {
        guard name.hasPrefix("--"), let value = arguments.popFirst() else { fail("expected --option VALUE, got \(name)") }
        options[String(name.dropFirst(2))] = value
    }
    return options
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
guard let path = options["socket"] else { fail("--socket PATH is required") }
@MainActor func number(_ key: String) -> Int? {
    guard let text = options[key] else { return nil }
    guard let value = Int(text), value > 0 else { fail("--\(key) needs a positive integer, not \(text)") }
    return value
}

if let limit = number("nofile") {
    var bounds = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
    guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &bounds) == 0 else { fail("setrlimit(RLIMIT_NOFILE, \(limit)): \(String(cString: strerror(errno)))") }
}
var configuration = VarlinkServer.Configuration(socketPath: path)
if let perPeer = number("per-peer") { configuration.maxConnectionsPerPeer = perPeer }
if let maxClients = number("max-clients") { configuration.maxClients = maxClients }
if let idle = number("idle-timeout") { configuration.idleTimeout = .seconds(idle) }

let service = FleetService(backend: InMemoryBackend(), info: ServiceInfo(version: "probe"),
                           log: { FileHandle.standardError.write(Data("\($0)\n".utf8)) })
let server: VarlinkServer
do {
    server = try VarlinkServer(configuration: configuration, service: service)
} catch {
    fail("cannot serve \(path): \(error)")
}
FileHandle.standardOutput.write(Data("listening\n".utf8))
while true { pause() }
