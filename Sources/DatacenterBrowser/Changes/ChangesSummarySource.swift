import DatacenterChanges
import DatacenterKit
import Foundation

/// The grid `M` opens: every store, KV business, table and cache that changed since the
/// mark, with how many entries or rows were added, removed and changed (by value: a value
/// encrypted anew or only touched is no change), read with one diff of the whole root when
/// the grid opens and again whenever a store is written (`dataVersion`). Enter on a line
/// opens its changes (`ChangedRowsSource`).
package final class ChangesSummarySource: HeldRowsSource {
    /// One line: a store's schema, a store on one side only, or one business, table or cache.
    package struct Entry: Sendable {
        /// The store's name in the snapshot (`common.sqlite`).
        package let store: String
        /// The section, for a line of rows; nil for a schema or store line.
        package let section: ChangeSection?
        /// The table its rows are in (empty for a schema or store line).
        package let table: String
        package var added = 0, removed = 0, changed = 0
    }

    package let title: String
    package let columns = ["store", "where", "name", "added", "removed", "changed"]
    /// The lines, in the diff's order.
    package let entries: [Entry]
    /// The mark's snapshot folder and the root or file compared with it.
    package let mark: String, live: String
    package let heldRows: RowsInMemory
    private let catalog: BrowserCatalog
    /// The live stores' files, whose data versions say when to read again.
    private let livePaths: [String]

    /// Diffs `mark` with `live` (keys from `catalog`).
    /// - throws: what opening either side throws.
    init(mark: String, live: String, catalog: BrowserCatalog) throws {
        self.mark = mark
        self.live = live
        self.catalog = catalog
        let a = try ChangeSource.at(mark)
        let b = try ChangeSource.at(live, keys: catalog.keys, databaseKeys: catalog.databaseKeys, busyTimeout: catalog.busyTimeout)
        livePaths = b.stores.map(\.path)
        // Read before the diff: a write after it is then seen by the first look.
        dataVersionAtOpen = try? catalog.dataVersion(ofStoresAt: livePaths)
        let counter = Counter()
        try StoreDiff(keys: catalog.keys, databaseKeys: catalog.databaseKeys, busyTimeout: catalog.busyTimeout).run(a, b, into: counter)
        entries = counter.entries
        let taken = a.manifest.map { Self.time.string(from: $0.created) } ?? "?"
        title = "changes since the mark of \(taken)"
        heldRows = RowsInMemory(entries.map(Self.cells))
    }

    /// The line at `row`'s place.
    package func entry(of row: GridRow) -> Entry? {
        guard let index = row.key.first?.int64Value.map(Int.init), entries.indices.contains(index) else { return nil }
        return entries[index]
    }

    /// Counts the diff's changes, line by line.
    private final class Counter: ChangeSink {
        var entries: [Entry] = []
        var store = ""
        var schema: Entry?

        func beginStore(_ name: String, presence: StorePresence) {
            store = name
            schema = nil
            switch presence {
            case .both: break
            case .onlyInA: entries.append(Entry(store: name, section: nil, table: "", removed: 1))
            case .onlyInB: entries.append(Entry(store: name, section: nil, table: "", added: 1))
            }
        }

        func schemaChange(_ change: SchemaChange) {
            if schema == nil { schema = Entry(store: store, section: nil, table: "schema") }
            switch change.kind {
            case .added: schema?.added += 1
            case .removed: schema?.removed += 1
            case .changed: schema?.changed += 1
            }
        }

        func rowChange(_ change: RowChange) {
            guard change.kind.changesValue else { return }
            if let schema { entries.append(schema); self.schema = nil }
            if entries.last?.store != store || entries.last?.section != change.section {
                entries.append(Entry(store: store, section: change.section, table: change.table))
            }
            switch change.kind {
            case .added: entries[entries.count - 1].added += 1
            case .removed: entries[entries.count - 1].removed += 1
            default: entries[entries.count - 1].changed += 1
            }
        }

        func endStore() {
            if let schema { entries.append(schema); self.schema = nil }
        }
    }

    private static func cells(_ entry: Entry) -> [GridCell] {
        let (place, name): (String, String)
        switch entry.section {
        case .kv(let business): (place, name) = ("kv", business)
        case .dao(let table): (place, name) = ("DAO table", table)
        case .cache(let cache): (place, name) = ("cache", cache)
        case .table(let table): (place, name) = ("table", table)
        case nil: (place, name) = entry.table == "schema" ? ("schema", "") : ("store", entry.added > 0 ? "only now" : "gone since")
        }
        func count(_ n: Int) -> GridCell {
            GridCell(text: n == 0 ? "" : String(n), role: n == 0 ? .null : .changed, typeName: "integer", content: .database(.integer(Int64(n))))
        }
        return [ValueFormatter.cell(.text(entry.store)), ValueFormatter.cell(.text(place)), ValueFormatter.cell(.text(name)),
                count(entry.added), count(entry.removed), count(entry.changed)]
    }

    static let time: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter
    }()

    package func position(of row: GridRow) -> String { "line \((row.key.first?.int64Value ?? 0) + 1)" }
    package let dataVersionAtOpen: Int64?
    package func dataVersion() throws -> Int64? { try catalog.dataVersion(ofStoresAt: livePaths) }
}
