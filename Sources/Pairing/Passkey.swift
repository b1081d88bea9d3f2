/// A Bluetooth passkey: a number 0…999999, shown and typed as six digits.
public struct Passkey: Sendable, Hashable, CustomStringConvertible {
    public let value: UInt32

    /// Nil unless `value` is at most 999999.
    public init?(_ value: UInt32) {
        guard value <= 999_999 else { return nil }
        self.value = value
    }

    /// Parses the configuration's spelling: one to six ASCII digits, surrounding blanks and a final newline
    /// allowed (a `passkey-file` usually ends with one). Leading zeros count: "012345" is 12345.
    public init?(text: String) {
        let trimmed = text.trimmingBlanks
        guard (1...6).contains(trimmed.utf8.count), trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let value = UInt32(trimmed) else { return nil }
        self.value = value
    }

    /// Zero-padded to six digits, as BlueZ's agent API asks passkeys to be shown.
    public var description: String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}

extension String {
    var trimmingBlanks: String {
        var scalars = Substring(self)
        // ASCII blanks only ("\r\n" is one Character, and isWhitespace alone would take in Unicode spaces).
        while let first = scalars.first, first.isASCII, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isASCII, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
