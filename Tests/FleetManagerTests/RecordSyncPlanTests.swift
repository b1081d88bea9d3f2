@testable import FleetManager
import FleetStore
import Testing

/// Which links get an RACP sync and how a value is keyed in the outbox (docs/records.md).
@Suite struct RecordSyncPlanTests {
    static func characteristic(_ short: String, _ flags: [String], path: String? = nil) -> CharacteristicObject {
        CharacteristicObject(path: path ?? "/org/bluez/hci0/dev_C8_B2_1E_00_00_10/service0010/char\(short)", uuid: "0000\(short)-0000-1000-8000-00805f9b34fb",
                             device: "/org/bluez/hci0/dev_C8_B2_1E_00_00_10", flags: flags, notifying: false, mtu: 247)
    }

    @Test func aMeterWithAnIndicatingRACPIsSyncedAndTheRACPIsArmedLast() {
        let link = [Self.characteristic("2a52", ["write", "indicate"]), Self.characteristic("2a18", ["notify"]),
                    Self.characteristic("2a51", ["read"])]
        #expect(RecordSyncPlan.offered(link)?.service == .glucose)
        let plan = ProfileArming.plan(link)
        #expect(plan.subscribe.last == "00002a52-0000-1000-8000-00805f9b34fb", "after the measurement: \(plan.subscribe)")
        #expect(plan.subscribe.contains("00002a18-0000-1000-8000-00805f9b34fb"))
    }

    @Test func noRACPOrAnRACPThatCannotIndicateIsNoSync() {
        #expect(RecordSyncPlan.offered([Self.characteristic("2a18", ["notify"])]) == nil)
        #expect(RecordSyncPlan.offered([Self.characteristic("2a18", ["notify"]), Self.characteristic("2a52", ["write"])]) == nil)
        #expect(RecordSyncPlan.offered([Self.characteristic("2a37", ["notify"]), Self.characteristic("2a52", ["write", "indicate"])]) == nil,
                "an RACP beside no stored-record measurement")
        #expect(!ProfileArming.plan([Self.characteristic("2a37", ["notify"]), Self.characteristic("2a52", ["write", "indicate"])]).subscribe
            .contains("00002a52-0000-1000-8000-00805f9b34fb"))
    }

    @Test func aGlucoseRecordIsKeyedByItsSequenceNumberAndOtherValuesAreNot() {
        // GSS "Glucose Measurement": flags 0x00, sequence number 0x012C = 300 (uint16 LE), base time 2026-12-01 00:00:00.
        let record: [UInt8] = [0x00, 0x2C, 0x01, 0xEA, 0x07, 12, 1, 0, 0, 0]
        #expect(RecordSyncPlan.recordKey(characteristic: "00002a18-0000-1000-8000-00805f9b34fb", value: record)
            == RecordKey(service: 0x1808, key: 300))
        // CGMS "CGM Measurement": size 6, flags 0, glucose SFLOAT 0x0064, time offset 0x000F = 15 minutes.
        #expect(RecordSyncPlan.recordKey(characteristic: "00002aa7-0000-1000-8000-00805f9b34fb", value: [6, 0, 0x64, 0x00, 0x0F, 0x00])
            == RecordKey(service: 0x181F, key: 15))
        #expect(RecordSyncPlan.recordKey(characteristic: "00002a18-0000-1000-8000-00805f9b34fb", value: [0x00, 0x2C]) == nil,
                "too short for its key: stored raw, never deduplicated")
        #expect(RecordSyncPlan.recordKey(characteristic: "00002a37-0000-1000-8000-00805f9b34fb", value: [0x00, 0x48]) == nil)
    }
}
