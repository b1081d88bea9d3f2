import BlueZSimulator
import FleetPlatform
import FleetTestKit
import Testing

/// A stored-record meter as a BlueZ client sees it on a private bus: the RACP error name and message, the count
/// and a transfer as PropertiesChanged(Value), and the record control methods.
@Suite struct RecordsBusTests {
    static let meter = "/org/bluez/hci0/dev_A0_9E_1A_00_00_01"
    static let measurement = meter + "/service000a/char000b"
    static let racp = meter + "/service000a/char0010"
    static let chrc = "org.bluez.GattCharacteristic1"

    @Test func racpOverTheBus() async throws {
        let h = try await SimulatorHarness("device meter address=A0:9E:1A:00:00:01 profile=glucose-meter records=3 interval=0.05 jitter=0")
        try await h.discover(Self.meter)
        _ = try await h.bluez(Self.meter, "org.bluez.Device1", "Connect")
        try await h.waitForSignal("RACP added") { $0.isAdded(Self.racp) }
        let request: [DBusValue] = [.bytes([0x04, 0x01]), .vardict(["type": .string("request")])]
        // No StartNotify on the RACP: ATT 0xFD, which 5.66's create_gatt_dbus_error (src/gatt-client.c) sends in
        // its default case as org.bluez.Error.Failed "Operation failed with ATT error: 0x%02x".
        await #expect { try await h.bluez(Self.racp, Self.chrc, "WriteValue", request) } throws: { error in
            (error as? DBusError).map { $0.name == "org.bluez.Error.Failed" && $0.message == "Operation failed with ATT error: 0xfd" } ?? false
        }
        _ = try await h.bluez(Self.measurement, Self.chrc, "StartNotify")
        _ = try await h.bluez(Self.racp, Self.chrc, "StartNotify")
        var start = h.signals.count
        _ = try await h.bluez(Self.racp, Self.chrc, "WriteValue", request)
        // 05 00 03 00: Number of Stored Records response (GSS §3.178), 3 records, uint16 LE.
        try await h.waitForSignal("count indicated", after: start) { $0.changes(Self.racp, "Value", to: .bytes([0x05, 0x00, 0x03, 0x00])) }

        start = h.signals.count
        _ = try await h.bluez(Self.racp, Self.chrc, "WriteValue", [.bytes([0x01, 0x01]), .vardict(["type": .string("request")])])
        // 06 00 01 01: Report Stored Records (01) succeeded, after the three records on 2A18.
        let done = try await h.waitForSignal("success indicated", after: start) { $0.changes(Self.racp, "Value", to: .bytes([0x06, 0x00, 0x01, 0x01])) }
        let records = h.signals[start..<done].filter { $0.changes(Self.measurement, "Value") }
            .compactMap { $0.body[1].stringKeyed?["Value"]?.unwrapped.bytes }
        let held = try await h.sim("StoredRecords", [.string("meter")])
        #expect(held == [.array(.array(.byte), (1...3).map { k in .bytes(GlucoseRecords.record(sequence: UInt16(k), time: GlucoseRecords.preloadedTime(sequence: UInt16(k)))) })])
        #expect(records == (1...3).map { k in GlucoseRecords.record(sequence: UInt16(k), time: GlucoseRecords.preloadedTime(sequence: UInt16(k))) })

        #expect(try await h.sim("TakeRecord", [.string("meter")]) == [.uint16(4)])
        await #expect { try await h.sim("TakeRecord", [.string("nobody")]) } throws: { error in
            (error as? DBusError)?.name == "io.fleetd.Simulator.Error.UnknownDevice"
        }
    }

    @Test func recordFaultsFromTheControlInterface() async throws {
        let h = try await SimulatorHarness("device meter address=A0:9E:1A:00:00:01 profile=glucose-meter records=3 interval=0.05 jitter=0")
        try await h.discover(Self.meter)
        _ = try await h.bluez(Self.meter, "org.bluez.Device1", "Connect")
        try await h.waitForSignal("RACP added") { $0.isAdded(Self.racp) }
        _ = try await h.bluez(Self.racp, Self.chrc, "StartNotify")
        let count: [DBusValue] = [.bytes([0x04, 0x01]), .vardict(["type": .string("request")])]

        _ = try await h.sim("SetRACPQuirks", [.string("meter"), .string("no-count")])
        var start = h.signals.count
        _ = try await h.bluez(Self.racp, Self.chrc, "WriteValue", count)
        // 06 00 04 02: Report Number answered Op Code Not Supported.
        try await h.waitForSignal("no-count", after: start) { $0.changes(Self.racp, "Value", to: .bytes([0x06, 0x00, 0x04, 0x02])) }
        await #expect { try await h.sim("SetRACPQuirks", [.string("meter"), .string("sometimes")]) } throws: { error in
            (error as? DBusError)?.name == "io.fleetd.Simulator.Error.InvalidArguments"
        }
        _ = try await h.sim("SetRACPQuirks", [.string("meter"), .string("none")])

        _ = try await h.sim("SetRACPBusy", [.string("meter"), .uint32(1)])
        await #expect { try await h.bluez(Self.racp, Self.chrc, "WriteValue", count) } throws: { error in
            (error as? DBusError).map { $0.name == "org.bluez.Error.Failed" && $0.message == "Operation failed with ATT error: 0xfe" } ?? false
        }
        start = h.signals.count
        _ = try await h.bluez(Self.racp, Self.chrc, "WriteValue", count)
        try await h.waitForSignal("count", after: start) { $0.changes(Self.racp, "Value", to: .bytes([0x05, 0x00, 0x03, 0x00])) }

        _ = try await h.sim("SetClockDrift", [.string("meter"), .int64(3600)])
        #expect(try await h.sim("TakeRecord", [.string("meter")]) == [.uint16(4)])
        // Record 4 is stamped an hour ahead of the clock: 2026-12-01 00:03 + elapsed + 1 h, so hour 01 (octet 7).
        let held = try await h.sim("StoredRecords", [.string("meter")])
        guard case .array(_, let items)? = held.first, case .bytes(let fourth)? = items.last else { Issue.record("no records"); return }
        #expect(fourth[7] == 0x01)

        _ = try await h.sim("SetRACPDropAfter", [.string("meter"), .uint32(1)])
        start = h.signals.count
        _ = try await h.bluez(Self.racp, Self.chrc, "WriteValue", [.bytes([0x01, 0x01]), .vardict(["type": .string("request")])])
        try await h.waitForSignal("link dropped after one record", after: start) { $0.changes(Self.meter, "Connected", to: .boolean(false)) }

        _ = try await h.sim("ResetSequence", [.string("meter")])
        #expect(try await h.sim("StoredRecords", [.string("meter")]) == [.array(.array(.byte), [])])
    }
}
