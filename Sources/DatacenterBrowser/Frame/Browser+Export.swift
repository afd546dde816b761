import DatacenterKit
import Foundation

extension Browser {
    /// An export running in the background (`GridExport`), for the status line and Esc.
    struct ExportRun {
        /// The export, whose `cancel()` Esc calls.
        let export: GridExport
        /// Rows written so far (`exportProgress`).
        var rows: Int
        /// The rows the grid counted when the export started, if known: the progress bar's end.
        let total: Int?
    }

    /// The file name typed at the export prompt (`E`): starts the export of the grid shown,
    /// or says why not. `replacing` is the export whose file existed when the user answered the
    /// question that followed it (`exportReplace`): Enter on the same name replaces the file,
    /// another name is a new export of the same rows.
    func submitExport(_ text: String, replacing: GridExport?) {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { message = ("export cancelled: no file name", false); return }
        guard exportRun == nil else { message = ("an export is running: Esc cancels it", true); return }
        guard let format = ExportFormat(fileName: name) else {
            message = ("cannot tell the format of \(name): name it \(GridExport.extensions)", true)
            return
        }
        let export: GridExport
        if let replacing {
            export = GridExport(id: ids.next(), subject: replacing.subject, destination: name, format: format, keys: replacing.keys,
                                databaseKeys: replacing.databaseKeys, replace: name == replacing.destination, busyTimeout: replacing.busyTimeout)
        } else {
            guard let subject = shownSubject() else {
                message = ("E exports tables, views and console results", true)
                return
            }
            export = GridExport(id: ids.next(), subject: subject, destination: name, format: format, keys: catalog.keys,
                                databaseKeys: catalog.databaseKeys, replace: false,
                                busyTimeout: catalog.busyTimeout)
        }
        start(export)
    }

    /// `Y` with rows selected (`PaneEffect.copySelectedRows`): reads them as JSON lines,
    /// decrypted, for the clipboard, off the input loop as an export is.
    func copySelectedRows() {
        guard exportRun == nil else { message = ("an export is running: Esc cancels it", true); return }
        guard let subject = shownSubject(), grid?.selectionCondition() != nil else {
            message = ("no row is selected (s selects the cursor's row)", true)
            return
        }
        start(GridExport(id: ids.next(), subject: subject, destination: "the clipboard", format: .jsonl, keys: catalog.keys,
                         databaseKeys: catalog.databaseKeys, replace: false, toClipboard: true, busyTimeout: catalog.busyTimeout))
    }

    /// What the grid shown exports: its rows, only the selected ones when rows are selected.
    private func shownSubject() -> GridExportSubject? {
        guard let subject = grid.flatMap({ GridExportSubject($0.source) }) else { return nil }
        return grid?.selectionCondition().map { subject.keeping($0) } ?? subject
    }

    /// Runs `export` in the background, with its progress in the status line.
    private func start(_ export: GridExport) {
        let total = grid.flatMap { shown -> Int? in
            if GridExportSubject(shown.source) == export.subject { return shown.total }
            return shown.selectionCondition().map { _ in shown.selectedKeys.count }
        }
        exportRun = ExportRun(export: export, rows: 0, total: total)
        message = nil
        commands.append(.exportGrid(export))
    }

    /// Rows written so far by the export running.
    func exportProgressed(id: Int, rows: Int) {
        if exportRun?.export.id == id { exportRun?.rows = rows }
    }

    /// An export ended: says what was written, or why nothing was; a file that exists asks
    /// whether to replace it (Enter on the same name) or to write another (a new name).
    func exportFinished(id: Int, outcome: GridExport.Outcome) {
        guard let run = exportRun, run.export.id == id else { return }
        exportRun = nil
        switch outcome {
        case let .written(rows, path):
            message = ("exported \(Browser.grouped(rows)) row\(rows == 1 ? "" : "s") of \(run.export.subject.table) to \(path)", false)
        case .exists(let path):
            guard prompt == nil else {
                message = ("\(path) exists: nothing written (E again to choose)", true)
                return
            }
            exportToReplace = run.export
            prompt = PromptLine(label: "\(path) exists: Enter replaces it, or edit the name: ", text: run.export.destination, purpose: .exportReplace)
        case let .copied(rows, text):
            pendingClipboard = text
            message = ("copied \(Browser.grouped(rows)) selected row\(rows == 1 ? "" : "s") of \(run.export.subject.table) "
                       + "as JSON lines (\(Browser.grouped(text.utf8.count)) bytes)", false)
        case .cancelled: message = (run.export.toClipboard ? "copy cancelled: nothing copied" : "export cancelled: no file written", false)
        case .failed(let reason): message = (reason, true)
        }
    }

    /// The status line while an export runs: a bar when the row count is known, the rows
    /// written, and how to cancel.
    func exportStatus(_ run: ExportRun, width: Int) -> String {
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
