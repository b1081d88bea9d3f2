/// Spec-true services: each measurement is laid out as its SIG service specifies (``SimulatedMeasurement``), the
/// characteristic properties are the spec's (a measurement a collector must acknowledge is indicated), and the
/// feature characteristics say what the measurement carries.
extension GattProfile {
    static let standardServiceNames = ["heart-rate-rr", "blood-pressure", "thermometer", "glucose-meter", "pulse-oximeter",
                                       "weight-scale", "cycling-speed-cadence", "device-information", "running-speed-cadence", "cycling-power",
                                       "body-composition", "continuous-glucose"]

    static let standardServices: [String: GattServiceSpec] = [
        // HRS v1.0 §3.1: Heart Rate Measurement notifies; Body Sensor Location 0x01 = chest.
        "heart-rate-rr": GattServiceSpec(uuid: "180d", characteristics: [
            measurement("2a37", .heartRate, flags: ["notify"], every: .seconds(1)),
            GattCharacteristicSpec(uuid: "2a38", flags: ["read"], value: [0x01]),
        ]),
        // BLS v1.1.1 §3.1: Blood Pressure Measurement is indicated. Feature 0x0001: body movement detection.
        "blood-pressure": GattServiceSpec(uuid: "1810", characteristics: [
            measurement("2a35", .bloodPressure, flags: ["indicate"], every: .seconds(5)),
            GattCharacteristicSpec(uuid: "2a49", flags: ["read"], value: [0x01, 0x00]),
        ]),
        // HTS v1.0 §3.1: Temperature Measurement is indicated; the type rides in the measurement, so the
        // Temperature Type characteristic is absent (HTS §3.2: one or the other).
        "thermometer": GattServiceSpec(uuid: "1809", characteristics: [
            measurement("2a1c", .temperature, flags: ["indicate"], every: .seconds(5)),
        ]),
        // GLS v1.0.1: Glucose Measurement notifies; Feature 0x0000; the RACP is there with its properties.
        "glucose-meter": GattServiceSpec(uuid: "1808", characteristics: [
            measurement("2a18", .glucose, flags: ["notify"], every: .seconds(3)),
            GattCharacteristicSpec(uuid: "2a51", flags: ["read"], value: [0x00, 0x00]),
            GattCharacteristicSpec(uuid: "2a52", flags: ["write", "indicate"], value: []),
        ]),
        // PLXS v1.0 §3.2: PLX Continuous Measurement notifies; Features 0x0000: no optional fields.
        "pulse-oximeter": GattServiceSpec(uuid: "1822", characteristics: [
            measurement("2a5f", .pulseOximetry, flags: ["notify"], every: .seconds(1)),
            GattCharacteristicSpec(uuid: "2a60", flags: ["read"], value: [0x00, 0x00]),
        ]),
        // WSS v1.0 §3.2: Weight Measurement is indicated; Feature bit 0: time stamp supported.
        "weight-scale": GattServiceSpec(uuid: "181d", characteristics: [
            measurement("2a9d", .weight, flags: ["indicate"], every: .seconds(5)),
            GattCharacteristicSpec(uuid: "2a9e", flags: ["read"], value: [0x01, 0x00, 0x00, 0x00]),
        ]),
        // CSCS v1.0 §3.1: CSC Measurement notifies; Feature 0x0003: wheel and crank revolution data.
        "cycling-speed-cadence": GattServiceSpec(uuid: "1816", characteristics: [
            measurement("2a5b", .cyclingSpeedCadence, flags: ["notify"], every: .seconds(1)),
            GattCharacteristicSpec(uuid: "2a5c", flags: ["read"], value: [0x03, 0x00]),
        ]),
        // RSCS v1.0 §3.1: RSC Measurement notifies; Feature 0x0003: stride length and total distance.
        "running-speed-cadence": GattServiceSpec(uuid: "1814", characteristics: [
            measurement("2a53", .runningSpeedCadence, flags: ["notify"], every: .seconds(1)),
            GattCharacteristicSpec(uuid: "2a54", flags: ["read"], value: [0x03, 0x00]),
        ]),
        // CPS v1.1 §3.2: Cycling Power Measurement notifies; Feature 0x00000000 (no optional fields).
        "cycling-power": GattServiceSpec(uuid: "1818", characteristics: [
            measurement("2a63", .cyclingPower, flags: ["notify"], every: .seconds(1)),
            GattCharacteristicSpec(uuid: "2a65", flags: ["read"], value: [0x00, 0x00, 0x00, 0x00]),
        ]),
        // BCS v1.0 §3.2: Body Composition Measurement is indicated; Feature 0x00000000.
        "body-composition": GattServiceSpec(uuid: "181b", characteristics: [
            measurement("2a9c", .bodyComposition, flags: ["indicate"], every: .seconds(5)),
            GattCharacteristicSpec(uuid: "2a9b", flags: ["read"], value: [0x00, 0x00, 0x00, 0x00]),
        ]),
        // CGMS v1.0.1: CGM Measurement notifies; the CGM Feature says E2E-CRC is supported, so every record carries it.
        // The RACP (CGMS §3.8, mandatory) has no E2E-CRC; it answers only with `records=` (SimulatorWorld+Records.swift).
        "continuous-glucose": GattServiceSpec(uuid: "181f", characteristics: [
            measurement("2aa7", .continuousGlucose, flags: ["notify"], every: .seconds(1)),
            GattCharacteristicSpec(uuid: "2aa8", flags: ["read"], value: SimulatedMeasurement.cgmFeature),
            GattCharacteristicSpec(uuid: "2a52", flags: ["write", "indicate"], value: []),
        ]),
        // DIS v1.1: UTF-8 strings, read.
        "device-information": GattServiceSpec(uuid: "180a", characteristics: [
            GattCharacteristicSpec(uuid: "2a29", flags: ["read"], value: Array("fleetd simulator".utf8)),
            GattCharacteristicSpec(uuid: "2a24", flags: ["read"], value: Array("SIM-1".utf8)),
            GattCharacteristicSpec(uuid: "2a25", flags: ["read"], value: Array("0001".utf8)),
            GattCharacteristicSpec(uuid: "2a26", flags: ["read"], value: Array("1.0.0".utf8)),
        ]),
    ]

    private static func measurement(_ uuid: String, _ stream: SimulatedMeasurement, flags: [String], every interval: Duration)
        -> GattCharacteristicSpec {
        GattCharacteristicSpec(uuid: uuid, flags: flags, value: stream.value(number: 0), notifyInterval: interval,
                               pattern: .measurement(stream))
    }
}
