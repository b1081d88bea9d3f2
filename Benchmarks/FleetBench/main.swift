// fleetd at scale on the simulator: time from start to all of BENCH_DEVICES (default 1 000) devices ready,
// fleetd's RSS, the CPU it burns over an idle stretch (BENCH_IDLE_SECONDS, default 60), Status round trips
// under 50 polling clients while links are dropped. (The state of 10 000 devices is StoreBench's.)
import FleetCLI
import FleetManager
import FleetPlatform
import FleetTestKit
import Foundation
import Supervision
import Identity

let environment = ProcessInfo.processInfo.environment
let deviceCount = Int(environment["BENCH_DEVICES"] ?? "") ?? 1000
let idleSeconds = Int(environment["BENCH_IDLE_SECONDS"] ?? "") ?? 60
// The simulator serves at most 16 adapters and fleetd allows 64 links per adapter.
let adapterCount = min(16, max(1, (deviceCount + 49) / 50))
let perAdapter = min(64, (deviceCount + adapterCount - 1) / adapterCount)

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
func address(_ i: Int) -> String { String(format: "B0:00:00:00:%02X:%02X", i / 256, i % 256) }
func id(_ i: Int) -> String { "addr-" + address(i).replacingOccurrences(of: ":", with: "") }

func procStat(_ pid: pid_t) -> (rssKiB: Int, cpuSeconds: Double) {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        .flatMap { Int($0.split(whereSeparator: { $0 == " " || $0 == "\t" })[1]) } ?? 0
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
    let ticks = fields.count > 13 ? (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0) : 0
    return (rss, ticks / Double(sysconf(Int32(_SC_CLK_TCK))))
}

var scenario = "adapters \(adapterCount)\ncapacity \(perAdapter)\n"
var config = "[adapters]\ncapacity = \(perAdapter)\n"
for i in 0..<deviceCount {
    scenario += "device d\(i) address=\(address(i)) name=\"Strap \(i)\" profile=heart-rate interval=5\n"
    config += "[device \"\(id(i))\"]\nsubscribe = 2a37\n"
}

let start = ContinuousClock.now
let harness = try await FleetHarness(scenario: scenario, configuration: config)
let wanted = Set((0..<deviceCount).map(id))
try await harness.waitFor("\(deviceCount) devices ready", timeout: .seconds(600)) { devices in
    devices.values.filter { $0["state"]?.stringValue == "ready" }.count == wanted.count
}
let converged = ContinuousClock.now - start
let pid = harness.fleetd?.pid ?? 0
print(String(format: "fleet.start_to_all_ready.%d_devices: %.2f s", deviceCount, seconds(converged)))
print("fleet.rss.\(deviceCount)_devices: \(procStat(pid).rssKiB / 1024) MiB")

let before = procStat(pid).cpuSeconds
let idleStart = ContinuousClock.now
try await Task.sleep(for: .seconds(idleSeconds))
let idleCPU = procStat(pid).cpuSeconds - before
print(String(format: "fleet.cpu_over_idle.%ds: %.2f s (%.1f%% of one core; %d devices notifying every 1 s)", idleSeconds, idleCPU,
             100 * idleCPU / seconds(ContinuousClock.now - idleStart), deviceCount))

// Status under load: 50 clients polling while links drop and come back.
let socket = harness.socketPath
let storm = Task {
    for i in stride(from: 0, to: min(deviceCount, 200), by: 1) {
        _ = try? await harness.sim("DropLink", [.string("d\(i)")])
    }
}
let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
    for _ in 0..<50 {
        group.addTask {
            try await offPool {
                let connection = try VarlinkConnection(path: socket)
                var out: [Double] = []
                for _ in 0..<40 {
                    let t = ContinuousClock.now
                    _ = try connection.call(.status, timeout: .seconds(30))
                    out.append(seconds(ContinuousClock.now - t) * 1e6)
                }
                return out
            }
        }
    }
    var all: [Double] = []
    for try await chunk in group { all += chunk }
    return all.sorted()
}
_ = await storm.value
func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
print(String(format: "fleet.status_rtt_under_storm.p50: %.0f us", percentile(0.5)))
print(String(format: "fleet.status_rtt_under_storm.p99: %.0f us", percentile(0.99)))
harness.stop()

// The state of 10 000 devices (write-all, restore, one device's change) is StoreBench's, next to the JSON snapshot's.
