// The metrics the Vitals group reports. Codes are ISO/IEEE 11073-10101 as "partition × 65 536 + term" and the LOINC
// code where FHIR R4's vital-signs profile names one, as the HL7 PHD IG (github HL7/phd, input/examples/*.json and
// pagecontent/Nomenclaturecodes.md) maps them. Term numbers cross-checked against signove/antidote
// src/dim/nomenclature.h and an 11073-10101 table in a public Java PHD manager (MDC_PART_SCADA block).
// Units come from Core/MeasurementUnit+Common.swift.
extension Metric {
    /// Heart Rate Measurement's rate. MDC_ECG_HEART_RATE 2::16770 (PHD IG; the 11073-10441 cardiovascular
    /// specialisation's heart rate), LOINC 8867-4 (FHIR R4 heart-rate profile).
    public static let heartRate = Metric(name: "heart-rate", mdc: 147_842, mdcName: "MDC_ECG_HEART_RATE", loinc: "8867-4",
                                         display: "heart rate")
    /// Heart Rate Measurement's Energy Expended (kJ, accumulated since the last reset). MDC_HF_ENERGY 129::119 (health
    /// and fitness partition 129, term 119 in antidote's nomenclature.h). No vital-signs LOINC.
    public static let energyExpended = Metric(name: "energy-expended", mdc: 8_454_263, mdcName: "MDC_HF_ENERGY",
                                              display: "energy expended")
    /// One RR-interval (beat-to-beat time). MDC_ECG_TIME_PD_RR_GL 2::16168. No vital-signs LOINC.
    public static let rrInterval = Metric(name: "rr-interval", mdc: 147_240, mdcName: "MDC_ECG_TIME_PD_RR_GL", display: "RR interval")

    /// Battery Level. MDC_ATTR_VAL_BATT_CHARGE 1::2460 = 67996 (the PHD IG's bundle-continuousnonin.json battery
    /// observation, `%`).
    public static let batteryLevel = Metric(name: "battery-level", mdc: 67_996, mdcName: "MDC_ATTR_VAL_BATT_CHARGE", display: "battery level")

    /// Non-invasive systolic pressure. MDC_PRESS_BLD_NONINV_SYS 2::18949, LOINC 8480-6 (PHD IG
    /// compound-numeric-blood-pressure.json; FHIR R4 blood-pressure profile component).
    public static let systolicPressure = Metric(name: "systolic-pressure", mdc: 150_021, mdcName: "MDC_PRESS_BLD_NONINV_SYS",
                                                loinc: "8480-6", display: "systolic blood pressure")
    /// Non-invasive diastolic pressure. MDC_PRESS_BLD_NONINV_DIA 2::18950, LOINC 8462-4 (same sources).
    public static let diastolicPressure = Metric(name: "diastolic-pressure", mdc: 150_022, mdcName: "MDC_PRESS_BLD_NONINV_DIA",
                                                 loinc: "8462-4", display: "diastolic blood pressure")
    /// Non-invasive mean arterial pressure. MDC_PRESS_BLD_NONINV_MEAN 2::18951. FHIR R4's vital-signs profile has no
    /// MAP component and the PHD IG example gives none, so no LOINC here (LOINC 8478-0 exists outside that profile).
    public static let meanArterialPressure = Metric(name: "mean-arterial-pressure", mdc: 150_023, mdcName: "MDC_PRESS_BLD_NONINV_MEAN",
                                                    display: "mean arterial pressure")
    /// Intermediate Cuff Pressure's current cuff pressure. MDC_PRESS_CUFF 2::19228 (11073-10101 table as used by
    /// OpenICE-style DDS headers; the PHD IG has no example for it). Not a vital sign: no LOINC.
    public static let cuffPressure = Metric(name: "cuff-pressure", mdc: 150_300, mdcName: "MDC_PRESS_CUFF", display: "cuff pressure")
    /// A blood pressure monitor's pulse rate. MDC_PULS_RATE_NON_INV 2::18474 (the PHD IG's Nomenclaturecodes page:
    /// "pulse rate obtained from a Blood Pressure Cuff (149546)"), LOINC 8867-4.
    public static let bloodPressurePulseRate = Metric(name: "pulse-rate", mdc: 149_546, mdcName: "MDC_PULS_RATE_NON_INV", loinc: "8867-4",
                                                      display: "pulse rate")

    /// Body temperature, whatever the site (the site is the `temperature-type` detail). MDC_TEMP_BODY 2::19292, LOINC
    /// 8310-5 (PHD IG temperature-observation.json; FHIR R4 body-temperature profile).
    public static let bodyTemperature = Metric(name: "body-temperature", mdc: 150_364, mdcName: "MDC_TEMP_BODY", loinc: "8310-5",
                                               display: "body temperature")

    /// SpO2 (normal response / spot-check). MDC_PULS_OXIM_SAT_O2 2::19384, LOINC 2708-6 (PHD IG numeric-spotnumeric.json
    /// and bundle examples; FHIR R4 oxygen-saturation profile).
    public static let spo2 = Metric(name: "spo2", mdc: 150_456, mdcName: "MDC_PULS_OXIM_SAT_O2", loinc: "2708-6", display: "SpO2")
    /// An oximeter's pulse rate. MDC_PULS_OXIM_PULS_RATE 2::18458, LOINC 8867-4 (PHD IG examples).
    public static let oximetryPulseRate = Metric(name: "pulse-rate", mdc: 149_530, mdcName: "MDC_PULS_OXIM_PULS_RATE", loinc: "8867-4",
                                                 display: "pulse rate")
    /// Pulse Amplitude Index (perfusion, %). MDC_PULS_OXIM_PERF_REL 2::19376. No vital-signs LOINC.
    public static let pulseAmplitudeIndex = Metric(name: "pulse-amplitude-index", mdc: 150_448, mdcName: "MDC_PULS_OXIM_PERF_REL",
                                                   display: "pulse amplitude index")
    // PLX Continuous's fast- and slow-responding values. 11073-10404 reports them as the same observation type
    // (MDC_PULS_OXIM_SAT_O2 / MDC_PULS_OXIM_PULS_RATE) with a supplemental type MDC_MODALITY_FAST 2::19508 = 150580 or
    // MDC_MODALITY_SLOW 2::19512 = 150584; Metric has one code, so the modality is carried by the name, and no LOINC
    // is given (the vital sign is the normal-response value).
    public static let spo2Fast = Metric(name: "spo2-fast", mdc: 150_456, mdcName: "MDC_PULS_OXIM_SAT_O2", display: "SpO2 (fast response)")
    public static let pulseRateFast = Metric(name: "pulse-rate-fast", mdc: 149_530, mdcName: "MDC_PULS_OXIM_PULS_RATE",
                                             display: "pulse rate (fast response)")
    public static let spo2Slow = Metric(name: "spo2-slow", mdc: 150_456, mdcName: "MDC_PULS_OXIM_SAT_O2", display: "SpO2 (slow response)")
    public static let pulseRateSlow = Metric(name: "pulse-rate-slow", mdc: 149_530, mdcName: "MDC_PULS_OXIM_PULS_RATE",
                                             display: "pulse rate (slow response)")
}
