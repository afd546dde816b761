import DatacenterKit

/// Query results laid out as aligned text lines under a header, for the DAO panel and the
/// SQL console: cells made safe and cut, crypt columns decrypted.
enum RowsLayout {
    /// The most rows laid out; the count line says when there were more.
    static let rowLimit = 500

    static func lines(_ rows: [Row], encryptedColumns: Set<String> = [], crypt: any DataCrypt) -> [String] {
        guard let first = rows.first else { return ["(no rows)"] }
        let columns = first.columnNames
        let cells: [[String]] = rows.prefix(rowLimit).map { row in
            row.values.enumerated().map { index, value in
                let cell = encryptedColumns.contains(columns[index]) ? ValueFormatter.encryptedCell(value, crypt: crypt) : ValueFormatter.cell(value)
                return TerminalText.visible(cell.text, limit: 40)
            }
        }
        let widths = columns.indices.map { i in ([columns[i]] + cells.map { $0[i] }).map(TerminalText.width(of:)).max() ?? 0 }
        func line(_ values: [String]) -> String {
            values.enumerated().map { i, v in v + String(repeating: " ", count: max(0, widths[i] - TerminalText.width(of: v))) }.joined(separator: " ")
        }
        return ["\(rows.count) row(s)" + (rows.count > rowLimit ? ", first \(rowLimit) shown" : ""), line(columns)] + cells.map(line)
    }
}
