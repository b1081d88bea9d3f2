/// One characteristic a profile decodes: its assigned number, the profile it belongs to, its name in the GATT
/// Specification Supplement, and the pure decode function.
public struct CharacteristicDecoder: Sendable {
    public typealias Decode = @Sendable ([UInt8], DecodingContext) throws(ProfileDecodeError) -> [Observation]

    public var characteristic: AssignedNumber
    public var profile: Profile
    /// `Heart Rate Measurement`.
    public var name: String
    /// How the profile delivers it: a measurement by notification or indication, a feature or fact read once per link.
    public var delivery: Delivery
    public var decode: Decode

    /// How fleetd arms the characteristic when a device's profile is standard and its configuration names none.
    public enum Delivery: String, Sendable, Hashable {
        case notify
        case indicate
        /// Read once when the link comes up (features, Device Information, locations).
        case readOnce = "read"
    }

    public init(_ characteristic: AssignedNumber, _ profile: Profile, name: String, delivery: Delivery, decode: @escaping Decode) {
        self.characteristic = characteristic
        self.profile = profile
        self.name = name
        self.delivery = delivery
        self.decode = decode
    }
}
