/// Turns code-side metadata keys into journald field names.
///
/// journald accepts `[A-Z0-9_]`, not starting with `_` (those are trusted fields) or a digit, at most 64
/// bytes. Keys are upper-cased, every other character becomes `_`, and the result is prefixed `FLEET_`,
/// so `device` → `FLEET_DEVICE`, `retry-delay` → `FLEET_RETRY_DELAY`, `_secret` → `FLEET__SECRET`.
/// Nothing is dropped: a key that sanitises to nothing becomes `FLEET_FIELD`.
public enum JournalField {
    public static let prefix = "FLEET_"

    public static func name(forMetadataKey key: String) -> String {
        var out = ""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "a"..."z": out.unicodeScalars.append(Unicode.Scalar(scalar.value - 32)!)
            case "A"..."Z", "0"..."9": out.unicodeScalars.append(scalar)
            default: out.append("_")
            }
        }
        if out.hasPrefix(prefix) { out.removeFirst(prefix.count) }
        if out.isEmpty { out = "FIELD" }
        return String((prefix + out).prefix(64))
    }
}
