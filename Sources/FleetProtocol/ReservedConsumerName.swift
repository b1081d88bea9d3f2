/// Consumer names fleetd keeps for its own consumers of the outbox, so that no control client can watch from
/// their cursors or acknowledge them: the cursor of `mqtt` says what the broker has taken, and a client that
/// moved it forward would make the publisher skip the readings in between for good, with `lost` still 0.
///
/// | reserved | for |
/// | --- | --- |
/// | `mqtt` | the MQTT publisher (`BrokerForwarder`) |
/// | `fhir` | a FHIR exporter, kept for later |
/// | `fleetd…` | any name starting with `fleetd`: later internal consumers |
/// | `_…` | any name starting with `_`: likewise |
///
/// Names are compared without regard to ASCII case (`MQTT` is `mqtt`), so that a reserved name cannot be taken
/// in another spelling that operators would read as the same consumer.
public enum ReservedConsumerName {
    /// The MQTT publisher's consumer.
    public static let mqtt = "mqtt"
    /// Names reserved exactly.
    public static let names = [mqtt, "fhir"]
    /// Prefixes that reserve every name starting with them.
    public static let prefixes = ["fleetd", "_"]

    /// Every rule as errors name it: a name, or a prefix followed by `*`.
    public static var rules: [String] { names + prefixes.map { $0 + "*" } }

    /// The rule that reserves `consumer` (`mqtt`, `fleetd*`…), or nil when a control client may use the name.
    public static func rule(reserving consumer: String) -> String? {
        var folded = String.UnicodeScalarView()
        for scalar in consumer.unicodeScalars {
            folded.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar)
        }
        let name = String(folded)
        if let exact = names.first(where: { $0 == name }) { return exact }
        if let prefix = prefixes.first(where: { name.hasPrefix($0) }) { return prefix + "*" }
        return nil
    }
}
