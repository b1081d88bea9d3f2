import FoundationEssentials
import GATTProfiles

// A decoded value travels beside its hex as two optional members: `observations` (what the profile decoder made
// of it) or `decodeError` (the field and byte where it failed). A characteristic fleetd does not decode has neither.
extension KeyedEncodingContainer {
    mutating func encodeDecoded(_ decoded: DecodedValue?, observations: Key, error: Key) throws {
        switch decoded {
        case nil: break
        case .observations(let list)?: try encode(list, forKey: observations)
        case .failure(let failure)?: try encode(failure, forKey: error)
        }
    }
}

extension KeyedDecodingContainer {
    func decodeDecoded(observations: Key, error: Key) throws -> DecodedValue? {
        if let failure = try decodeIfPresent(ProfileDecodeError.self, forKey: error) { return .failure(failure) }
        if let list = try decodeIfPresent([Observation].self, forKey: observations) { return .observations(list) }
        return nil
    }
}
