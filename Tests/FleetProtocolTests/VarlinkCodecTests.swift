import FleetProtocol
import Foundation
import Testing

/// The JSON codec under the protocol (Foundation's, chosen by ControlBench) as varlink needs it.
@Suite struct VarlinkCodecTests {
    @Test func parsesNestedDocumentsAndSerialisesThemBack() throws {
        let text = #"{"a":[1,-2.5,true,false,null],"b":{"c":"x\"y\\z\n\u00e9\ud83d\ude00"}}"#
        let value = try JSONValue.parse(text)
        #expect(value.objectValue?["a"]?.arrayValue?.count == 5)
        #expect(value.objectValue?["b"]?.objectValue?["c"]?.stringValue == "x\"y\\z\né😀")
        #expect(try JSONValue.parse(value.serialized) == value)
    }

    @Test(arguments: ["", "{", "{\"a\" 1}", "tru", "01", "1.", "\"\\x\"", "\"abc", "{} x", "\"\u{01}\"", "1e999", "\"\\ud800\"", "[1,]", "{\"a\":1,}"])
    func rejectsMalformedDocuments(_ text: String) {
        #expect(throws: VarlinkError.self) { try JSONValue.parse(text) }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: VarlinkError.self) { try JSONValue.parse(deep) }
        let pastTheLimit = String(repeating: "[", count: JSONValue.maximumDepth + 1) + String(repeating: "]", count: JSONValue.maximumDepth + 1)
        #expect(throws: VarlinkError.self) { try JSONValue.parse(pastTheLimit) }
        let shallow = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect((try? JSONValue.parse(shallow)) != nil)
    }

    @Test func escapesControlCharactersSoNoNulReachesTheWire() {
        let value = JSONValue.string("a\u{0}b\u{1F}")
        #expect(value.serialized == #""a\u0000b\u001f""#)
        #expect(!Array(value.serialized.utf8).contains(0))
    }

    @Test func integersPrintWithoutFractionAndIntValueChecksIntegrality() {
        #expect(JSONValue.int(42).serialized == "42")
        #expect(JSONValue.number(1.5).intValue == nil)
        #expect(JSONValue.number(-7).intValue == -7)
        #expect(JSONValue.number(.nan).serialized == "null", "JSON has no NaN; an error's parameters must still go out")
    }

    @Test func invalidUTF8IsRefused() throws {
        let frame: [UInt8] = Array(#"{"method":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        #expect(throws: VarlinkCall.FrameError.self) { try VarlinkCall(frame: frame) }
    }

    @Test func aFrameThatIsNotJSONBreaksFramingAndValidJSONThatIsNotACallDoesNot() {
        for broken in ["{\"method\": ", #"{"method":"a.B","parameters":{"unread":"\uZZZZ"}}"#] {
            do {
                _ = try VarlinkCall(frame: Array(broken.utf8))
                Issue.record("accepted \(broken)")
            } catch {
                guard case .notJSON(let reason) = error else { Issue.record("\(broken): \(error)"); continue }
                #expect(reason.name == "io.fleetd.Fleet.InvalidRequest" && reason.description.contains("not valid JSON"), "\(reason)")
            }
        }
        #expect(throws: VarlinkCall.FrameError.notACall(.invalidRequest("a call must be a JSON object"))) { try VarlinkCall(frame: Array("[1,2]".utf8)) }
        #expect(throws: VarlinkCall.FrameError.notACall(.invalidRequest("missing string member 'method'"))) { try VarlinkCall(frame: Array("{}".utf8)) }
        #expect(throws: VarlinkCall.FrameError.notACall(.invalidRequest("'parameters' must be an object"))) {
            try VarlinkCall(frame: Array(#"{"method":"a.B","parameters":[1]}"#.utf8))
        }
        #expect(throws: VarlinkCall.FrameError.notACall(.invalidRequest("'more' must be a bool"))) {
            try VarlinkCall(frame: Array(#"{"method":"a.B","more":1}"#.utf8))
        }
    }

    // The hand parser's depth limit holds for calls too (docs/performance.md, session 25): refused as not JSON.
    @Test func aCallNestedDeeperThanTheLimitIsRefusedAsNotJSON() {
        let deep = String(repeating: "[", count: JSONValue.maximumDepth + 1) + String(repeating: "]", count: JSONValue.maximumDepth + 1)
        do {
            _ = try VarlinkCall(frame: Array(#"{"method":"a.B","parameters":{"x":\#(deep)}}"#.utf8))
            Issue.record("accepted a call nested deeper than \(JSONValue.maximumDepth)")
        } catch {
            guard case .notJSON(let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.description.contains("nesting deeper than \(JSONValue.maximumDepth)"), "\(reason)")
        }
        let shallow = String(repeating: "[", count: 8) + String(repeating: "]", count: 8)
        #expect(throws: Never.self) { try VarlinkCall(frame: Array(#"{"method":"a.B","parameters":{"x":\#(shallow)}}"#.utf8)) }
    }

    @Test func parametersThatDoNotFitTheMethodNameTheMember() throws {
        func request(_ json: String) throws(VarlinkError) -> FleetRequest {
            let call: VarlinkCall
            do { call = try VarlinkCall(frame: Array(json.utf8)) } catch { throw .invalidRequest("\(error)") }
            return try FleetRequest(FleetInterface.Method(rawValue: call.member)!, parameters: call)
        }
        #expect(throws: VarlinkError.invalidParameter("device")) { try request(#"{"method":"io.fleetd.Fleet.ShowDevice"}"#) }
        #expect(throws: VarlinkError.invalidParameter("device")) { try request(#"{"method":"io.fleetd.Fleet.ShowDevice","parameters":{"device":null}}"#) }
        #expect(throws: VarlinkError.invalidParameter("device")) { try request(#"{"method":"io.fleetd.Fleet.ShowDevice","parameters":{"device":3}}"#) }
        #expect(throws: VarlinkError.invalidParameter("value")) {
            try request(#"{"method":"io.fleetd.Fleet.Write","parameters":{"device":"d","characteristic":"c","value":"xyz"}}"#)
        }
        #expect(try request(#"{"method":"io.fleetd.Fleet.Write","parameters":{"device":"d","characteristic":"c","value":"0a:0B"}}"#)
            == .write(device: "d", characteristic: "c", value: [0x0A, 0x0B], withResponse: true))
        #expect(try request(#"{"method":"io.fleetd.Fleet.Watch"}"#) == .watch(device: nil))
        #expect(throws: VarlinkError.invalidParameter("since")) { try request(#"{"method":"io.fleetd.Fleet.Watch","parameters":{"since":"x"}}"#) }
        #expect(throws: VarlinkError.invalidParameter("cursor")) {
            try request(#"{"method":"io.fleetd.Fleet.Acknowledge","parameters":{"consumer":"c"}}"#)
        }
    }

    @Test func everyRequestSurvivesTheWire() throws {
        let requests: [FleetRequest] = [
            .status, .listDevices, .showDevice(device: "lamp"), .connect(device: "a b"), .disconnect(device: "x"), .evict(device: "x"),
            .forget(device: "x"), .setPolicy(device: "x", policyClass: "critical"), .read(device: "x", characteristic: "2a19"),
            .write(device: "x", characteristic: "2a19", value: [0, 255], withResponse: false), .watch(device: nil), .watch(device: "x"),
            .watch(device: nil, since: 42), .watch(device: "x", consumer: "archiver"), .watch(device: nil, since: 0, consumer: "c"),
            .reload, .metrics, .acknowledge(consumer: "archiver", cursor: 17), .readings(device: "x", since: nil, limit: nil),
            .readings(device: "x", since: 9, limit: 5),
        ]
        for request in requests {
            let received = try VarlinkCall(frame: try request.call().json)
            #expect(received.more == (request.method == .watch))
            #expect(try FleetRequest(request.method, parameters: received) == request)
        }
    }

    @Test func aStoredWatchEventAndAReadingsPageSurviveTheWire() throws {
        let time = Date(timeIntervalSince1970: 1_700_000_000.25)
        let event = WatchEvent(sequence: 7, time: time, device: "d", kind: .notification(characteristic: "2a37", value: [1, 2]), text: "t",
                               stored: StoredPlace(cursor: 7, deviceSequence: 3, epoch: 4_503_599_627_370_497, session: 2, delivery: .indication))
        let decoded = try JSONDecoder().decode(WatchEvent.self, from: try JSONEncoder().encode(event))
        #expect(decoded == event)
        let live = WatchEvent(sequence: 1, time: time, device: "d", kind: .reconnected, text: "t")
        let liveJSON = String(decoding: try JSONEncoder().encode(live), as: UTF8.self)
        #expect(!liveJSON.contains("cursor") && !liveJSON.contains("deviceSequence"), "a live event carries no stored place: \(liveJSON)")
        let page = ReadingsPage(device: "d", readings: [StoredReadingInfo(cursor: 9, deviceSequence: 4, epoch: 77, characteristic: "2a37", delivery: .read,
                                                                         value: [0xff], time: time, session: 1)],
                                next: 12, lost: LostReadings(firstCursor: 1, lastCursor: 5))
        #expect(try JSONDecoder().decode(ReadingsPage.self, from: try JSONEncoder().encode(page)) == page)
    }

    @Test func aReplyDecodesIntoItsTypeAndNamesAMemberThatDoesNot() throws {
        let devices = DeviceList(devices: [DeviceInfo(id: "a", displayName: "A", state: .backingOff, nextRetryInSeconds: 2.5, policyClass: "normal")])
        let reply = try VarlinkReply(frame: try VarlinkReply(parameters: devices).json)
        #expect(try reply.parameters(as: DeviceList.self) == devices)
        let wrong = try VarlinkReply(frame: Array(#"{"parameters":{"devices":[{"id":"a","displayName":"A","state":"backoff","attempt":0,"policyClass":"n"}]}}"#.utf8))
        #expect(throws: VarlinkError.invalidParameter("devices[0].state")) { try wrong.parameters(as: DeviceList.self) }
        // In one pass: the typed parameters of a success, none (and the error) for an error reply.
        let once = try VarlinkReply.decode(frame: try VarlinkReply(parameters: devices, continues: true).json, as: DeviceList.self)
        #expect(once.parameters == devices && once.reply.continues)
        let failure = try VarlinkReply.decode(frame: VarlinkReply(error: .invalidParameter("device")).json, as: DeviceList.self)
        #expect(failure.parameters == nil && failure.reply.varlinkError == .invalidParameter("device"))
    }

    // The hand parser behind untyped reads must read what the typed codec reads.
    @Test(arguments: [#"{"a":[1,-2.5e3,0.125,true,false,null],"b":{"c":"x\"y\\z\n\u00e9\ud83d\ude00","d":{}},"e":[]}"#,
                      #" [ "caf\u00e9" , "\/", -0, 1E2, {"k":[[[]]]} ] "#, "\"ünïcödé 😀\"", "42", "null"])
    func handParserAgreesWithTheDecoder(_ text: String) throws {
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(try JSONValue.parse(text) == decoded)
    }

    @Test func aMalformedDocumentIsNamedWithItsOffset() {
        #expect(throws: VarlinkError.invalidRequest("not valid JSON: expected ',' or '}' at byte 7")) { try JSONValue.parse(#"{"a":1 "b":2}"#) }
        #expect(throws: VarlinkError.invalidRequest("not valid JSON: invalid UTF-8 in string at byte 1")) { try JSONValue.parse([0x22, 0xFF, 0x22]) }
        // After an escape the offset is that of the run the bad byte is in: `"a\nb<FF>"`.
        #expect(throws: VarlinkError.invalidRequest("not valid JSON: invalid UTF-8 in string at byte 4")) {
            try JSONValue.parse([0x22, 0x61, 0x5C, 0x6E, 0x62, 0xFF, 0x22])
        }
        #expect(throws: VarlinkError.invalidRequest("not valid JSON: control character in string at byte 4")) {
            try JSONValue.parse([0x22, 0x5C, 0x6E, 0x61, 0x0A, 0x22])
        }
        #expect(throws: VarlinkError.invalidRequest("not valid JSON: unterminated string at byte 4")) { try JSONValue.parse(#""a\n"#) }
    }

    // The untyped client's one-pass read must say what the two-pass one said.
    @Test(arguments: [#"{"parameters":{"a":[1,"x\n"],"b":{}},"continues":true}"#, #"{"parameters":null}"#, "{}",
                      #"{"error":"io.fleetd.Fleet.DeviceNotFound","parameters":{"device":"d1"}}"#,
                      #"{"continues":null,"error":null}"#])
    func parseAsSentAgreesWithFrameThenParameters(_ text: String) throws {
        let twoPass = try VarlinkReply(frame: Array(text.utf8))
        let (reply, parameters) = try VarlinkReply.parseAsSent(frame: Array(text.utf8))
        #expect(reply.continues == twoPass.continues && reply.error == twoPass.error && reply.json == twoPass.json)
        #expect(try parameters == twoPass.parametersAsSent())
    }

    @Test(arguments: [#"[1]"#, #"{"continues":1}"#, #"{"error":"org.varlink.service.InvalidParameter","parameters":[1]}"#, #"{"error":false}"#, #"{"parameters":"x"}"#, #"{"parameters":{"#])
    func parseAsSentRefusesWhatTheTwoPassReadRefused(_ text: String) {
        #expect(throws: VarlinkError.self) { try VarlinkReply.parseAsSent(frame: Array(text.utf8)) }
        #expect(throws: VarlinkError.self) { _ = try VarlinkReply(frame: Array(text.utf8)).parametersAsSent() }
    }

    @Test func parametersAsSentKeepEveryMemberAndRefuseANonObject() throws {
        func reply(_ text: String) throws -> VarlinkReply {
            try VarlinkReply.decode(frame: Array(text.utf8), as: JSONValue.self).reply
        }
        #expect(try reply(#"{"parameters":{"known":1,"unknown":{"x":[true]}}}"#).parametersAsSent()
            == ["known": .number(1), "unknown": .object(["x": .array([.bool(true)])])])
        #expect(try reply(#"{"continues":true}"#).parametersAsSent() == [:])
        #expect(try reply(#"{"parameters":null}"#).parametersAsSent() == [:])
        #expect(throws: VarlinkError.invalidParameter("parameters")) {
            try reply(#"{"parameters":[1]}"#).parametersAsSent()
        }
    }
}
