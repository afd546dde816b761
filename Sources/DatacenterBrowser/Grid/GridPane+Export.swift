import DatacenterKit

extension GridPane {
    /// The export key.
    static let exportCommands: [KeyCommand<GridPane>] = [
        KeyCommand([.character("E")], "E", "export the rows shown, or selected: csv jsonl sql") { grid, _, context in
            [grid.exportEffect(context: context)]
        },
    ]

    /// `E`: asks for the file to export the rows shown to (their filter and sort), or says
    /// why they cannot be: tables, views and console results are exported, and encrypted
    /// columns only when keys were given to decrypt them (nothing is exported as ciphertext).
    func exportEffect(context: PaneContext) -> PaneEffect {
        if let refusal = exportRefusal(context: context) { return refusal }
        let name = GridExportSubject(source)?.table ?? source.title
        return .prompt(PromptLine(label: "export \(name) to (.csv .jsonl .sql): ", text: name + ".csv", purpose: .export))
    }

    /// `Y` with rows selected: copies them, or says why they cannot be read (as `E` would).
    func copySelectedEffect(context: PaneContext) -> PaneEffect {
        exportRefusal(context: context) ?? .copySelectedRows
    }

    /// Why the grid's rows cannot be read for an export or a copy; nil when they can.
    private func exportRefusal(context: PaneContext) -> PaneEffect? {
        guard let subject = GridExportSubject(source) else {
            return .message("E exports tables, views and console results; \(source.title) is none of them "
                            + "(open its table under Tables, or use the console)", isError: true)
        }
        if let table = source as? TableSource, table.sortsInMemory, let column = table.view.sort?.column {
            return .message("\(table.table) is sorted by \(column), which is encrypted: SQLite cannot export in that order "
                            + "(sort by another column, or press the sort key again to clear it)", isError: true)
        }
        if !subject.encryptedColumns.isEmpty, context.catalog.keys.isEmpty {
            return .message("\(subject.table) has encrypted columns (\(subject.encryptedColumns.joined(separator: ", "))): "
                            + "pass --key to export them decrypted", isError: true)
        }
        return nil
    }
}
