import DatacenterKit
import Foundation

/// The exports of the grid's rows (`E`) and the copies of its selected rows (`Y`), read off
/// the input loop (`GridExport`): the one running, for the status line's progress and Esc,
/// and the one whose file existed while the prompt asks whether to replace it. Its answers
/// are `PaneEffect`s the browser carries out.
struct GridExports {
    /// An export running in the background, for the status line and Esc.
    struct Run {
        /// The export, whose `cancel()` Esc calls.
        let export: GridExport
        /// Rows written so far (`exportProgress`).
        var rows: Int
        /// The rows the grid counted when the export started, if known: the progress bar's end.
        let total: Int?
    }

    /// The export running, if any.
    private(set) var running: Run?
    /// The export whose file existed, while the prompt asks whether to replace it.
    var toReplace: GridExport?

    /// The file name typed at the export prompt (`E`): starts the export of `grid`'s rows, or
    /// says why not. `replacing` is the export whose file existed when the user answered the
    /// question that followed it (`exportReplace`): Enter on the same name replaces the file,
    /// another name is a new export of the same rows.
    mutating func submit(_ text: String, replacing: GridExport?, grid: GridPane?, context: PaneContext) -> [PaneEffect] {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return [.message("export cancelled: no file name", isError: false)] }
        guard running == nil else { return [.message("an export is running: Esc cancels it", isError: true)] }
        guard let format = ExportFormat(fileName: name) else {
            return [.message("cannot tell the format of \(name): name it \(GridExport.extensions)", isError: true)]
        }
        let catalog = context.catalog
        let export: GridExport
        if let replacing {
            export = GridExport(id: context.ids.next(), subject: replacing.subject, destination: name, format: format, keys: replacing.keys,
                                databaseKeys: replacing.databaseKeys, replace: name == replacing.destination, busyTimeout: replacing.busyTimeout)
        } else {
            guard let subject = GridExports.subject(of: grid) else { return [.message("E exports tables, views and console results", isError: true)] }
            export = GridExport(id: context.ids.next(), subject: subject, destination: name, format: format, keys: catalog.keys,
                                databaseKeys: catalog.databaseKeys, replace: false, busyTimeout: catalog.busyTimeout)
        }
        return start(export, grid: grid)
    }

    /// `Y` with rows selected (`PaneEffect.copySelectedRows`): reads them as JSON lines,
    /// decrypted, for the clipboard, off the input loop as an export is.
    mutating func copySelected(of grid: GridPane?, context: PaneContext) -> [PaneEffect] {
        guard running == nil else { return [.message("an export is running: Esc cancels it", isError: true)] }
        guard let subject = GridExports.subject(of: grid), grid?.selectionCondition() != nil else {
            return [.message("no row is selected (s selects the cursor's row)", isError: true)]
        }
        let catalog = context.catalog
        return start(GridExport(id: context.ids.next(), subject: subject, destination: "the clipboard", format: .jsonl, keys: catalog.keys,
                                databaseKeys: catalog.databaseKeys, replace: false, toClipboard: true, busyTimeout: catalog.busyTimeout),
                     grid: grid)
    }

    /// What `grid` exports: its rows, only the selected ones when rows are selected.
    private static func subject(of grid: GridPane?) -> GridExportSubject? {
        guard let subject = grid.flatMap({ GridExportSubject($0.source) }) else { return nil }
        return grid?.selectionCondition().map { subject.keeping($0) } ?? subject
    }

    /// Runs `export` in the background, with its progress in the status line.
    private mutating func start(_ export: GridExport, grid: GridPane?) -> [PaneEffect] {
        let total = grid.flatMap { shown -> Int? in
            if GridExportSubject(shown.source) == export.subject { return shown.total }
            return shown.selectionCondition().map { _ in shown.selectedKeys.count }
        }
        running = Run(export: export, rows: 0, total: total)
        return [.clearMessage, .command(.exportGrid(export))]
    }

    /// Esc while an export runs: cancels it. Nil when none runs.
    func cancel() -> [PaneEffect]? {
        guard let running else { return nil }
        running.export.cancel()
        return [.message("cancelling the export…", isError: false)]
    }

    /// Rows written so far by the export `id`.
    mutating func progressed(id: Int, rows: Int) {
        if running?.export.id == id { running?.rows = rows }
    }

    /// The export `id` ended: says what was written, or why nothing was; a file that exists
    /// asks whether to replace it (Enter on the same name) or to write another (a new name),
    /// unless `promptOpen` (another question is being answered).
    mutating func finished(id: Int, outcome: GridExport.Outcome, promptOpen: Bool) -> [PaneEffect] {
        guard let run = running, run.export.id == id else { return [] }
        running = nil
        let table = run.export.subject.table
        switch outcome {
        case let .written(rows, path):
            return [.message("exported \(Browser.grouped(rows)) row\(rows == 1 ? "" : "s") of \(table) to \(path)", isError: false)]
        case .exists(let path):
            guard !promptOpen else { return [.message("\(path) exists: nothing written (E again to choose)", isError: true)] }
            toReplace = run.export
            return [.prompt(PromptLine(label: "\(path) exists: Enter replaces it, or edit the name: ", text: run.export.destination,
                                       purpose: .exportReplace))]
        case let .copied(rows, text):
            return [.copy(text, what: ""), .message("copied \(Browser.grouped(rows)) selected row\(rows == 1 ? "" : "s") of \(table) "
                                                  + "as JSON lines (\(Browser.grouped(text.utf8.count)) bytes)", isError: false)]
        case .cancelled:
            return [.message(run.export.toClipboard ? "copy cancelled: nothing copied" : "export cancelled: no file written", isError: false)]
        case .failed(let reason): return [.message(reason, isError: true)]
        }
    }

    /// The status line while an export runs: a bar when the row count is known, the rows
    /// written, and how to cancel; nil when none runs.
    var status: String? {
        guard let run = running else { return nil }
        let written = Browser.grouped(run.rows)
        let verb = run.export.toClipboard ? "read" : "written"
        var text = (run.export.toClipboard ? " copying " : " exporting ") + "\(run.export.subject.table) to \(run.export.destination)"
        if let total = run.total, total > 0 {
            let cells = 10
            let done = min(cells, run.rows * cells / total)
            text += " [" + String(repeating: "#", count: done) + String(repeating: "·", count: cells - done) + "]"
            text += " \(written) of \(Browser.grouped(total)) rows \(verb)"
        } else {
            text += ": \(written) rows \(verb)"
        }
        return text + " · Esc cancels"
    }
}
