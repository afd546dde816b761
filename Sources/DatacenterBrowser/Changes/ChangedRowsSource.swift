import DatacenterChanges
import DatacenterKit
import Foundation

/// The changes since the mark of one business, table or cache (Enter in `M`'s grid): a
/// line per entry or row added, removed or changed, its key, then each column's value at
/// the mark and now side by side, decrypted, the changed ones highlighted. Worked out by a
/// diff of that one table when the grid opens, and again when the store is written.
package final class ChangedRowsSource: HeldRowsSource {
    /// The most changes a grid holds (the first ones in key order).
    static let limit = 10_000

    package let title: String
    package let columns: [String]
    package let heldRows: RowsInMemory
    private let catalog: BrowserCatalog
    /// The live store's file, whose data version says when to read again.
    private let livePath: String?

    /// Diffs table `table` of store `store` between `mark` and `live`, keeping `section`'s
    /// changes.
    /// - throws: what opening either side throws.
    init(mark: String, live: String, store: String, table: String, section: ChangeSection, catalog: BrowserCatalog) throws {
        self.catalog = catalog
        let a = try ChangeSource.at(mark)
        let b = try ChangeSource.at(live, keys: catalog.keys, databaseKeys: catalog.databaseKeys, busyTimeout: catalog.busyTimeout)
        livePath = ChangeSource.pairs(a, b).first { $0.name == store }?.b?.path
        // Read before the diff: a write after it is then seen by the first look.
        dataVersionAtOpen = try? livePath.flatMap { try catalog.dataVersion(ofStoresAt: [$0]) }
        var diff = StoreDiff(keys: catalog.keys, databaseKeys: catalog.databaseKeys, busyTimeout: catalog.busyTimeout)
        diff.wholeRows = true
        let collector = Collector(section: section)
        try diff.run(a, b, store: store, table: table, into: collector)
        let changes = collector.changes
        // The key's columns, then the pair of each other column a change shows, in the
        // table's order (a KV entry's `options`, say, only when one changed).
        let keyColumns = changes.first?.key.map(\.column) ?? []
        let shown = Set(changes.flatMap { ($0.old + $0.new + $0.unchanged).map(\.column) })
        let dataColumns = (changes.first?.columns ?? []).filter(shown.contains)
        columns = ["change"] + keyColumns + dataColumns.flatMap { ["\($0) (mark)", "\($0) (now)"] }
        let name: String
        switch section {
        case .kv(let business): name = "KV \(business)"
        case .dao(let table), .table(let table): name = table
        case .cache(let cache): name = "cache \(cache)"
        }
        title = "changes of \(name) in \(store)" + (collector.cut ? " (the first \(Browser.grouped(Self.limit)))" : "")
        heldRows = RowsInMemory(changes.map { change in
            var cells = [Self.kindCell(change.kind)]
            let keys = Dictionary(change.key.map { ($0.column, $0.value) }, uniquingKeysWith: { first, _ in first })
            cells += keyColumns.map { keys[$0].map(ValueFormatter.cell) ?? GridCell(text: "", role: .null, typeName: "none") }
            let old = Dictionary(change.old.map { ($0.column, $0.value) }, uniquingKeysWith: { first, _ in first })
            let new = Dictionary(change.new.map { ($0.column, $0.value) }, uniquingKeysWith: { first, _ in first })
            let same = Dictionary(change.unchanged.map { ($0.column, $0.value) }, uniquingKeysWith: { first, _ in first })
            for column in dataColumns {
                let changed = change.kind == .changed && old[column] != nil
                cells.append(Self.cell(old[column] ?? same[column], changed: changed))
                cells.append(Self.cell(new[column] ?? same[column], changed: changed))
            }
            return cells
        })
    }

    /// Keeps one section's changes, up to `limit`.
    private final class Collector: ChangeSink {
        let section: ChangeSection
        var changes: [RowChange] = []
        var cut = false
        init(section: ChangeSection) { self.section = section }
        func beginStore(_ name: String, presence: StorePresence) {}
        func schemaChange(_ change: SchemaChange) {}
        func rowChange(_ change: RowChange) {
            guard change.kind.changesValue, change.section == section else { return }
            guard changes.count < ChangedRowsSource.limit else { cut = true; return }
            changes.append(change)
        }
        func endStore() {}
    }

    private static func kindCell(_ kind: RowChange.Kind) -> GridCell {
        let text: String
        switch kind {
        case .added: text = "+ added"
        case .removed: text = "- removed"
        default: text = "~ changed"
        }
        return GridCell(text: text, role: .marker, typeName: "change", content: .database(.text(text)))
    }

    /// A value as a cell, highlighted when `changed`; nil (the side where the row is not)
    /// an empty cell.
    static func cell(_ value: ShownValue?, changed: Bool) -> GridCell {
        guard let value else { return GridCell(text: "", role: .null, typeName: "none") }
        let cell: GridCell
        switch value {
        case .database(let v): cell = ValueFormatter.cell(v)
        case .decrypted(let v):
            let plain = ValueFormatter.cell(v)
            cell = GridCell(text: plain.text, role: .decrypted, typeName: plain.typeName, encryption: .decrypted, content: plain.content)
        case .kv(let v): cell = GridCell(text: ValueFormatter.cut(v.displayString), role: .grid, typeName: "kv", content: .kv(v))
        case .cache(let p): cell = GridCell(text: ValueFormatter.propertyListText(p), role: .grid, typeName: "cache", content: .propertyList(p))
        case .locked(let why): return GridCell(text: "[locked: \(why)]", role: .locked, typeName: "blob", encryption: .locked(why))
        }
        guard changed else { return cell }
        return GridCell(text: cell.text, role: .changed, typeName: cell.typeName, encryption: cell.encryption, content: cell.content,
                        storedBytes: cell.storedBytes)
    }

    package func position(of row: GridRow) -> String { "change \((row.key.first?.int64Value ?? 0) + 1)" }
    package let dataVersionAtOpen: Int64?
    package func dataVersion() throws -> Int64? { try livePath.flatMap { try catalog.dataVersion(ofStoresAt: [$0]) } }
}
