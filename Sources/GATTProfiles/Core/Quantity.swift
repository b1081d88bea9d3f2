/// What a number measures: the name fleetd uses, the ISO/IEEE 11073-10101 nomenclature code (the MDC code the PHD IG
/// puts in `Observation.code` with system `urn:iso:std:iso:11073:10101`), and the LOINC code where FHIR R4's
/// vital-signs profile names one.
public struct Metric: Sendable, Hashable {
    /// fleetd's name, kebab case: `heart-rate`, `systolic-pressure`, `glucose-concentration`.
    public var name: String
    /// The 11073-10101 code as a 32-bit "partition × 2^16 + term" number (MDC_ECG_HEART_RATE = 2::16770 = 147842).
    public var mdc: UInt32?
    /// The 11073-10101 reference id (`MDC_ECG_HEART_RATE`).
    public var mdcName: String?
    /// The LOINC code (`8867-4`), where there is one.
    public var loinc: String?
    /// Words for a person (`heart rate`).
    public var display: String

    public init(name: String, mdc: UInt32? = nil, mdcName: String? = nil, loinc: String? = nil, display: String) {
        self.name = name
        self.mdc = mdc
        self.mdcName = mdcName
        self.loinc = loinc
        self.display = display
    }
}

/// A unit as the device sent it: its UCUM code (what FHIR's `Quantity.code` carries, system
/// `http://unitsofmeasure.org`), the symbol a person reads, and the 11073-10101 dimension code.
public struct MeasurementUnit: Sendable, Hashable {
    /// UCUM case-sensitive code: `/min`, `mm[Hg]`, `mmol/L`, `Cel`.
    public var ucum: String
    /// For a person: `bpm`, `mmHg`, `mmol/L`, `°C`.
    public var symbol: String
    /// MDC_DIM_* code, where there is one.
    public var mdc: UInt32?

    public init(ucum: String, symbol: String, mdc: UInt32? = nil) {
        self.ucum = ucum
        self.symbol = symbol
        self.mdc = mdc
    }
}

/// One number of an observation: what, how much, in what unit.
public struct Quantity: Sendable, Hashable {
    public var metric: Metric
    public var value: MeasurementValue
    public var unit: MeasurementUnit

    public init(_ metric: Metric, _ value: MeasurementValue, _ unit: MeasurementUnit) {
        self.metric = metric
        self.value = value
        self.unit = unit
    }

    public init(_ metric: Metric, _ value: DecimalNumber, _ unit: MeasurementUnit) {
        self.init(metric, .number(value), unit)
    }

    /// `72 bpm`, `5.4 mmol/L`, `NRes mmHg`.
    public func text(places: Int? = nil) -> String { value.text(places: places) + " " + unit.symbol }
}

// The wire form, flat: {"metric":"heart-rate","mdc":147842,"mdcName":"MDC_ECG_HEART_RATE","loinc":"8867-4",
// "value":72,"unit":"/min","symbol":"bpm"}; a special value is `"value":null,"special":"nres"`.
extension Quantity: Codable {
    private enum CodingKeys: String, CodingKey { case metric, display, mdc, mdcName, loinc, value, special, raw, unit, symbol, unitMdc }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        metric = Metric(name: try c.decode(String.self, forKey: .metric), mdc: try c.decodeIfPresent(UInt32.self, forKey: .mdc),
                        mdcName: try c.decodeIfPresent(String.self, forKey: .mdcName), loinc: try c.decodeIfPresent(String.self, forKey: .loinc),
                        display: try c.decode(String.self, forKey: .display))
        unit = MeasurementUnit(ucum: try c.decode(String.self, forKey: .unit), symbol: try c.decode(String.self, forKey: .symbol),
                               mdc: try c.decodeIfPresent(UInt32.self, forKey: .unitMdc))
        switch try c.decodeIfPresent(String.self, forKey: .special) {
        case nil: value = .number(try c.decode(DecimalNumber.self, forKey: .value))
        case "nan": value = .notANumber
        case "nres": value = .notAtThisResolution
        case "+inf": value = .positiveInfinity
        case "-inf": value = .negativeInfinity
        case "reserved": value = .reserved(raw: try c.decodeIfPresent(UInt32.self, forKey: .raw) ?? 0)
        case let other?:
            throw DecodingError.dataCorruptedError(forKey: .special, in: c, debugDescription: "unknown special value \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(metric.name, forKey: .metric)
        try c.encode(metric.display, forKey: .display)
        try c.encodeIfPresent(metric.mdc, forKey: .mdc)
        try c.encodeIfPresent(metric.mdcName, forKey: .mdcName)
        try c.encodeIfPresent(metric.loinc, forKey: .loinc)
        switch value {
        case .number(let d): try c.encode(d, forKey: .value)
        case .reserved(let raw):
            try c.encodeNil(forKey: .value)
            try c.encode("reserved", forKey: .special)
            try c.encode(raw, forKey: .raw)
        default:
            try c.encodeNil(forKey: .value)
            try c.encode(value.specialName, forKey: .special)
        }
        try c.encode(unit.ucum, forKey: .unit)
        try c.encode(unit.symbol, forKey: .symbol)
        try c.encodeIfPresent(unit.mdc, forKey: .unitMdc)
    }
}
