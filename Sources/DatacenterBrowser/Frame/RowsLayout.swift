import DatacenterKit
import DatacenterText

/// Query results laid out as aligned text lines under a header, for the DAO panel and the
/// SQL console: cells made safe and cut, crypt columns decrypted.
enum RowsLayout {
    /// The most rows laid out; the count line says when there were more.
    static let rowLimit = 500

    /// The lines for `rows`: a count line, the header, then at most `rowLimit` rows.
    /// - parameter total: how many rows the query gave, when more than `rows` (the caller
    ///   kept only the first ones); `rows.count` otherwise.
    static func lines(_ rows: [Row], total: Int? = nil, encryptedColumns: Set<String> = [],
                      crypt: any DataCrypt) -> [String] {
        let total = max(total ?? rows.count, rows.count)
        guard let names = rows.first?.columnNames else { return ["(no rows)"] }
        let cells: [[String]] = rows.prefix(rowLimit).map { row in
            row.values.enumerated().map { index, value in
                let cell = encryptedColumns.contains(names[index]) ? ValueFormatter.encryptedCell(value, crypt: crypt) : ValueFormatter.cell(value)
                return TerminalText.visible(cell.text, limit: 40)
            }
        }
        let widths = names.indices.map { i in ([names[i]] + cells.map { $0[i] }).map(TerminalText.width(of:)).max() ?? 0 }
        func line(_ values: [String]) -> String {
            values.enumerated().map { i, v in v + String(repeating: " ", count: max(0, widths[i] - TerminalText.width(of: v))) }.joined(separator: " ")
        }
        return ["\(total) row(s)" + (total > rowLimit ? ", first \(rowLimit) shown" : ""), line(names)] + cells.map(line)
    }
}
