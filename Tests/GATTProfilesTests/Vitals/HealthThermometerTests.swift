import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct TemperatureMeasurementTests {
    let c = TemperatureMeasurement.characteristic
    /// FLOAT 366 × 10^-1: mantissa 0x00016E, exponent 0xFF (-1) → 6E 01 00 FF.
    let thirtySixSix: [UInt8] = [0x6E, 0x01, 0x00, 0xFF]

    @Test func briefVectorEar() throws {
        // flags 0x04: bit0 = 0 °C, bit2 temperature type present; FLOAT 36.6; type 0x03 = ear (GSS Temperature Type).
        #expect(VitalsBytes.float(366, -1) == thirtySixSix)
        let o = try #require(vitalsDecodeOne(c, [0x04] + thirtySixSix + [0x03]))
        #expect(o.profile == .healthThermometer)
        #expect(o.quantities == [Quantity(.bodyTemperature, .number(DecimalNumber(mantissa: 366, exponent: -1)), .degreesCelsius)])
        #expect(o.detail("temperature-type") == "ear")
        #expect(o.summary == "36.6 °C (ear)")
    }

    @Test func fahrenheitStaysFahrenheit() throws {
        // flags 0x01: °F; FLOAT 979 × 10^-1 = 97.9 → D3 03 00 FF.
        let o = try #require(vitalsDecodeOne(c, [0x01, 0xD3, 0x03, 0x00, 0xFF]))
        #expect(o.quantity("body-temperature")?.unit == .degreesFahrenheit)
        #expect(o.summary == "97.9 °F")
    }

    @Test func timeStamp() throws {
        // flags 0x02: time stamp 2026-12-06 08:12:00 after the FLOAT.
        let o = try #require(vitalsDecodeOne(c, [0x02] + thirtySixSix + VitalsBytes.sampleTime))
        #expect(o.deviceTime == VitalsBytes.sampleDeviceTime)
        #expect(o.summary == "36.6 °C, device time 2026-12-06 08:12")
    }

    @Test func everyTemperatureType() throws {
        // GSS Temperature Type 1-9.
        let expected = ["armpit", "body", "ear", "finger", "gastro-intestinal tract", "mouth", "rectum", "toe", "tympanum"]
        for (index, name) in expected.enumerated() {
            let o = try #require(vitalsDecodeOne(c, [0x04] + thirtySixSix + [UInt8(index + 1)]))
            #expect(o.detail("temperature-type") == name)
            #expect(o.summary == "36.6 °C (\(name))")
        }
    }

    @Test func reservedTypesAreDetails() throws {
        // 0 and 10-255 are reserved: the temperature still stands.
        #expect(vitalsDecodeOne(c, [0x04] + thirtySixSix + [0x00])?.detail("temperature-type") == "reserved (0x00)")
        #expect(vitalsDecodeOne(c, [0x04] + thirtySixSix + [0x0A])?.detail("temperature-type") == "reserved (0x0a)")
    }

    @Test func typeFromTheTemperatureTypeCharacteristic() throws {
        // flags 0x00: no type in the value; 2A1D read on the link said 0x02 = body (HTS §3.2).
        let context = DecodingContext(features: [TemperatureType.characteristic: [0x02]])
        let o = try #require(vitalsDecodeOne(c, [0x00] + thirtySixSix, context: context))
        #expect(o.detail("temperature-type") == "body")
        #expect(o.summary == "36.6 °C (body)")
        // The value's own type wins over the characteristic: 0x06 = mouth.
        #expect(vitalsDecodeOne(c, [0x04] + thirtySixSix + [0x06], context: context)?.detail("temperature-type") == "mouth")
    }

    @Test func notANumber() throws {
        // FLOAT 0x007FFFFF = NaN → FF FF 7F 00.
        let o = try #require(vitalsDecodeOne(c, [0x00, 0xFF, 0xFF, 0x7F, 0x00]))
        #expect(o.quantity("body-temperature")?.value == .notANumber)
        #expect(o.summary == "NaN °C")
    }

    @Test func everyFlagCombinationOnBothCharacteristics() throws {
        // Bits 0-2 defined (8 combinations), plus reserved bits 3-7; Intermediate Temperature shares the layout.
        for characteristic in [TemperatureMeasurement.characteristic, IntermediateTemperature.characteristic] {
            for defined in 0..<8 {
                for reserved: UInt8 in [0x00, 0xF8] {
                    let flags = UInt8(defined) | reserved
                    var bytes: [UInt8] = [flags] + thirtySixSix
                    var layout = [VitalsField("flags", 0, 1), VitalsField("temperature", 1, 4)]
                    if flags & 0x02 != 0 {
                        layout += VitalsBytes.dateTimeLayout("time-stamp", at: bytes.count)
                        bytes += VitalsBytes.sampleTime
                    }
                    if flags & 0x04 != 0 {
                        layout.append(VitalsField("temperature-type", bytes.count, 1))
                        bytes.append(0x09)                    // 9 = tympanum
                    }
                    let o = try #require(vitalsDecodeOne(characteristic, bytes))
                    #expect(o.characteristic == characteristic)
                    #expect(o.quantity("body-temperature")?.unit == (flags & 0x01 != 0 ? .degreesFahrenheit : .degreesCelsius))
                    #expect(o.deviceTime == (flags & 0x02 != 0 ? VitalsBytes.sampleDeviceTime : nil))
                    #expect(o.detail("temperature-type") == (flags & 0x04 != 0 ? "tympanum" : nil))
                    vitalsExpectLengthRule(characteristic, bytes, layout)
                }
            }
        }
    }
}

@Suite(.offCooperativePool) struct TemperatureTypeTests {
    let c = TemperatureType.characteristic

    @Test func typeAndSummary() throws {
        // 0x05 = gastro-intestinal tract.
        let o = try #require(vitalsDecodeOne(c, [0x05]))
        #expect(o.detail("temperature-type") == "gastro-intestinal tract")
        #expect(o.summary == "gastro-intestinal tract (temperature type)")
    }

    @Test func lengthRule() {
        vitalsExpectLengthRule(c, [0x01], [VitalsField("temperature-type", 0, 1)])
    }
}
