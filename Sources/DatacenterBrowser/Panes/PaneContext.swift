import DatacenterKit
import Foundation

/// What a pane may read of the browser while it handles a key or an event: the catalog it
/// browses, the size of the panes, and where fresh ids come from.
struct PaneContext {
    /// What the browser browses.
    let catalog: BrowserCatalog
    /// Lines between the header and the status line.
    let bodyHeight: Int
    /// Columns of the right-hand pane (grid, inspector, console, DAO panel, review).
    let paneWidth: Int
    /// Where fresh ids for commands come from.
    let ids: IDCounter
    /// True when a grid is open (Tab from the tree has somewhere to go).
    var hasGrid = false
    /// The new values of the cells staged updates change, by cell (the last staged wins).
    var stagedValues: [StagedMark: StagedValue] = [:]
    /// Where the browser keeps what it remembers (`StateFolder`): writes keep their undo there.
    var stateFolder: URL?

    /// Rows of data the grid shows (below its column header).
    var visibleRowCount: Int { max(1, bodyHeight - 1) }
}

/// Hands out ids for grids, searches, console queries and DAO runs, one sequence for all, so
/// an event of work that was dropped can never be taken for the current work's.
final class IDCounter {
    private var last = 0
    /// The next id (from 1).
    func next() -> Int {
        last += 1
        return last
    }
}

/// Where a pane draws: a rectangle of the screen.
struct PaneArea {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
}
