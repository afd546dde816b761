import DatacenterDAO
import DatacenterKit
import Foundation

/// A key the browser understands, as the terminal edge decodes it.
package enum Key: Equatable, Sendable {
    /// The arrows and the keys that move by page or to an end.
    case up, down, left, right, pageUp, pageDown, home, end
    /// Enter, Esc, Tab, Shift-Tab and Backspace.
    case enter, escape, tab, backTab, backspace
    /// A printable character, or a control character such as `"\u{3}"` (Ctrl-C).
    case character(Character)
}

/// Everything that happens to the browser: the messages of its update function. Input comes
/// from the terminal edge; the rest are the results of `BrowserCommand`s, posted back by
/// whoever ran them.
package enum BrowserEvent: Sendable {
    /// A key pressed.
    case key(Key)
    /// Text pasted (a bracketed paste), whole: its line breaks as `\n`, its tabs as spaces.
    /// What takes text (the console, a DAO form's field, the prompt line) takes it as one
    /// edit; elsewhere its characters are keys, as if typed.
    case paste(String)
    /// The terminal's new size, in cells.
    case resize(width: Int, height: Int)
    /// A click at a cell (0-based column and line).
    case click(x: Int, y: Int)
    /// The wheel, one notch: negative up, positive down.
    case wheel(x: Int, y: Int, delta: Int)
    /// A grid asked for with `openGrid` is ready: its source and first rows, or why not.
    case gridOpened(requestID: Int, node: TreeNode, source: GridSource?, rows: [GridRow], error: String?)
    /// A background row count finished for the grid with that id.
    case rowCount(gridID: Int, count: Int?)
    /// The grid's store's `PRAGMA data_version` (`BrowserCommand.dataVersion`): a new value
    /// means another connection committed to the file. nil when it could not be read.
    case dataVersion(gridID: Int, version: Int64?)
    /// The user the root has as current now (`BrowserCommand.rootCurrentUser`); `readable`
    /// false when `datacenter.json` could not be read (then nothing is concluded).
    case rootCurrentUser(rootPath: String, userId: String?, readable: Bool)
    /// A search scanned `scanned` more rows without a match yet.
    case searchProgress(searchID: Int, scanned: Int)
    /// A search ended: the rows around the match (the match first), or nil when none;
    /// `wrapped` when the match was found only after the search passed the end (or, going
    /// backward, the start) and went on from the other end.
    case searchFinished(searchID: Int, match: [GridRow]?, error: String?, wrapped: Bool = false)
    /// The schema of the grid's table was read (`BrowserCommand.schema`): its lines, or why not.
    case schemaRead(nodeID: String, lines: [String], error: String?)
    /// A page the grid asked for (`PageRequest`) was read, or could not be (`error`).
    case pageLoaded(gridID: Int, requestID: Int, rows: [GridRow], error: String?)
    /// A console query has read `rows` rows so far (posted now and then while it runs).
    case consoleProgress(queryID: Int, rows: Int)
    /// The names of the store's tables, views and columns, for the console's completion.
    case consoleNames(storePath: String, tables: [String: [String]])
    /// The keys of the rows `*` or `|` select (nil: more than the limit), or why not.
    case rowsSelected(gridID: Int, requestID: Int, keys: [[DatabaseValue]]?, error: String?)
    /// A console SELECT's first page is in: the grid shows it (`node` is its `.query` leaf),
    /// and pages the rest; `note` is what the console says of it (crypt columns it reads as
    /// ciphertext), if anything.
    case consoleGrid(queryID: Int, node: TreeNode, source: GridSource, rows: [GridRow], note: String?)
    /// A console query ended: its output lines, or the error (an interrupted query says so).
    case consoleFinished(queryID: Int, output: [String], isError: Bool)
    /// A commit of staged edits ended: the edits it wrote (by `StagedEdit.id`), and the
    /// failure that stopped it, if any (the edits of that store and after stay staged), and
    /// why a store written keeps no undo (`StagedCommit`), if one does not.
    case commitFinished(commitID: Int, committed: [Int], failure: String?, undoNote: String?)
    /// `Z` was worked out (`UndoPreparation`): the edits that undo the last commit, or why
    /// it cannot be undone (then `edits` is empty).
    case undoPrepared(requestID: Int, edits: [StagedEdit], refusal: String?)
    /// The DAO panel's preview `previewID` was worked out: each statement's plan, and what
    /// preparing the table runs first (a write), or why it could not be.
    case daoPreviewed(previewID: Int, plans: [[String]], preparation: TablePreparation?, error: String?)
    /// A DAO method run by the DAO panel ended: the result lines; `wrote` is true when a
    /// write committed (so what shows the table is read again).
    case daoFinished(runID: Int, lines: [String], isError: Bool, wrote: Bool)
    /// An export (`GridExport`) has written `rows` rows so far (posted every few thousand).
    case exportProgress(exportID: Int, rows: Int)
    /// An export ended: written, refused because the file exists, cancelled or failed.
    case exportFinished(exportID: Int, outcome: GridExport.Outcome)
    /// The root or file asked for with `o` was opened (`catalog`, at the absolute `path`), or
    /// could not be (`error`).
    case catalogOpened(requestID: Int, path: String, catalog: BrowserCatalog?, error: String?)
    /// The recent files were written to the state folder, or could not be (`error`).
    case recentFilesSaved(error: String?)
    /// A mark is being taken: store `store`, the `index`th of `count`, is copied.
    case markProgress(requestID: Int, store: String, index: Int, count: Int)
    /// A mark was taken (`mark`), or could not be (`error`).
    case marked(requestID: Int, mark: ChangeMark?, error: String?)
}

/// A flag a background task checks to stop early.
package final class CancellationFlag: Sendable {
    private let cancelled = LockedState(false)
    /// A flag not set.
    package init() {}
    /// Sets the flag; from any thread.
    package func cancel() { cancelled.withLock { $0 = true } }
    /// True once `cancel()` was called.
    package var isCancelled: Bool { cancelled.withLock { $0 } }
}
