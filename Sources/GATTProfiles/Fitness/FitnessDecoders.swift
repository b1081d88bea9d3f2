/// The Fitness group's decoders: Weight Scale, Body Composition, Cycling Speed and Cadence, Running Speed and Cadence,
/// Cycling Power, Current Time and Device Information. Delivery follows each service's characteristic properties:
/// one acknowledged value per measurement (Weight Measurement WSS §3.2, Body Composition Measurement BCS §3.2) is
/// indicated; the once-a-second sensor streams (CSC, RSC, Cycling Power Measurement) and Current Time (notified on a
/// change, CTS §3.1) are notified; features, Date Time and the Device Information values are read once per link.
public enum FitnessDecoders {
    public static let all: [CharacteristicDecoder] = [
        CharacteristicDecoder(WeightMeasurement.characteristic, .weightScale, name: "Weight Measurement", delivery: .indicate,
                              decode: WeightMeasurement.decode),
        CharacteristicDecoder(WeightScaleFeature.characteristic, .weightScale, name: "Weight Scale Feature", delivery: .readOnce,
                              decode: WeightScaleFeature.decode),
        CharacteristicDecoder(BodyCompositionMeasurement.characteristic, .bodyComposition, name: "Body Composition Measurement",
                              delivery: .indicate, decode: BodyCompositionMeasurement.decode),
        CharacteristicDecoder(BodyCompositionFeature.characteristic, .bodyComposition, name: "Body Composition Feature",
                              delivery: .readOnce, decode: BodyCompositionFeature.decode),
        CharacteristicDecoder(CSCMeasurement.characteristic, .cyclingSpeedCadence, name: "CSC Measurement", delivery: .notify,
                              decode: CSCMeasurement.decode),
        CharacteristicDecoder(RSCMeasurement.characteristic, .runningSpeedCadence, name: "RSC Measurement", delivery: .notify,
                              decode: RSCMeasurement.decode),
        CharacteristicDecoder(CyclingPowerMeasurement.characteristic, .cyclingPower, name: "Cycling Power Measurement", delivery: .notify,
                              decode: CyclingPowerMeasurement.decode),
        CharacteristicDecoder(DateTimeCharacteristic.characteristic, .currentTime, name: "Date Time", delivery: .readOnce,
                              decode: DateTimeCharacteristic.decode),
        CharacteristicDecoder(CurrentTime.characteristic, .currentTime, name: "Current Time", delivery: .notify,
                              decode: CurrentTime.decode),
        CharacteristicDecoder(ManufacturerNameString.characteristic, .deviceInformation, name: "Manufacturer Name String",
                              delivery: .readOnce, decode: ManufacturerNameString.decode),
        CharacteristicDecoder(ModelNumberString.characteristic, .deviceInformation, name: "Model Number String", delivery: .readOnce,
                              decode: ModelNumberString.decode),
        CharacteristicDecoder(SerialNumberString.characteristic, .deviceInformation, name: "Serial Number String", delivery: .readOnce,
                              decode: SerialNumberString.decode),
        CharacteristicDecoder(FirmwareRevisionString.characteristic, .deviceInformation, name: "Firmware Revision String",
                              delivery: .readOnce, decode: FirmwareRevisionString.decode),
        CharacteristicDecoder(HardwareRevisionString.characteristic, .deviceInformation, name: "Hardware Revision String",
                              delivery: .readOnce, decode: HardwareRevisionString.decode),
        CharacteristicDecoder(SoftwareRevisionString.characteristic, .deviceInformation, name: "Software Revision String",
                              delivery: .readOnce, decode: SoftwareRevisionString.decode),
        CharacteristicDecoder(SystemID.characteristic, .deviceInformation, name: "System ID", delivery: .readOnce,
                              decode: SystemID.decode),
    ]
}
