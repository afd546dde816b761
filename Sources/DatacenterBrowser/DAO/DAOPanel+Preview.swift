import DatacenterDAO
import DatacenterKit

/// The DAO form's SQL preview: the method rendered with the form's values, each statement's
/// SQL, bindings (an encrypted one as `<encrypted: N bytes>`), inlined form and query plan,
/// and for a write what preparing the table runs first, refreshed as the fields change.
extension DAOPanel {
    /// What one rendered statement looks like before it runs.
    struct StatementPreview {
        /// The part of the method (`try step, element 1`), nil for a call of one statement.
        let heading: String?
        /// The SQL as it will run, with `?` placeholders.
        let sql: String
        /// The bindings as SQL literals; an encrypted one as `<encrypted: N bytes>`.
        let bindings: String
        /// The SQL with the bindings written in, to read or copy.
        let inlined: String
        /// The `EXPLAIN QUERY PLAN` lines, once the preview has them.
        var plan: [String]
    }

    /// Renders the method with the form's values, works out for a write whether its crypt
    /// columns get ciphertext, and returns what SQLite must say (each statement's plan, what
    /// preparing the table runs first) as work for the runner, numbered `id`; its answer comes
    /// through `previewed`. Nothing renders while a field does not parse.
    mutating func refreshPreview(catalog: BrowserCatalog, id: Int) -> DAOQueryPlanRequest? {
        guard let method else { return nil }
        previews = []
        preparation = nil
        cryptRefusal = nil
        skipped = false
        renderError = nil
        previewing = nil
        runWhenPreviewed = false
        guard let values else { return nil }
        do {
            let call = try config.render(method.id, arguments: values, globals: [:], tableName: table)
            skipped = !call.statements.isEmpty && call.statements.allSatisfy(\.skipped)
            let shown = call.parts.filter { !$0.statement.skipped }
            previews = shown.map { part in
                StatementPreview(heading: call.isSingleStatement ? nil : part.heading(inForEach: call.isForEach),
                                 sql: part.statement.sql, bindings: DAOPanel.bindings(of: part.statement, crypt: catalog.keys),
                                 inlined: part.statement.preview, plan: ["…"])
            }
            if method.kind != .select {
                cryptRefusal = DAOPanel.cryptRefusal(call, fields: fields, values: values, config: config,
                                                     encryptedColumns: encryptedColumns, hasKey: !catalog.keys.isEmpty)
            }
            previewing = id
            // The input is valid now: a refusal of earlier input no longer applies (a run's
            // own error stays: it is about what ran).
            if let refused = inputRefusal, resultLines == refused, !fields.contains(where: { $0.isRequired && $0.isNil }) {
                resultLines = []
                resultIsError = false
                inputRefusal = nil
            }
            return DAOQueryPlanRequest(id: id, catalog: catalog, storePath: storePath, statements: shown.map(\.statement),
                              preparation: method.kind == .select ? nil : (config, table))
        } catch {
            renderError = "\(error)"
            return nil
        }
    }

    /// SQLite's part of the preview `id`: the plans and the preparation; an error shows as
    /// the render error. An answer for an older preview is dropped. A write Enter asked for
    /// meanwhile goes on to its confirmation now (or to the reason it is refused).
    mutating func previewed(id: Int, plans: [[String]], preparation: TablePreparation?, error: String?, catalog: BrowserCatalog) {
        guard previewing == id else { return }
        previewing = nil
        if let error {
            renderError = error
        } else {
            for (index, plan) in plans.enumerated() where previews.indices.contains(index) { previews[index].plan = plan }
            self.preparation = preparation
        }
        if runWhenPreviewed {
            runWhenPreviewed = false
            _ = run(catalog: catalog, id: 0)          // a write: confirms or refuses, runs nothing
        }
    }
}
