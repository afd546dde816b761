import DatacenterKit

/// Finds the leaf of a table in the browser's tree, for a foreign key to lead to.
enum BrowserTreeSearch {
    /// The leaf of `table` (a table or a DAO table, its name compared as SQLite does,
    /// ignoring ASCII case) in the store at `store`, or nil.
    static func leaf(table: String, store: String, in nodes: [TreeNode]) -> TreeNode? {
        for node in nodes {
            switch node.kind {
            case let .table(path, name) where path == store && name.lowercased() == table.lowercased(): return node
            case let .daoTable(path, name, _, _, _) where path == store && name.lowercased() == table.lowercased(): return node
            default: if let found = leaf(table: table, store: store, in: node.children) { return found }
            }
        }
        return nil
    }
}
