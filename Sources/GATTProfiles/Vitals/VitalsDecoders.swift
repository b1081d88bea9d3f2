/// The Vitals group's decoders: Heart Rate, Battery, Blood Pressure, Health Thermometer and Pulse Oximeter. Delivery
/// follows each service's characteristic properties: measurements the service indicates (one acknowledged value per
/// reading: 2A35, 2A1C, 2A5E) are indicated; streams (2A37, 2A36, 2A1E, 2A5F) and Battery Level (notify and read,
/// BAS v1.0 §3.1) are notified; features, types and locations are read once per link.
public enum VitalsDecoders {
    public static let all: [CharacteristicDecoder] = [
        CharacteristicDecoder(HeartRateMeasurement.characteristic, .heartRate, name: "Heart Rate Measurement", delivery: .notify,
                              decode: HeartRateMeasurement.decode),
        CharacteristicDecoder(BodySensorLocation.characteristic, .heartRate, name: "Body Sensor Location", delivery: .readOnce,
                              decode: BodySensorLocation.decode),
        CharacteristicDecoder(BatteryLevel.characteristic, .battery, name: "Battery Level", delivery: .notify, decode: BatteryLevel.decode),
        CharacteristicDecoder(BloodPressureMeasurement.characteristic, .bloodPressure, name: "Blood Pressure Measurement", delivery: .indicate,
                              decode: BloodPressureMeasurement.decode),
        CharacteristicDecoder(IntermediateCuffPressure.characteristic, .bloodPressure, name: "Intermediate Cuff Pressure", delivery: .notify,
                              decode: IntermediateCuffPressure.decode),
        CharacteristicDecoder(BloodPressureFeature.characteristic, .bloodPressure, name: "Blood Pressure Feature", delivery: .readOnce,
                              decode: BloodPressureFeature.decode),
        CharacteristicDecoder(TemperatureMeasurement.characteristic, .healthThermometer, name: "Temperature Measurement", delivery: .indicate,
                              decode: TemperatureMeasurement.decode),
        CharacteristicDecoder(TemperatureType.characteristic, .healthThermometer, name: "Temperature Type", delivery: .readOnce,
                              decode: TemperatureType.decode),
        CharacteristicDecoder(IntermediateTemperature.characteristic, .healthThermometer, name: "Intermediate Temperature", delivery: .notify,
                              decode: IntermediateTemperature.decode),
        CharacteristicDecoder(PLXSpotCheckMeasurement.characteristic, .pulseOximeter, name: "PLX Spot-Check Measurement", delivery: .indicate,
                              decode: PLXSpotCheckMeasurement.decode),
        CharacteristicDecoder(PLXContinuousMeasurement.characteristic, .pulseOximeter, name: "PLX Continuous Measurement", delivery: .notify,
                              decode: PLXContinuousMeasurement.decode),
        CharacteristicDecoder(PLXFeatures.characteristic, .pulseOximeter, name: "PLX Features", delivery: .readOnce,
                              decode: PLXFeatures.decode),
    ]
}
