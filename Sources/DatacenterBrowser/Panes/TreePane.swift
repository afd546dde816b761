import DatacenterKit

/// The tree on the left: stores, their groups (KV businesses, DAO tables, LRU caches,
/// tables) and the leaves that open a grid. Its keys move, open and close nodes; Enter on a
/// leaf asks the browser to open it.
struct TreePane {
    /// The top-level nodes (the catalog's).
    let roots: [TreeNode]
    /// The ids of the open nodes.
    var expanded: Set<String>
    /// Index of the selected node in `visibleTree`.
    var cursor = 0
    /// Index of the first node on screen.
    var top = 0

    /// A tree over `roots`, stores and their groups open, so everything is one keystroke away.
    init(roots: [TreeNode]) {
        self.roots = roots
        var open: Set<String> = []
        for store in roots {
            open.insert(store.id)
            for group in store.children { open.insert(group.id) }
        }
        expanded = open
    }

    /// This tree over `roots` (the same root read again): the nodes open here stay open,
    /// nodes new to the tree open as a new tree's do, and the cursor stays on the node it
    /// was on when that node is still there.
    func rebuilt(over roots: [TreeNode]) -> TreePane {
        var fresh = TreePane(roots: roots)
        let known = Set(allNodeIDs)
        fresh.expanded = expanded.union(fresh.expanded.subtracting(known))
        let nodes = fresh.visibleTree
        if let selected = selectedNode?.id, let index = nodes.firstIndex(where: { $0.node.id == selected }) {
            fresh.cursor = index
        } else {
            fresh.cursor = min(cursor, max(0, nodes.count - 1))
        }
        fresh.top = min(top, fresh.cursor)
        return fresh
    }

    /// The ids of every node, open or not.
    private var allNodeIDs: [String] {
        var out: [String] = []
        func walk(_ nodes: [TreeNode]) { for node in nodes { out.append(node.id); walk(node.children) } }
        walk(roots)
        return out
    }

    /// The tree as displayed: nodes with their depth, children of open nodes included.
    var visibleTree: [(node: TreeNode, depth: Int)] {
        var out: [(TreeNode, Int)] = []
        func walk(_ nodes: [TreeNode], _ depth: Int) {
            for node in nodes {
                out.append((node, depth))
                if expanded.contains(node.id) { walk(node.children, depth + 1) }
            }
        }
        walk(roots, 0)
        return out
    }

    /// The selected node, if any.
    var selectedNode: TreeNode? {
        let nodes = visibleTree
        return nodes.indices.contains(cursor) ? nodes[cursor].node : nil
    }

    /// One key, on a tree `context.bodyHeight` lines tall (`TreePane.keys` says what each
    /// does); a key the tree does not take says so.
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect] {
        let count = visibleTree.count
        guard count > 0 else { return key == .character("q") ? [.quit] : [] }
        cursor = min(cursor, count - 1)
        let effects = TreePane.keys.run(key, on: &self, context: context) ?? PaneEffect.unknownKey(key, in: "tree")
        scrollToCursor(height: context.bodyHeight)
        return effects
    }

    /// The tree's keys.
    static let keys = KeyMap<TreePane>("Tree", [
        KeyCommand([.up, .character("k"), .down, .character("j")], "↑ ↓ k j", "move", hint: "↑↓ move") { tree, key, _ in
            tree.cursor = key == .up || key == .character("k") ? max(0, tree.cursor - 1) : min(tree.visibleTree.count - 1, tree.cursor + 1)
            return []
        },
        KeyCommand([.pageUp, .pageDown], "PgUp PgDn", "page") { tree, key, context in
            let height = context.bodyHeight
            tree.cursor = key == .pageUp ? max(0, tree.cursor - height) : min(tree.visibleTree.count - 1, tree.cursor + height)
            return []
        },
        KeyCommand([.home, .character("g"), .end, .character("G")], "g G Home End", "first / last") { tree, key, _ in
            tree.cursor = key == .home || key == .character("g") ? 0 : tree.visibleTree.count - 1
            return []
        },
        KeyCommand([.enter], "Enter", "open a business, table or cache; on a column, its table on it", hint: "Enter open") { tree, _, _ in
            // A table opens (its columns stay as they are); a column opens its table on it.
            let nodes = tree.visibleTree
            let node = nodes[tree.cursor].node
            if node.isLeaf { return [.open(node)] }
            if case .column = node.kind { return tree.openTable(of: tree.cursor, in: nodes) }
            tree.expanded.insert(node.id)
            return []
        },
        KeyCommand([.right, .character("l"), .left, .character("h")], "→ ← l h",
                   "open / close a node, a table's columns") { tree, key, _ in
            key == .right || key == .character("l") ? tree.stepIn() : tree.stepOut()
        },
        KeyCommand([.tab, .escape], "Tab Esc", "to the grid", hint: "Tab grid") { _, _, context in
            context.hasGrid ? [.focus(.grid)] : []
        },
        .help,
        KeyCommand([.character("q")], "q", "quit: asks first if edits are staged", hint: "q quit") { _, _, _ in [.quit] },
    ])

    /// → : into the tree first: a node with children (a table's are its columns) opens, then
    /// → goes to its first child; a leaf without children opens its grid.
    private mutating func stepIn() -> [PaneEffect] {
        let nodes = visibleTree
        let node = nodes[cursor].node
        if !node.children.isEmpty, !expanded.contains(node.id) { expanded.insert(node.id) }
        else if !node.children.isEmpty { if cursor + 1 < nodes.count { cursor += 1 } }
        else if node.isLeaf { return [.open(node)] }
        else if case .column = node.kind { return openTable(of: cursor, in: nodes) }
        return []
    }

    /// ← : closes an open node, else goes to its parent.
    private mutating func stepOut() -> [PaneEffect] {
        let nodes = visibleTree
        let node = nodes[cursor].node
        if !node.children.isEmpty, expanded.contains(node.id) { expanded.remove(node.id) }
        else if let parent = nodes[..<cursor].lastIndex(where: { $0.depth < nodes[cursor].depth }) { cursor = parent }
        return []
    }

    /// The grid of the table column `index` of `nodes` belongs to, on that column.
    private func openTable(of index: Int, in nodes: [(node: TreeNode, depth: Int)]) -> [PaneEffect] {
        guard case let .column(_, _, name) = nodes[index].node.kind,
              let parent = nodes[..<index].last(where: { $0.depth < nodes[index].depth })?.node else { return [] }
        return [.openAt(parent, column: name)]
    }

    /// A click on line `line` of the tree (0: its first line): selects the node there, opens
    /// a leaf (a column: its table, on it), and opens or closes a node with children.
    mutating func click(line: Int) -> [PaneEffect] {
        let index = top + line
        let nodes = visibleTree
        guard nodes.indices.contains(index) else { return [] }
        cursor = index
        let node = nodes[index].node
        if node.isLeaf { return [.focus(.tree), .open(node)] }
        if case .column = node.kind { return [.focus(.tree)] + openTable(of: index, in: nodes) }
        if expanded.contains(node.id) { expanded.remove(node.id) } else { expanded.insert(node.id) }
        return [.focus(.tree)]
    }

    /// Scrolls the least that shows the cursor on a tree `height` lines tall, and no further
    /// down than needed to fill it: after the window grows (or nodes close) no blank lines
    /// are left below while lines above are hidden.
    mutating func scrollToCursor(height: Int) {
        if cursor < top { top = cursor }
        if cursor >= top + height { top = cursor - height + 1 }
        top = max(0, min(top, visibleTree.count - height))
    }

    /// Selects the first leaf labelled `name`, opening its ancestors; nil when there is none.
    mutating func select(leafNamed name: String) -> TreeNode? {
        func find(_ nodes: [TreeNode], _ path: [String]) -> (TreeNode, [String])? {
            for node in nodes {
                if node.isLeaf, node.label == name { return (node, path) }
                if let found = find(node.children, path + [node.id]) { return found }
            }
            return nil
        }
        guard let (node, ancestors) = find(roots, []) else { return nil }
        expanded.formUnion(ancestors)
        if let index = visibleTree.firstIndex(where: { $0.node.id == node.id }) { cursor = index }
        return node
    }

    /// The store file enclosing the node at `index` of `visibleTree` (the cursor's when nil),
    /// or nil when the tree is empty.
    func storePath(around index: Int? = nil) -> String? {
        let nodes = visibleTree
        guard !nodes.isEmpty else { return nil }
        var index = min(index ?? cursor, nodes.count - 1)
        while index >= 0 {
            if case .store(let path) = nodes[index].node.kind { return path }
            index -= 1
        }
        return nil
    }

    /// Draws the tree in `area`; the selected node stands out more when the tree has focus.
    func draw(into screen: inout ScreenGrid, area: PaneArea, focused: Bool) {
        let nodes = visibleTree
        for line in 0..<area.height {
            let index = top + line
            let y = area.y + line
            guard nodes.indices.contains(index) else { screen.fill(x: area.x, y: y, count: area.width, role: .tree); continue }
            let (node, depth) = nodes[index]
            let selected = index == cursor
            let role: StyleRole = selected ? (focused ? .treeSelected : .gridSelected) : .tree
            screen.fill(x: area.x, y: y, count: area.width, role: role)
            // ▸ ▾ before what holds nodes: a store or group (even empty), a table listing its columns.
            let holdsNodes: Bool
            switch node.kind {
            case .store, .group: holdsNodes = true
            default: holdsNodes = !node.children.isEmpty
            }
            let marker = holdsNodes ? (expanded.contains(node.id) ? "▾ " : "▸ ") : "  "
            let indent = String(repeating: " ", count: depth * 2)
            let used = screen.write(indent + marker + node.label, x: area.x, y: y, maxWidth: area.width, role: role)
            if !node.detail.isEmpty, used + 2 < area.width {
                screen.write(" " + node.detail, x: area.x + used, y: y, maxWidth: area.width - used, role: selected ? role : .null)
            }
        }
    }
}

extension TreePane: Pane {
    static var keyMaps: [KeyMap<TreePane>] { [keys] }
    var keyMap: KeyMap<TreePane> { TreePane.keys }
}
