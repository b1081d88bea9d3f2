/// Expansion of 16- and 32-bit Bluetooth UUIDs to the 128-bit lower-case form BlueZ puts on the bus.
public enum BluetoothUUID {
    static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    /// `180d` → `0000180d-0000-1000-8000-00805f9b34fb`; a full UUID is lower-cased; nil when neither.
    public static func normalise(_ text: String) -> String? {
        let lower = text.lowercased().hasPrefix("0x") ? String(text.lowercased().dropFirst(2)) : text.lowercased()
        let isHex = !lower.isEmpty && lower.allSatisfy { $0.isHexDigit }
        if isHex && lower.count == 4 { return "0000" + lower + baseSuffix }
        if isHex && lower.count == 8 { return lower + baseSuffix }
        let groups = lower.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
        if groups == [8, 4, 4, 4, 12], lower.replacingOccurrences(of: "-", with: "").allSatisfy({ $0.isHexDigit }) {
            return lower
        }
        return nil
    }
}
