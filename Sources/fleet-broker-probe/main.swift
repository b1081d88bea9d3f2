// fleet-broker-probe: a publisher in a process of its own, for the broker tests that must kill it (the last will)
// or run two gateways side by side. It publishes `--readings` generated readings over `--devices` devices through
// a BrokerConnection and a PublishPump, prints one line per link event and `acknowledged <cursor>` when the
// source's cursor reaches the last reading, then keeps its session open until SIGTERM (graceful shutdown,
// exit 0) or SIGKILL (the broker publishes the will). Exit status 2: bad usage or a configuration error.
import BrokerTestKit
import FleetBroker
import FleetPlatform
import Foundation
import Policy

let usage = """
    usage: fleet-broker-probe --port N --gateway ID [--host H] [--prefix P] [--readings N] [--devices N]
                              [--mqtt5] [--credentials FILE] [--ca FILE] [--allow-plaintext-password]
    """

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fleet-broker-probe: \(message)\n\(usage)\n".utf8))
    exit(2)
}

var options: [String: String] = [:]
var flags: Set<String> = []
var words = Array(CommandLine.arguments.dropFirst())[...]
while let word = words.popFirst() {
    switch word {
    case "--mqtt5", "--allow-plaintext-password": flags.insert(word)
    case "--port", "--gateway", "--host", "--prefix", "--readings", "--devices", "--credentials", "--ca":
        guard let value = words.popFirst() else { fail("\(word) needs a value") }
        options[word] = value
    default: fail("unknown argument \(word)")
    }
}
guard let port = options["--port"].flatMap(Int.init), let gateway = options["--gateway"] else { fail("--port and --gateway are required") }
let readings = options["--readings"].flatMap(Int.init) ?? 100
let devices = options["--devices"].flatMap(Int.init) ?? 4

var configuration = BrokerConfiguration(host: options["--host"] ?? "127.0.0.1", port: port, gatewayID: gateway)
configuration.topicPrefix = options["--prefix"] ?? ReadingTopics.defaultPrefix
configuration.protocolVersion = flags.contains("--mqtt5") ? .mqtt5 : .mqtt311
configuration.credentialsFile = options["--credentials"]
configuration.allowPlaintextPassword = flags.contains("--allow-plaintext-password")
configuration.tls = options["--ca"].map { BrokerTLS(caFile: $0) }
configuration.keepAlive = .seconds(5)
configuration.backoff = BackoffConfiguration(base: .milliseconds(100), cap: .seconds(1), floor: .milliseconds(50), recoveryWindow: .zero)

let connection: BrokerConnection
do { connection = try BrokerConnection(configuration) } catch { fail("\(error)") }
let source = MemoryReadingSource { cursor in say("acknowledged \(cursor)") }
let last = source.append(count: readings, devices: devices)
say("readings \(last)")
let pump = PublishPump(source: source, publisher: ReadingPublisher(connection: connection)) { report in say("report \(report)") }
let observation = connection.observe { event in
    guard case .link(let link) = event else { return }
    switch link {
    case .connected(let session, _): say("connected \(session)")
    case .attemptFailed(let error, _): say("attempt-failed \(error)")
    case .lost(let error, _): say("lost \(error)")
    case .stopped: say("stopped")
    }
}
connection.start()
let pumping = Task { await pump.run() }
let (signals, sources) = UnixSignals.stream([SIGTERM, SIGINT])
for await _ in signals { break }
pump.stop()
await pumping.value
await connection.shutdown()
_ = sources
observation.cancel()
exit(0)
