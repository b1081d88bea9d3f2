/// The units more than one profile sends. UCUM codes per the UCUM specification (what FHIR's `Quantity.code` takes);
/// MDC_DIM codes per ISO/IEEE 11073-10101 as 32-bit numbers (partition 4, "dimensions": 4 × 65 536 + term).
extension MeasurementUnit {
    public static let percent = MeasurementUnit(ucum: "%", symbol: "%", mdc: 262_688)                        // MDC_DIM_PERCENT 4::544
    public static let beatsPerMinute = MeasurementUnit(ucum: "/min", symbol: "bpm", mdc: 264_864)            // MDC_DIM_BEAT_PER_MIN 4::2720
    public static let perMinute = MeasurementUnit(ucum: "/min", symbol: "/min")
    public static let seconds = MeasurementUnit(ucum: "s", symbol: "s", mdc: 264_320)                        // MDC_DIM_SEC 4::2176
    public static let millimetresOfMercury = MeasurementUnit(ucum: "mm[Hg]", symbol: "mmHg", mdc: 266_016)   // MDC_DIM_MMHG 4::3872
    public static let kilopascals = MeasurementUnit(ucum: "kPa", symbol: "kPa", mdc: 265_987)                // MDC_DIM_KILO_PASCAL 4::3843
    public static let kilograms = MeasurementUnit(ucum: "kg", symbol: "kg", mdc: 263_875)                    // MDC_DIM_KILO_G 4::1731
    public static let pounds = MeasurementUnit(ucum: "[lb_av]", symbol: "lb", mdc: 263_904)                  // MDC_DIM_LB 4::1760
    public static let degreesCelsius = MeasurementUnit(ucum: "Cel", symbol: "°C", mdc: 268_192)              // MDC_DIM_DEGC 4::6048
    public static let degreesFahrenheit = MeasurementUnit(ucum: "[degF]", symbol: "°F", mdc: 266_560)        // MDC_DIM_FAHR 4::4416
    public static let milligramsPerDecilitre = MeasurementUnit(ucum: "mg/dL", symbol: "mg/dL", mdc: 264_274) // MDC_DIM_MILLI_G_PER_DL 4::2130
    public static let millimolesPerLitre = MeasurementUnit(ucum: "mmol/L", symbol: "mmol/L", mdc: 266_866)   // MDC_DIM_MILLI_MOLE_PER_L 4::4722
    public static let kilojoules = MeasurementUnit(ucum: "kJ", symbol: "kJ")
}
