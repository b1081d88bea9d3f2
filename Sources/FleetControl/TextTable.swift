/// Renders rows as left-aligned columns for fleetctl's human output, colouring cells only when asked.
struct TextTable {
    var header: [String]
    var rows: [[Cell]] = []

    /// A table cell: its text and an optional ANSI colour applied on a TTY.
    struct Cell {
        var text: String
        var colour: TerminalColour?

        init(_ text: String, colour: TerminalColour? = nil) {
            self.text = text
            self.colour = colour
        }
    }

    func render(colour: Bool) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() {
                if column < widths.count { widths[column] = max(widths[column], cell.text.count) } else { widths.append(cell.text.count) }
            }
        }
        func line(_ cells: [Cell], bold: Bool) -> String {
            var parts: [String] = []
            for (column, cell) in cells.enumerated() {
                // The last column is not padded so lines carry no trailing blanks.
                let padded = column == cells.count - 1 ? cell.text : cell.text.padding(to: widths[column])
                let colourToUse = bold ? TerminalColour.bold : cell.colour
                if colour, let colourToUse {
                    let trailing = String(padded.dropFirst(cell.text.count))
                    parts.append(colourToUse.wrap(cell.text) + trailing)
                } else {
                    parts.append(padded)
                }
            }
            return parts.joined(separator: "  ")
        }
        var output = line(header.map { Cell($0) }, bold: true) + "\n"
        for row in rows { output += line(row, bold: false) + "\n" }
        return output
    }
}

/// The few ANSI styles fleetctl uses.
enum TerminalColour: String {
    case bold = "1"
    case green = "32"
    case yellow = "33"
    case red = "31"
    case dim = "2"

    func wrap(_ text: String) -> String { "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" }

    /// The colour of a device state name.
    static func forState(_ state: String) -> TerminalColour? {
        switch state {
        case "ready", "connected", "running": return .green
        case "backingOff", "connecting", "evicted", "degraded", "starting": return .yellow
        case "failed", "stopping": return .red
        default: return nil
        }
    }
}
