import FleetControl
import Testing

@Suite struct JSONValueTests {
    @Test func parsesNestedDocumentsAndSerialisesThemBack() throws {
        let text = #"{"a":[1,-2.5,true,false,null],"b":{"c":"x\"y\\z\n\u00e9\ud83d\ude00"}}"#
        let value = try JSONValue.parse(text)
        #expect(value.objectValue?["a"]?.arrayValue?.count == 5)
        #expect(value.objectValue?["b"]?.objectValue?["c"]?.stringValue == "x\"y\\z\né😀")
        #expect(try JSONValue.parse(value.serialized) == value)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "tru", "01", "1.", "\"\\x\"", "\"abc", "{} x", "\"\u{01}\"", "1e999", "\"\\ud800\""])
    func rejectsMalformedDocuments(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func refusesNestingDeeperThanTheLimit() {
        let deep = String(repeating: "[", count: JSONValue.maximumDepth + 1) + String(repeating: "]", count: JSONValue.maximumDepth + 1)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        let shallow = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect((try? JSONValue.parse(shallow)) != nil)
    }

    @Test func escapesControlCharactersSoNoNulReachesTheWire() {
        let value = JSONValue.string("a\u{0}b\u{1F}")
        #expect(value.serialized == #""a\u0000b\u001f""#)
        #expect(!value.serializedBytes.contains(0))
    }

    @Test func integersPrintWithoutFractionAndIntValueChecksIntegrality() {
        #expect(JSONValue.int(42).serialized == "42")
        #expect(JSONValue.number(1.5).intValue == nil)
        #expect(JSONValue.number(-7).intValue == -7)
    }

    @Test func invalidUTF8InAStringIsAnError() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }
}
