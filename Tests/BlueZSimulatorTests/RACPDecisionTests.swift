@testable import BlueZSimulator
import Testing

/// The record bytes and the RACP rules, pure: expected bytes are derived from GLS v1.0.1 / GSS §3.106 and §3.178.
@Suite struct RACPDecisionTests {
    @Test func recordOneIsLaidOutAsTheGlucoseMeasurement() {
        // 02: flags (type/location present, kg/L); 01 00: sequence number 1 (uint16 LE, octets 1–2);
        // EA 07 0C 01 00 00 00: base time 2026-12-01 00:00:00 (year 0x07EA LE, month, day, h, m, s);
        // 5A B0: SFLOAT exponent −5 (0xB), mantissa 90 (0x05A): 90 mg/dL = 90 × 10⁻⁵ kg/L; 11: capillary whole blood, finger.
        #expect(Meter.preloaded(1) == [0x02, 0x01, 0x00, 0xEA, 0x07, 0x0C, 0x01, 0x00, 0x00, 0x00, 0x5A, 0xB0, 0x11])
        // Record 2: a minute later (00:01:00), 90 + 13 = 103 mg/dL = 0x067.
        #expect(Meter.preloaded(2) == [0x02, 0x02, 0x00, 0xEA, 0x07, 0x0C, 0x01, 0x00, 0x01, 0x00, 0x67, 0xB0, 0x11])
        for k in UInt16(1)...300 {
            #expect(Meter.preloaded(k) == SimulatedMeasurement.glucose.value(number: UInt64(k - 1)), "record \(k) is the stream's reading \(k - 1)")
        }
    }

    @Test func dateTimeFollowsTheCalendar() {
        // 2026-01-01 00:00:00, the factory clock: EA 07 01 01 00 00 00.
        #expect(GlucoseRecords.dateTime(GlucoseRecords.factoryClock) == [0xEA, 0x07, 0x01, 0x01, 0x00, 0x00, 0x00])
        // 2026-12-31 23:59:59 + 1 s is 2027-01-01 00:00:00 (0x07EB).
        let lastSecond = GlucoseRecords.preloadEpoch + 31 * 86_400 - 1
        #expect(GlucoseRecords.dateTime(lastSecond) == [0xEA, 0x07, 0x0C, 0x1F, 0x17, 0x3B, 0x3B])
        #expect(GlucoseRecords.dateTime(lastSecond + 1) == [0xEB, 0x07, 0x01, 0x01, 0x00, 0x00, 0x00])
        // 2028 is a leap year: 2028-02-28 + 1 day is 02-29.
        #expect(GlucoseRecords.dateTime(GlucoseRecords.days(2028, 2, 28) * 86_400 + 86_400) == [0xEC, 0x07, 0x02, 0x1D, 0x00, 0x00, 0x00])
    }

    static let held: [UInt16] = [1, 2, 3, 4, 5]

    @Test(arguments: [
        // 04 01: Report Number, all → 05 00 05 00 (Number of Stored Records response, 5, uint16 LE).
        ([0x04, 0x01], RACPDecision.respond([0x05, 0x00, 0x05, 0x00])),
        // 04 02 01 02 00: number ≤ 2 (filter 01 sequence number) → 2.
        ([0x04, 0x02, 0x01, 0x02, 0x00], .respond([0x05, 0x00, 0x02, 0x00])),
        ([0x01, 0x01], .report([1, 2, 3, 4, 5])),
        // 01 03 01 03 00: ≥ 3.
        ([0x01, 0x03, 0x01, 0x03, 0x00], .report([3, 4, 5])),
        ([0x01, 0x02, 0x01, 0x02, 0x00], .report([1, 2])),
        // 01 04 01 02 00 04 00: within 2…4.
        ([0x01, 0x04, 0x01, 0x02, 0x00, 0x04, 0x00], .report([2, 3, 4])),
        ([0x01, 0x05], .report([1])),
        ([0x01, 0x06], .report([5])),
        // ≥ 6: nothing → 06 00 01 06 (Response Code, Null, request op code 01, No Records Found).
        ([0x01, 0x03, 0x01, 0x06, 0x00], .respond([0x06, 0x00, 0x01, 0x06])),
        // Null operator on a report: 0x03 Invalid Operator.
        ([0x01, 0x00], .respond([0x06, 0x00, 0x01, 0x03])),
        // Operator 0x07 is reserved: 0x04 Operator Not Supported.
        ([0x01, 0x07], .respond([0x06, 0x00, 0x01, 0x04])),
        // "all" takes no operand: 0x05 Invalid Operand.
        ([0x01, 0x01, 0x01], .respond([0x06, 0x00, 0x01, 0x05])),
        // Filter type 0x02 (user facing time) is not supported by this meter: 0x09 Operand Not Supported.
        ([0x01, 0x03, 0x02, 0x01, 0x00], .respond([0x06, 0x00, 0x01, 0x09])),
        // A sequence number one octet short: 0x05.
        ([0x01, 0x03, 0x01, 0x01], .respond([0x06, 0x00, 0x01, 0x05])),
        // A range whose minimum is above its maximum: 0x05.
        ([0x01, 0x04, 0x01, 0x05, 0x00, 0x02, 0x00], .respond([0x06, 0x00, 0x01, 0x05])),
        ([0x02, 0x01], .delete([1, 2, 3, 4, 5])),
        ([0x02, 0x02, 0x01, 0x02, 0x00], .delete([1, 2])),
        ([0x03, 0x00], .abort),
        // Abort with an operator other than Null: 0x03.
        ([0x03, 0x01], .respond([0x06, 0x00, 0x03, 0x03])),
        // Op code 0x07 (reserved) and 0x05 (a response op code) from a client: 0x02 Op Code Not Supported.
        ([0x07, 0x01], .respond([0x06, 0x00, 0x07, 0x02])),
        ([0x05, 0x00], .respond([0x06, 0x00, 0x05, 0x02])),
    ] as [([UInt8], RACPDecision)])
    func requestsAreAnsweredAsGSSSays(request: [UInt8], decision: RACPDecision) {
        #expect(RACP.decide(request, held: Self.held, quirks: []) == decision)
    }

    @Test func quirksChangeOnlyWhatTheySay() {
        let ge: [UInt8] = [0x01, 0x03, 0x01, 0x04, 0x00]
        // no-greater-or-equal: 06 00 01 04, Operator Not Supported; all still works.
        #expect(RACP.decide(ge, held: Self.held, quirks: [.noGreaterOrEqual]) == .respond([0x06, 0x00, 0x01, 0x04]))
        #expect(RACP.decide([0x01, 0x01], held: Self.held, quirks: [.noGreaterOrEqual]) == .report(Self.held))
        // no-count: 06 00 04 02, Op Code Not Supported for Report Number.
        #expect(RACP.decide([0x04, 0x01], held: Self.held, quirks: [.noCount]) == .respond([0x06, 0x00, 0x04, 0x02]))
        #expect(RACP.decide(ge, held: Self.held, quirks: [.noCount]) == .report([4, 5]))
        // whole-history: ≥ 4 sends all five.
        #expect(RACP.decide(ge, held: Self.held, quirks: [.wholeHistory]) == .report(Self.held))
        #expect(RACP.decide([0x04, 0x03, 0x01, 0x04, 0x00], held: Self.held, quirks: [.wholeHistory]) == .respond([0x05, 0x00, 0x02, 0x00]),
                "the count of ≥ stays right")
    }

    @Test func attErrorIsTheTextCreateGattDbusErrorWrites() {
        // src/gatt-client.c create_gatt_dbus_error, default: ERROR_INTERFACE ".Failed", "Operation failed with ATT error: 0x%02x".
        #expect(BlueZError.attError(0xFD) == BlueZError(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0xfd"))
        #expect(BlueZError.attError(0x0A).message == "Operation failed with ATT error: 0x0a")
    }
}
