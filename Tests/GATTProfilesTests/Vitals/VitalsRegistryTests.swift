import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct VitalsRegistryTests {
    @Test func everyCharacteristicOnceWithItsProfileAndDelivery() {
        // Delivery per the brief and the services: HRS §3.1 notify, BAS §3.1 notify (also readable), BPS §3.1
        // indicate / §3.2 notify, HTS §3.1 indicate / §3.3 notify, PLXS §3.1 indicate / §3.2 notify; the rest read once.
        let expected: [(UInt16, Profile, CharacteristicDecoder.Delivery)] = [
            (0x2A37, .heartRate, .notify), (0x2A38, .heartRate, .readOnce),
            (0x2A19, .battery, .notify),
            (0x2A35, .bloodPressure, .indicate), (0x2A36, .bloodPressure, .notify), (0x2A49, .bloodPressure, .readOnce),
            (0x2A1C, .healthThermometer, .indicate), (0x2A1E, .healthThermometer, .notify), (0x2A1D, .healthThermometer, .readOnce),
            (0x2A5E, .pulseOximeter, .indicate), (0x2A5F, .pulseOximeter, .notify), (0x2A60, .pulseOximeter, .readOnce),
        ]
        #expect(VitalsDecoders.all.count == expected.count)
        #expect(Set(VitalsDecoders.all.map(\.characteristic)).count == VitalsDecoders.all.count)
        for (number, profile, delivery) in expected {
            let decoder = vitalsDecoder(AssignedNumber(number))
            #expect(decoder?.profile == profile, "\(AssignedNumber(number))")
            #expect(decoder?.delivery == delivery, "\(AssignedNumber(number))")
        }
    }

    @Test func registryEntriesAreTheEnumsDecoders() throws {
        // Each entry's observations name the characteristic they came on: the entry calls its own enum.
        let samples: [(AssignedNumber, [UInt8])] = [
            (HeartRateMeasurement.characteristic, [0x00, 0x48]), (BodySensorLocation.characteristic, [0x01]),
            (BatteryLevel.characteristic, [0x61]),
            (BloodPressureMeasurement.characteristic, [0x00, 0x80, 0x00, 0x52, 0x00, 0x61, 0x00]),
            (IntermediateCuffPressure.characteristic, [0x00, 0x78, 0x00, 0xFF, 0x07, 0xFF, 0x07]),
            (BloodPressureFeature.characteristic, [0x01, 0x00]),
            (TemperatureMeasurement.characteristic, [0x00, 0x6E, 0x01, 0x00, 0xFF]),
            (IntermediateTemperature.characteristic, [0x00, 0x6E, 0x01, 0x00, 0xFF]),
            (TemperatureType.characteristic, [0x03]),
            (PLXSpotCheckMeasurement.characteristic, [0x00, 0x61, 0x00, 0x40, 0x00]),
            (PLXContinuousMeasurement.characteristic, [0x00, 0x61, 0x00, 0x40, 0x00]),
            (PLXFeatures.characteristic, [0x00, 0x00]),
        ]
        for (characteristic, bytes) in samples {
            let o = try #require(vitalsDecodeOne(characteristic, bytes))
            #expect(o.characteristic == characteristic)
            #expect(o.profile == vitalsDecoder(characteristic)?.profile)
        }
    }

    @Test func mdcCodesArePartitionTimesSixtyFiveKPlusTerm() {
        // 11073-10101: code = partition × 2^16 + term. Partitions: 1 OBJ, 2 SCADA, 129 PHD_HF.
        let expected: [(Metric, UInt32)] = [
            (.heartRate, 2 << 16 + 16770), (.energyExpended, 129 << 16 + 119), (.rrInterval, 2 << 16 + 16168),
            (.batteryLevel, 1 << 16 + 2460), (.systolicPressure, 2 << 16 + 18949), (.diastolicPressure, 2 << 16 + 18950),
            (.meanArterialPressure, 2 << 16 + 18951), (.cuffPressure, 2 << 16 + 19228), (.bloodPressurePulseRate, 2 << 16 + 18474),
            (.bodyTemperature, 2 << 16 + 19292), (.spo2, 2 << 16 + 19384), (.oximetryPulseRate, 2 << 16 + 18458),
            (.pulseAmplitudeIndex, 2 << 16 + 19376), (.spo2Fast, 2 << 16 + 19384), (.spo2Slow, 2 << 16 + 19384),
            (.pulseRateFast, 2 << 16 + 18458), (.pulseRateSlow, 2 << 16 + 18458),
        ]
        for (metric, code) in expected { #expect(metric.mdc == code, "\(metric.name)") }
    }
}
