/// Small text, bit and arithmetic helpers the Fitness decoders share (stdlib only: no Foundation in this room).
enum FitnessText {
    /// `manual-time-update` → `manual time update`.
    static func words(_ flag: String) -> String { String(flag.map { $0 == "-" ? " " : $0 }) }

    /// `text — flag words, …`, or `text` when there are no flags.
    static func withFlags(_ text: String, _ flags: [String]) -> String {
        flags.isEmpty ? text : text + " — " + flags.map(words).joined(separator: ", ")
    }

    /// `0x0c`: lower-case hex, at least two digits.
    static func hex<T: BinaryInteger>(_ value: T) -> String {
        let digits = String(value, radix: 16)
        return "0x" + (digits.count < 2 ? "0" + digits : digits)
    }

    /// Upper-case hex of exactly `width` digits (zero-padded): `001B63`.
    static func fixedHex<T: BinaryInteger>(_ value: T, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// The detail value for a reserved enumeration value: `reserved (0x0c)`.
    static func reserved<T: BinaryInteger>(_ value: T) -> String { "reserved (" + hex(value) + ")" }

    /// The names in `table` whose bit is set in `value`, in bit order.
    static func setBits(_ value: UInt32, _ table: [(bit: Int, name: String)]) -> [String] {
        table.filter { value & (1 << UInt32($0.bit)) != 0 }.map(\.name)
    }

    /// `, device time 2026-12-06 08:12` (or `, device time unset clock`).
    static func deviceTime(_ time: DeviceTime?) -> String {
        time.map { ", device time " + $0.shortText } ?? ""
    }

    /// The `user-id` detail: GSS "User Index"/WSS §3.2 and BCS §3.2 give 0xFF the meaning "unknown user".
    static func userDetail(_ id: UInt8) -> ObservationDetail {
        ObservationDetail("user-id", id == 0xFF ? "unknown" : String(id))
    }

    /// `, user 3` (nothing for the unknown user).
    static func user(_ id: UInt8?) -> String {
        guard let id, id != 0xFF else { return "" }
        return ", user \(id)"
    }

    /// `numerator / denominator` rounded half up to an integer, for non-negative operands; nil on overflow or a
    /// zero denominator (the derived speeds and cadences round here, so the 1/1024 s arithmetic stays integer).
    static func roundedQuotient(_ numerator: UInt64, _ denominator: UInt64) -> UInt64? {
        guard denominator > 0 else { return nil }
        let (twice, overflow) = numerator.multipliedReportingOverflow(by: 2)
        guard !overflow else { return nil }
        let (sum, overflow2) = twice.addingReportingOverflow(denominator)
        guard !overflow2 else { return nil }
        return sum / (2 * denominator)
    }

    /// `a × b × …` or nil on overflow.
    static func product(_ factors: UInt64...) -> UInt64? {
        var result: UInt64 = 1
        for f in factors {
            let (p, overflow) = result.multipliedReportingOverflow(by: f)
            if overflow { return nil }
            result = p
        }
        return result
    }
}
