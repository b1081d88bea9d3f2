import BlueZSimulator
import FleetPlatform
import FleetTestKit
import Foundation
import Synchronization

// SimulatorBench: memory of 10 000 simulated devices exported on a private bus, and the sustained rate of
// flood-mode PropertiesChanged signals a client receives through dbus-daemon. Run with -c release.

func residentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }

final class Counter: Sendable { let value = Atomic<Int>(0) }

let deviceCount = 10_000
let bus = try PrivateBus()
let baseline = residentKiB()
var world = SimulatorWorld(configuration: WorldConfiguration(capacity: 5))
for i in 0..<deviceCount {
    let address = BluetoothAddress(bytes: [0xC0, 0x00, 0x00, 0x00, UInt8(i >> 8), UInt8(i & 0xFF)])!
    try world.addPeripheral(PeripheralSpec(label: "d\(i)", address: address, name: "Sensor \(i)",
                                           manufacturerData: [0x0059: [UInt8(i & 0xFF), 0x01, 0x02, 0x03]],
                                           uuids: ["0000180d-0000-1000-8000-00805f9b34fb"], txPower: 0, rssi: -60,
                                           advertisingInterval: .seconds(1), profile: GattProfile(services: [GattProfile.heartRate])))
}
let simulator = BlueZSimulator(bus: try DBusConnection(address: bus.address), world: world, timeScale: 0)
try await simulator.start()
let client = try DBusConnection(address: bus.address)
let added = Counter()
let addedStream = try await client.signals(matching: DBusMatchRule(sender: "org.bluez", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded"))
Task { for await _ in addedStream { added.value.add(1, ordering: .relaxed) } }
let exportStart = ContinuousClock.now
_ = try await client.call(destination: "org.bluez", path: "/org/bluez/hci0", interface: "org.bluez.Adapter1", member: "StartDiscovery")
simulator.advanceTime(by: .milliseconds(1100))
try await waitUntil("10 000 devices exported", timeout: .seconds(120)) { added.value.load(ordering: .relaxed) >= deviceCount }
let exportTime = ContinuousClock.now - exportStart
let withDevices = residentKiB()
print("simulator_devices: \(simulator.withWorld { w in (w.deviceObjectCount(adapter: 0), [BusEffect]()) }) objects")
print("simulator_rss_10k_devices: \(withDevices / 1024) MiB")
print("simulator_rss_per_device: \((withDevices - baseline) * 1024 / deviceCount) bytes")
print("simulator_discover_10k: \(String(format: "%.2f", seconds(exportTime))) s")

let received = Counter()
let changes = try await client.signals(matching: DBusMatchRule.propertiesChanged(sender: "org.bluez"))
Task { for await _ in changes { received.value.add(1, ordering: .relaxed) } }
let floodRate = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 30_000
simulator.startFlood(signalsPerSecond: floodRate)
print("flood_target: \(floodRate) signals/s")
// Let the pipeline fill before measuring, so the figure is the sustained rate.
try await Task.sleep(for: .seconds(1))
let r0 = received.value.load(ordering: .relaxed)
let e0 = simulator.floodedSignals
let t0 = ContinuousClock.now
try await Task.sleep(for: .seconds(4))
let r1 = received.value.load(ordering: .relaxed)
let e1 = simulator.floodedSignals
let elapsed = seconds(ContinuousClock.now - t0)
simulator.stopFlood()
print("flood_signals_received: \(Int(Double(r1 - r0) / elapsed)) signals/s")
print("flood_signals_emitted: \(Int(Double(e1 - e0) / elapsed)) signals/s")
simulator.stop()
client.close()
bus.stop()
