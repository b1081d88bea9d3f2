#if canImport(Glibc)
import Glibc
#endif

extension Double {
    /// The value with exactly `fractionDigits` digits after the point, as printf's `%.Nf` writes it (and so
    /// as Foundation's `String(format:)` did): `4.25.fixedPointText(fractionDigits: 1)` is "4.2", ties going
    /// to the nearest binary value. Through vsnprintf, since Swift cannot call variadic C; it lets the rooms
    /// fleetd links do without full Foundation (issue 18).
    public func fixedPointText(fractionDigits: Int) -> String {
        precondition((0...17).contains(fractionDigits), "fractionDigits \(fractionDigits) is outside 0...17")
        let format = "%.\(fractionDigits)f"
        // 309 integer digits for the largest double, a sign, a point and the fraction, with room to spare.
        var buffer = [CChar](repeating: 0, count: 352)
        let written = withVaList([self]) { arguments in
            buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, arguments) }
        }
        precondition(written >= 0 && Int(written) < buffer.count, "vsnprintf(\(format)) wrote \(written) bytes")
        return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
