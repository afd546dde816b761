import DatacenterKit
import Foundation
import DatacenterText

extension Browser {
    /// `R`, or the current user changed: reads the root browsed again — its users, their
    /// stores and tables — off the input loop, keeping what is shown and staged; the tree
    /// keeps its place. A file (not a root) is read again the same way.
    func refreshTree(reason: String?) {
        guard catalogSwitch.opening == nil else { return }
        let id = ids.next()
        catalogSwitch.opening = CatalogSwitch.Opening(id: id, path: catalog.title, isRefresh: true)
        message = reason.map { ($0, false) }
        commands.append(.openCatalog(requestID: id, path: catalog.title, settingsOf: catalog))
    }

    /// The answer to `pollForChanges`'s look at the root's current user: another one than
    /// the tree marks means a switch was made elsewhere (`datacenter users switch`, the
    /// app), and the tree is read again so the user's stores and tables move along.
    func rootCurrentUserRead(rootPath: String, userId: String?, readable: Bool) {
        lifecycle.rootPollPending = false
        guard readable, rootPath == catalog.rootPath, userId != catalog.currentUserId else { return }
        refreshTree(reason: "the current user is now \(userId.map { TerminalText.visible($0) } ?? "nobody"): tree read again")
    }

    /// The path typed at the `o` prompt: opens it off the input loop, with the keys and
    /// settings the browser was started with.
    func submitOpen(_ text: String) {
        let path = text.trimmingCharacters(in: .whitespaces)
        guard !path.isEmpty else { return }
        let id = ids.next()
        catalogSwitch.opening = CatalogSwitch.Opening(id: id, path: path)
        message = nil
        commands.append(.openCatalog(requestID: id, path: path, settingsOf: catalog))
    }

    /// The root or file asked for with `o` was opened (or could not be): the browser now
    /// browses it, from its tree, and records it among the recent files. Edits staged while it
    /// was opened keep the files browsed now.
    func catalogOpened(id: Int, path: String, catalog opened: BrowserCatalog?, error: String?) {
        guard let request = catalogSwitch.opening, request.id == id else { return }
        catalogSwitch.opening = nil
        guard let opened else {
            message = ("cannot \(request.isRefresh ? "read again" : "open") \(request.path): \(error ?? "unknown error")", true)
            return
        }
        if request.isRefresh {
            // The same files: nothing shown or staged belongs to another root, so all stays.
            catalog = opened
            tree = tree.rebuilt(over: opened.roots)
            if message == nil { message = ("tree read again", false) }
            return
        }
        if !review.staged.isEmpty || busyWork != nil {
            message = ("\(path) not opened: edits were staged or work started meanwhile", true)
            return
        }
        grid?.search?.cancel.cancel()
        console?.running?.query.cancel()
        discardMark()                   // a mark of the root left: nothing to compare with now
        catalog = opened
        tree = TreePane(roots: opened.roots)
        grid = nil
        opening = nil
        inspector = nil
        daoPanel = nil
        console = nil
        lifecycle.pollPending = false
        focus = .tree
        message = ("browsing \(path)", false)
        recordOpened(path)
    }

    /// Records `path` (absolute) first among the recent files, and writes the list into the
    /// state folder off the input loop, when there is one. `browse` calls it for the path it
    /// starts on; `o` for each path it opens.
    package func recordOpened(_ path: String) {
        catalogSwitch.recent.record(path)
        if let stateFolder { commands.append(.saveRecentFiles(catalogSwitch.recent, folder: stateFolder)) }
    }
}
