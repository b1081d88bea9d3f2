import TestScheduling
import Testing
@testable import GATTProfiles

/// Seeded fuzzing of every decoder in ProfileCatalog and of ObservationDecoder. Typed throws already say that any
/// error is a ProfileDecodeError; what these tests check is that no value traps (an out-of-bounds index, an
/// arithmetic overflow, a failed precondition would kill the test process), and that every error and every
/// observation is consistent with the value it came from.
@Suite(.offCooperativePool) struct CatalogFuzzTests {
    static let decoders = ProfileCatalog.decoders.values.sorted { $0.characteristic < $1.characteristic }
    /// The characteristics read once per link: the ones a decoder may find in `context.features`.
    static let featureKeys = decoders.filter { $0.delivery == .readOnce }.map(\.characteristic)

    /// Checks a thrown error against the value: same characteristic, offset inside the value (the end counts), and the
    /// two problems ByteReader reports consistent with the length: a too-short field has at most `available` bytes
    /// from its offset to the end and needs more than that; trailing bytes lie between the offset and the end.
    static func check(_ error: ProfileDecodeError, _ decoder: CharacteristicDecoder, _ bytes: [UInt8],
                      sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        var ok = error.characteristic == decoder.characteristic && error.offset >= 0 && error.offset <= bytes.count && !error.field.isEmpty
        switch error.problem {
        case .tooShort(let needed, let available):
            ok = ok && available >= 0 && needed > available && error.offset + available <= bytes.count
        case .trailingBytes(let count):
            // Up to the end of the value, or of the record a size byte delimits (CGM Measurement).
            ok = ok && count > 0 && error.offset + count <= bytes.count
        case .reserved, .outOfRange, .crcMismatch:
            ok = ok && error.offset < bytes.count
        }
        if !ok {
            Issue.record("\(decoder.characteristic) \(decoder.name): [\(coreHex(bytes))] → \(error)", sourceLocation: sourceLocation)
        }
        return ok
    }

    /// Checks the observations of a value that decoded: each is of the decoder's characteristic and profile, with
    /// a summary for a person.
    static func check(_ observations: [Observation], _ decoder: CharacteristicDecoder, _ bytes: [UInt8],
                      sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let ok = observations.allSatisfy { $0.characteristic == decoder.characteristic && $0.profile == decoder.profile && !$0.summary.isEmpty }
        if !ok {
            Issue.record("\(decoder.characteristic) \(decoder.name): [\(coreHex(bytes))] → \(observations)", sourceLocation: sourceLocation)
        }
        return ok
    }

    /// One decode, checked; returns whether it decoded and the error when it did not.
    static func run(_ decoder: CharacteristicDecoder, _ bytes: [UInt8], _ context: DecodingContext) -> (ok: Bool, error: ProfileDecodeError?) {
        do {
            let observations = try decoder.decode(bytes, context)
            return (check(observations, decoder, bytes), nil)
        } catch {
            return (check(error, decoder, bytes), error)
        }
    }

    /// 32 random contexts without a previous value: half with feature values for some of the read-once
    /// characteristics, of a plausible or random length; a wheel size of 2105 mm or anything from 0 to 4000 mm.
    static func contextPool(_ rng: inout CoreSplitMix64) -> [DecodingContext] {
        (0..<32).map { _ in
            var features: [AssignedNumber: [UInt8]] = [:]
            if rng.below(2) == 0 {
                for key in featureKeys where rng.below(3) == 0 {
                    features[key] = rng.bytes([1, 2, 4, 6, 7, 9, rng.below(12)][rng.below(7)])
                }
            }
            return DecodingContext(features: features, wheelCircumferenceMillimetres: rng.below(4) == 0 ? rng.below(4001) : 2105)
        }
    }

    /// A context from the pool with a previous value: none, the last value that decoded, or one of 64 random values.
    static func context(_ rng: inout CoreSplitMix64, _ pool: [DecodingContext], _ previousPool: [[UInt8]],
                        previous last: [UInt8]?) -> DecodingContext {
        var context = pool[rng.below(pool.count)]
        switch rng.below(3) {
        case 0: context.previous = nil
        case 1: context.previous = last
        default: context.previous = previousPool[rng.below(previousPool.count)]
        }
        return context
    }

    /// A random value of 0…40 bytes: uniform bytes half the time; otherwise small bytes (0…12, so that months,
    /// days, hours, enumerations and flag bytes come out in range and a date's year byte pair is 0 or ≥ 0x0700 =
    /// 1792 often enough), half of those with the first byte the value's length (a CGM record's Size).
    static func value(_ rng: inout CoreSplitMix64) -> [UInt8] {
        let count = rng.below(41)
        switch rng.below(4) {
        case 0, 1: return rng.bytes(count)
        default:
            // Each random byte folded to 0…12 (mod 13).
            var bytes = rng.bytes(count)
            bytes.withUnsafeMutableBufferPointer { buffer in
                for i in buffer.indices { buffer[i] %= 13 }
            }
            if count > 0 && rng.below(2) == 0 { bytes[0] = UInt8(count) }
            return bytes
        }
    }

    /// For every decoder: 20 000 seeded random values of 0…40 bytes (see `value`), each with a random context. One in
    /// three values that fail only for trailing bytes is cut to the length its flags announce (a valid-looking value);
    /// every value that decodes, and every such cut value that decodes, is also decoded at a random truncation. (The
    /// proportions keep the suite within a few seconds in a debug build: a successful decode costs ~40 µs there.)
    @Test(arguments: decoders.map(\.characteristic.rawValue))
    func randomValues(_ raw: UInt16) throws {
        let decoder = try #require(ProfileCatalog.decoders[AssignedNumber(raw)])
        var rng = CoreSplitMix64(seed: 0xF1EE_7D00 ^ UInt64(raw))
        let pool = Self.contextPool(&rng)
        let previousPool = (0..<64).map { _ in Self.value(&rng) }
        var last: [UInt8]? = nil
        var failures = 0, decoded = 0, truncations = 0
        for _ in 0..<20_000 {
            let bytes = Self.value(&rng)
            let context = Self.context(&rng, pool, previousPool, previous: last)
            let (ok, error) = Self.run(decoder, bytes, context)
            if !ok { failures += 1 }
            var validLooking: [UInt8]? = error == nil ? bytes : nil
            if let error, case .trailingBytes(let count) = error.problem, rng.below(3) == 0 {
                let cut = Array(bytes.dropLast(count))
                let (cutOK, cutError) = Self.run(decoder, cut, context)
                if !cutOK { failures += 1 }
                if cutError == nil { validLooking = cut }
            }
            if let valid = validLooking {
                decoded += 1
                last = valid
                if !valid.isEmpty {
                    let prefix = Array(valid.prefix(rng.below(valid.count)))
                    if !Self.run(decoder, prefix, context).ok { failures += 1 }
                    truncations += 1
                }
            }
            if failures > 20 { break }   // enough to see the pattern
        }
        #expect(failures == 0)
        // A decoder that decoded nothing in 20 000 tries would make this test vacuous for it: at least one value
        // (or cut value) decodes for every characteristic.
        #expect(decoded > 0, "\(decoder.name) decoded nothing")
        #expect(truncations > 0 || decoded == 0)
    }

    /// ObservationDecoder fed 20 000 random values over a few devices, the catalog's characteristics (in each UUID
    /// spelling), a vendor UUID and unknown numbers, with a raw device and forget(device:) now and then. Each result
    /// is checked against a model kept here: nil for an unknown characteristic or a raw device, otherwise exactly what
    /// the catalog decoder gives with the previous value of that device and characteristic and that device's
    /// read-once values as the context.
    @Test func observationDecoderRandomStream() {
        var rng = CoreSplitMix64(seed: 0x0B5E_57E4)
        let devices = ["AA:BB:CC:00:00:01", "AA:BB:CC:00:00:02", "AA:BB:CC:00:00:03"]
        let raw = "AA:BB:CC:00:00:03"
        var decoder = ObservationDecoder(rawDevices: [raw], wheelCircumferenceMillimetres: 2096)
        var modelPrevious: [String: [UInt8]] = [:]                        // "device|2A5B"
        var modelFeatures: [String: [AssignedNumber: [UInt8]]] = [:]
        let known = Self.decoders.map(\.characteristic)
        var decodedCount = 0
        for step in 0..<20_000 {
            let device = devices[rng.below(devices.count)]
            if rng.below(500) == 0 {
                decoder.forget(device: device)
                modelPrevious = modelPrevious.filter { !$0.key.hasPrefix(device + "|") }
                modelFeatures[device] = nil
                continue
            }
            let number: AssignedNumber
            switch rng.below(20) {
            case 0: number = AssignedNumber(UInt16(truncatingIfNeeded: rng.next()))   // almost always unknown
            default: number = known[rng.below(known.count)]
            }
            let uuid: String
            switch rng.below(4) {
            case 0: uuid = number.description.lowercased()
            case 1: uuid = "0x" + number.description
            case 2: uuid = number.uuid
            default: uuid = number.uuid.uppercased()
            }
            let value = rng.bytes(rng.below(30))
            if rng.below(50) == 0 {
                // A vendor UUID is never decoded.
                #expect(decoder.decode(device: device, characteristic: "6e400003-b5a3-f393-e0a9-e50e24dcca9e", value: value) == nil)
                continue
            }
            let result = decoder.decode(device: device, characteristic: uuid, value: value)
            guard let catalog = ProfileCatalog.decoders[number], device != raw else {
                #expect(result == nil, "step \(step) \(uuid) on \(device)")
                continue
            }
            let key = device + "|" + number.description
            let context = DecodingContext(previous: modelPrevious[key], features: modelFeatures[device] ?? [:],
                                          wheelCircumferenceMillimetres: 2096)
            let expected: DecodedValue
            do throws(ProfileDecodeError) {
                expected = .observations(try catalog.decode(value, context))
            } catch {
                expected = .failure(error)
                _ = Self.check(error, catalog, value)
            }
            #expect(result == expected, "step \(step) \(uuid) [\(coreHex(value))]")
            if result?.failure == nil { decodedCount += 1 }
            modelPrevious[key] = value
            if catalog.delivery == .readOnce { modelFeatures[device, default: [:]][number] = value }
        }
        #expect(decodedCount > 0)
    }

    @Test func catalogDecodeMatchesTheDecoders() {
        // ProfileCatalog.decode by UUID text is the decoder itself, wrapped: observations or the typed failure.
        var rng = CoreSplitMix64(seed: 7)
        for decoder in Self.decoders {
            for _ in 0..<200 {
                let value = rng.bytes(rng.below(20))
                let expected: DecodedValue
                do throws(ProfileDecodeError) {
                    expected = .observations(try decoder.decode(value, .none))
                } catch {
                    expected = .failure(error)
                }
                #expect(ProfileCatalog.decode(value, characteristic: decoder.characteristic.uuid) == expected)
            }
        }
        #expect(ProfileCatalog.decode([0x00], characteristic: "1234") == nil)
        #expect(ProfileCatalog.decode([0x00], characteristic: "not a uuid") == nil)
    }
}
