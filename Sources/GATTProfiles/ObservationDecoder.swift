/// Decodes one consumer's stream of raw values in order, carrying what a decoder needs from earlier values: the
/// previous value of each characteristic of each device (CSC, RSC and Cycling Power derive speed and cadence from
/// it) and the feature values each device sent (CGM Feature says whether an E2E-CRC follows). A value type with no
/// clock and no I/O: each consumer (a Watch, a Readings page, the MQTT forwarder) holds its own.
public struct ObservationDecoder: Sendable {
    private struct Key: Hashable {
        var device: String
        var characteristic: AssignedNumber
    }

    private var previous: [Key: [UInt8]] = [:]
    private var features: [String: [AssignedNumber: [UInt8]]] = [:]
    /// Devices whose configuration says `profile = none`: their values pass through raw.
    public var rawDevices: Set<String>
    public var wheelCircumferenceMillimetres: Int

    public init(rawDevices: Set<String> = [], wheelCircumferenceMillimetres: Int = DecodingContext.none.wheelCircumferenceMillimetres) {
        self.rawDevices = rawDevices
        self.wheelCircumferenceMillimetres = wheelCircumferenceMillimetres
    }

    /// The decoded form of `value`, or nil when the characteristic is not a standard one (or the device is raw).
    public mutating func decode(device: String, characteristic uuid: String, value: [UInt8]) -> DecodedValue? {
        guard !rawDevices.contains(device), let number = AssignedNumber(uuid: uuid),
              let decoder = ProfileCatalog.decoders[number] else { return nil }
        let key = Key(device: device, characteristic: number)
        let context = DecodingContext(previous: previous[key], features: features[device] ?? [:],
                                      wheelCircumferenceMillimetres: wheelCircumferenceMillimetres)
        let result: DecodedValue
        do throws(ProfileDecodeError) {
            result = .observations(try decoder.decode(value, context))
        } catch {
            result = .failure(error)
        }
        previous[key] = value
        if decoder.delivery == .readOnce { features[device, default: [:]][number] = value }
        return result
    }

    /// Forgets what was kept for `device` (a forgotten device).
    public mutating func forget(device: String) {
        previous = previous.filter { $0.key.device != device }
        features[device] = nil
    }
}
