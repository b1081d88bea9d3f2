extension JSONValue {
    /// The compact JSON text of this value, with object members sorted so output is reproducible.
    public var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The compact JSON text as UTF-8 bytes.
    public var serializedBytes: [UInt8] { Array(serialized.utf8) }

    /// An indented rendering for humans (`fleetctl --json`).
    public func prettyPrinted(indent: String = "  ") -> String {
        var output = ""
        writePretty(to: &output, level: 0, indent: indent)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += Self.format(number)
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let elements):
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                members[key, default: .null].write(to: &output)
            }
            output += "}"
        }
    }

    private func writePretty(to output: inout String, level: Int, indent: String) {
        let inner = String(repeating: indent, count: level + 1)
        let outer = String(repeating: indent, count: level)
        switch self {
        case .array(let elements) where !elements.isEmpty:
            output += "[\n"
            for (position, element) in elements.enumerated() {
                output += inner
                element.writePretty(to: &output, level: level + 1, indent: indent)
                output += position == elements.count - 1 ? "\n" : ",\n"
            }
            output += outer + "]"
        case .object(let members) where !members.isEmpty:
            output += "{\n"
            let keys = members.keys.sorted()
            for (position, key) in keys.enumerated() {
                output += inner
                Self.writeString(key, to: &output)
                output += ": "
                members[key, default: .null].writePretty(to: &output, level: level + 1, indent: indent)
                output += position == keys.count - 1 ? "\n" : ",\n"
            }
            output += outer + "}"
        default:
            write(to: &output)
        }
    }

    private static func format(_ number: Double) -> String {
        // Integral values print without a fraction so ids and counters read as integers to other clients.
        if number.rounded() == number, abs(number) < 9.007_199_254_740_992e15 {
            return String(Int(number))
        }
        return number.isFinite ? String(number) : "null"
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
