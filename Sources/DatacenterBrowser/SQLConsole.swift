import DatacenterKit
import Foundation

/// A SQL console on one store: type SQL, run it on the browser's read-only connection, see
/// the rows; earlier commands come back with ↑ and ↓.
struct SQLConsole {
    /// The store it runs on.
    let storePath: String
    var input = ""
    var history: [String] = []
    /// Where ↑/↓ is in the history (nil: the line being typed).
    var historyIndex: Int?
    var output: [String] = ["Type SQL and press Enter. It runs read-only; ↑ ↓ history, Esc closes."]
    var outputIsError = false
    var scroll = 0

    /// Runs the input: every statement in turn, the rows of each shown.
    mutating func run(catalog: BrowserCatalog) {
        let sql = input.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !sql.isEmpty else { return }
        if history.last != sql { history.append(sql) }
        historyIndex = nil
        input = ""
        scroll = 0
        do {
            let store = try catalog.store(at: storePath)
            var lines: [String] = []
            try store.queue.read { db in
                try db.forEachStatement(in: sql) { statement in
                    let rows = try statement.fetchAll()
                    lines += rows.isEmpty && statement.columnCount == 0 ? ["ok"] : RowsLayout.lines(rows, crypt: catalog.keys)
                }
            }
            output = ["> " + sql] + lines
            outputIsError = false
        } catch {
            output = ["> " + sql, "\(error)"]
            outputIsError = true
        }
    }

    /// ↑: the previous command.
    mutating func historyBack() {
        guard !history.isEmpty else { return }
        let index = max(0, (historyIndex ?? history.count) - 1)
        historyIndex = index
        input = history[index]
    }

    /// ↓: the next command, then the empty line.
    mutating func historyForward() {
        guard let index = historyIndex else { return }
        if index + 1 < history.count {
            historyIndex = index + 1
            input = history[index + 1]
        } else {
            historyIndex = nil
            input = ""
        }
    }
}
