/// The address type BlueZ reports in `Device1.AddressType`: a public (IEEE-assigned) address or a random one.
public enum AddressType: String, Hashable, Sendable, Codable, CaseIterable {
    case `public`
    case random

    /// Parses BlueZ's `AddressType` property, which is exactly `"public"` or `"random"`.
    public init(bluez text: String) throws(IdentityError) {
        guard let type = AddressType(rawValue: text) else {
            throw IdentityError(.unknownAddressType, "address type '\(text)' is neither 'public' nor 'random'")
        }
        self = type
    }
}
