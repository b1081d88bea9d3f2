/// Every standard characteristic fleetd decodes, by assigned number, and what each standard profile arms.
public enum ProfileCatalog {
    /// All decoders, keyed by characteristic.
    public static let decoders: [AssignedNumber: CharacteristicDecoder] = {
        var table: [AssignedNumber: CharacteristicDecoder] = [:]
        for decoder in VitalsDecoders.all + GlucoseDecoders.all + FitnessDecoders.all {
            precondition(table[decoder.characteristic] == nil, "two decoders for \(decoder.characteristic)")
            table[decoder.characteristic] = decoder
        }
        return table
    }()

    /// The decoder for a characteristic UUID (`2a37` or the full 128-bit form), nil for one fleetd does not know.
    public static func decoder(for uuid: String) -> CharacteristicDecoder? {
        AssignedNumber(uuid: uuid).flatMap { decoders[$0] }
    }

    /// Decodes a value by its characteristic; nil when the characteristic is not a standard one fleetd decodes
    /// (the value then passes through as raw).
    public static func decode(_ value: [UInt8], characteristic uuid: String, context: DecodingContext = .none) -> DecodedValue? {
        guard let decoder = decoder(for: uuid) else { return nil }
        do throws(ProfileDecodeError) {
            return .observations(try decoder.decode(value, context))
        } catch {
            return .failure(error)
        }
    }

    /// The profile of a standard service UUID, nil for any other service.
    public static func profile(service uuid: String) -> Profile? {
        guard let number = AssignedNumber(uuid: uuid) else { return nil }
        return Profile.allCases.first { $0.service == number }
    }

    /// What fleetd arms on a device offering `profile` when its configuration names nothing: the characteristics
    /// the profile delivers by notification or indication, and those it reads once per link, in assigned-number
    /// order.
    public static func characteristics(of profile: Profile) -> [CharacteristicDecoder] {
        decoders.values.filter { $0.profile == profile }.sorted { $0.characteristic < $1.characteristic }
    }
}
