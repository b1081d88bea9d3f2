// The metrics and units the Fitness group reports (Weight Scale, Body Composition, CSC, RSC, Cycling Power).
//
// Codes are ISO/IEEE 11073-10101 as "partition × 65 536 + term":
// - Body metrics are in partition 2 (MDC_PART_SCADA, 2 × 65 536 = 131 072). MDC_MASS_BODY_ACTUAL 57664,
//   MDC_LEN_BODY_ACTUAL 57668, MDC_BODY_FAT 57676, MDC_RATIO_MASS_BODY_LEN_SQ 57680 (the 11073-10415 weighing scale
//   terms), MDC_MASS_BODY_FAT_FREE 57684, MDC_MASS_BODY_SOFT_LEAN 57688 and MDC_BODY_WATER 57692 (11073-10420 body
//   composition terms) agree across signove/antidote-style nomenclature.h headers, a CSR PHDC manager header
//   (CSR_BT_PHDC_MGR_WS_OBJ_*), several Java 11073 nomenclature tables and HL7 v2 OBX examples
//   (`188736^MDC_MASS_BODY_ACTUAL`, `188740^MDC_LEN_BODY_ACTUAL`, `188752^MDC_RATIO_MASS_BODY_LEN_SQ`).
// - MDC_BASAL_METABOLISM 57696, MDC_BODY_MUSCLE 57700, MDC_MASS_BODY_MUSCLE 57704 and MDC_BODY_ELECTRICAL_IMPEDANCE
//   57708 come from one source only: the PHD-to-FHIR mapper's Mdc.java table (marked "not in 20601", i.e. added by
//   11073-10420). They follow the +4 spacing of the 10420 block; confirm against 11073-10101 before clinical use.
// - Health and fitness terms are in partition 129 (MDC_PART_PHD_HF, 129 × 65 536 = 8 454 144): MDC_HF_DISTANCE 103,
//   MDC_HF_SPEED 110, MDC_HF_CAD 111, MDC_HF_POWER 115, MDC_HF_STRIDE 117, MDC_HF_ENERGY 119 (antidote / CSR
//   nomenclature headers, "From PHD Health and Fitness"; an HL7 v2 example carries `8454254^MDC_HF_SPEED`).
//   Quantities with no 11073 term (pedal power balance, torque, force, crank angles) have mdc nil, never a guess.
// LOINC per FHIR R4 vital signs (body weight 29463-7, body height 8302-2, BMI 39156-5) and LOINC's "Percentage of body
// fat Measured" 41982-0 (the code Open mHealth / HealthKit mappings use); fitness metrics have no vital-signs LOINC.
extension Metric {
    // MARK: Weight Scale (WSS v1.0 §3.2) and Body Composition (BCS v1.0 §3.2)

    /// Body weight. MDC_MASS_BODY_ACTUAL 2::57664, LOINC 29463-7.
    public static let bodyWeight = Metric(name: "body-weight", mdc: 188_736, mdcName: "MDC_MASS_BODY_ACTUAL", loinc: "29463-7",
                                          display: "body weight")
    /// Body height. MDC_LEN_BODY_ACTUAL 2::57668, LOINC 8302-2.
    public static let bodyHeight = Metric(name: "body-height", mdc: 188_740, mdcName: "MDC_LEN_BODY_ACTUAL", loinc: "8302-2",
                                          display: "body height")
    /// Body mass index. MDC_RATIO_MASS_BODY_LEN_SQ 2::57680, LOINC 39156-5.
    public static let bodyMassIndex = Metric(name: "bmi", mdc: 188_752, mdcName: "MDC_RATIO_MASS_BODY_LEN_SQ", loinc: "39156-5",
                                             display: "body mass index")
    /// Body fat percentage. MDC_BODY_FAT 2::57676, LOINC 41982-0.
    public static let bodyFatPercentage = Metric(name: "body-fat-percentage", mdc: 188_748, mdcName: "MDC_BODY_FAT", loinc: "41982-0",
                                                 display: "body fat")
    /// Basal metabolism (kJ). MDC_BASAL_METABOLISM 2::57696 (single source, see the file comment).
    public static let basalMetabolism = Metric(name: "basal-metabolism", mdc: 188_768, mdcName: "MDC_BASAL_METABOLISM",
                                               display: "basal metabolism")
    /// Muscle percentage. MDC_BODY_MUSCLE 2::57700 (single source).
    public static let musclePercentage = Metric(name: "muscle-percentage", mdc: 188_772, mdcName: "MDC_BODY_MUSCLE",
                                                display: "muscle percentage")
    /// Muscle mass. MDC_MASS_BODY_MUSCLE 2::57704 (single source).
    public static let muscleMass = Metric(name: "muscle-mass", mdc: 188_776, mdcName: "MDC_MASS_BODY_MUSCLE", display: "muscle mass")
    /// Fat-free mass. MDC_MASS_BODY_FAT_FREE 2::57684.
    public static let fatFreeMass = Metric(name: "fat-free-mass", mdc: 188_756, mdcName: "MDC_MASS_BODY_FAT_FREE", display: "fat-free mass")
    /// Soft lean mass. MDC_MASS_BODY_SOFT_LEAN 2::57688.
    public static let softLeanMass = Metric(name: "soft-lean-mass", mdc: 188_760, mdcName: "MDC_MASS_BODY_SOFT_LEAN",
                                            display: "soft lean mass")
    /// Body water mass. MDC_BODY_WATER 2::57692 (11073-10420 reports it in kg, as BCS does).
    public static let bodyWaterMass = Metric(name: "body-water-mass", mdc: 188_764, mdcName: "MDC_BODY_WATER", display: "body water mass")
    /// Bioelectrical impedance. MDC_BODY_ELECTRICAL_IMPEDANCE 2::57708 (single source).
    public static let impedance = Metric(name: "impedance", mdc: 188_780, mdcName: "MDC_BODY_ELECTRICAL_IMPEDANCE", display: "impedance")

    // MARK: Cycling Speed and Cadence (CSCS v1.0 §3.1), Cycling Power (CPS v1.1 §3.2), Running (RSCS v1.0 §3.1)

    /// Cumulative wheel revolutions (a counter that rolls over). No 11073 term.
    public static let wheelRevolutions = Metric(name: "wheel-revolutions", display: "cumulative wheel revolutions")
    /// Cumulative crank revolutions (a counter that rolls over). No 11073 term.
    public static let crankRevolutions = Metric(name: "crank-revolutions", display: "cumulative crank revolutions")
    /// Last wheel event time (s, rolls over: 64 s for CSC's 1/1024 s, 32 s for Cycling Power's 1/2048 s).
    public static let lastWheelEventTime = Metric(name: "last-wheel-event-time", display: "last wheel event time")
    /// Last crank event time (s, 1/1024 s, rolls over every 64 s).
    public static let lastCrankEventTime = Metric(name: "last-crank-event-time", display: "last crank event time")
    /// Bicycle speed derived from two wheel events. MDC_HF_SPEED 129::110.
    public static let cyclingSpeed = Metric(name: "speed", mdc: 8_454_254, mdcName: "MDC_HF_SPEED", display: "speed")
    /// Crank cadence derived from two crank events. MDC_HF_CAD 129::111.
    public static let cyclingCadence = Metric(name: "cadence", mdc: 8_454_255, mdcName: "MDC_HF_CAD", display: "cadence")
    /// Instantaneous running speed. MDC_HF_SPEED 129::110.
    public static let runningSpeed = Metric(name: "running-speed", mdc: 8_454_254, mdcName: "MDC_HF_SPEED", display: "running speed")
    /// Instantaneous running cadence (steps per minute). MDC_HF_CAD 129::111.
    public static let runningCadence = Metric(name: "cadence", mdc: 8_454_255, mdcName: "MDC_HF_CAD", display: "cadence")
    /// Instantaneous stride length. MDC_HF_STRIDE 129::117.
    public static let strideLength = Metric(name: "stride-length", mdc: 8_454_261, mdcName: "MDC_HF_STRIDE", display: "stride length")
    /// Total distance since the sensor's last reset. MDC_HF_DISTANCE 129::103.
    public static let totalDistance = Metric(name: "total-distance", mdc: 8_454_247, mdcName: "MDC_HF_DISTANCE", display: "total distance")
    /// Instantaneous power. MDC_HF_POWER 129::115.
    public static let instantaneousPower = Metric(name: "instantaneous-power", mdc: 8_454_259, mdcName: "MDC_HF_POWER",
                                                  display: "instantaneous power")
    /// Pedal power balance (%, of the pedal the reference bit names). No 11073 term.
    public static let pedalPowerBalance = Metric(name: "pedal-power-balance", display: "pedal power balance")
    /// Accumulated torque (N·m, rolls over). No 11073 term.
    public static let accumulatedTorque = Metric(name: "accumulated-torque", display: "accumulated torque")
    public static let maximumForceMagnitude = Metric(name: "maximum-force-magnitude", display: "maximum force magnitude")
    public static let minimumForceMagnitude = Metric(name: "minimum-force-magnitude", display: "minimum force magnitude")
    public static let maximumTorqueMagnitude = Metric(name: "maximum-torque-magnitude", display: "maximum torque magnitude")
    public static let minimumTorqueMagnitude = Metric(name: "minimum-torque-magnitude", display: "minimum torque magnitude")
    /// Crank angle of the maximum force or torque (degrees, 12 bits).
    public static let maximumAngle = Metric(name: "maximum-angle", display: "angle of maximum force or torque")
    /// Crank angle of the minimum force or torque (degrees, 12 bits).
    public static let minimumAngle = Metric(name: "minimum-angle", display: "angle of minimum force or torque")
    public static let topDeadSpotAngle = Metric(name: "top-dead-spot-angle", display: "top dead spot angle")
    public static let bottomDeadSpotAngle = Metric(name: "bottom-dead-spot-angle", display: "bottom dead spot angle")
    /// Accumulated energy (kJ) since the last reset. MDC_HF_ENERGY 129::119 (as Vitals' energy expended).
    public static let accumulatedEnergy = Metric(name: "accumulated-energy", mdc: 8_454_263, mdcName: "MDC_HF_ENERGY",
                                                 display: "accumulated energy")
}

/// Units beyond Core/MeasurementUnit+Common.swift. MDC_DIM codes (partition 4, 4 × 65 536 = 262 144) from the same
/// nomenclature headers: MDC_DIM_X_M 1280, MDC_DIM_INCH 1376, MDC_DIM_KG_PER_M_SQ 1952 (HL7 OBX example
/// `264096^MDC_DIM_KG_PER_M_SQ`), MDC_DIM_ANG_DEG 736, MDC_DIM_X_WATT 4032, MDC_DIM_X_STEP_PER_MIN 6752,
/// MDC_DIM_RPM 6816, MDC_DIM_OHM 4288 (Mdc.java only). No verified code for m/s, km/h, N, N·m: nil.
extension MeasurementUnit {
    public static let metres = MeasurementUnit(ucum: "m", symbol: "m", mdc: 263_424)                          // MDC_DIM_X_M 4::1280
    public static let inches = MeasurementUnit(ucum: "[in_i]", symbol: "in", mdc: 263_520)                    // MDC_DIM_INCH 4::1376
    public static let kilogramsPerSquareMetre = MeasurementUnit(ucum: "kg/m2", symbol: "kg/m²", mdc: 264_096) // MDC_DIM_KG_PER_M_SQ 4::1952
    public static let ohms = MeasurementUnit(ucum: "Ohm", symbol: "Ω", mdc: 266_432)                          // MDC_DIM_OHM 4::4288
    public static let watts = MeasurementUnit(ucum: "W", symbol: "W", mdc: 266_176)                           // MDC_DIM_X_WATT 4::4032
    public static let newtons = MeasurementUnit(ucum: "N", symbol: "N")
    public static let newtonMetres = MeasurementUnit(ucum: "N.m", symbol: "N·m")
    public static let angleDegrees = MeasurementUnit(ucum: "deg", symbol: "°", mdc: 262_880)                  // MDC_DIM_ANG_DEG 4::736
    public static let metresPerSecond = MeasurementUnit(ucum: "m/s", symbol: "m/s")
    public static let kilometresPerHour = MeasurementUnit(ucum: "km/h", symbol: "km/h")
    public static let revolutions = MeasurementUnit(ucum: "{rev}", symbol: "rev")
    public static let revolutionsPerMinute = MeasurementUnit(ucum: "/min", symbol: "rpm", mdc: 268_960)      // MDC_DIM_RPM 4::6816
    public static let stepsPerMinute = MeasurementUnit(ucum: "/min", symbol: "steps/min", mdc: 268_896)      // MDC_DIM_X_STEP_PER_MIN 4::6752
}
