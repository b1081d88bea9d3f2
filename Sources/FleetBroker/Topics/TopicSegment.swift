/// The rule for an id that becomes one level of an MQTT topic (gateway id, device id, characteristic).
///
/// **Rejected, not escaped.** A segment must be 1…128 bytes of UTF-8 with none of:
/// - `/` (it would split the id into two levels, so `dev/state` could overwrite another device's state),
/// - `+` and `#` (wildcards: legal in a published name for MQTT 3.1.1 brokers that do not check, but a
///   subscriber could never address the topic exactly, and MQTT 5 brokers refuse them),
/// - NUL or another control character (U+0000–U+001F, U+007F): MQTT forbids NUL and brokers treat the others
///   inconsistently.
///
/// Escaping was considered and rejected: every consumer would have to know and undo the escape, and two ids
/// could map to one topic unless the escape character itself were escaped. fleetd's own device ids
/// (`mfr-…`, `svc-…`, `irk-…`, `addr-…`) and characteristic UUIDs never contain these characters, so only a
/// hand-written id can be rejected, and the error names it.
public enum TopicSegment {
    /// Longest accepted segment in UTF-8 bytes: generous for ids, and keeps topics far below MQTT's 65 535.
    public static let maximumLength = 128

    /// Throws ``BrokerError/Kind/invalidTopicSegment`` naming `field` and the offending character.
    public static func validate(_ segment: String, field: String) throws(BrokerError) {
        func invalid(_ why: String) -> BrokerError {
            BrokerError(.invalidTopicSegment, "\(field) '\(printable(segment))' cannot be an MQTT topic level: \(why)")
        }
        guard !segment.isEmpty else { throw invalid("it is empty") }
        guard segment.utf8.count <= maximumLength else {
            throw invalid("it is \(segment.utf8.count) bytes long, more than \(maximumLength)")
        }
        for scalar in segment.unicodeScalars {
            switch scalar {
            case "/": throw invalid("it contains '/', the topic level separator")
            case "+", "#": throw invalid("it contains '\(scalar)', an MQTT wildcard")
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                throw invalid("it contains the control character U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4))")
            default: continue
            }
        }
    }

    /// Whether `segment` passes ``validate(_:field:)``.
    public static func isValid(_ segment: String) -> Bool {
        (try? validate(segment, field: "id")) != nil
    }

    /// The id as it can be shown in an error: control characters as `\u{…}`.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined())
    }
}
