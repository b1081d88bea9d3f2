/// What a meter does with one Record Access Control Point request (GATT Specification Supplement §3.178, GLS
/// v1.0.1 §3.4), decided from the request and the sequence numbers it holds. Pure, so every op code, operator and
/// operand rule is a test that needs no link.
enum RACPDecision: Sendable, Hashable {
    /// Indicate this on the RACP now (a response code or a count).
    case respond([UInt8])
    /// Notify these records on 0x2A18, paced, then indicate success.
    case report([UInt16])
    /// Delete these records, then indicate success.
    case delete([UInt16])
    /// Stop the transfer in progress, then indicate success.
    case abort
}

enum RACP {
    // Op codes (GSS §3.178.1).
    static let reportRecords: UInt8 = 0x01, deleteRecords: UInt8 = 0x02, abortOperation: UInt8 = 0x03
    static let reportNumber: UInt8 = 0x04, numberResponse: UInt8 = 0x05, responseCode: UInt8 = 0x06
    // Operators (GSS §3.178.2).
    static let null: UInt8 = 0x00, all: UInt8 = 0x01, lessOrEqual: UInt8 = 0x02, greaterOrEqual: UInt8 = 0x03
    static let withinRange: UInt8 = 0x04, first: UInt8 = 0x05, last: UInt8 = 0x06
    /// Filter type 0x01: the sequence number (GLS §3.4.1); 0x02, the user facing time, this meter does not support.
    static let sequenceFilter: UInt8 = 0x01
    // Response code values (GSS §3.178.3).
    static let success: UInt8 = 0x01, opCodeNotSupported: UInt8 = 0x02, invalidOperator: UInt8 = 0x03
    static let operatorNotSupported: UInt8 = 0x04, invalidOperand: UInt8 = 0x05, noRecordsFound: UInt8 = 0x06
    static let operandNotSupported: UInt8 = 0x09

    /// `06 00 OP CODE`: Response Code op code, Null operator, then the request op code and the value.
    static func response(_ request: UInt8, _ code: UInt8) -> [UInt8] { [responseCode, null, request, code] }

    /// `held` is the meter's sequence numbers in ascending order.
    static func decide(_ request: [UInt8], held: [UInt16], quirks: Set<RACPQuirk>) -> RACPDecision {
        let op = request.first ?? 0
        func reject(_ code: UInt8) -> RACPDecision { .respond(response(op, code)) }
        switch op {
        case reportRecords, deleteRecords, reportNumber: break
        case abortOperation:
            // Abort takes the Null operator and no operand (GSS §3.178.2).
            guard request.count >= 2, request[1] == null else { return reject(invalidOperator) }
            return request.count == 2 ? .abort : reject(invalidOperand)
        default: return reject(opCodeNotSupported)
        }
        if op == reportNumber && quirks.contains(.noCount) { return reject(opCodeNotSupported) }
        guard request.count >= 2 else { return reject(invalidOperator) }
        let oper = request[1]
        let operand = Array(request.dropFirst(2))
        if oper == greaterOrEqual && quirks.contains(.noGreaterOrEqual) { return reject(operatorNotSupported) }
        let selected: [UInt16]
        switch oper {
        case null: return reject(invalidOperator)
        case all, first, last:
            guard operand.isEmpty else { return reject(invalidOperand) }
            selected = oper == all ? held : oper == first ? Array(held.prefix(1)) : Array(held.suffix(1))
        case lessOrEqual, greaterOrEqual, withinRange:
            guard let filter = operand.first else { return reject(invalidOperand) }
            guard filter == sequenceFilter else { return reject(operandNotSupported) }
            let values = stride(from: 1, to: operand.count - 1, by: 2).map { UInt16(operand[$0]) | UInt16(operand[$0 + 1]) << 8 }
            guard operand.count == (oper == withinRange ? 5 : 3) else { return reject(invalidOperand) }
            switch oper {
            case lessOrEqual: selected = held.filter { $0 <= values[0] }
            case greaterOrEqual: selected = op == reportRecords && quirks.contains(.wholeHistory) ? held : held.filter { $0 >= values[0] }
            default:
                guard values[0] <= values[1] else { return reject(invalidOperand) }
                selected = held.filter { values[0] <= $0 && $0 <= values[1] }
            }
        default: return reject(operatorNotSupported)
        }
        switch op {
        case reportNumber:
            let n = UInt16(clamping: selected.count)
            return .respond([numberResponse, null, UInt8(n & 0xFF), UInt8(n >> 8)])
        case deleteRecords: return selected.isEmpty ? reject(noRecordsFound) : .delete(selected)
        default: return selected.isEmpty ? reject(noRecordsFound) : .report(selected)
        }
    }
}
