import DatacenterKit
import DatacenterText
import Foundation

/// How the console shows rows (`.mode`, as in the sqlite3 shell): `grid`, the default, opens
/// a single SELECT in the grid and prints the rows of anything else in aligned columns; the
/// other modes print every statement's rows as text, as the shell's mode of that name does.
/// `.headers on|off` adds the column names to `list`, `csv` and `tabs`, as in the shell.
///
/// Text modes keep at most `RowsLayout.rowLimit` rows of a statement and count the rest.
/// Result columns read straight from a crypt column are decrypted, as in the grid.
enum ConsoleOutputMode: String, CaseIterable, Sendable {
    case grid, column, list, csv, tabs, json, line

    /// What `.mode` alone says, and `.help` lists.
    static var summary: String { "modes: " + allCases.map(\.rawValue).joined(separator: " ") }

    /// The lines showing `rows` (the first `RowsLayout.rowLimit` of `total`), with
    /// `headers` for the modes that take them.
    func lines(_ rows: [Row], total: Int, headers: Bool, encryptedColumns: Set<String>, crypt: any DataCrypt) -> [String] {
        switch self {
        case .grid, .column:
            return RowsLayout.lines(rows, total: total, encryptedColumns: encryptedColumns, crypt: crypt)
        default:
            break
        }
        guard let names = rows.first?.columnNames else { return [] }
        let kept = rows.prefix(RowsLayout.rowLimit)
        let texts: [[String?]] = kept.map { row in
            row.values.enumerated().map { index, value in
                if encryptedColumns.contains(names[index]) {
                    return value == .null ? nil : ValueFormatter.encryptedCell(value, crypt: crypt).text
                }
                return value.sqliteText
            }
        }
        var lines: [String]
        switch self {
        case .list, .tabs, .csv:
            let separator = self == .list ? "|" : (self == .tabs ? "\t" : ",")
            func field(_ text: String?) -> String { self == .csv ? Self.csvField(text) : (text ?? "") }
            let header: [String] = headers ? [names.map { self == .csv ? Self.csvField($0) : $0 }.joined(separator: separator)] : []
            lines = header + texts.map { $0.map(field).joined(separator: separator) }
        case .json:
            lines = texts.enumerated().map { index, values in
                let fields: [String] = values.indices.map { column in
                    JSONText.quoted(names[column]) + ":" + Self.json(kept[kept.startIndex + index].values[column], text: values[column],
                                                                     decrypted: encryptedColumns.contains(names[column]))
                }
                let open = index == 0 ? "[" : ""
                let close = index == texts.count - 1 ? "]" : ","
                return open + "{" + fields.joined(separator: ",") + "}" + close
            }
        case .line:
            let width = max(5, names.map(TerminalText.width(of:)).max() ?? 0)  // the shell's least width
            lines = []
            for (index, values) in texts.enumerated() {
                if index > 0 { lines.append("") }
                for (name, text) in zip(names, values) {
                    let pad = String(repeating: " ", count: width - TerminalText.width(of: name))
                    lines.append(pad + name + " = " + (text ?? ""))
                }
            }
        case .grid, .column:
            lines = []
        }
        if total > kept.count { lines.append("… \(total - kept.count) more row(s) not shown (the first \(kept.count) are)") }
        // A value holding line breaks goes on over several lines, as the shell prints it.
        return lines.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    }

    /// A value in `.mode json`, as the shell writes it: numbers bare (reals with 20
    /// significant digits, infinities as ±1e999), NULL `null`, anything else (`text`, a
    /// decrypted value's) a JSON string.
    static func json(_ value: DatabaseValue, text: String?, decrypted: Bool) -> String {
        guard let text else { return "null" }
        guard !decrypted else { return JSONText.quoted(text) }
        switch value {
        case .integer(let i): return String(i)
        case .real(let d) where d.isInfinite: return DatabaseValue.realLiteral(d)
        case .real(let d): return Database.realText(d, significantDigits: 20)
        default: return JSONText.quoted(text)
        }
    }

    /// A CSV field as the sqlite3 shell writes it (the CSV export's rule); NULL empty.
    static func csvField(_ text: String?) -> String {
        text.map(ExportRowWriter.csvField) ?? ""
    }
}
