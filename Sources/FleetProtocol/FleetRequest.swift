/// A call of `io.fleetd.Fleet` with its parameters typed: what fleetctl sends and what the server dispatches on.
public enum FleetRequest: Sendable, Equatable {
    case status
    case listDevices
    case showDevice(device: String)
    case connect(device: String)
    case disconnect(device: String)
    case evict(device: String)
    case forget(device: String)
    case setPolicy(device: String, policyClass: String)
    case read(device: String, characteristic: String)
    case write(device: String, characteristic: String, value: [UInt8], withResponse: Bool)
    /// Events of one device, or of all (nil). With `since` (a cursor) or `consumer` (a named consumer's
    /// acknowledged cursor), the stored values after that cursor are replayed from the outbox and then followed live.
    case watch(device: String?, since: Int64? = nil, consumer: String? = nil)
    case reload
    case metrics
    /// Moves the named consumer's cursor to `cursor` (never backwards).
    case acknowledge(consumer: String, cursor: Int64)
    /// One device's stored values: after cursor `since`, or the newest when nil; at most `limit`.
    case readings(device: String, since: Int64?, limit: Int?)
    /// Pair the device now (over its link) or on its next link.
    case pair(device: String)
    /// Remove the device's bond.
    case unpair(device: String)
    /// What fleetd keeps of the device's stored records (its RACP syncs).
    case records(device: String)

    public var method: FleetInterface.Method {
        switch self {
        case .status: .status
        case .listDevices: .listDevices
        case .showDevice: .showDevice
        case .connect: .connect
        case .disconnect: .disconnect
        case .evict: .evict
        case .forget: .forget
        case .setPolicy: .setPolicy
        case .read: .read
        case .write: .write
        case .watch: .watch
        case .reload: .reload
        case .metrics: .metrics
        case .acknowledge: .acknowledge
        case .readings: .readings
        case .pair: .pair
        case .unpair: .unpair
        case .records: .records
        }
    }

    /// The named consumer the request reads as or acknowledges for, if any.
    public var consumer: String? {
        switch self {
        case .watch(_, _, let consumer): consumer
        case .acknowledge(let consumer, _): consumer
        default: nil
        }
    }

    /// The call to send; `Watch` is asked with `more`, as it streams.
    public func call() throws(VarlinkError) -> VarlinkCall {
        let name = method.qualifiedName
        switch self {
        case .status, .listDevices, .reload, .metrics:
            return VarlinkCall(method: name)
        case .showDevice(let device), .connect(let device), .disconnect(let device), .evict(let device), .forget(let device),
             .pair(let device), .unpair(let device), .records(let device):
            return try VarlinkCall(method: name, parameters: DeviceParameter(device: device))
        case .setPolicy(let device, let policyClass):
            return try VarlinkCall(method: name, parameters: SetPolicyParameters(device: device, policyClass: policyClass))
        case .read(let device, let characteristic):
            return try VarlinkCall(method: name, parameters: CharacteristicParameters(device: device, characteristic: characteristic))
        case .write(let device, let characteristic, let value, let withResponse):
            return try VarlinkCall(method: name, parameters: WriteParameters(device: device, characteristic: characteristic,
                                                                             value: value, withResponse: withResponse))
        case .watch(let device, let since, let consumer):
            return try VarlinkCall(method: name, parameters: WatchParameters(device: device, since: since, consumer: consumer), more: true)
        case .acknowledge(let consumer, let cursor):
            return try VarlinkCall(method: name, parameters: AcknowledgeParameters(consumer: consumer, cursor: cursor))
        case .readings(let device, let since, let limit):
            return try VarlinkCall(method: name, parameters: ReadingsParameters(device: device, since: since, limit: limit))
        }
    }

    /// Reads a received call of `method`; a parameter that is missing or of the wrong type is `InvalidParameter` naming it.
    public init(_ method: FleetInterface.Method, parameters call: VarlinkCall) throws(VarlinkError) {
        switch method {
        case .status: self = .status
        case .listDevices: self = .listDevices
        case .reload: self = .reload
        case .metrics: self = .metrics
        case .showDevice: self = .showDevice(device: try call.parameters(as: DeviceParameter.self).device)
        case .connect: self = .connect(device: try call.parameters(as: DeviceParameter.self).device)
        case .disconnect: self = .disconnect(device: try call.parameters(as: DeviceParameter.self).device)
        case .evict: self = .evict(device: try call.parameters(as: DeviceParameter.self).device)
        case .forget: self = .forget(device: try call.parameters(as: DeviceParameter.self).device)
        case .pair: self = .pair(device: try call.parameters(as: DeviceParameter.self).device)
        case .unpair: self = .unpair(device: try call.parameters(as: DeviceParameter.self).device)
        case .records: self = .records(device: try call.parameters(as: DeviceParameter.self).device)
        case .setPolicy:
            let parameters = try call.parameters(as: SetPolicyParameters.self)
            self = .setPolicy(device: parameters.device, policyClass: parameters.policyClass)
        case .read:
            let parameters = try call.parameters(as: CharacteristicParameters.self)
            self = .read(device: parameters.device, characteristic: parameters.characteristic)
        case .write:
            let parameters = try call.parameters(as: WriteParameters.self)
            self = .write(device: parameters.device, characteristic: parameters.characteristic, value: parameters.value,
                          withResponse: parameters.withResponse)
        case .watch:
            let parameters = try call.parameters(as: WatchParameters.self)
            self = .watch(device: parameters.device, since: parameters.since, consumer: parameters.consumer)
        case .acknowledge:
            let parameters = try call.parameters(as: AcknowledgeParameters.self)
            self = .acknowledge(consumer: parameters.consumer, cursor: parameters.cursor)
        case .readings:
            let parameters = try call.parameters(as: ReadingsParameters.self)
            self = .readings(device: parameters.device, since: parameters.since, limit: parameters.limit)
        }
    }
}

private struct DeviceParameter: Codable {
    var device: String
}

private struct SetPolicyParameters: Codable {
    var device: String
    var policyClass: String
}

private struct CharacteristicParameters: Codable {
    var device: String
    var characteristic: String
}

private struct WatchParameters: Codable {
    var device: String?
    var since: Int64?
    var consumer: String?
}

private struct AcknowledgeParameters: Codable {
    var consumer: String
    var cursor: Int64
}

private struct ReadingsParameters: Codable {
    var device: String
    var since: Int64?
    var limit: Int?
}

/// `Write`'s parameters: the value travels as hex, and `withResponse` defaults to true.
private struct WriteParameters: Codable {
    var device: String
    var characteristic: String
    var value: [UInt8]
    var withResponse: Bool

    init(device: String, characteristic: String, value: [UInt8], withResponse: Bool) {
        self.device = device
        self.characteristic = characteristic
        self.value = value
        self.withResponse = withResponse
    }

    private enum CodingKeys: String, CodingKey { case device, characteristic, value, withResponse }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        device = try container.decode(String.self, forKey: .device)
        characteristic = try container.decode(String.self, forKey: .characteristic)
        value = try container.decodeHex(forKey: .value)
        withResponse = try container.decodeIfPresent(Bool.self, forKey: .withResponse) ?? true
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(characteristic, forKey: .characteristic)
        try container.encode(HexBytes.encode(value), forKey: .value)
        try container.encode(withResponse, forKey: .withResponse)
    }
}
