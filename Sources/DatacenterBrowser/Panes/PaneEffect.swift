import DatacenterKit

/// What a pane asks of the browser after handling a key or an event. Panes own their state;
/// focus, the status line, the command list and the other panes are the browser's, so a
/// pane says what it wants and `Browser` does it, in order.
enum PaneEffect {
    /// Move the keys to another pane.
    case focus(Browser.Focus)
    /// Say something in the status line (an error in the error colour).
    case message(String, isError: Bool)
    /// Clear the status line (for the progress of work it shows).
    case clearMessage
    /// Run work off the input loop; its result comes back as an event.
    case command(BrowserCommand)
    /// Show a leaf of the tree in the grid.
    case open(TreeNode)
    /// Show a grid made from the one shown (`I`'s statistics), remembering where the grid
    /// was for `Backspace`.
    case openDerived(TreeNode)
    /// Show `node`'s grid sorted and filtered as `view` says (Enter on a frequency table's
    /// value: the grid it counts, filtered to that value).
    case openFiltered(TreeNode, view: TableView)
    /// Show a leaf of the tree in the grid, the cursor on its column `column` (Enter on a
    /// column in the tree).
    case openAt(TreeNode, column: String)
    /// Show one value in full in the inspector.
    case inspect(Inspector)
    /// Ask for a line of text at the bottom of the screen.
    case prompt(PromptLine)
    /// Keep a change for review; it is written only on commit.
    case stage(StagedEdit)
    /// Write the staged edits (`ReviewPane.commit`, a command).
    case commit
    /// Work out the undo of the last commit, to stage it (`ReviewPane.prepareUndo`, `Z`).
    case undoLastCommit
    /// Take back the last edit staged (`u` in the grid), or stage again the last taken back
    /// (`Ctrl-R`): `ReviewPane.undo`, `redo`.
    case undoStaged, redoStaged
    /// Read the grid's table again, keeping the cursor where it was (after a write).
    case reloadGrid
    /// Show the grid's rows sorted and filtered as this view says (from the first row).
    case view(TableView)
    /// Close the pane that asked (the inspector, the DAO panel).
    case close
    /// Put `text` on the terminal's clipboard (`Browser.takeClipboard`); `what` names it in
    /// the status line ("copied 12 bytes: the cell").
    case copy(String, what: String)
    /// Put the grid's selected rows on the clipboard as JSON lines, decrypted: read off the
    /// input loop (`Browser.copySelectedRows`), as they need not all be on screen.
    case copySelectedRows
    /// Open the table `table` of the grid's store at the row whose `columns` hold `values`
    /// (a foreign key followed with `J`), remembering where the grid was for `Backspace`.
    case follow(table: String, columns: [String], values: [DatabaseValue])
    /// Go back to the grid a `follow`, a frequency table or `openDerived` left, at its row
    /// (`Backspace`).
    case jumpBack
    /// Show a grid made from the one shown (a frequency table `F`, a pivot `W`), remembering
    /// where the grid was for `Backspace`; Enter there does what `DerivedGrid` says.
    case derive(TreeNode, DerivedGrid)
    /// Show the help (`H`, or `?` where `?` does not search).
    case help
    /// Quit, asking first when edits are staged.
    case quit
    /// Quit now if no edit is staged (any more); otherwise stay (a failed commit keeps them).
    case finish
}

extension PaneEffect {
    /// What a pane answers a typed key it has no use for: the status line says so, and where
    /// the keys are listed, instead of nothing happening.
    static func unknownKey(_ key: Key, in pane: String) -> [PaneEffect] {
        guard case .character(let character) = key else { return [] }
        let name: String
        if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1, scalar.value < 0x20 {
            name = "Ctrl-" + String(Character(Unicode.Scalar(scalar.value + 0x40)!))
        } else {
            name = String(character)
        }
        return [.message("\(name) does nothing in the \(pane): H lists the keys", isError: false)]
    }
}
