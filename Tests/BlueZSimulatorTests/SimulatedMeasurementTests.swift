import BlueZSimulator
import GATTProfiles
import Testing

/// The simulator's spec-true measurements, decoded by fleetd's profile decoders, say what their ground truth says:
/// the simulator lays the bytes out from the SIG field tables, the decoders read them from the same tables, and
/// neither is checked against itself.
@Suite struct SimulatedMeasurementTests {
    static let characteristic: [SimulatedMeasurement: String] = [
        .heartRate: "2a37", .bloodPressure: "2a35", .temperature: "2a1c", .glucose: "2a18", .pulseOximetry: "2a5f",
        .weight: "2a9d", .cyclingSpeedCadence: "2a5b", .runningSpeedCadence: "2a53", .cyclingPower: "2a63", .bodyComposition: "2a9c",
        .continuousGlucose: "2aa7",
    ]

    @Test(arguments: SimulatedMeasurement.allCases)
    func everyReadingDecodesToItsTruth(_ stream: SimulatedMeasurement) throws {
        var decoder = ObservationDecoder()
        // The CGM Feature read on connect, before any measurement: it says whether an E2E-CRC follows.
        _ = decoder.decode(device: "sim", characteristic: "2aa8", value: SimulatedMeasurement.cgmFeature)
        for n in UInt64(0)..<300 {
            let truth = stream.truth(number: n)
            let decoded = decoder.decode(device: "sim", characteristic: try #require(Self.characteristic[stream]), value: stream.value(number: n))
            let observation = try #require(decoded?.observations.first, "reading \(n) of \(stream): \(String(describing: decoded))")
            for (metric, text) in truth.quantities {
                let quantity = try #require(observation.quantity(metric), "\(stream) #\(n) has no \(metric): \(observation.summary)")
                #expect(quantity.value == .number(try #require(DecimalNumber(parsing: text))), "\(stream) #\(n) \(metric)")
            }
            #expect(observation.deviceTime?.description == truth.deviceTime, "\(stream) #\(n)")
            #expect(observation.record == truth.record, "\(stream) #\(n)")
            for flag in truth.flags { #expect(observation.flags.contains(flag), "\(stream) #\(n) lacks \(flag): \(observation.flags)") }
            if !truth.flags.contains("body-movement") { #expect(!observation.flags.contains("body-movement")) }
        }
    }

    @Test func theStandardServicesAreNamedInScenarios() throws {
        for name in ["blood-pressure", "thermometer", "glucose-meter", "pulse-oximeter", "weight-scale", "cycling-speed-cadence",
                     "device-information", "heart-rate-rr", "running-speed-cadence", "cycling-power", "body-composition",
                     "continuous-glucose"] {
            let service = try #require(GattProfile.service(named: name), "\(name)")
            #expect(ProfileCatalog.profile(service: service.uuid) != nil, "\(name) is a SIG service")
        }
    }

    @Test func groundTruthByHand() {
        // Blood pressure #4: systolic 110 + 4 = 114, diastolic 70 + 4 = 74, MAP 74 + 40/3 = 87, pulse 64, stamped
        // 2026-12-01 00:04, status bit 0 (body movement) on every fifth reading.
        let bp = SimulatedMeasurement.bloodPressure.truth(number: 4)
        #expect(bp.quantities == ["systolic-pressure": "114", "diastolic-pressure": "74", "mean-arterial-pressure": "87", "pulse-rate": "64"])
        #expect(bp.deviceTime == "2026-12-01T00:04:00" && bp.flags == ["body-movement"])
        // Its bytes (BLS §3.1): flags 0x1E, SFLOAT exponent 0 so 114 = 0x0072, 74 = 0x004A, 87 = 0x0057, then the
        // Date Time 2026 = 0x07EA, 12, 1, 0, 4, 0, pulse 64 = 0x0040, user 1, status 0x0001.
        #expect(SimulatedMeasurement.bloodPressure.value(number: 4) == [0x1E, 0x72, 0x00, 0x4A, 0x00, 0x57, 0x00, 0xEA, 0x07, 12, 1, 0, 4, 0,
                                                                          0x40, 0x00, 0x01, 0x01, 0x00])
        // Glucose #1: 90 + 13 = 103 mg/dL = 103 × 10⁻⁵ kg/L: SFLOAT exponent −5 (0xB) mantissa 103 (0x067) = 0xB067.
        #expect(SimulatedMeasurement.glucose.value(number: 1).suffix(3) == [0x67, 0xB0, 0x11])
        #expect(SimulatedMeasurement.glucose.truth(number: 1).record == 2)
        // Heart rate #1: 60 + 7 = 67 bpm; RR = round(60 × 1024 / 67) = round(917.01) = 917 → 917/1024 s = 0.8955078125 s.
        #expect(SimulatedMeasurement.heartRate.truth(number: 1).quantities == ["heart-rate": "67", "rr-interval": "0.8955078125"])
    }
}
