// The control plane's figures: the JSON codec's encode and decode rates (hand-written against Foundation's
// Codable, on a 1000-device ListDevices reply, a Watch event, and the server's whole work for one Status call),
// then Status round-trip latency through the varlink server with 50 concurrent clients while a churn thread
// reconnects and lists the fleet. Build with -c release; prints `name: value unit` lines.
import FleetCLI
import FleetControlServer
import FleetProtocol
import Foundation
import Synchronization

/// A fixed fleet answering Status instantly, so the figures measure the control plane itself.
struct BenchBackend: FleetControlBackend {
    let devices = (0..<200).map { index in
        DeviceInfo(id: String(format: "%010x", index * 7919), displayName: "Device \(index)", state: index % 5 == 0 ? .backingOff : .ready,
                   adapter: "hci\(index % 2)", address: nil, rssi: -40 - index % 50, lastSeenSecondsAgo: Double(index), attempt: 0,
                   policyClass: "interactive")
    }

    func status() async throws -> StatusInfo {
        StatusInfo(daemon: DaemonInfo(version: "bench", uptimeSeconds: 1, state: .running),
                   adapters: [AdapterInfo(name: "hci0", powered: true, slotsUsed: 7, slotsCapacity: 7),
                              AdapterInfo(name: "hci1", powered: true, slotsUsed: 5, slotsCapacity: 7)],
                   counts: DeviceCounts(wanted: 200, ready: 160, backingOff: 40, failed: 0))
    }
    func listDevices() async throws -> [DeviceInfo] { devices }
    func showDevice(_ reference: String) async throws -> DeviceDetail { DeviceDetail(device: try DeviceReference.resolve(reference, in: devices)) }
    func connect(_ reference: String) async throws -> ConnectOutcome { ConnectOutcome(device: try DeviceReference.resolve(reference, in: devices).id, state: .connecting) }
    func disconnect(_ reference: String) async throws -> DisconnectOutcome { DisconnectOutcome(device: reference, state: .idle) }
    func evict(_ reference: String) async throws -> EvictOutcome { EvictOutcome(device: reference, holdOffSeconds: 30) }
    func forget(_ reference: String) async throws -> String { reference }
    func setPolicy(_ reference: String, policyClass: String) async throws -> String { reference }
    func read(_ reference: String, characteristic: String) async throws -> ReadOutcome { ReadOutcome(value: [1]) }
    func write(_ reference: String, characteristic: String, value: [UInt8], withResponse: Bool) async throws {}
    func watch(_ reference: String?) async throws -> AsyncStream<WatchEvent> { AsyncStream { _ in } }
    func reload() async throws -> String { "ok" }
    func metrics() async throws -> String { "" }
}

try CodecComparison.run()
try CodecComparison.statusCycle()

let clients = 50
let callsPerClient = 400
let path = "/tmp/control-bench-\(getpid()).sock"
let server = try VarlinkServer(configuration: .init(socketPath: path), service: FleetService(backend: BenchBackend(), info: ServiceInfo(version: "bench")))

// Background churn while measuring: clients that connect, list the fleet and hang up (a reconnect storm).
let stopChurn = Atomic<Bool>(false)
let churnLists = Atomic<Int>(0)
let churn = Thread {
    while !stopChurn.load(ordering: .relaxed) {
        churnLists.add(1, ordering: .relaxed)
        if let connection = try? VarlinkConnection(path: path) { _ = try? connection.call(.listDevices, replying: DeviceList.self) }
    }
}
churn.start()

let statusCall = try FleetRequest.status.call()
let latencies = Mutex<[Duration]>([])
let failures = Atomic<Int>(0)
let done = DispatchGroup()
let started = ContinuousClock.now
for _ in 0..<clients {
    done.enter()
    Thread {
        defer { done.leave() }
        var mine: [Duration] = []
        mine.reserveCapacity(callsPerClient)
        guard let connection = try? VarlinkConnection(path: path) else { failures.add(1, ordering: .relaxed); return }
        for _ in 0..<callsPerClient {
            let start = ContinuousClock.now
            // Read the reply's envelope, as the hand-written client did: the server's work is what is measured.
            if (try? connection.call(statusCall)) == nil { failures.add(1, ordering: .relaxed) }
            mine.append(ContinuousClock.now - start)
        }
        latencies.withLock { $0 += mine }
    }.start()
}
done.wait()
let elapsed = ContinuousClock.now - started
stopChurn.store(true, ordering: .relaxed)
server.stop()

let sorted = latencies.withLock { $0.sorted() }
func percentile(_ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
    let (seconds, attoseconds) = sorted[max(0, index)].components
    return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
}
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print("status_roundtrip_clients: \(clients) clients")
print("status_roundtrip_p50: \(String(format: "%.1f", percentile(0.50))) us")
print("status_roundtrip_p99: \(String(format: "%.1f", percentile(0.99))) us")
print("status_throughput: \(String(format: "%.0f", Double(sorted.count) / seconds)) calls/s")
print("status_failures: \(failures.load(ordering: .relaxed)) calls")
print("status_churn_lists: \(String(format: "%.0f", Double(churnLists.load(ordering: .relaxed)) / seconds)) reconnect+ListDevices/s alongside")
