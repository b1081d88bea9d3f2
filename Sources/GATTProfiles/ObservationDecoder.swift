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
    /// Each device's last Glucose Measurement, for the context that may follow it (GLS §3.2: "context information
    /// follows" announces a 2A34 with the same sequence number).
    private var lastGlucose: [String: Observation] = [:]
    /// A weight measurement the device sent last, for the body composition that may follow it (BCS §3.2: a body
    /// composition scale measures both at once); dropped by any other value of the device.
    private var pendingWeight: [String: Observation] = [:]
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
        var result: DecodedValue
        do throws(ProfileDecodeError) {
            result = .observations(try decoder.decode(value, context))
        } catch {
            result = .failure(error)
        }
        result = joined(result, device: device, characteristic: number)
        previous[key] = value
        if decoder.delivery == .readOnce { features[device, default: [:]][number] = value }
        return result
    }

    /// Forgets what was kept for `device` (a forgotten device).
    public mutating func forget(device: String) {
        previous = previous.filter { $0.key.device != device }
        features[device] = nil
        lastGlucose[device] = nil
        pendingWeight[device] = nil
    }

    /// A record that the spec splits over two characteristics, put back together: a Glucose Measurement Context's
    /// observation is its measurement with the context added (`GlucoseRecordJoin`, matched by sequence number), and a
    /// Body Composition Measurement gains the weight, height and BMI of the weight measurement sent just before it
    /// (`BodyCompositionMerge`, same user, same time stamp). The parts are still delivered as they came.
    private mutating func joined(_ result: DecodedValue, device: String, characteristic: AssignedNumber) -> DecodedValue {
        guard case .observations(var observations) = result, let first = observations.first else {
            if characteristic != BodyCompositionMeasurement.characteristic { pendingWeight[device] = nil }
            return result
        }
        switch characteristic {
        case GlucoseMeasurement.characteristic:
            lastGlucose[device] = first
        case GlucoseMeasurementContext.characteristic:
            if let measurement = lastGlucose[device], var record = GlucoseRecordJoin.join(measurement: measurement, context: first) {
                // Still the context's value: it says which characteristic it came on, and carries the whole record.
                record.characteristic = first.characteristic
                observations[0] = record
            }
        case WeightMeasurement.characteristic:
            pendingWeight[device] = first
            return result
        case BodyCompositionMeasurement.characteristic:
            if let weight = pendingWeight[device], weight.deviceTime == nil || first.deviceTime == nil || weight.deviceTime == first.deviceTime {
                observations[0] = BodyCompositionMerge.merge(composition: first, weight: weight)
            }
            return .observations(observations)
        default:
            break
        }
        pendingWeight[device] = nil
        return .observations(observations)
    }
}
