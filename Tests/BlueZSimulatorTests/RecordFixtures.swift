@testable import BlueZSimulator
import FleetPlatform

/// A connected stored-record glucose meter (`profile=glucose-meter records=…`) at Fixture.strap's address, and
/// readers of what it sends.
enum Meter {
    // glucose-meter's table from handle 0x000a: service 000a; 2A18 char 000b (value 000c, CCCD 000d);
    // 2A51 char 000e (value 000f); 2A52 char 0010 (value 0011, CCCD 0012).
    static let measurement = Fixture.strapPath + "/service000a/char000b"
    static let racp = Fixture.strapPath + "/service000a/char0010"
    static let client = ":1.9"

    static func spec(_ keys: String, profile: String = "glucose-meter") throws -> PeripheralSpec {
        try Scenario.parseDeviceDefinition("meter address=A0:9E:1A:00:00:01 profile=\(profile) " + keys)
    }

    /// Connected, with notifications on 2A18 and (unless `indications` is false) indications on the RACP. A
    /// `continuous-glucose` table has the same handles: 2AA7 at char000b, 2AA8 at char000e, the RACP at char0010.
    static func connected(_ keys: String, indications: Bool = true, profile: String = "glucose-meter") throws -> SimulatorWorld {
        var (world, _) = try Fixture.discovering([try spec(keys, profile: profile)])
        _ = Fixture.connect(&world)
        _ = try world.startNotify(path: measurement, sender: client, token: 90)
        if indications { _ = try world.startNotify(path: racp, sender: client, token: 91) }
        return world
    }

    /// A Write Request to the RACP and the 10 ms ATT round trip it takes.
    static func write(_ world: inout SimulatorWorld, _ bytes: [UInt8], token: ReplyToken = 50) throws -> [BusEffect] {
        var effects = try world.writeValue(path: racp, value: bytes, options: ["type": .variant(.string("request"))], token: token)
        effects += world.advance(to: world.now + .milliseconds(10))
        return effects
    }

    static func run(_ world: inout SimulatorWorld, _ seconds: Double) -> [BusEffect] {
        world.advance(to: world.now + .milliseconds(Int64(seconds * 1000)))
    }

    /// Every Value that one characteristic signalled, in order.
    static func values(_ effects: [BusEffect], _ path: String) -> [[UInt8]] {
        effects.changes(path, .gattCharacteristic).compactMap { name, value in
            guard name == "Value", case .bytes(let bytes)? = value else { return nil }
            return bytes
        }
    }

    /// Preloaded record k as a test derives it: GlucoseRecords.record at 2026-12-01 00:00 + (k − 1) min + drift.
    static func preloaded(_ k: UInt16, drift: Int64 = 0) -> [UInt8] {
        GlucoseRecords.record(sequence: k, time: GlucoseRecords.preloadedTime(sequence: k, drift: drift))
    }

    /// The D-Bus error bluetoothd 5.66 sends for an ATT error on a write: create_gatt_dbus_error's default case
    /// (src/gatt-client.c), spelled out here so that a change to BlueZError.attError shows.
    static func attFailure(_ hex: String) -> ReplyResult {
        .failure(BlueZError(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0x" + hex))
    }
}
