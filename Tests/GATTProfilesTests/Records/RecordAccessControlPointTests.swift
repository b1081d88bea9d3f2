import TestScheduling
import Testing
@testable import GATTProfiles

/// Expected bytes from GATT Specification Supplement §3.178 (Record Access Control Point): Op Code (uint8), Operator
/// (uint8), Operand; GLS v1.0.1 §3.4.1 filter type 0x01 = sequence number; multi-octet operands little-endian.
@Suite(.offCooperativePool) struct RecordAccessControlPointTests {
    @Test func requestsAreLaidOutAsTheSupplementSays() {
        // Report Stored Records (0x01), Operator ≥ (0x03), filter type 0x01, sequence number 42 = 0x002A → 2A 00.
        #expect(RecordAccessRequest.reportStoredRecords(.atLeast(filterType: 0x01, key: 42)).bytes == [0x01, 0x03, 0x01, 0x2A, 0x00])
        // Report Stored Records, Operator All records (0x01), no operand.
        #expect(RecordAccessRequest.reportStoredRecords(.all).bytes == [0x01, 0x01])
        // Report Number of Stored Records (0x04), All records.
        #expect(RecordAccessRequest.reportNumberOfStoredRecords(.all).bytes == [0x04, 0x01])
        // Abort Operation (0x03) with the Null operator (0x00).
        #expect(RecordAccessRequest.abort.bytes == [0x03, 0x00])
        // Delete Stored Records (0x02), Operator ≤ (0x02), filter 0x01, 0x0107 = 263 → 07 01.
        #expect(RecordAccessRequest.deleteStoredRecords(.atMost(filterType: 0x01, key: 263)).bytes == [0x02, 0x02, 0x01, 0x07, 0x01])
        // Within range (0x04): low then high, 5 … 300 (0x012C → 2C 01).
        #expect(RecordAccessRequest.reportStoredRecords(.range(filterType: 0x01, low: 5, high: 300)).bytes
                == [0x01, 0x04, 0x01, 0x05, 0x00, 0x2C, 0x01])
    }

    @Test func answersDecode() throws {
        // Number of Stored Records Response (0x05), Null, count 200 = 0x00C8 → C8 00.
        #expect(try RecordAccessResponse.decode([0x05, 0x00, 0xC8, 0x00]) == .numberOfStoredRecords(200))
        // Response Code (0x06), Null, request op code 0x01, response 0x06 "no records found".
        #expect(try RecordAccessResponse.decode([0x06, 0x00, 0x01, 0x06]) == .response(request: 0x01, code: .noRecordsFound))
        #expect(try RecordAccessResponse.decode([0x06, 0x00, 0x01, 0x08]) == .response(request: 0x01, code: .procedureNotCompleted))
        // 0x0A-0xFF are reserved response codes: kept as their number.
        #expect(try RecordAccessResponse.decode([0x06, 0x00, 0x01, 0x0A]) == .response(request: 0x01, code: .reserved(0x0A)))
    }

    @Test(arguments: [
        ([0x06, 0x01, 0x01, 0x01], "operator", 1),          // a response's operator is Null
        ([0x07, 0x00], "op-code", 0),                         // 0x07 is reserved: not an answer
        ([0x06, 0x00, 0x01], "response-code-value", 3),       // one octet short
        ([0x05, 0x00, 0x01, 0x00, 0xFF], "operand", 4),       // a byte after the count
        ([], "op-code", 0),
    ] as [([UInt8], String, Int)])
    func malformedAnswersNameTheFieldAndOffset(bytes: [UInt8], field: String, offset: Int) {
        #expect {
            _ = try RecordAccessResponse.decode(bytes)
        } throws: { error in
            guard let error = error as? ProfileDecodeError else { return false }
            return error.characteristic == AssignedNumber(0x2A52) && error.field == field && error.offset == offset
        }
    }

    @Test func recordKeys() throws {
        // GSS Glucose Measurement: flags 0x10 (bit 4: context follows), sequence number 0x002A = 42, base time
        // 2026-12-07 08:30:00 (year 0x07EA LE).
        let glucose: [UInt8] = [0x10, 0x2A, 0x00, 0xEA, 0x07, 12, 7, 8, 30, 0]
        let records = try StoredRecordService.glucose.records(in: glucose, on: AssignedNumber(0x2A18))
        #expect(records == [StoredRecord(key: 42, isContext: false, contextFollows: true, bytes: glucose)])
        // Glucose Measurement Context: flags 0x00, sequence number 42.
        let context = try StoredRecordService.glucose.records(in: [0x00, 0x2A, 0x00], on: AssignedNumber(0x2A34))
        #expect(context.map(\.key) == [42] && context[0].isContext)
        // GSS CGM Measurement: two 6-octet records in one value: size 6, flags 0, SFLOAT 0x005A (90 mg/dL), time
        // offset 10 (0A 00); then size 6, flags 0, 0x005B, time offset 15.
        let cgm: [UInt8] = [0x06, 0x00, 0x5A, 0x00, 0x0A, 0x00, 0x06, 0x00, 0x5B, 0x00, 0x0F, 0x00]
        let both = try StoredRecordService.continuousGlucose.records(in: cgm, on: AssignedNumber(0x2AA7))
        #expect(both.map(\.key) == [10, 15] && both[1].bytes == Array(cgm[6...]))
        #expect(throws: ProfileDecodeError.self) { try StoredRecordService.glucose.records(in: [0x00, 0x01], on: AssignedNumber(0x2A18)) }
        #expect(throws: ProfileDecodeError.self) {
            try StoredRecordService.continuousGlucose.records(in: [0x08, 0x00, 0x5A, 0x00, 0x0A, 0x00], on: AssignedNumber(0x2AA7))
        }
    }

    @Test func attErrorsAsBlueZ566WritesThem() {
        #expect(ATTErrorCode.parse(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0xfd") == 0xFD)
        #expect(ATTErrorCode.parse(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0x80") == 0x80)
        #expect(ATTErrorCode.parse(name: "org.bluez.Error.Failed", message: "Not connected") == nil)
        #expect(ATTErrorCode.parse(name: "org.bluez.Error.InProgress", message: "Operation failed with ATT error: 0xfe") == nil)
    }
}
