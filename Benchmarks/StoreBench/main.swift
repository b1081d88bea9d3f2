// The SQLite store against the JSON snapshot it replaced, in one run: outbox ingest (burst and paced, at two
// commit delays), replay, the fleet's state of 10 000 devices (write-all, restore, one device's change) through
// FleetStateStore as fleetd uses it, and the JSON snapshot's write and restore of the same 10 000 devices. One line per figure, with its target's verdict where the
// issue sets one. BENCH_READINGS (default 200 000) sets the burst size; BENCH_ONLY=state runs only the state
// figures (SQLite and JSON), BENCH_ONLY=outbox only the outbox's.
import FleetManager
import FleetStore
import Foundation
import Identity
import Supervision

let environment = ProcessInfo.processInfo.environment
let burstCount = Int(environment["BENCH_READINGS"] ?? "") ?? 200_000
let only = environment["BENCH_ONLY"]
guard only == nil || only == "state" || only == "outbox" else {
    print("store.error: BENCH_ONLY must be 'state' or 'outbox', not '\(only ?? "")'")
    exit(2)
}
let runOutbox = only != "state", runState = only != "outbox"

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
func verdict(_ ok: Bool, _ target: String) -> String { "[target \(target): \(ok ? "met" : "MISSED")]" }
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}
func fail(_ message: String) -> Never {
    print("store.error: \(message)")
    exit(1)
}

let directory: String = {
    var template = Array("/tmp/fleet-store-bench.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fail("mkdtemp failed") }
    return String(cString: made)
}()
defer { try? FileManager.default.removeItem(atPath: directory) }

func reading(_ i: Int) -> Reading {
    Reading(device: "mfr-0059-\(String(format: "%012X", i % 200))", characteristic: "00002a37-0000-1000-8000-00805f9b34fb",
            kind: .notification, value: [0x16, UInt8(i & 0xff), UInt8((i >> 8) & 0xff), 0x42],
            monotonicNanoseconds: StoreClock.monotonicNanoseconds(), wallNanoseconds: StoreClock.wallNanoseconds(), session: 1)
}

func openOutbox(_ name: String, delay: Duration) -> Outbox {
    var configuration = Outbox.Configuration()
    configuration.commitDelay = delay
    configuration.memoryLimit = 10_000_000
    do { return try Outbox(path: "\(directory)/\(name).db", configuration: configuration) } catch { fail("\(error)") }
}

print("store.sqlite_version: \(SQLiteDatabase.libraryVersion)")

// MARK: Outbox ingest, burst: one producer appends as fast as it can; timed until the last batch committed.
var replaySource: Outbox?
let commitDelays: [Duration] = runOutbox ? [.milliseconds(100), .milliseconds(10)] : []
for delay in commitDelays {
    let label = "delay_\(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)ms"
    let outbox = openOutbox("burst-\(label)", delay: delay)
    let readings = (0..<burstCount).map(reading)
    let cpu0 = cpuSeconds(), t0 = ContinuousClock.now
    for r in readings { outbox.append(r) }
    do { try await outbox.flush() } catch { fail("flush: \(error)") }
    let elapsed = seconds(ContinuousClock.now - t0), cpu = cpuSeconds() - cpu0
    let stats = outbox.stats()
    guard stats.committed == UInt64(burstCount) else { fail("committed \(stats.committed) of \(burstCount)") }
    let rate = Double(burstCount) / elapsed
    print(String(format: "store.outbox_ingest.burst.%@: %.0f readings/s, %.2f us CPU/reading, %.0f commits/s (= WAL fsyncs/s at synchronous=FULL), %.0f bytes written/reading %@",
                 label, rate, cpu / Double(burstCount) * 1e6, Double(stats.commits) / elapsed,
                 Double(stats.bytesWritten) / Double(burstCount), verdict(rate >= 50_000, "≥ 50000/s")))
    if replaySource == nil { replaySource = outbox } else { outbox.close() }
}

// MARK: Outbox ingest, paced: 20 000 readings/s offered for 2 s, so the commit delay decides the batch size.
let pacedRate = 20_000, pacedSeconds = 2
for delay in commitDelays {
    let label = "delay_\(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)ms"
    let outbox = openOutbox("paced-\(label)", delay: delay)
    let total = pacedRate * pacedSeconds
    let perTick = pacedRate / 1000
    let readings = (0..<total).map(reading)
    let cpu0 = cpuSeconds()
    let start = ContinuousClock.now
    var sent = 0
    while sent < total {
        for _ in 0..<perTick { outbox.append(readings[sent]); sent += 1 }
        // A bench may pace with a clock: one tick of appends per millisecond.
        try await Task.sleep(until: start + .milliseconds(sent / perTick), clock: .continuous)
    }
    do { try await outbox.flush() } catch { fail("flush: \(error)") }
    let elapsed = seconds(ContinuousClock.now - start), cpu = cpuSeconds() - cpu0
    let stats = outbox.stats()
    print(String(format: "store.outbox_ingest.paced_%d_per_s.%@: %.1f commits/s (= WAL fsyncs/s), %.0f readings/commit, commit latency mean %.1f ms max %.1f ms, %.2f us CPU/reading, %.0f bytes written/reading",
                 pacedRate, label, Double(stats.commits) / elapsed, Double(stats.committed) / Double(max(stats.commits, 1)),
                 seconds(stats.meanCommitLatency) * 1000, seconds(stats.maxCommitLatency) * 1000,
                 cpu / Double(total) * 1e6, Double(stats.bytesWritten) / Double(total)))
    outbox.close()
}

// MARK: Replay: every reading of the first burst, 1000 per page.
if let outbox = replaySource {
    let cpu0 = cpuSeconds(), t0 = ContinuousClock.now
    var cursor: Int64 = 0, count = 0
    while true {
        let page: ReplayPage
        do { page = try outbox.read(after: cursor, limit: 1000) } catch { fail("replay: \(error)") }
        count += page.readings.count
        cursor = page.next
        if page.reachedEnd { break }
    }
    let elapsed = seconds(ContinuousClock.now - t0)
    guard count == burstCount else { fail("replayed \(count) of \(burstCount)") }
    print(String(format: "store.outbox_replay: %.0f readings/s, %.2f us CPU/reading", Double(count) / elapsed, (cpuSeconds() - cpu0) / Double(count) * 1e6))
    outbox.close()
}

if !runState {
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}

// MARK: The same 10 000 devices as FleetBench's snapshot: as state rows, and as the JSON snapshot.
func address(_ i: Int) -> String { String(format: "B0:00:00:00:%02X:%02X", i / 256, i % 256) }
func id(_ i: Int) -> String { "addr-" + address(i).replacingOccurrences(of: ":", with: "") }
var registry = IdentityRegistry()
for i in 0..<10_000 {
    let a = try BluetoothAddress(address(i), type: .public)
    registry.record(.address(a), address: a, name: "Device \(i)", now: .seconds(i))
}
let devices = (0..<10_000).map { i in
    FleetSnapshot.Device(wanted: WantedDevice(id: DeviceID(id(i)), subscribe: ["00002a37-0000-1000-8000-00805f9b34fb"]), isWanted: true,
                         lastAddresses: [address(i)], failures: i % 5, gaveUp: false, lastReason: nil)
}
let snapshot = FleetSnapshot(devices: devices, registry: registry, evictions: [])

// Write-all: every row of the 10 000 devices and 10 000 identities into an empty store, in one transaction (what
// the one-time JSON import does).
var writeAll: [Double] = []
var writeAllBytes: Int64 = 0
for run in 0..<3 {
    let path = "\(directory)/state-\(run).db"
    let store: StateStore
    do { store = try StateStore(path: path) } catch { fail("\(error)") }
    var state = try FleetStateStore(store: store)
    let before = try store.stats()
    let t0 = ContinuousClock.now
    let change = try state.save(snapshot)
    writeAll.append(seconds(ContinuousClock.now - t0))
    writeAllBytes = try store.stats().bytesWritten - before.bytesWritten
    guard change.devices.count == 10_000, change.identities.count == 10_000 else { fail("write-all wrote \(change.rowCount) rows") }
    store.close()
}
print(String(format: "store.state_write.all_10000_devices: %.1f ms, %.1f MiB written (10 000 device + 10 000 identity rows, one transaction)",
             median(writeAll) * 1000, Double(writeAllBytes) / 1_048_576))

if let n = Int(environment["PROFILE_RESTORE"] ?? "") {
    for _ in 0..<n {
        let store = try StateStore(path: "\(directory)/state-0.db")
        let state = try FleetStateStore(store: store)
        precondition(state.saved.devices.count == 10_000)
        store.close()
    }
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}
// Restore: open the store and turn every row back into the snapshot fleetd restores (no JSON anywhere).
var restores: [Double] = [], restoreRowsOnly: [Double] = []
for _ in 0..<5 {
    let t0 = ContinuousClock.now
    let store: StateStore
    do { store = try StateStore(path: "\(directory)/state-0.db") } catch { fail("\(error)") }
    let state = try FleetStateStore(store: store)
    restores.append(seconds(ContinuousClock.now - t0))
    guard state.saved.devices.count == 10_000, state.saved.registry.entries.count == 10_000, state.unreadable.isEmpty else {
        fail("restored \(state.saved.devices.count) devices, \(state.saved.registry.entries.count) identities")
    }
    guard state.saved == snapshot else { fail("the restored state differs from the saved one") }
    let t1 = ContinuousClock.now
    _ = try store.fleetState()
    restoreRowsOnly.append(seconds(ContinuousClock.now - t1))
    store.close()
}
print(String(format: "store.state_restore.10000_devices: %.1f ms (open + 10 000 device and 10 000 identity rows read and decoded into the snapshot; rows alone %.1f ms) %@",
             median(restores) * 1000, median(restoreRowsOnly) * 1000, verdict(median(restores) < 0.050, "< 50 ms")))

// Write-one-device: one device's failures change; the save finds it among the 10 000 (the diff is part of the
// figure) and writes its row alone.
let store: StateStore
do { store = try StateStore(path: "\(directory)/state-0.db") } catch { fail("\(error)") }
var state = try FleetStateStore(store: store)
var changing = snapshot
var updates: [Double] = []
let before = try store.stats()
let updateCount = 200
for n in 0..<updateCount {
    changing.devices[4242].failures = n + 100
    let t0 = ContinuousClock.now
    let change = try state.save(changing)
    updates.append(seconds(ContinuousClock.now - t0))
    guard change.devices.count == 1, change.rowCount == 1 else { fail("one device's change wrote \(change.rowCount) rows") }
}
let after = try store.stats()
print(String(format: "store.state_write.one_device: median %.2f ms, p99 %.2f ms, %.0f bytes written (WAL frames) per change, 1 row of 10 000 %@",
             median(updates) * 1000, percentile(updates, 0.99) * 1000, Double(after.bytesWritten - before.bytesWritten) / Double(updateCount),
             verdict(percentile(updates, 0.99) < 0.001, "< 1 ms")))
var diffs: [Double] = []
for _ in 0..<20 {
    let t0 = ContinuousClock.now
    _ = state.change(to: changing)
    diffs.append(seconds(ContinuousClock.now - t0))
}
print(String(format: "store.state_write.one_device.of_which_diff: median %.2f ms (comparing 10 000 devices and identities with what the store holds)",
             median(diffs) * 1000))
store.close()

// MARK: The JSON snapshot of the same state (FleetManager's SnapshotStore), where one change rewrites it all.
let snapshotStore = SnapshotStore(path: "\(directory)/snapshot.json")
var writes: [Double] = [], reads: [Double] = []
var bytes = 0
for _ in 0..<5 {
    let t0 = ContinuousClock.now
    bytes = try snapshotStore.write(snapshot)
    writes.append(seconds(ContinuousClock.now - t0))
    let t1 = ContinuousClock.now
    guard case .loaded(let back, _) = snapshotStore.load(), back.devices.count == 10_000 else { fail("snapshot did not restore") }
    reads.append(seconds(ContinuousClock.now - t1))
}
print(String(format: "json.snapshot_restore.10000_devices: %.1f ms %@", median(reads) * 1000, verdict(median(reads) < 0.050, "< 50 ms")))
print(String(format: "json.state_write.one_device: %.1f ms, %d bytes written/update (the whole snapshot, fsynced) %@",
             median(writes) * 1000, bytes, verdict(median(writes) < 0.001, "< 1 ms")))
print(String(format: "json.state_write.all_10000_devices: %.1f ms (the same rewrite)", median(writes) * 1000))
