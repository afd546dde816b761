import DatacenterKit

/// The grid's lifecycle (`GridLifecycle`): asking for a grid off the input loop, taking the
/// answer that is still wanted, reading it again after a write or a change on disk, and
/// following foreign keys there and back.
extension Browser {
    /// Asks for the grid of `node` (`BrowserCommand.openGrid`, reading `page`); an answer
    /// to an earlier opening is dropped from now on.
    func startOpening(_ node: TreeNode, page: PageRequest, isReload: Bool, view: TableView,
                              leaving: GridLifecycle.JumpPlace? = nil, place: GridLifecycle.JumpPlace? = nil) {
        let id = ids.next()
        opening?.cancel.cancel()            // its answer would be dropped: stop its work too
        let cancel = CancellationFlag()
        opening = GridLifecycle.GridOpening(id: id, node: node, page: page, isReload: isReload, view: view, focus: focus, leaving: leaving, place: place,
                              cancel: cancel)
        commands.append(.openGrid(requestID: id, node: node, catalog: catalog, page: page, view: view, cancel: cancel))
    }

    /// The grid asked for came (or could not be read). A grid opened shows with focus,
    /// unless another pane took the keys while it was read (the DAO panel opened with `d`,
    /// the console): that pane stays, with the grid beside it. A grid read again takes the
    /// place of the one shown, leaving focus and the other panes as they are. Either asks for its row count, and for more rows if the screen grew
    /// taller than the rows asked for.
    func gridOpened(id: Int, node: TreeNode, source: GridSource?, rows: [GridRow], error: String?) {
        guard let request = opening, request.id == id else { return }
        opening = nil
        if let error {
            message = (request.isReload ? "cannot read \(node.label) again: \(error)" : "cannot open \(node.label): \(error)", true)
            return
        }
        guard let source else { return }
        var (fresh, count) = GridPane.opened(node, source: source, rows: rows, context: context)
        fresh.derived = lifecycle.derived(node, source: source)
        if request.isReload, let old = grid, old.node.id == node.id {
            fresh.keepPlace(of: old, page: visibleRowCount)
            let marked = fresh.markChanges(since: old)
            if marked > 0, message?.isError != true {
                // The count is of every row marked: it replaces the one a reading before gave.
                let said = (message?.text ?? "\(source.title) read again")
                    .replacingOccurrences(of: #" · \d+ changed rows? marked$"#, with: "", options: .regularExpression)
                message = (said + " · \(marked) changed row\(marked == 1 ? "" : "s") marked", false)
            }
            old.search?.cancel.cancel()         // it was scanning the rows replaced here
            if focus == .inspector { focus = .grid }
            inspector = nil
        } else {
            fresh.lastQuery = grid?.lastQuery
            if let old = grid, old.node.id == node.id {
                // The same grid sorted or filtered anew: the cursor stays on its column.
                fresh.keepColumns(of: old)
            }
            if focus == request.focus {
                daoPanel = nil
                inspector = nil
                focus = .grid
            }
        }
        if let leaving = request.leaving { lifecycle.jumpStack.append(leaving) }
        if let place = request.place { fresh.move(to: place.row, column: place.column, visibleRows: visibleRowCount) }
        if let name = request.column, let index = source.columns.firstIndex(of: name) { fresh.goToColumn(index) }
        grid = fresh
        commands.append(count)
        if rows.count >= request.page.limit { refillGrid() }
    }

    /// Shows the rows of a console SELECT in the grid, with the keys: it takes the place of
    /// the grid shown and of any grid still being opened, and asks for its count and for
    /// rows to fill the screen as an opened grid does.
    func showConsoleGrid(node: TreeNode, source: GridSource, rows: [GridRow]) {
        opening = nil
        grid?.search?.cancel.cancel()
        var (fresh, count) = GridPane.opened(node, source: source, rows: rows, context: context)
        fresh.derived = lifecycle.derived(node, source: source)
        fresh.lastQuery = grid?.lastQuery
        grid = fresh
        inspector = nil
        daoPanel = nil
        focus = .grid
        commands.append(count)
        if rows.count >= visibleRowCount * 2 { refillGrid() }
    }

    /// Keeps the grid's cursor on screen and asks for rows to fill it (`GridPane.refill`).
    func refillGrid() {
        apply(grid?.refill(context: context) ?? [])
    }

    /// Asks whether another connection wrote to the shown grid's file since it was last
    /// looked at (`BrowserCommand.dataVersion`); the terminal loop calls this about once a
    /// second. One question at a time, and none while a grid is being read.
    package func pollForChanges() {
        if let rootPath = catalog.rootPath, !lifecycle.rootPollPending, catalogSwitch.opening == nil {
            lifecycle.rootPollPending = true
            commands.append(.rootCurrentUser(rootPath: rootPath))
        }
        guard let shown = grid, opening == nil, !lifecycle.pollPending else { return }
        lifecycle.pollPending = true
        commands.append(.dataVersion(gridID: shown.id, source: shown.source))
    }

    /// The answer to `pollForChanges`: a version other than the one seen before means the
    /// file changed, and the grid is read again where the cursor is (`reloadGrid`), with
    /// its count.
    func dataVersionRead(gridID: Int, version: Int64?) {
        lifecycle.pollPending = false
        let ownCommit = lifecycle.ownCommit
        lifecycle.ownCommit = false
        guard var shown = grid, shown.id == gridID, let version else { return }
        let seen = shown.dataVersion
        shown.dataVersion = version
        grid = shown
        guard let seen, seen != version, opening == nil else { return }
        reloadGrid()
        if !ownCommit { message = ("\(shown.source.title) changed on disk: read again", false) }
    }

    /// Reads the grid's table again after a write (`openGrid`, the rows around the cursor),
    /// keeping the cursor on its row, the column and the focus when the rows come
    /// (`GridPane.keepPlace`). Until then the grid shown stays, and keys go on.
    ///
    /// A grid still being opened is asked for again instead, so that it shows the write too.
    func reloadGrid() {
        if let request = opening, !request.isReload {
            startOpening(request.node, page: request.page, isReload: false, view: request.view)
            return
        }
        guard let old = grid else { return }
        let page = visibleRowCount
        let request: PageRequest = old.rows.indices.contains(old.cursor)
            ? .around(old.rows[old.cursor], before: page, limit: page * 3)
            : .first(limit: page * 2)
        startOpening(old.node, page: request, isReload: true, view: old.source.view)
    }

    /// Opens the first leaf whose label is `name` (a table, KV business or cache), as
    /// `browse --table` asks, off the input loop like Enter on it (`openGrid`): the grid
    /// shows when its rows are in. Reports in the status line when there is none.
    package func openNode(named name: String) {
        guard let node = tree.select(leafNamed: name) else {
            message = ("no table, business or cache named \(name)", true)
            return
        }
        apply([.open(node)])
    }

    /// Opens the table `table` of the grid's store at the row whose `columns` hold `values`
    /// (`J` on a foreign key column), off the input loop like any grid; once it is open, the
    /// grid left is remembered for `Backspace`. A table the tree does not list says so.
    func follow(table: String, columns: [String], values: [DatabaseValue]) {
        guard let shown = grid, let path = shown.node.storePath else { return }
        guard let target = BrowserTreeSearch.leaf(table: table, store: path, in: catalog.roots) else {
            message = ("\(table) is not a table of \(catalog.storeName(for: path)) the browser lists", true)
            return
        }
        startOpening(target, page: .matching(columns: columns, values: values, limit: visibleRowCount * 2), isReload: false,
                     view: TableView(), leaving: grid?.place)
    }

    /// Goes back to the grid the last `J`, `F` or `I` left, at its row and column (`Backspace`).
    func jumpBack() {
        guard let place = lifecycle.jumpStack.popLast() else {
            message = ("nothing to go back to: Backspace returns to the grid J, F or I left", false)
            return
        }
        let page = visibleRowCount
        let request: PageRequest = place.row.map { .around($0, before: page / 2, limit: page * 3) } ?? .first(limit: page * 2)
        startOpening(place.node, page: request, isReload: false, view: place.view, place: place)
    }

    /// Opens a grid made from the one shown (`F`, `W`), off the input loop like any grid;
    /// Enter there does what `derived` says, and `Backspace` comes back to the grid shown.
    func openDerived(_ node: TreeNode, _ derived: DerivedGrid) {
        lifecycle.derivedGrids[node.id] = derived
        startOpening(node, page: .first(limit: visibleRowCount * 2), isReload: false, view: TableView(), leaving: grid?.place)
    }

}
