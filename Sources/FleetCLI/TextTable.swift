import FleetSystem

/// Renders rows as left-aligned columns for fleetctl's human output, colouring cells only when asked.
struct TextTable {
    var header: [String]
    var rows: [[Cell]] = []

    /// A table cell: its text and an optional ANSI colour applied on a TTY. The text is shown escaped
    /// (`DisplayText`): cells carry names from adverts, and a newline or an escape sequence in one would forge a
    /// row or rewrite the terminal.
    struct Cell {
        var text: String
        var colour: TerminalColour?

        init(_ text: String, colour: TerminalColour? = nil) {
            self.text = DisplayText.escaped(text)
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
