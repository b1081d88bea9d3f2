// fleetd under a flood, next to the bare libdbus receive loop on the same flood, in the same run.
//
// BENCH_FLOOD_DEVICES (default 1 000) wanted devices come up on the simulator; then, for each rate in
// BENCH_FLOOD_RATES (signals/s, 0 = as fast as the simulator can emit; default 2000,5000,10000,0), the simulator
// floods RSSI PropertiesChanged on every device for BENCH_FLOOD_SECONDS (default 5) — open loop: it never waits
// for a consumer. Two consumers take the same signals off the same bus at the same time: fleetd (events it
// handled, from its `fleetd_bluez_events_total` counter; CPU from /proc/<pid>/stat) and a bare libdbus loop on
// a thread of this process (pop, check, read the first argument; CPU from CLOCK_THREAD_CPUTIME_ID).
// fleetd's end-to-end ratio is the bare loop's CPU per signal over fleetd's CPU per event: the fraction of the
// bare loop's capacity that fleetd reaches on one core (target ≥ 0.5).
import CDBus
import FleetPlatform
import FleetProtocol
import FleetTestKit
import Foundation
import Synchronization

let environment = ProcessInfo.processInfo.environment
let deviceCount = Int(environment["BENCH_FLOOD_DEVICES"] ?? "") ?? 1000
let rates = (environment["BENCH_FLOOD_RATES"] ?? "2000,5000,10000,0").split(separator: ",").compactMap { Int($0) }
let floodSeconds = Double(environment["BENCH_FLOOD_SECONDS"] ?? "") ?? 5
let adapterCount = min(16, max(1, (deviceCount + 49) / 50))
let perAdapter = min(64, (deviceCount + adapterCount - 1) / adapterCount)

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
func address(_ i: Int) -> String { String(format: "B0:00:00:00:%02X:%02X", i / 256, i % 256) }
func id(_ i: Int) -> String { "addr-" + address(i).replacingOccurrences(of: ":", with: "") }

/// User + system CPU seconds of a process.
func processCPU(_ pid: pid_t) -> Double {
    schedulerCPUSeconds(statFile: "/proc/\(pid)/stat") ?? 0
}

func threadCPU() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The bare libdbus receive loop: one private connection, a match on everything org.bluez sends, a thread that
/// reads, pops and looks at each signal's first argument. Its count and CPU are read from other threads.
final class BareReceiver: @unchecked Sendable {
    let received = Atomic<Int>(0)
    /// Thread CPU time in nanoseconds, updated by the loop after every read.
    let cpuNanoseconds = Atomic<Int>(0)
    let running = Atomic<Bool>(true)

    init(address: String) {
        let thread = Thread { [self] in run(address: address) }
        thread.name = "bare-libdbus"
        thread.start()
    }

    private func run(address: String) {
        let error = fleet_dbus_error_new()
        defer { fleet_dbus_error_free(error) }
        guard let connection = dbus_connection_open_private(address, error) else { fatalError("bare loop cannot connect") }
        _ = dbus_bus_register(connection, error)
        dbus_bus_add_match(connection, "type='signal',sender='org.bluez'", error)
        dbus_connection_flush(connection)
        defer { dbus_connection_close(connection); dbus_connection_unref(connection) }
        while running.load(ordering: .relaxed) {
            guard dbus_connection_read_write(connection, 100) != 0 else { break }
            var count = 0
            while let message = dbus_connection_pop_message(connection) {
                if dbus_message_get_type(message) == FLEET_DBUS_MESSAGE_TYPE_SIGNAL, dbus_message_has_member(message, "PropertiesChanged") != 0 {
                    var iter = DBusMessageIter()
                    dbus_message_iter_init(message, &iter)
                    var s: UnsafePointer<CChar>? = nil
                    dbus_message_iter_get_basic(&iter, &s)
                    _ = String(cString: s!)
                }
                count += 1
                dbus_message_unref(message)
            }
            received.add(count, ordering: .relaxed)
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            cpuNanoseconds.store(Int(ts.tv_sec) * 1_000_000_000 + Int(ts.tv_nsec), ordering: .relaxed)
        }
    }

    var sample: (count: Int, cpu: Double) {
        (received.load(ordering: .relaxed), Double(cpuNanoseconds.load(ordering: .relaxed)) / 1e9)
    }
}

var scenario = "adapters \(adapterCount)\ncapacity \(perAdapter)\n"
var config = "[adapters]\ncapacity = \(perAdapter)\n"
for i in 0..<deviceCount {
    // Adverts every 60 s: the flood, not the radio model, is what this measures.
    scenario += "device d\(i) address=\(address(i)) name=\"Strap \(i)\" profile=heart-rate interval=60\n"
    config += "[device \"\(id(i))\"]\n"
}

let harness = try await FleetHarness(scenario: scenario, configuration: config)
defer { harness.stop() }
// Status counts, polled twice a second: listing 1 000 devices on every watch event would cost this process (and
// fleetd) more CPU than the fleet coming up.
let readyDeadline = ContinuousClock.now + .seconds(900)
while try await harness.call(.status)["counts"]?.objectValue?["ready"]?.intValue != deviceCount {
    guard ContinuousClock.now < readyDeadline else { throw TestKitError("\(deviceCount) devices not ready after 900 s") }
    try await Task.sleep(for: .milliseconds(500))
}
let pid = harness.fleetd?.pid ?? 0
// On stderr, for `perf record -g -p <pid>` during the flood (docs/performance.md).
FileHandle.standardError.write(Data("FloodBench: fleetd pid \(pid), \(deviceCount) devices ready\n".utf8))

/// The simulator's count of flood signals emitted. Its reply queues behind the flood still leaving its
/// connection, hence the long timeout.
func floodedSignals() async throws -> Int64 {
    let body = try await harness.control.call(destination: "io.fleetd.Simulator", path: "/io/fleetd/sim", interface: "io.fleetd.Simulator1",
                                              member: "Counters", timeout: .seconds(300)).body
    return body.first?.stringKeyed?["SignalsFlooded"]?.unwrapped.integer ?? 0
}

/// fleetd's count of BlueZ events it has handled, from its Prometheus text.
func fleetdEvents() async throws -> Int {
    let reply = try await harness.call(.metrics)
    let text = reply["text"]?.stringValue ?? ""
    for line in text.split(separator: "\n") where line.hasPrefix("fleetd_bluez_events_total ") {
        return Int(line.split(separator: " ")[1]) ?? 0
    }
    throw TestKitError("fleetd's metrics have no fleetd_bluez_events_total")
}

/// Waits until fleetd's event count moves no faster than the background (adverts): its backlog is drained.
func drain(background: Double) async throws {
    var last = try await fleetdEvents()
    let deadline = ContinuousClock.now + .seconds(120)
    while ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(500))
        let now = try await fleetdEvents()
        if Double(now - last) <= background * 0.5 * 1.5 + 20 { return }
        last = now
    }
}

let bare = BareReceiver(address: harness.bus.address)
try await Task.sleep(for: .seconds(2))
// The adverts' rate, so that a drained backlog can be told from the radio model's own traffic.
let backgroundStart = try await fleetdEvents()
try await Task.sleep(for: .seconds(2))
let background = Double(try await fleetdEvents() - backgroundStart) / 2
print(String(format: "flood.background: %.0f events/s (adverts)", background))

struct Phase { var rate: Int; var sent: Double; var fleetdRate: Double; var fleetdMicros: Double; var bareRate: Double; var bareMicros: Double }
var phases: [Phase] = []
for rate in rates {
    let e0 = try await fleetdEvents()
    let c0 = processCPU(pid)
    let b0 = bare.sample
    let s0 = try await floodedSignals()
    let t0 = ContinuousClock.now
    try await harness.sim("StartFlood", [.uint32(UInt32(rate))])
    try await Task.sleep(for: .seconds(floodSeconds))
    try await harness.sim("StopFlood")
    let window = seconds(ContinuousClock.now - t0)
    let e1 = try await fleetdEvents()
    let c1 = processCPU(pid)
    let b1 = bare.sample
    let s1 = try await floodedSignals()
    let handled = Double(e1 - e0), taken = Double(b1.count - b0.count)
    let phase = Phase(rate: rate, sent: Double(s1 - s0) / window, fleetdRate: handled / window,
                      fleetdMicros: handled > 0 ? (c1 - c0) / handled * 1e6 : 0,
                      bareRate: taken / window, bareMicros: taken > 0 ? (b1.cpu - b0.cpu) / taken * 1e6 : 0)
    phases.append(phase)
    let label = rate == 0 ? "max" : String(rate)
    print(String(format: "flood.%@.emitted: %.0f signals/s (queued by the simulator)", label, phase.sent))
    print(String(format: "flood.%@.fleetd: %.0f events/s, %.1f us CPU/event", label, phase.fleetdRate, phase.fleetdMicros))
    print(String(format: "flood.%@.bare_libdbus: %.0f signals/s, %.1f us CPU/signal", label, phase.bareRate, phase.bareMicros))
    print(String(format: "flood.%@.ratio: %.2f (bare CPU/signal over fleetd CPU/event); rate ratio %.2f", label,
                 phase.fleetdMicros > 0 ? phase.bareMicros / phase.fleetdMicros : 0, phase.bareRate > 0 ? phase.fleetdRate / phase.bareRate : 0))
    fflush(nil)
    try await drain(background: background)
}
bare.running.store(false, ordering: .relaxed)

// The verdicts: sustained rate against the bare loop when flooded as fast as the simulator can (the issue's
// target), and the same by CPU per event on the heaviest phase (independent of who else the cores serve).
if let flat = phases.first(where: { $0.rate == 0 }), flat.bareRate > 0 {
    let ratio = flat.fleetdRate / flat.bareRate
    print(String(format: "target.flood_rate_ratio: %@ %.2f (goal >= 0.50; fleetd %.0f events/s, bare libdbus %.0f signals/s, same flood)",
                 ratio >= 0.5 ? "PASS" : "MISS", ratio, flat.fleetdRate, flat.bareRate))
}
if let heaviest = phases.max(by: { $0.fleetdRate < $1.fleetdRate }), heaviest.fleetdMicros > 0 {
    let ratio = heaviest.bareMicros / heaviest.fleetdMicros
    print(String(format: "target.flood_cpu_ratio: %@ %.2f (goal >= 0.50; fleetd %.1f us CPU/event at %.0f events/s, bare %.1f us/signal)",
                 ratio >= 0.5 ? "PASS" : "MISS", ratio, heaviest.fleetdMicros, heaviest.fleetdRate, heaviest.bareMicros))
}
