/// Scenario keys and actions of a stored-record glucose meter (`records=` and the RACP faults), kept apart so that
/// they merge as one call from `parseDevice` and `parseAction`.
extension Scenario {
    /// Parses one stored-record key of a device line; false when `key` is not one of them.
    static func parseRecordKey(_ key: String, _ value: String, into spec: inout PeripheralSpec, line: Int) throws(ScenarioError) -> Bool {
        var records = spec.records ?? StoredRecordsSpec()
        switch key {
        case "records":
            guard let n = Int(value), (0...65_535).contains(n) else {
                throw ScenarioError(.badValue, line: line, "records must be 0…65535, got '\(value)'")
            }
            records.count = n
        case "record-every":
            let every = try seconds(value, line: line)
            guard every > .zero else { throw ScenarioError(.badValue, line: line, "record-every must be above zero, got '\(value)'") }
            records.every = every
        case "record-pace":
            records.pace = try seconds(value, line: line)
        case "racp":
            guard let quirks = RACPQuirk.list(value) else {
                let names = RACPQuirk.allCases.map(\.rawValue).joined(separator: ", ")
                throw ScenarioError(.badValue, line: line, "racp is a comma list of \(names), or none; got '\(value)'")
            }
            records.quirks = quirks
        case "clock-drift":
            records.clockDrift = try driftSeconds(value, line: line)
        default:
            return false
        }
        spec.records = records
        return true
    }

    /// The other keys mean nothing without `records=`, and records need the RACP of `profile=glucose-meter`.
    static func checkRecordKeys(_ spec: PeripheralSpec, countGiven: Bool, line: Int) throws(ScenarioError) {
        guard spec.records != nil else { return }
        guard countGiven else {
            throw ScenarioError(.badValue, line: line, "record-every, record-pace, racp and clock-drift need records=")
        }
        let meter = spec.profile.services.contains { service in
            RecordMemory.kinds.contains { kind, uuid in
                service.uuid == uuid && service.characteristics.contains { $0.uuid == RecordMemory.racpUUID }
                    && service.characteristics.contains { $0.uuid == RecordMemory.measurement(kind) }
            }
        }
        guard meter else { throw ScenarioError(.badValue, line: line, "records= needs profile=glucose-meter or continuous-glucose") }
    }

    /// Parses a stored-record fault; nil when `words` is not one.
    static func parseRecordAction(_ words: [String], line: Int) throws(ScenarioError) -> FaultAction? {
        let names = ["racp-drop-after", "racp-busy", "sequence-reset", "clock-drift", "racp", "take-record"]
        guard let verb = words.first, names.contains(verb) else { return nil }
        guard words.count >= 2 else { throw ScenarioError(.syntax, line: line, "'\(verb)' needs more arguments") }
        let device = words[1]
        func argument() throws(ScenarioError) -> String {
            guard words.count >= 3 else { throw ScenarioError(.syntax, line: line, "'\(verb)' needs more arguments") }
            return words[2]
        }
        func count() throws(ScenarioError) -> Int {
            let text = try argument()
            guard let n = Int(text), n >= 0 else { throw ScenarioError(.badValue, line: line, "'\(text)' is not a count") }
            return n
        }
        switch verb {
        case "racp-drop-after": return .records(device: device, .dropAfter(try count()))
        case "racp-busy": return .records(device: device, .busy(try count()))
        case "sequence-reset": return .records(device: device, .sequenceReset)
        case "take-record": return .records(device: device, .takeRecord)
        case "clock-drift": return .records(device: device, .clockDrift(try driftSeconds(try argument(), line: line)))
        default:
            let text = try argument()
            guard let quirks = RACPQuirk.list(text) else { throw ScenarioError(.badValue, line: line, "unknown racp quirk in '\(text)'") }
            return .records(device: device, .quirks(quirks))
        }
    }

    /// Whole seconds, either sign.
    static func driftSeconds(_ text: String, line: Int) throws(ScenarioError) -> Int64 {
        guard let s = Int64(text), abs(s) < 1_000_000_000 else {
            throw ScenarioError(.badValue, line: line, "clock drift is whole seconds, got '\(text)'")
        }
        return s
    }
}
