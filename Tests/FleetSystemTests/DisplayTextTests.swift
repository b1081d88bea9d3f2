import FleetSystem
import Testing

@Suite struct DisplayTextTests {
    @Test(arguments: [
        ("Kitchen Lamp", "Kitchen Lamp"),
        ("Küche 🛁 Waage", "Küche 🛁 Waage"),
        ("evil\u{1b}[2J\nname", #"evil\x1b[2J\x0aname"#),
        ("tab\there\r", #"tab\x09here\x0d"#),
        ("nul\u{0}del\u{7f}", #"nul\x00del\x7f"#),
        ("c1\u{85}\u{9b}31m", #"c1\x85\x9b31m"#),
        (#"back\slash"#, #"back\\slash"#),
        (#"\x1b"#, #"\\x1b"#),
        ("abc\u{202e}fed", #"abc\u{202e}fed"#),
        ("line\u{2028}sep", #"line\u{2028}sep"#),
    ])
    func escapes(_ input: String, _ expected: String) {
        #expect(DisplayText.escaped(input) == expected)
    }

    @Test func theEscapedFormHasNoControlCharacterLeft() {
        let every = String(String.UnicodeScalarView((0...0x9F).compactMap(Unicode.Scalar.init)))
        let escaped = DisplayText.escaped(every)
        #expect(!escaped.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }
}
