// Round-trip calls/s and signals/s through fleetd's D-Bus layer, next to bare libdbus measured in the same run
// against the same server on a private dbus-daemon. The ratio is the figure that matters (goal ≥ 0.8).
import CDBus
import FleetPlatform
import FleetTestKit
import Foundation

let calls = Int(ProcessInfo.processInfo.environment["BENCH_CALLS"] ?? "") ?? 20_000
let signals = Int(ProcessInfo.processInfo.environment["BENCH_SIGNALS"] ?? "") ?? 50_000

func rate(_ count: Int, _ elapsed: Duration) -> Double {
    Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

let bus = try PrivateBus()
let server = try DBusConnection(address: bus.address)
let tree = DBusObjectTree(connection: server)
try await server.requestName("io.fleetd.Bench")
let spec = DBusInterfaceSpec(name: "io.fleetd.Bench", methods: [
    "Ping": DBusMethod(in: "u", out: "u", immediate: { $0.arguments }),
    "Burst": DBusMethod(in: "u") { call in
        guard case .uint32(let n) = call.arguments[0] else { return [] }
        for i in 0..<n {
            try server.emitSignal(path: "/io/fleetd/Bench", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                  arguments: [.string("org.bluez.Device1"), .vardict(["RSSI": .int16(Int16(truncatingIfNeeded: -40 - Int(i % 50)))]), .strings([])])
        }
        return []
    },
])
try tree.add(path: "/io/fleetd/Bench", interfaces: [(spec, [:])])

// MARK: round trips, bare libdbus (blocking send_with_reply_and_block on one thread)
func bareRoundTrips(_ n: Int) -> Duration {
    let error = fleet_dbus_error_new()
    defer { fleet_dbus_error_free(error) }
    let connection = dbus_connection_open_private(bus.address, error)!
    _ = dbus_bus_register(connection, error)
    defer { dbus_connection_close(connection); dbus_connection_unref(connection) }
    let start = ContinuousClock.now
    for i in 0..<n {
        let message = dbus_message_new_method_call("io.fleetd.Bench", "/io/fleetd/Bench", "io.fleetd.Bench", "Ping")!
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        var value = UInt32(i)
        dbus_message_iter_append_basic(&iter, FLEET_DBUS_TYPE_UINT32, &value)
        let reply = dbus_connection_send_with_reply_and_block(connection, message, 5000, error)
        dbus_message_unref(message)
        if let reply {
            var r = DBusMessageIter()
            dbus_message_iter_init(reply, &r)
            var out: UInt32 = 0
            dbus_message_iter_get_basic(&r, &out)
            dbus_message_unref(reply)
        }
    }
    return ContinuousClock.now - start
}

// MARK: round trips, fleetd's layer (async call, one in flight)
func layerRoundTrips(_ n: Int) async throws -> Duration {
    let client = try DBusConnection(address: bus.address)
    defer { client.close() }
    let start = ContinuousClock.now
    for i in 0..<n {
        _ = try await client.call(destination: "io.fleetd.Bench", path: "/io/fleetd/Bench", interface: "io.fleetd.Bench",
                                  member: "Ping", arguments: [.uint32(UInt32(i))], expecting: "u")
    }
    return ContinuousClock.now - start
}

// MARK: signals received, bare libdbus (read_write_dispatch loop, decoding each body)
final class Counter: @unchecked Sendable { var n = 0 }
func bareSignals(_ n: Int) async throws -> Duration {
    let error = fleet_dbus_error_new()
    defer { fleet_dbus_error_free(error) }
    let connection = dbus_connection_open_private(bus.address, error)!
    _ = dbus_bus_register(connection, error)
    dbus_bus_add_match(connection, "type='signal',path='/io/fleetd/Bench',member='PropertiesChanged'", error)
    dbus_connection_flush(connection)
    defer { dbus_connection_close(connection); dbus_connection_unref(connection) }
    let trigger = try DBusConnection(address: bus.address)
    defer { trigger.close() }
    let start = ContinuousClock.now
    Task { _ = try await trigger.call(destination: "io.fleetd.Bench", path: "/io/fleetd/Bench", interface: "io.fleetd.Bench", member: "Burst", arguments: [.uint32(UInt32(n))], timeout: .seconds(120)) }
    var received = 0
    while received < n {
        guard dbus_connection_read_write(connection, 1000) != 0 else { break }
        while let message = dbus_connection_pop_message(connection) {
            if dbus_message_get_type(message) == FLEET_DBUS_MESSAGE_TYPE_SIGNAL, dbus_message_has_member(message, "PropertiesChanged") != 0 {
                var iter = DBusMessageIter()
                dbus_message_iter_init(message, &iter)
                var s: UnsafePointer<CChar>? = nil
                dbus_message_iter_get_basic(&iter, &s)
                _ = String(cString: s!)
                received += 1
            }
            dbus_message_unref(message)
        }
    }
    return ContinuousClock.now - start
}

func layerSignals(_ n: Int) async throws -> Duration {
    let client = try DBusConnection(address: bus.address)
    defer { client.close() }
    let stream = try await client.signals(matching: DBusMatchRule(path: "/io/fleetd/Bench", member: "PropertiesChanged"))
    let start = ContinuousClock.now
    Task { _ = try await client.call(destination: "io.fleetd.Bench", path: "/io/fleetd/Bench", interface: "io.fleetd.Bench", member: "Burst", arguments: [.uint32(UInt32(n))], timeout: .seconds(120)) }
    var received = 0
    for await _ in stream {
        received += 1
        if received == n { break }
    }
    return ContinuousClock.now - start
}

// Warm-up, then alternate so that noise hits both sides alike.
_ = bareRoundTrips(500)
_ = try await layerRoundTrips(500)
var bareCalls: [Double] = [], layerCalls: [Double] = [], bareSig: [Double] = [], layerSig: [Double] = []
for _ in 0..<3 {
    bareCalls.append(rate(calls / 3, bareRoundTrips(calls / 3)))
    layerCalls.append(rate(calls / 3, try await layerRoundTrips(calls / 3)))
    bareSig.append(rate(signals / 3, try await bareSignals(signals / 3)))
    layerSig.append(rate(signals / 3, try await layerSignals(signals / 3)))
}
func best(_ xs: [Double]) -> Double { xs.max() ?? 0 }
print(String(format: "dbus.roundtrip.bare_libdbus: %.0f calls/s", best(bareCalls)))
print(String(format: "dbus.roundtrip.fleet_layer: %.0f calls/s", best(layerCalls)))
print(String(format: "dbus.roundtrip.ratio: %.2f", best(layerCalls) / best(bareCalls)))
print(String(format: "dbus.signals.bare_libdbus: %.0f signals/s", best(bareSig)))
print(String(format: "dbus.signals.fleet_layer: %.0f signals/s", best(layerSig)))
print(String(format: "dbus.signals.ratio: %.2f", best(layerSig) / best(bareSig)))

// MARK: the exported tree: 16 adapters' worth of Device1 objects (1 000 with a GATT service and two
// characteristics below), then the 15 000 unlinked ones removed, as when a fleet's TemporaryTimeout runs out in
// the simulator. Removal costs what it removes; adding the same objects is the baseline of the same run.
let device = DBusInterfaceSpec(name: "org.bluez.Device1")
let gatt = DBusInterfaceSpec(name: "org.bluez.GattService1")
var linked: [String] = []
var unlinked: [String] = []
for adapter in 0..<16 {
    for index in 0..<1000 {
        let path = String(format: "/org/bluez/hci%d/dev_B0_00_00_00_%02X_%02X", adapter, index / 256, index % 256)
        if index % 16 == adapter { linked.append(path) } else { unlinked.append(path) }
    }
}
let addStart = ContinuousClock.now
for path in linked + unlinked { try tree.add(path: path, interfaces: [(device, ["Connected": .boolean(false)])]) }
for path in linked { for child in ["/service0010", "/service0010/char0011", "/service0010/char0014"] { try tree.add(path: path + child, interfaces: [(gatt, [:])]) } }
let added = ContinuousClock.now - addStart
let removeStart = ContinuousClock.now
for path in unlinked { tree.remove(path: path) }
let removed = ContinuousClock.now - removeStart
print(String(format: "dbus.tree.add_%d_objects: %.0f ms", linked.count * 4 + unlinked.count, added / .milliseconds(1)))
print(String(format: "dbus.tree.remove_%d_of_them: %.0f ms (%.2f of the time to add them all)", unlinked.count,
             removed / .milliseconds(1), removed / added))
server.close()
bus.stop()
