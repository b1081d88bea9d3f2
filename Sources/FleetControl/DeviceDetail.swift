/// The reply of `ShowDevice`: the device record plus what only a single-device view shows.
public struct DeviceDetail: Sendable, Equatable {
    public var device: DeviceInfo
    /// The identity rule that matched the device, in words.
    public var identity: String?
    public var lastError: String?
    public var connectedForSeconds: Double?
    public var characteristics: [CharacteristicInfo]

    public init(device: DeviceInfo, identity: String? = nil, lastError: String? = nil,
                connectedForSeconds: Double? = nil, characteristics: [CharacteristicInfo] = []) {
        self.device = device
        self.identity = identity
        self.lastError = lastError
        self.connectedForSeconds = connectedForSeconds
        self.characteristics = characteristics
    }

    public var json: [String: JSONValue] {
        ["device": .object(device.json),
         "detail": .object(["identity": .optional(identity), "lastError": .optional(lastError),
                            "connectedForSeconds": .optional(connectedForSeconds),
                            "characteristics": .array(characteristics.map { .object($0.json) })])]
    }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        device = try DeviceInfo(reading: reader.record("device"))
        let detail = try reader.record("detail")
        identity = try detail.optionalString("identity")
        lastError = try detail.optionalString("lastError")
        connectedForSeconds = try detail.optionalDouble("connectedForSeconds")
        var characteristics: [CharacteristicInfo] = []
        for record in try detail.records("characteristics") { characteristics.append(try CharacteristicInfo(reading: record)) }
        self.characteristics = characteristics
    }
}

/// A GATT characteristic of a connected device.
public struct CharacteristicInfo: Sendable, Equatable {
    public var uuid: String
    /// BlueZ flag names: `read`, `write`, `write-without-response`, `notify`, `indicate`.
    public var flags: [String]

    public init(uuid: String, flags: [String]) {
        self.uuid = uuid
        self.flags = flags
    }

    public var json: [String: JSONValue] { ["uuid": .string(uuid), "flags": .array(flags.map(JSONValue.string))] }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        uuid = try reader.string("uuid")
        flags = try reader.strings("flags")
    }
}
