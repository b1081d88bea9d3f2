/// The Glucose group's decoders: Glucose Service (0x1808) and Continuous Glucose Monitoring Service (0x181F). The
/// measurement and context records are notified (GLS and CGMS deliver stored records by notification after a Record
/// Access Control Point request; RACP 0x2A52 itself is decoded elsewhere); features, status and the session start
/// time are read once per link, and the CGM Feature read then tells the CGM decoders whether an E2E-CRC is present.
public enum GlucoseDecoders {
    public static let all: [CharacteristicDecoder] = [
        CharacteristicDecoder(GlucoseMeasurement.characteristic, .glucose, name: "Glucose Measurement", delivery: .notify,
                              decode: GlucoseMeasurement.decode),
        CharacteristicDecoder(GlucoseMeasurementContext.characteristic, .glucose, name: "Glucose Measurement Context", delivery: .notify,
                              decode: GlucoseMeasurementContext.decode),
        CharacteristicDecoder(GlucoseFeature.characteristic, .glucose, name: "Glucose Feature", delivery: .readOnce,
                              decode: GlucoseFeature.decode),
        CharacteristicDecoder(CGMMeasurement.characteristic, .continuousGlucose, name: "CGM Measurement", delivery: .notify,
                              decode: CGMMeasurement.decode),
        CharacteristicDecoder(CGMFeature.characteristic, .continuousGlucose, name: "CGM Feature", delivery: .readOnce,
                              decode: CGMFeature.decode),
        CharacteristicDecoder(CGMStatus.characteristic, .continuousGlucose, name: "CGM Status", delivery: .readOnce,
                              decode: CGMStatus.decode),
        CharacteristicDecoder(CGMSessionStartTime.characteristic, .continuousGlucose, name: "CGM Session Start Time", delivery: .readOnce,
                              decode: CGMSessionStartTime.decode),
    ]
}
