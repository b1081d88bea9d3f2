import GATTProfiles

/// The reply of `ShowDevice`: the device record plus what only a single-device view shows.
public struct DeviceDetail: Sendable, Equatable {
    public var device: DeviceInfo
    /// The identity rule that matched the device, in words.
    public var identity: String?
    public var lastError: String?
    public var connectedForSeconds: Double?
    public var characteristics: [CharacteristicInfo]
    /// What the device's Device Information service said on its last link (manufacturer-name, model-number,
    /// serial-number, firmware-revision, …), in the service's order; empty when it has none or was not read.
    public var deviceInformation: [ObservationDetail]

    public init(device: DeviceInfo, identity: String? = nil, lastError: String? = nil,
                connectedForSeconds: Double? = nil, characteristics: [CharacteristicInfo] = [], deviceInformation: [ObservationDetail] = []) {
        self.device = device
        self.identity = identity
        self.lastError = lastError
        self.connectedForSeconds = connectedForSeconds
        self.characteristics = characteristics
        self.deviceInformation = deviceInformation
    }
}

// On the wire the single-device extras sit in their own `detail` record (the interface's DeviceDetail type).
extension DeviceDetail: Codable {
    private enum CodingKeys: String, CodingKey { case device, detail }
    private enum DetailKeys: String, CodingKey { case identity, lastError, connectedForSeconds, characteristics, deviceInformation }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        device = try container.decode(DeviceInfo.self, forKey: .device)
        let detail = try container.nestedContainer(keyedBy: DetailKeys.self, forKey: .detail)
        identity = try detail.decodeIfPresent(String.self, forKey: .identity)
        lastError = try detail.decodeIfPresent(String.self, forKey: .lastError)
        connectedForSeconds = try detail.decodeIfPresent(Double.self, forKey: .connectedForSeconds)
        characteristics = try detail.decode([CharacteristicInfo].self, forKey: .characteristics)
        deviceInformation = try detail.decodeIfPresent([ObservationDetail].self, forKey: .deviceInformation) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        var detail = container.nestedContainer(keyedBy: DetailKeys.self, forKey: .detail)
        try detail.encodeIfPresent(identity, forKey: .identity)
        try detail.encodeIfPresent(lastError, forKey: .lastError)
        try detail.encodeIfPresent(connectedForSeconds, forKey: .connectedForSeconds)
        try detail.encode(characteristics, forKey: .characteristics)
        if !deviceInformation.isEmpty { try detail.encode(deviceInformation, forKey: .deviceInformation) }
    }
}

/// A GATT characteristic of a connected device.
public struct CharacteristicInfo: Sendable, Equatable, Codable {
    public var uuid: String
    /// BlueZ flag names: `read`, `write`, `write-without-response`, `notify`, `indicate`.
    public var flags: [String]

    public init(uuid: String, flags: [String]) {
        self.uuid = uuid
        self.flags = flags
    }
}
