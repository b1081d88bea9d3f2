// ProfileBench: what decoding costs beside what fleetd already spends on a reading, measured in one run.
// - profile.decode.<stream>: µs per value through ObservationDecoder (the consumers' path), per spec-true
//   measurement stream of the simulator, and its ratio to the baseline below.
// - profile.outbox_ingest: µs of CPU per reading for the outbox's burst ingest (append until committed), the
//   baseline every reading pays once.
// - profile.mqtt_payload: µs per payload, raw hex only against the same reading with its observations, and the ratio.
// One `name: value unit` line per figure.
import BlueZSimulator
import FleetBroker
import FleetStore
import Foundation
import GATTProfiles
#if canImport(Glibc)
import Glibc
#endif

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func fail(_ message: String) -> Never {
    print("profile.error: \(message)")
    exit(1)
}

let characteristic: [SimulatedMeasurement: String] = [
    .heartRate: "2a37", .bloodPressure: "2a35", .temperature: "2a1c", .glucose: "2a18", .pulseOximetry: "2a5f",
    .weight: "2a9d", .cyclingSpeedCadence: "2a5b",
]

// MARK: Baseline: the outbox's ingest, CPU per reading.
let directory: String = {
    var template = Array("/tmp/fleet-profile-bench.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fail("mkdtemp failed") }
    return String(cString: made)
}()
defer { try? FileManager.default.removeItem(atPath: directory) }
let ingestCount = 100_000
var configuration = Outbox.Configuration()
configuration.commitDelay = .milliseconds(100)
configuration.memoryLimit = 10_000_000
let outbox: Outbox
do { outbox = try Outbox(path: "\(directory)/ingest.db", configuration: configuration) } catch { fail("\(error)") }
let readings = (0..<ingestCount).map { i in
    Reading(device: "dev-\(i % 200)", characteristic: "00002a35-0000-1000-8000-00805f9b34fb", kind: .indication,
            value: SimulatedMeasurement.bloodPressure.value(number: UInt64(i)), monotonicNanoseconds: Int64(i), wallNanoseconds: Int64(i),
            session: 1)
}
let ingestCPU0 = cpuSeconds()
for r in readings { outbox.append(r) }
do { try await outbox.flush() } catch { fail("flush: \(error)") }
let ingestMicros = (cpuSeconds() - ingestCPU0) / Double(ingestCount) * 1e6
outbox.close()
print(String(format: "profile.outbox_ingest: %.3f us CPU/reading (baseline)", ingestMicros))

// MARK: Decoding, per stream.
let decodeCount = 200_000
var worst = 0.0
for stream in SimulatedMeasurement.allCases {
    guard let uuid = characteristic[stream] else { fail("no characteristic for \(stream)") }
    let values = (0..<1024).map { stream.value(number: UInt64($0)) }
    var decoder = ObservationDecoder()
    var quantities = 0
    let t0 = cpuSeconds()
    for i in 0..<decodeCount {
        // Decoded values are used, so the optimiser cannot drop the work.
        quantities &+= decoder.decode(device: "dev-\(i & 7)", characteristic: uuid, value: values[i & 1023])?.observations.first?.quantities.count ?? 0
    }
    let micros = (cpuSeconds() - t0) / Double(decodeCount) * 1e6
    guard quantities > 0 else { fail("\(stream) decoded nothing") }
    worst = max(worst, micros)
    print(String(format: "profile.decode.%@: %.3f us/value, %.2fx the outbox ingest", stream.rawValue, micros, micros / ingestMicros))
}
print(String(format: "profile.decode.worst: %.3f us/value, %.2fx the outbox ingest", worst, worst / ingestMicros))

// MARK: The MQTT payload, raw against decoded.
let payloadCount = 100_000
let value = SimulatedMeasurement.bloodPressure.value(number: 4)
var decoder = ObservationDecoder()
let decoded = decoder.decode(device: "dev-1", characteristic: "2a35", value: value)
let raw = BrokerReading(cursor: 1, device: "dev-1", characteristic: "00002a35-0000-1000-8000-00805f9b34fb", sequence: 1, kind: .indication,
                        monotonicNanoseconds: 1, wallTime: Date(timeIntervalSince1970: 1_765_000_000), session: 1, value: value)
var withObservations = raw
withObservations.decoded = decoded
func payloadMicros(_ reading: BrokerReading) -> (Double, Int) {
    var bytes = 0
    let t0 = cpuSeconds()
    for _ in 0..<payloadCount { bytes &+= reading.jsonPayload.count }
    return ((cpuSeconds() - t0) / Double(payloadCount) * 1e6, bytes / payloadCount)
}
let (rawMicros, rawBytes) = payloadMicros(raw)
let (decodedMicros, decodedBytes) = payloadMicros(withObservations)
print(String(format: "profile.mqtt_payload.raw: %.3f us/payload, %d bytes", rawMicros, rawBytes))
print(String(format: "profile.mqtt_payload.with_observations: %.3f us/payload, %d bytes, %.1fx the raw payload, %.2fx the outbox ingest",
             decodedMicros, decodedBytes, decodedMicros / rawMicros, decodedMicros / ingestMicros))

// MARK: Fuzz: every catalog decoder fed 10^6 seeded random values (lengths 0…40), in release as fleetd runs.
// No value may trap, and every failure must be a typed error naming the decoder's characteristic and an offset
// inside the value (the debug test suite runs 20 000 per decoder; this is the 10^6).
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
let fuzzCount = 1_000_000
var random = SplitMix64(state: 36)
var fuzzObservations = 0, fuzzErrors = 0, fuzzInconsistent = 0
let fuzzStart = cpuSeconds()
let catalog = ProfileCatalog.decoders.values.sorted { $0.characteristic < $1.characteristic }
var buffer = [UInt8](repeating: 0, count: 40)
for decoder in catalog {
    for _ in 0..<fuzzCount {
        let word = random.next()
        let length = Int(word % 41)
        var bits = random.next()
        for i in 0..<length {
            if i % 8 == 0 && i > 0 { bits = random.next() }
            buffer[i] = UInt8(truncatingIfNeeded: bits >> (UInt64(i % 8) * 8))
        }
        let value = Array(buffer[0..<length])
        do throws(ProfileDecodeError) {
            let observations = try decoder.decode(value, .none)
            fuzzObservations += observations.count
            if observations.contains(where: { $0.characteristic != decoder.characteristic }) { fuzzInconsistent += 1 }
        } catch {
            fuzzErrors += 1
            if error.characteristic != decoder.characteristic || error.offset > length { fuzzInconsistent += 1 }
        }
    }
}
let fuzzSeconds = cpuSeconds() - fuzzStart
let fuzzTotal = catalog.count * fuzzCount
print(String(format: "profile.fuzz: %d decoders x %d random values = %d, %d observations, %d typed errors, %d inconsistent, 0 traps, %.3f us/value",
             catalog.count, fuzzCount, fuzzTotal, fuzzObservations, fuzzErrors, fuzzInconsistent, fuzzSeconds / Double(fuzzTotal) * 1e6))
if fuzzInconsistent > 0 { fail("\(fuzzInconsistent) decodes named the wrong characteristic or an offset past the value") }
