/// The standard profile (GATT service) an observation belongs to.
public enum Profile: String, Sendable, Hashable, Codable, CaseIterable {
    case heartRate = "heart-rate"                       // 0x180D
    case battery                                         // 0x180F
    case bloodPressure = "blood-pressure"               // 0x1810
    case healthThermometer = "health-thermometer"       // 0x1809
    case glucose                                         // 0x1808
    case pulseOximeter = "pulse-oximeter"               // 0x1822
    case weightScale = "weight-scale"                   // 0x181D
    case bodyComposition = "body-composition"           // 0x181B
    case continuousGlucose = "continuous-glucose"       // 0x181F
    case cyclingSpeedCadence = "cycling-speed-cadence"  // 0x1816
    case runningSpeedCadence = "running-speed-cadence"  // 0x1814
    case cyclingPower = "cycling-power"                 // 0x1818
    case currentTime = "current-time"                   // 0x1805
    case deviceInformation = "device-information"       // 0x180A

    /// The primary service's assigned number.
    public var service: AssignedNumber {
        switch self {
        case .heartRate: AssignedNumber(0x180D)
        case .battery: AssignedNumber(0x180F)
        case .bloodPressure: AssignedNumber(0x1810)
        case .healthThermometer: AssignedNumber(0x1809)
        case .glucose: AssignedNumber(0x1808)
        case .pulseOximeter: AssignedNumber(0x1822)
        case .weightScale: AssignedNumber(0x181D)
        case .bodyComposition: AssignedNumber(0x181B)
        case .continuousGlucose: AssignedNumber(0x181F)
        case .cyclingSpeedCadence: AssignedNumber(0x1816)
        case .runningSpeedCadence: AssignedNumber(0x1814)
        case .cyclingPower: AssignedNumber(0x1818)
        case .currentTime: AssignedNumber(0x1805)
        case .deviceInformation: AssignedNumber(0x180A)
        }
    }
}

/// A named text fact of an observation that is not a number: `sample-type = capillary whole blood`,
/// `body-sensor-location = chest`, `user-id = 3`, `manufacturer-name = Roche`.
public struct ObservationDetail: Sendable, Hashable, Codable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One decoded reading: what a person or a clinical system can use. Built by a profile decoder from the raw bytes,
/// which stay the truth (fleetd stores them and decodes when a reading is read out).
public struct Observation: Sendable, Hashable, Codable {
    public var profile: Profile
    /// The characteristic the value came on (`2A37`).
    public var characteristic: AssignedNumber
    /// The numbers, each with its code and unit as the device sent it (never converted silently).
    public var quantities: [Quantity]
    /// The device's own time stamp as sent (local time, no zone), when the value has one.
    public var deviceTime: DeviceTime?
    /// The device's record number (a glucose record's sequence number; a CGM record's time offset in minutes).
    public var record: Int64?
    /// Every status flag the value set, kebab case (`body-movement`, `cuff-too-loose`, `sensor-contact`); a flagged
    /// reading is delivered with its flags, never dropped.
    public var flags: [String]
    /// Named text facts, in the order the value carries them.
    public var details: [ObservationDetail]
    /// One line for a person: `72 bpm (contact; RR 0.83 s)`.
    public var summary: String

    public init(profile: Profile, characteristic: AssignedNumber, quantities: [Quantity] = [], deviceTime: DeviceTime? = nil,
                record: Int64? = nil, flags: [String] = [], details: [ObservationDetail] = [], summary: String) {
        self.profile = profile
        self.characteristic = characteristic
        self.quantities = quantities
        self.deviceTime = deviceTime
        self.record = record
        self.flags = flags
        self.details = details
        self.summary = summary
    }

    /// The first quantity of `metric`, if any.
    public func quantity(_ metricName: String) -> Quantity? { quantities.first { $0.metric.name == metricName } }

    /// The value of the detail `name`, if any.
    public func detail(_ name: String) -> String? { details.first { $0.name == name }?.value }
}
