// Encode and decode rates of the reply values, hand-written codec against Foundation's Codable with
// JSONEncoder/JSONDecoder (what FleetProtocol uses), measured in the same run on the same values.
import FleetProtocol
import Foundation

enum CodecComparison {
    /// A fleet of `count` devices with every optional member filled in on some of them.
    static func fleet(_ count: Int) -> [DeviceInfo] {
        (0..<count).map { (index: Int) -> DeviceInfo in
            let backingOff = index % 5 == 0
            let address = String(format: "C8:B2:1E:%02X:%02X:%02X", (index >> 16) & 0xFF, (index >> 8) & 0xFF, index & 0xFF)
            let rssi: Int = -40 - index % 50
            return DeviceInfo(id: String(format: "mfr-0059-%012x", index * 7919), displayName: "Device \(index)",
                              state: backingOff ? .backingOff : .ready, adapter: backingOff ? nil : "hci\(index % 4)",
                              address: address, rssi: rssi, lastSeenSecondsAgo: Double(index) / 7, attempt: backingOff ? 3 : 0,
                              nextRetryInSeconds: backingOff ? 12.5 : nil, policyClass: "normal")
        }
    }

    static let event = WatchEvent(sequence: 123_456, time: Date(timeIntervalSince1970: 1_750_000_000.125), device: "mfr-0059-0a1b2c3d4e5f",
                                  kind: .notification(characteristic: "00002a37-0000-1000-8000-00805f9b34fb", value: [0x16, 0x48, 0x01, 0x02]),
                                  text: "heart rate measurement")

    /// Operations per second of `body`: the median of five rounds of `iterations` each.
    static func rate(_ iterations: Int, _ body: () throws -> Void) rethrows -> Double {
        var rates: [Double] = []
        for _ in 0..<5 {
            let start = ContinuousClock.now
            for _ in 0..<iterations { try body() }
            rates.append(Double(iterations) / ((ContinuousClock.now - start) / .seconds(1)))
        }
        return rates.sorted()[2]
    }

    static func report(_ name: String, _ rate: Double, bytes: Int) {
        print("\(name): \(String(format: "%.0f", rate)) replies/s (\(String(format: "%.1f", rate * Double(bytes) / 1e6)) MB/s)")
    }

    /// The server's work for one Status call, without the socket: read the call's frame, then encode the reply.
    static func statusCycle() throws {
        let status = StatusInfo(daemon: DaemonInfo(version: "bench", uptimeSeconds: 1, state: .running),
                                adapters: [AdapterInfo(name: "hci0", address: "00:1A:7D:DA:71:13", powered: true, slotsUsed: 7, slotsCapacity: 7),
                                           AdapterInfo(name: "hci1", powered: true, slotsUsed: 5, slotsCapacity: 7)],
                                counts: DeviceCounts(wanted: 200, ready: 160, backingOff: 40, failed: 0))
        let request = try FleetRequest.status.call().json
        var bytes = 0
        let hand = try rate(20_000) {
            let call = try HandJSON.parse(request)
            guard call.objectValue?["method"]?.stringValue == "io.fleetd.Fleet.Status" else { throw HandReadError.invalidParameter("method") }
            let daemon: [String: HandJSON] = ["version": .string(status.daemon.version), "uptimeSeconds": .number(status.daemon.uptimeSeconds),
                                              "state": .string(status.daemon.state.rawValue)]
            let adapters: [HandJSON] = status.adapters.map { adapter in
                .object(["name": .string(adapter.name), "address": .optional(adapter.address), "powered": .bool(adapter.powered),
                         "slotsUsed": .int(adapter.slotsUsed), "slotsCapacity": .int(adapter.slotsCapacity)])
            }
            let counts: [String: HandJSON] = ["wanted": .int(status.counts.wanted), "ready": .int(status.counts.ready),
                                              "backingOff": .int(status.counts.backingOff), "failed": .int(status.counts.failed)]
            bytes = HandWritten.frame(["daemon": .object(daemon), "adapters": .array(adapters), "counts": .object(counts)]).count
        }
        let codable = try rate(20_000) {
            let call = try VarlinkCall(frame: request)
            guard try FleetRequest(.status, parameters: call) == .status else { throw HandReadError.invalidParameter("method") }
            bytes = try VarlinkReply(parameters: status).frame.count
        }
        // What fleetd does now: the call read by the hand parser, Status written straight to bytes.
        let direct = try rate(20_000) {
            let call = try VarlinkCall(frame: request)
            guard try FleetRequest(.status, parameters: call) == .status else { throw HandReadError.invalidParameter("method") }
            bytes = try VarlinkReply(status: status).frame.count
        }
        guard try VarlinkReply(status: status).json == VarlinkReply(parameters: status).json else {
            throw HandReadError.invalidParameter("the Status written by hand differs from the encoder's")
        }
        report("codec_status_call_cycle_handwritten", hand, bytes: bytes)
        report("codec_status_call_cycle_codable", codable, bytes: bytes)
        report("codec_status_call_cycle_direct", direct, bytes: bytes)
        print("codec_status_call_cycle_ratio: \(String(format: "%.1f", direct / codable)) (direct / codable reply, same run)")
    }

    static func run() throws {
        let devices = fleet(1000)
        var handFrame: [UInt8] = []
        var codableFrame: [UInt8] = []
        let handListEncode = rate(20) { handFrame = HandWritten.frame(["devices": .array(devices.map { .object(HandWritten.json($0)) })]) }
        let codableListEncode = try rate(20) { codableFrame = try VarlinkReply(parameters: DeviceList(devices: devices)).frame }
        let handListDecode = try rate(20) {
            let decoded = try HandWritten.parameters(handFrame.dropLast()).records("devices").map { try HandWritten.device($0) }
            guard decoded.count == devices.count else { throw HandReadError.invalidParameter("devices") }
        }
        // A client's frame decoder hands over each frame as an array without its NUL.
        var received = Array(codableFrame.dropLast())
        let codableListDecode = try rate(20) {
            let decoded = try VarlinkReply.decode(frame: received, as: DeviceList.self).parameters?.devices
            guard decoded?.count == devices.count else { throw HandReadError.invalidParameter("devices") }
        }
        // Both decoders must agree with the values they were given, or the race means nothing.
        guard try HandWritten.parameters(handFrame.dropLast()).records("devices").map({ try HandWritten.device($0) }) == devices,
              try VarlinkReply.decode(frame: received, as: DeviceList.self).parameters?.devices == devices else {
            throw HandReadError.invalidParameter("round trip of the 1000-device list")
        }
        report("codec_list1000_encode_handwritten", handListEncode, bytes: handFrame.count)
        report("codec_list1000_encode_codable", codableListEncode, bytes: codableFrame.count)
        report("codec_list1000_decode_handwritten", handListDecode, bytes: handFrame.count)
        report("codec_list1000_decode_codable", codableListDecode, bytes: codableFrame.count)

        let handEventEncode = rate(20_000) { handFrame = HandWritten.frame(["event": .object(HandWritten.json(event))], continues: true) }
        let codableEventEncode = try rate(20_000) { codableFrame = try VarlinkReply(parameters: WatchUpdate(event: event), continues: true).frame }
        let handEventDecode = try rate(20_000) { _ = try HandWritten.event(HandWritten.parameters(handFrame.dropLast()).record("event")) }
        received = Array(codableFrame.dropLast())
        let codableEventDecode = try rate(20_000) { _ = try VarlinkReply.decode(frame: received, as: WatchUpdate.self) }
        guard try HandWritten.event(HandWritten.parameters(handFrame.dropLast()).record("event")) == event,
              try VarlinkReply.decode(frame: received, as: WatchUpdate.self).parameters?.event == event else {
            throw HandReadError.invalidParameter("round trip of the Watch event")
        }
        report("codec_watch_event_encode_handwritten", handEventEncode, bytes: handFrame.count)
        report("codec_watch_event_encode_codable", codableEventEncode, bytes: codableFrame.count)
        report("codec_watch_event_decode_handwritten", handEventDecode, bytes: handFrame.count)
        report("codec_watch_event_decode_codable", codableEventDecode, bytes: codableFrame.count)

        // Read as it came (`[String: JSONValue]`: fleetctl --json, FleetBench, the tests): the hand parser
        // behind `parametersAsSent()` against decoding `JSONValue` through `JSONDecoder`, whose every failed try
        // (Bool, then Double, String, array) builds a DecodingError (issue 13).
        received = Array(try VarlinkReply(parameters: DeviceList(devices: devices)).frame.dropLast())
        let listReply = try VarlinkReply.decode(frame: received, as: DeviceList.self).reply
        let untypedParsed = try rate(20) { _ = try listReply.parametersAsSent() }
        let untypedDecoded = try rate(20) { _ = try listReply.parameters(as: [String: JSONValue].self) }
        guard try listReply.parametersAsSent() == listReply.parameters(as: [String: JSONValue].self) else {
            throw HandReadError.invalidParameter("the two readings of the 1000-device list differ")
        }
        report("codec_list1000_untyped_read_parsed", untypedParsed, bytes: received.count)
        report("codec_list1000_untyped_read_decoded", untypedDecoded, bytes: received.count)
        print("codec_list1000_untyped_read_ratio: \(String(format: "%.1f", untypedParsed / untypedDecoded)) (parsed / decoded, same run)")
    }
}
