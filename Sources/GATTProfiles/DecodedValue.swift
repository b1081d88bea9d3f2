/// What a raw value became when read out: observations (a CGM value can hold several records), or the typed error
/// that says which field at which byte did not decode. Either way the raw bytes go with it.
public enum DecodedValue: Sendable, Hashable {
    case observations([Observation])
    case failure(ProfileDecodeError)

    public var observations: [Observation] {
        if case .observations(let list) = self { return list }
        return []
    }

    public var failure: ProfileDecodeError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// One line for a person: the observations' summaries, or the error.
    public var summary: String {
        switch self {
        case .observations(let list): list.map(\.summary).joined(separator: "; ")
        case .failure(let error): "undecodable: \(error)"
        }
    }
}
