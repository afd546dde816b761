import DatacenterKit

extension GridPane {
    /// `E`: asks for the file to export the rows shown to (their filter and sort), or says
    /// why they cannot be: only tables and views are exported, and a table with encrypted
    /// columns only when keys were given to decrypt them (nothing is exported as ciphertext).
    func exportEffect(context: PaneContext) -> PaneEffect {
        guard let table = source as? TableSource else {
            return .message("E exports tables and views; \(source.title) is neither (open its table under Tables, or use the console)", isError: true)
        }
        if table.sortsInMemory, let column = table.view.sort?.column {
            return .message("\(table.table) is sorted by \(column), which is encrypted: SQLite cannot export in that order "
                            + "(sort by another column, or press the sort key again to clear it)", isError: true)
        }
        if !table.encryptedColumns.isEmpty, context.catalog.keys.isEmpty {
            return .message("\(table.table) has encrypted columns (\(table.encryptedColumns.sorted().joined(separator: ", "))): "
                            + "pass --key to export them decrypted", isError: true)
        }
        return .prompt(PromptLine(label: "export \(table.table) to (.csv .jsonl .sql): ", text: table.table + ".csv", purpose: .export))
    }
}
