import DatacenterKit
import Foundation

extension Browser {
    /// A root or file being opened off the input loop (`BrowserCommand.openCatalog`).
    struct CatalogOpening {
        /// The request's id: only the answer to the latest counts.
        let id: Int
        /// The path as typed.
        let path: String
    }

    /// `o` (in the tree) or `O`: asks for another root or SQLite file to browse, offering the
    /// recent ones (↑ ↓ at the prompt, listed above it). Refused while edits are staged (they
    /// belong to the files browsed now and are never dropped unasked) or while a commit, a DAO
    /// method or an export runs.
    func openFilePrompt() {
        if !review.staged.isEmpty {
            let count = review.staged.count
            let them = count == 1 ? "it" : "them"
            message = ("\(count) edit\(count == 1 ? " is" : "s are") staged: commit \(them) (w, c) or discard \(them) (w, u) before opening another file", true)
            return
        }
        if let refusal = busyRefusal { message = (refusal + ": open another file when it has ended", true); return }
        var line = PromptLine(label: "open (root or SQLite file; ↑↓ recent): ", text: "", purpose: .open)
        line.editor.history = LineHistory(entries: recentFiles.paths.reversed())
        prompt = line
    }

    /// What runs and keeps the files browsed now in use, in words, if anything does.
    private var busyRefusal: String? {
        if review.committing != nil { return "a commit is running" }
        if daoPanel?.running != nil { return "a DAO method is running" }
        if exportRun != nil { return "an export is running" }
        return nil
    }

    /// The path typed at the `o` prompt: opens it off the input loop, with the keys and
    /// settings the browser was started with.
    func submitOpen(_ text: String) {
        let path = text.trimmingCharacters(in: .whitespaces)
        guard !path.isEmpty else { return }
        let id = ids.next()
        catalogOpening = CatalogOpening(id: id, path: path)
        message = nil
        commands.append(.openCatalog(requestID: id, path: path, settingsOf: catalog))
    }

    /// The root or file asked for with `o` was opened (or could not be): the browser now
    /// browses it, from its tree, and records it among the recent files. Edits staged while it
    /// was opened keep the files browsed now.
    func catalogOpened(id: Int, path: String, catalog opened: BrowserCatalog?, error: String?) {
        guard let request = catalogOpening, request.id == id else { return }
        catalogOpening = nil
        guard let opened else {
            message = ("cannot open \(request.path): \(error ?? "unknown error")", true)
            return
        }
        if !review.staged.isEmpty || busyRefusal != nil {
            message = ("\(path) not opened: edits were staged or work started meanwhile", true)
            return
        }
        grid?.search?.cancel.cancel()
        console?.running?.query.cancel()
        catalog = opened
        tree = TreePane(roots: opened.roots)
        grid = nil
        opening = nil
        inspector = nil
        daoPanel = nil
        console = nil
        pollPending = false
        focus = .tree
        message = ("browsing \(path)", false)
        recordOpened(path)
    }

    /// Records `path` (absolute) first among the recent files, and writes the list into the
    /// state folder off the input loop, when there is one. `browse` calls it for the path it
    /// starts on; `o` for each path it opens.
    package func recordOpened(_ path: String) {
        recentFiles.record(path)
        if let stateFolder { commands.append(.saveRecentFiles(recentFiles, folder: stateFolder)) }
    }

    /// Draws the recent files over the right-hand pane while the `o` prompt is open.
    func renderRecentFiles(_ screen: inout ScreenGrid) {
        let area = paneArea
        for y in area.y..<(area.y + area.height) { screen.fill(x: area.x, y: y, count: area.width, role: .dialog) }
        let heading = recentFiles.paths.isEmpty ? "No recent files yet: type a path." : "Recent files (↑ ↓ at the prompt), newest first:"
        screen.write(heading, x: area.x + 1, y: area.y, maxWidth: area.width - 1, role: .dialog)
        for (line, path) in recentFiles.paths.enumerated() where line + 1 < area.height {
            screen.write("  " + path, x: area.x + 1, y: area.y + 1 + line, maxWidth: area.width - 1, role: .dialog)
        }
    }
}
