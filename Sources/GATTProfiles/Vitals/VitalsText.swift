/// Small text and bit helpers the Vitals decoders share (stdlib only: no Foundation in this room).
enum VitalsText {
    /// `body-movement` → `body movement`.
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

    /// The names in `table` whose bit is set in `value`, in bit order.
    static func setBits(_ value: UInt32, _ table: [(bit: Int, name: String)]) -> [String] {
        table.filter { value & (1 << UInt32($0.bit)) != 0 }.map(\.name)
    }

    /// `, device time 2026-12-06 08:12` (or `, device time unset clock`).
    static func deviceTime(_ time: DeviceTime?) -> String {
        time.map { ", device time " + $0.shortText } ?? ""
    }
}
