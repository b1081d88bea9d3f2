/// Scenario keys for pairing: a device's IO capability, passkey, Secure Connections support and what its
/// characteristics require, and the `forget-bond` fault. Kept apart from the other keys so that they merge
/// as one call from `parseDevice` and `parseAction`.
extension Scenario {
    /// Parses one pairing key of a device line; false when `key` is not one of them.
    static func parseSecurityKey(_ key: String, _ value: String, into spec: inout PeripheralSpec, line: Int) throws(ScenarioError) -> Bool {
        switch key {
        case "io":
            guard let io = IOCapability(scenarioName: value) else {
                let names = IOCapability.allCases.map(\.scenarioName).joined(separator: ", ")
                throw ScenarioError(.badValue, line: line, "io must be one of \(names), got '\(value)'")
            }
            spec.security.ioCapability = io
        case "passkey":
            guard value.count == 6, value.allSatisfy(\.isASCII), let passkey = UInt32(value), passkey < 1_000_000 else {
                throw ScenarioError(.badValue, line: line, "passkey must be six digits, got '\(value)'")
            }
            spec.security.passkey = passkey
        case "secure-connections":
            guard value == "yes" || value == "no" else { throw ScenarioError(.badValue, line: line, "secure-connections must be yes or no") }
            spec.security.secureConnections = value == "yes"
        case "security":
            // `security=LEVEL` for every characteristic, or `security=UUID:LEVEL[,UUID:LEVEL…]`.
            for item in value.split(separator: ",") {
                let parts = item.split(separator: ":", omittingEmptySubsequences: false)
                guard let level = SecurityLevel(scenarioName: String(parts.last ?? "")), parts.count <= 2 else {
                    throw ScenarioError(.badValue, line: line, "security is none, encrypt or authenticate, or UUID:LEVEL, got '\(item)'")
                }
                if parts.count == 1 {
                    spec.security.defaultLevel = level
                } else {
                    spec.security.characteristics[try uuid(String(parts[0]), line: line)] = level
                }
            }
        default:
            return false
        }
        return true
    }

    /// Parses a pairing fault (`forget-bond DEV`); nil when `words` is not one.
    static func parseSecurityAction(_ words: [String], line: Int) throws(ScenarioError) -> FaultAction? {
        guard words.first == "forget-bond" else { return nil }
        guard words.count >= 2 else { throw ScenarioError(.syntax, line: line, "'forget-bond' needs more arguments") }
        return .forgetBond(device: words[1])
    }
}
