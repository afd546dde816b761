import DatacenterDAO
import DatacenterKit
import Foundation

/// The DAO panel's query-plan request: what its preview needs from SQLite, as work for the
/// command runner. The plan of each rendered statement (`EXPLAIN QUERY PLAN`) and, for a
/// write, what preparing the table would run first (`TablePreparation`). It reads on the
/// catalog's read-only store connection (its queue serializes it with the other reads
/// there). The result comes back as `BrowserEvent.daoPreviewed`.
package struct DAOQueryPlanRequest: Sendable {
    /// The preview's id: its result carries it.
    let id: Int
    let catalog: BrowserCatalog
    let storePath: String
    /// The statements shown, in order.
    let statements: [RenderedSQL]
    /// The config and table whose preparation to work out (a write), or nil (a select).
    let preparation: (config: DAOConfig, table: String)?

    /// Reads the plans and the preparation, and returns `daoPreviewed`.
    func perform() -> BrowserEvent {
        do {
            let store = try catalog.store(at: storePath)
            let plans: [[String]] = statements.map { statement in
                (try? store.queue.read { db in
                    try db.makeStatement("EXPLAIN QUERY PLAN " + statement.sql).fetchAll(StatementArguments(statement.bindings))
                        .compactMap { $0["detail"]?.stringValue }
                }) ?? ["(no plan: the table or a column does not exist yet)"]
            }
            let prepared = try preparation.map { write in
                try store.queue.read { db in try TablePreparation.plan(config: write.config, table: write.table, in: db) }
            }
            return .daoPreviewed(previewID: id, plans: plans, preparation: prepared, error: nil)
        } catch {
            return .daoPreviewed(previewID: id, plans: [], preparation: nil, error: "\(error)")
        }
    }
}
