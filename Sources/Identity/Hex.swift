/// Hex text ↔ bytes, shared by every config-facing parser so they all accept the same spellings.
enum Hex {
    /// Decodes hex digits, ignoring `:`, `-`, `_` and spaces and an optional `0x` prefix; nil on any other
    /// character or an odd number of digits.
    static func bytes(_ text: String) -> [UInt8]? {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        var result: [UInt8] = []
        result.reserveCapacity(digits.utf8.count / 2)
        var high: UInt8? = nil
        for c in digits.utf8 {
            if c == UInt8(ascii: ":") || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: " ") {
                continue
            }
            guard let v = value(of: c) else { return nil }
            if let h = high {
                result.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? result : nil
    }

    static func value(of c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static let lower = Array("0123456789abcdef".utf8)
    static let upper = Array("0123456789ABCDEF".utf8)

    static func string<C: Collection<UInt8>>(_ bytes: C, uppercase: Bool = false, separator: Character? = nil) -> String {
        guard separator == nil else { return separated(bytes, uppercase: uppercase, separator: separator!) }
        let table = uppercase ? upper : lower
        // Written in place: one allocation, not an array and then a string (ids are built per advert).
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var i = 0
            for b in bytes {
                out[i] = table[Int(b >> 4)]
                out[i + 1] = table[Int(b & 0x0f)]
                i += 2
            }
            return i
        }
    }

    private static func separated<C: Collection<UInt8>>(_ bytes: C, uppercase: Bool, separator: Character) -> String {
        let table = uppercase ? upper : lower
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3)
        for (i, b) in bytes.enumerated() {
            if i > 0 { out.append(contentsOf: separator.utf8) }
            out.append(table[Int(b >> 4)])
            out.append(table[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `prefix`, the hex of `first`, then (when given) `-` and the hex of `second`, in one allocation: how a
    /// stable id is spelled.
    static func identifier(_ prefix: StaticString, _ first: some Collection<UInt8>, _ second: [UInt8]? = nil, uppercase: Bool = false) -> String {
        let table = uppercase ? upper : lower
        let head = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        let length = head.count + first.count * 2 + (second.map { 1 + $0.count * 2 } ?? 0)
        return String(unsafeUninitializedCapacity: length) { out in
            var i = 0
            for c in head { out[i] = c; i += 1 }
            func hex(_ b: UInt8) {
                out[i] = table[Int(b >> 4)]
                out[i + 1] = table[Int(b & 0x0f)]
                i += 2
            }
            for b in first { hex(b) }
            if let second {
                out[i] = UInt8(ascii: "-")
                i += 1
                for b in second { hex(b) }
            }
            return i
        }
    }
}
