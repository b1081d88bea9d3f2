/// Record Access Control Point (0x2A52): the request a collector writes and the indications a device answers with,
/// as the GATT Specification Supplement (GSS) §3.178 lays them out and the Glucose Service (GLS v1.0.1 §3.4) and
/// Continuous Glucose Monitoring Service (CGMS v1.0.1 §3.8) use them. Every value is Op Code (uint8), Operator
/// (uint8), then an operand whose shape the op code and operator decide.
public enum RecordAccessControlPoint {
    public static let characteristic = AssignedNumber(0x2A52)

    /// GSS §3.178.2 Op Code values (0x00 and 0x07-0xFF reserved for future use).
    public enum OpCode: UInt8, Sendable, Hashable {
        case reportStoredRecords = 0x01
        case deleteStoredRecords = 0x02
        case abortOperation = 0x03
        case reportNumberOfStoredRecords = 0x04
        case numberOfStoredRecordsResponse = 0x05
        case responseCode = 0x06
    }

    /// GSS §3.178.3 Operator values.
    public enum Operator: UInt8, Sendable, Hashable {
        case null = 0x00
        case allRecords = 0x01
        case lessThanOrEqual = 0x02
        case greaterThanOrEqual = 0x03
        case withinRange = 0x04
        case firstRecord = 0x05
        case lastRecord = 0x06
    }
}

/// Which records a request names. The filter type is the service's (GLS §3.4.1: 0x01 sequence number; CGMS §3.8.1:
/// 0x01 time offset), carried by ``StoredRecordService``.
public enum RecordSelection: Sendable, Hashable {
    case all
    /// Records whose key (sequence number or time offset) is at least `key`.
    case atLeast(filterType: UInt8, key: UInt16)
    /// Records whose key is at most `key` (Operator 0x02).
    case atMost(filterType: UInt8, key: UInt16)
    /// Records with `low` ≤ key ≤ `high` (Operator 0x04, operand low then high).
    case range(filterType: UInt8, low: UInt16, high: UInt16)

    var operatorAndOperand: [UInt8] {
        switch self {
        case .all: [RecordAccessControlPoint.Operator.allRecords.rawValue]
        case .atLeast(let filterType, let key):
            [RecordAccessControlPoint.Operator.greaterThanOrEqual.rawValue, filterType, UInt8(key & 0xFF), UInt8(key >> 8)]
        case .atMost(let filterType, let key):
            [RecordAccessControlPoint.Operator.lessThanOrEqual.rawValue, filterType, UInt8(key & 0xFF), UInt8(key >> 8)]
        case .range(let filterType, let low, let high):
            [RecordAccessControlPoint.Operator.withinRange.rawValue, filterType, UInt8(low & 0xFF), UInt8(low >> 8),
             UInt8(high & 0xFF), UInt8(high >> 8)]
        }
    }
}

/// A request fleetd writes to the RACP.
public enum RecordAccessRequest: Sendable, Hashable, CustomStringConvertible {
    case reportStoredRecords(RecordSelection)
    case reportNumberOfStoredRecords(RecordSelection)
    case deleteStoredRecords(RecordSelection)
    /// GSS §3.178: Abort Operation takes the Null operator and no operand.
    case abort

    public var opCode: RecordAccessControlPoint.OpCode {
        switch self {
        case .reportStoredRecords: .reportStoredRecords
        case .reportNumberOfStoredRecords: .reportNumberOfStoredRecords
        case .deleteStoredRecords: .deleteStoredRecords
        case .abort: .abortOperation
        }
    }

    /// The value written: op code, operator, operand (little-endian).
    public var bytes: [UInt8] {
        switch self {
        case .reportStoredRecords(let s), .reportNumberOfStoredRecords(let s), .deleteStoredRecords(let s):
            [opCode.rawValue] + s.operatorAndOperand
        case .abort: [RecordAccessControlPoint.OpCode.abortOperation.rawValue, RecordAccessControlPoint.Operator.null.rawValue]
        }
    }

    public var description: String {
        let what: String
        switch self {
        case .reportStoredRecords(let s): what = "report stored records " + s.text
        case .reportNumberOfStoredRecords(let s): what = "report number of stored records " + s.text
        case .deleteStoredRecords(let s): what = "delete stored records " + s.text
        case .abort: what = "abort operation"
        }
        return what
    }
}

extension RecordSelection {
    var text: String {
        switch self {
        case .all: "(all)"
        case .atLeast(_, let key): "(≥ \(key))"
        case .atMost(_, let key): "(≤ \(key))"
        case .range(_, let low, let high): "(\(low)…\(high))"
        }
    }
}

/// GSS §3.178.4 Response Code values; a code the Supplement reserves is kept as its number.
public enum RecordAccessResponseCode: Sendable, Hashable, CustomStringConvertible {
    case success                 // 0x01
    case opCodeNotSupported      // 0x02
    case invalidOperator         // 0x03
    case operatorNotSupported    // 0x04
    case invalidOperand          // 0x05
    case noRecordsFound          // 0x06
    case abortUnsuccessful       // 0x07
    case procedureNotCompleted   // 0x08
    case operandNotSupported     // 0x09
    case reserved(UInt8)

    public init(_ raw: UInt8) {
        switch raw {
        case 0x01: self = .success
        case 0x02: self = .opCodeNotSupported
        case 0x03: self = .invalidOperator
        case 0x04: self = .operatorNotSupported
        case 0x05: self = .invalidOperand
        case 0x06: self = .noRecordsFound
        case 0x07: self = .abortUnsuccessful
        case 0x08: self = .procedureNotCompleted
        case 0x09: self = .operandNotSupported
        default: self = .reserved(raw)
        }
    }

    public var rawValue: UInt8 {
        switch self {
        case .success: 0x01
        case .opCodeNotSupported: 0x02
        case .invalidOperator: 0x03
        case .operatorNotSupported: 0x04
        case .invalidOperand: 0x05
        case .noRecordsFound: 0x06
        case .abortUnsuccessful: 0x07
        case .procedureNotCompleted: 0x08
        case .operandNotSupported: 0x09
        case .reserved(let raw): raw
        }
    }

    /// kebab-case, for logs, metrics labels and `fleetctl records`.
    public var description: String {
        switch self {
        case .success: "success"
        case .opCodeNotSupported: "op-code-not-supported"
        case .invalidOperator: "invalid-operator"
        case .operatorNotSupported: "operator-not-supported"
        case .invalidOperand: "invalid-operand"
        case .noRecordsFound: "no-records-found"
        case .abortUnsuccessful: "abort-unsuccessful"
        case .procedureNotCompleted: "procedure-not-completed"
        case .operandNotSupported: "operand-not-supported"
        case .reserved(let raw): "reserved-0x" + String(raw, radix: 16)
        }
    }
}

/// An indication on the RACP.
public enum RecordAccessResponse: Sendable, Hashable {
    /// Op Code 0x05, Operator Null, operand the count (uint16; GLS §3.4.2.2, CGMS §3.8.2.2).
    case numberOfStoredRecords(UInt16)
    /// Op Code 0x06, Operator Null, operand the request op code and the response code (GSS §3.178.4).
    case response(request: UInt8, code: RecordAccessResponseCode)

    public static func decode(_ bytes: [UInt8]) throws(ProfileDecodeError) -> RecordAccessResponse {
        var reader = ByteReader(bytes, characteristic: RecordAccessControlPoint.characteristic)
        let opCode = try reader.uint8("op-code")
        let op = try reader.uint8("operator")
        guard op == RecordAccessControlPoint.Operator.null.rawValue else {
            throw reader.error("operator", .outOfRange(value: Int64(op)), at: 1)
        }
        let response: RecordAccessResponse
        switch RecordAccessControlPoint.OpCode(rawValue: opCode) {
        case .numberOfStoredRecordsResponse?:
            response = .numberOfStoredRecords(try reader.uint16("number-of-records"))
        case .responseCode?:
            let request = try reader.uint8("request-op-code")
            response = .response(request: request, code: RecordAccessResponseCode(try reader.uint8("response-code-value")))
        default:
            // A collector is only ever sent 0x05 and 0x06; anything else is not an answer to it.
            throw reader.error("op-code", .outOfRange(value: Int64(opCode)), at: 0)
        }
        guard reader.isAtEnd else { throw reader.error("operand", .trailingBytes(count: reader.remaining)) }
        return response
    }
}
