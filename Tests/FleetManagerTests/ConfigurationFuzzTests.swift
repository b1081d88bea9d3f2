import FleetPlatform
import Testing
#if canImport(FleetManager)
import FleetManager
#else
import FleetConfig
#endif

/// Whatever bytes an operator (or a broken editor) leaves in the file, the parser answers with a
/// configuration or a ConfigError pointing into the file — never a crash. The loops yield every few hundred
/// runs so that they do not hold a cooperative thread for seconds and starve the run's socket tests.
@Suite struct ConfigurationFuzzTests {
    /// Seeded so a failure replays exactly.
    private struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static let alphabet: [String] = [
        "[", "]", "\"", "=", "#", ";", "\\", " ", "\t", "\r", ".", "..<", "...", ":", "-", "0", "1", "9", "x", "f", "a",
        "s", "ms", "min", "h", "yes", "no", "hci0", "180d", "0x", "é", "\u{0}", "\u{7f}", "🦊", "\u{202e}", "forever",
        "identity", "policy", "device", "mfr-0059-", "irk-", "addr-",
    ]

    private enum Outcome { case accepted, refused, misplaced(String) }

    /// How `text` fared: parsed, refused with an error pointing into it, or refused with a misplaced error.
    /// (Checked without `#expect` per run: recording 10 000 expectations would cost more than the parsing.)
    private func outcome(_ text: String, lines: Int) -> Outcome {
        do {
            _ = try FleetConfiguration.parse(text, file: "fuzz.conf")
            return .accepted
        } catch {
            guard error.file == "fuzz.conf", (1...max(1, lines)).contains(error.line), !error.message.isEmpty else {
                return .misplaced("\(error) for \(String(reflecting: text))")
            }
            return .refused
        }
    }

    @Test func mutatedExampleNeverCrashes() async throws {
        let example = try ConfigurationExampleFile.enabledText().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var rng = SplitMix64(state: 0xF1EE_7D00_C0F1)
        var accepted = 0
        var problems: [String] = []
        for run in 0..<10_000 {
            if run % 256 == 0 { await Task.yield() }
            // A window of the example keeps each parse small; over 10 000 runs every line is mutated many times.
            let start = Int.random(in: 0..<example.count, using: &rng)
            var lines = Array(example[start..<min(example.count, start + 24)])
            if let header = example[...start].last(where: { $0.hasPrefix("[") }), lines.first != header { lines.insert(header, at: 0) }
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 0..<lines.count, using: &rng)
                var chars = Array(lines[i])
                switch Int.random(in: 0..<6, using: &rng) {
                case 0 where !chars.isEmpty:
                    chars.remove(at: Int.random(in: 0..<chars.count, using: &rng))
                case 1:
                    chars.insert(contentsOf: Self.alphabet.randomElement(using: &rng) ?? "", at: Int.random(in: 0...chars.count, using: &rng))
                case 2 where !chars.isEmpty:
                    let j = Int.random(in: 0..<chars.count, using: &rng)
                    chars.replaceSubrange(j...j, with: Array(Self.alphabet.randomElement(using: &rng) ?? "x"))
                case 3:
                    lines.insert(lines[Int.random(in: 0..<lines.count, using: &rng)], at: i)
                case 4:
                    lines.swapAt(i, Int.random(in: 0..<lines.count, using: &rng))
                default:
                    chars = Array(chars.prefix(Int.random(in: 0...chars.count, using: &rng)))
                }
                if i < lines.count { lines[i] = String(chars) }
            }
            let text = lines.joined(separator: "\n")
            switch outcome(text, lines: lines.count) {
            case .accepted: accepted += 1
            case .refused: break
            case .misplaced(let problem): problems.append(problem)
            }
        }
        #expect(problems.isEmpty, "\(problems.count) misplaced errors, e.g. \(problems.prefix(3))")
        // Mutations inside comments keep a file valid; a mutator that only ever produced errors would be weak.
        #expect(accepted > 1_000 && accepted < 9_000, "accepted \(accepted) of 10 000")
    }

    @Test func randomLinesNeverCrash() async {
        var rng = SplitMix64(state: 0x5EED)
        var problems: [String] = []
        for run in 0..<10_000 {
            if run % 256 == 0 { await Task.yield() }
            let count = Int.random(in: 1...6, using: &rng)
            var lines: [String] = []
            for _ in 0..<count {
                var line = ""
                for _ in 0..<Int.random(in: 0...12, using: &rng) { line += Self.alphabet.randomElement(using: &rng) ?? "" }
                lines.append(line)
            }
            if case .misplaced(let problem) = outcome(lines.joined(separator: "\n"), lines: count) { problems.append(problem) }
        }
        #expect(problems.isEmpty, "\(problems.count) misplaced errors, e.g. \(problems.prefix(3))")
    }

    @Test func randomBytesNeverCrash() async {
        var rng = SplitMix64(state: 0xB17E5)
        var problems: [String] = []
        for run in 0..<10_000 {
            if run % 256 == 0 { await Task.yield() }
            let bytes = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let text = "[daemon]\n" + String(decoding: bytes, as: UTF8.self)
            if case .misplaced(let problem) = outcome(text, lines: text.utf8.filter { $0 == UInt8(ascii: "\n") }.count + 1) {
                problems.append(problem)
            }
        }
        #expect(problems.isEmpty, "\(problems.count) misplaced errors, e.g. \(problems.prefix(3))")
    }
}
