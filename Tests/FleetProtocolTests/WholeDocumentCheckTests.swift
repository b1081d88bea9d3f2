@testable import FleetProtocol
import Foundation
import Testing

/// A received frame must be JSON as a whole, which JSONSerialization checked before fleetd linked
/// FoundationEssentials alone (issue 18); VarlinkCall(frame:), which reads it with the hand parser, must refuse and
/// accept what it did.
@Suite struct WholeDocumentCheckTests {
    /// Frames JSONSerialization refused (each with .fragmentsAllowed), in members nobody decodes.
    static let broken: [[UInt8]] = [
        #"{"method":"a.B","parameters":{"n":01}}"#, #"{"method":"a.B","parameters":{"n":1.}}"#, #"{"method":"a.B","parameters":{"n":-}}"#,
        #"{"method":"a.B","parameters":{"n":1e}}"#, #"{"method":"a.B","parameters":{"n":+1}}"#, #"{"method":"a.B","parameters":{"n":.5}}"#,
        #"{"method":"a.B","parameters":{"n":0x10}}"#, #"{"method":"a.B","parameters":{"n":1e400}}"#, #"{"method":"a.B","parameters":{"n":NaN}}"#,
        #"{"method":"a.B","parameters":{"s":"\uZZZZ"}}"#, #"{"method":"a.B","parameters":{"\uZZZZ":1}}"#, #"{"method":"a.B","x":["\ud800"]}"#,
        #"{"method":"a.B"} trailing"#, #"{"method":"a.B","parameters":{"#,
    ].map { Array($0.utf8) } + [
        Array(#"{"method":"a.B","parameters":{"s":""#.utf8) + [0xFF] + Array(#""}}"#.utf8),
        Array(#"{"method":"a.B","parameters":{""#.utf8) + [0xC3] + Array(#"":1}}"#.utf8),
    ]

    /// Frames it accepted, odd members included.
    static let valid: [String] = [
        #"{"method":"a.B","parameters":{"big":18446744073709551616,"neg":-0.5e-3,"e":1E5,"list":[1,true,null,"x",{"c":[]}]}}"#,
        #"{"method":"a.B","parameters":{"dup":1,"dup":2},"more":true}"#,
        #"{"method":"a.B","parameters":null,"extra":{"é":"\u00e9\n\"\\\/"}}"#,
    ]

    @Test func frameThatIsNotJSONInAnUnreadMemberIsRefusedAsNotJSON() {
        for frame in Self.broken {
            #expect(throws: (any Error).self, "JSONSerialization accepted \(String(decoding: frame, as: UTF8.self))") {
                try JSONSerialization.jsonObject(with: Data(frame), options: [.fragmentsAllowed])
            }
            do {
                _ = try VarlinkCall(frame: frame)
                Issue.record("accepted \(String(decoding: frame, as: UTF8.self))")
            } catch {
                guard case .notJSON(let reason) = error else { Issue.record("\(error)"); continue }
                #expect(reason.name == "io.fleetd.Fleet.InvalidRequest" && reason.description.contains("not valid JSON"), "\(reason)")
            }
        }
    }

    @Test func frameThatIsJSONPassesTheCheck() throws {
        for text in Self.valid {
            _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            #expect(try VarlinkCall(frame: Array(text.utf8)).method == "a.B")
        }
        for fragment in ["3", #""s""#, "null", "true", "[]"] {
            #expect(throws: Never.self) { try JSONValue.parse(Array(fragment.utf8)) }
        }
    }
}
