import DatacenterKit

extension GridPane {
    /// Marks the rows of this grid — the same node read again (live refresh, `r`, a commit)
    /// — that differ from what `old` showed: a row whose cells' text changed, or a row that
    /// is new among the rows shown before. They are drawn in the `changed` role, with those
    /// `old` marked, until the user's next key in the grid (`clearChangeMarks`): changes
    /// that come one after another, seconds apart, stay marked until they were looked at.
    /// Returns how many rows are marked.
    ///
    /// A row is new when its key was not among `old`'s rows and it stands between two rows
    /// that were, or anywhere when `old` held every row of the source (its count says so): a
    /// row beyond the rows on hand cannot be told from one that was simply not read yet, so
    /// it is not marked. Deleted rows are gone, and so cannot be marked.
    @discardableResult
    mutating func markChanges(since old: GridPane) -> Int {
        var shown: [[DatabaseValue]: [String]] = [:]
        for row in old.rows where shown[row.key] == nil { shown[row.key] = row.cells.map(\.text) }
        let heldEverything = old.total.map { $0 <= old.rows.count } ?? false
        let known = rows.indices.filter { shown[rows[$0].key] != nil }
        var marked: Set<[DatabaseValue]> = []
        for (index, row) in rows.enumerated() {
            if let before = shown[row.key] {
                if before != row.cells.map(\.text) { marked.insert(row.key) }
            } else if heldEverything || (known.first.map { $0 < index } ?? false && known.last.map { index < $0 } ?? false) {
                marked.insert(row.key)
            }
        }
        changedKeys = old.changedKeys.union(marked)
        return changedKeys.count
    }
}
