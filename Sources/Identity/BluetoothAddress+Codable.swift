extension BluetoothAddress {
    private enum CodingKeys: String, CodingKey {
        case address, type
    }

    /// Snapshots spell the address as BlueZ does, so an operator can read and grep them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(description, forKey: .address)
        try c.encode(type, forKey: .type)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .address)
        let type = try c.decode(AddressType.self, forKey: .type)
        try self.init(text, type: type)
    }
}
