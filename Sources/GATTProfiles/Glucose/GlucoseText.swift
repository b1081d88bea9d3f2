/// Small text and bit helpers the Glucose and CGM decoders share (stdlib only: no Foundation in this room). Kept
/// internal to the group so it does not depend on another group's helpers.
enum GlucoseText {
    /// `device-battery-low` → `device battery low`.
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

    /// The detail value for a reserved enumeration value: `reserved (0x0c)`.
    static func reserved<T: BinaryInteger>(_ value: T) -> String { "reserved (" + hex(value) + ")" }

    /// The flag names for the set bits of `value` (bit `i` named `names[i]`, in bit order); a set bit with no name
    /// (reserved for future use) becomes `<reservedPrefix>-reserved-bit-<i>`, so no bit the device set is dropped.
    static func bitFlags(_ value: UInt32, width: Int, names: [String], reservedPrefix: String, bitOffset: Int = 0) -> [String] {
        var out: [String] = []
        for i in 0..<width where value & (1 << UInt32(i)) != 0 {
            if i < names.count, !names[i].isEmpty {
                out.append(names[i])
            } else {
                out.append("\(reservedPrefix)-reserved-bit-\(i + bitOffset)")
            }
        }
        return out
    }

    /// `, device time 2026-12-06 08:12` (or `, device time unset clock`), empty when there is no time.
    static func deviceTime(_ time: DeviceTime?) -> String {
        time.map { ", device time " + $0.shortText } ?? ""
    }

    /// `+01:00`, `-03:30`: a signed offset in minutes as hours and minutes.
    static func utcOffset(minutes: Int) -> String {
        let sign = minutes < 0 ? "-" : "+"
        let magnitude = minutes.magnitude
        let hours = String(magnitude / 60), rest = String(magnitude % 60)
        return sign + (hours.count < 2 ? "0" + hours : hours) + ":" + (rest.count < 2 ? "0" + rest : rest)
    }
}
