// The metrics and units the Glucose group reports. MDC codes are ISO/IEEE 11073-10101 as "partition × 65 536 + term",
// the terms as the ISO/IEEE 11073-10417 (glucose meter) and -10425 (CGM) specialisations use them:
//  - the concentrations are in partition 2 (MDC_PART_SCADA): MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD 2::29112 = 160184 is
//    the code the HL7 PHD IG gives (github HL7/phd input/examples/compound-observation-glucose.json) and
//    MDC_CONC_GLU_UNDETERMINED_PLASMA 2::29296 = 160368 likewise (input/examples/glucose-observation.json); the other
//    terms from signove/antidote src/dim/nomenclature.h (MDC_PART_SCADA block: 28948, 29112 … 29140, 29148) and the
//    PHD IG reference encoder's Mdc.java (SCADA class: 29292/29296 undetermined whole blood / plasma);
//  - the meal/carbohydrate/exercise/medication contexts and the CGM trend are in partition 128 (MDC_PART_PHD_DM): the PHD
//    IG's glucose-1.0.0.4.json gives MDC_CTXT_GLU_MEAL as 8417864 = 128::29256; the other terms from the same two
//    tables (MDC_CTXT_GLU_EXERCISE 29152, _CARB 29156, MDC_CTXT_MEDICATION 29188, MDC_CONC_GLU_TREND 29400).
// LOINC: the PHD IG puts a LOINC code only on FHIR vital signs (input/pagecontent/Nomenclaturecodes.md: "If the Type
// corresponds to one of the FHIR Observation Vital Signs Profiles, the corresponding LOINC code shall be present");
// glucose is not a vital sign, so the IG's glucose examples carry the MDC code alone. The LOINC codes below are the
// realm translations that device-data profiles use: the gematik HDDT value set "MIV Blood Glucose Measurement"
// (2339-0/15074-8 blood, 2345-7/14749-6 serum or plasma, 41653-7/14743-9 capillary blood by glucometer) and the HL7
// CGM IG (99504-3/105272-9 interstitial fluid). LOINC separates mass from molar concentration, so the code depends
// on the unit the meter sent: see ``GlucoseSampleType/metric(molar:)``.
extension Metric {
    /// Glucose concentration whose sample type the device did not give (a reserved type nibble, or a CGM whose
    /// CGM Feature is unknown). MDC_CONC_GLU_GEN 2::28948.
    public static let glucoseConcentration = Metric(name: "glucose-concentration", mdc: 160_020, mdcName: "MDC_CONC_GLU_GEN",
                                                    display: "glucose concentration")
    public static let glucoseCapillaryWholeBlood = Metric(name: "glucose-concentration", mdc: 160_184,
                                                          mdcName: "MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD",
                                                          display: "glucose, capillary whole blood")
    public static let glucoseCapillaryPlasma = Metric(name: "glucose-concentration", mdc: 160_188, mdcName: "MDC_CONC_GLU_CAPILLARY_PLASMA",
                                                      display: "glucose, capillary plasma")
    public static let glucoseVenousWholeBlood = Metric(name: "glucose-concentration", mdc: 160_192, mdcName: "MDC_CONC_GLU_VENOUS_WHOLEBLOOD",
                                                       display: "glucose, venous whole blood")
    public static let glucoseVenousPlasma = Metric(name: "glucose-concentration", mdc: 160_196, mdcName: "MDC_CONC_GLU_VENOUS_PLASMA",
                                                   display: "glucose, venous plasma")
    public static let glucoseArterialWholeBlood = Metric(name: "glucose-concentration", mdc: 160_200,
                                                         mdcName: "MDC_CONC_GLU_ARTERIAL_WHOLEBLOOD",
                                                         display: "glucose, arterial whole blood")
    public static let glucoseArterialPlasma = Metric(name: "glucose-concentration", mdc: 160_204, mdcName: "MDC_CONC_GLU_ARTERIAL_PLASMA",
                                                     display: "glucose, arterial plasma")
    public static let glucoseUndeterminedWholeBlood = Metric(name: "glucose-concentration", mdc: 160_364,
                                                             mdcName: "MDC_CONC_GLU_UNDETERMINED_WHOLEBLOOD",
                                                             display: "glucose, undetermined whole blood")
    public static let glucoseUndeterminedPlasma = Metric(name: "glucose-concentration", mdc: 160_368,
                                                         mdcName: "MDC_CONC_GLU_UNDETERMINED_PLASMA",
                                                         display: "glucose, undetermined plasma")
    public static let glucoseInterstitialFluid = Metric(name: "glucose-concentration", mdc: 160_212, mdcName: "MDC_CONC_GLU_ISF",
                                                        display: "glucose, interstitial fluid")
    public static let glucoseControlSolution = Metric(name: "glucose-concentration", mdc: 160_208, mdcName: "MDC_CONC_GLU_CONTROL",
                                                      display: "glucose, control solution")

    /// Glucose Measurement Context's HbA1c (%). MDC_CONC_HBA1C 2::29148; LOINC 4548-4 (Hemoglobin A1c/Hemoglobin.total
    /// in Blood, the code FHIR diabetes profiles use for a % value).
    public static let hba1c = Metric(name: "hba1c", mdc: 160_220, mdcName: "MDC_CONC_HBA1C", loinc: "4548-4", display: "HbA1c")
    /// Carbohydrate intake of the meal context (grams). MDC_CTXT_GLU_CARB 128::29156.
    public static let carbohydrate = Metric(name: "carbohydrate", mdc: 8_417_796, mdcName: "MDC_CTXT_GLU_CARB", display: "carbohydrate")
    /// Exercise intensity (%). 11073-10417 reports exercise as MDC_CTXT_GLU_EXERCISE 128::29152 with a percent value.
    public static let exerciseIntensity = Metric(name: "exercise-intensity", mdc: 8_417_792, mdcName: "MDC_CTXT_GLU_EXERCISE",
                                                 display: "exercise intensity")
    /// Exercise duration (s). No 11073 term of its own (10417 carries it as an attribute of the exercise context).
    public static let exerciseDuration = Metric(name: "exercise-duration", display: "exercise duration")
    /// Medication amount (mg or mL, as the device sent kg or L). MDC_CTXT_MEDICATION 128::29188.
    public static let medication = Metric(name: "medication", mdc: 8_417_828, mdcName: "MDC_CTXT_MEDICATION", display: "medication")
    /// CGM Trend Information (mg/dL/min). MDC_CONC_GLU_TREND 128::29400 (11073-10425).
    public static let glucoseTrend = Metric(name: "glucose-trend", mdc: 8_418_008, mdcName: "MDC_CONC_GLU_TREND", display: "glucose trend")
    /// CGM Quality (%). No 11073 term.
    public static let glucoseQuality = Metric(name: "glucose-quality", display: "glucose quality")
}

extension MeasurementUnit {
    public static let grams = MeasurementUnit(ucum: "g", symbol: "g", mdc: 263_872)                     // MDC_DIM_X_G 4::1728
    public static let milligrams = MeasurementUnit(ucum: "mg", symbol: "mg", mdc: 263_890)              // MDC_DIM_MILLI_G 4::1746
    public static let millilitres = MeasurementUnit(ucum: "mL", symbol: "mL", mdc: 263_762)             // MDC_DIM_MILLI_L 4::1618
    /// CGM trend. MDC_DIM_MILLI_G_PER_DL_PER_MIN 4::4724 (PHD IG reference encoder's Mdc.java DIM table).
    public static let milligramsPerDecilitrePerMinute = MeasurementUnit(ucum: "mg/dL/min", symbol: "mg/dL/min", mdc: 266_868)
}

/// The Type nibble of Glucose Measurement's Type-Sample Location field and of CGM Feature (GSS "Glucose Measurement"
/// and "CGM Feature": 1 capillary whole blood … 10 control solution; 0 and 11-15 reserved for future use).
public struct GlucoseSampleType: Sendable, Hashable {
    public var raw: UInt8
    public init(_ raw: UInt8) { self.raw = raw }

    static let names = ["", "capillary whole blood", "capillary plasma", "venous whole blood", "venous plasma",
                        "arterial whole blood", "arterial plasma", "undetermined whole blood", "undetermined plasma",
                        "interstitial fluid", "control solution"]

    /// Whether the value is one the GSS defines.
    public var isDefined: Bool { raw >= 1 && Int(raw) < Self.names.count }

    /// `capillary whole blood`, or `reserved (0x0b)`.
    public var name: String { isDefined ? Self.names[Int(raw)] : GlucoseText.reserved(raw) }

    /// The metric for a concentration of this sample type, with the LOINC code for a mass (`molar == false`, the
    /// value sent in kg/L or mg/dL) or a molar concentration (mol/L). A reserved type gets MDC_CONC_GLU_GEN.
    public func metric(molar: Bool) -> Metric {
        var m: Metric
        var loinc: (mass: String, molar: String)?
        switch raw {
        case 1: m = .glucoseCapillaryWholeBlood; loinc = ("41653-7", "14743-9")    // capillary blood by glucometer
        case 2: m = .glucoseCapillaryPlasma; loinc = ("2345-7", "14749-6")         // serum or plasma
        case 3: m = .glucoseVenousWholeBlood; loinc = ("2339-0", "15074-8")        // blood
        case 4: m = .glucoseVenousPlasma; loinc = ("2345-7", "14749-6")
        case 5: m = .glucoseArterialWholeBlood; loinc = ("2339-0", "15074-8")
        case 6: m = .glucoseArterialPlasma; loinc = ("2345-7", "14749-6")
        case 7: m = .glucoseUndeterminedWholeBlood; loinc = ("2339-0", "15074-8")
        case 8: m = .glucoseUndeterminedPlasma; loinc = ("2345-7", "14749-6")
        case 9: m = .glucoseInterstitialFluid; loinc = ("99504-3", "105272-9")     // HL7 CGM IG
        case 10: m = .glucoseControlSolution                                       // not a patient value: no LOINC
        default: m = .glucoseConcentration
        }
        m.loinc = loinc.map { molar ? $0.molar : $0.mass }
        return m
    }
}

/// The Sample Location nibble (GSS "Glucose Measurement": 1 finger, 2 alternate site test, 3 earlobe, 4 control
/// solution, 15 not available; "CGM Feature" adds 5 subcutaneous tissue; the rest reserved for future use).
enum GlucoseSampleLocation {
    static func name(_ raw: UInt8, allowSubcutaneous: Bool) -> String {
        switch raw {
        case 1: "finger"
        case 2: "alternate site test"
        case 3: "earlobe"
        case 4: "control solution"
        case 5 where allowSubcutaneous: "subcutaneous tissue"
        case 15: "not available"
        default: GlucoseText.reserved(raw)
        }
    }
}
