import DatacenterKit

/// Builds the `{}` dictionaries of a statement's rows from a template made once per
/// statement: a dictionary already holding the column names as keys, copied and filled in
/// by position, so a row costs a copy instead of hashing every column name.
///
/// The template is kept as the statement's `attachment` (a statement is used by one thread
/// at a time, so this needs no lock) and made again when SQLite has prepared the statement
/// again (its columns may have changed).
enum RowDictionaryTemplates {
    private final class Template {
        let generation: Int32
        let empty: [String: DAOValue]
        /// The slot of each column in `empty` (a later duplicate column name shares the slot,
        /// so its value wins, as when the dictionary is built by inserting in order).
        let slots: [Dictionary<String, DAOValue>.Index]

        init(statement: Statement, generation: Int32) {
            let names = statement.columnNames
            var empty: [String: DAOValue] = Dictionary(minimumCapacity: names.count)
            for name in names { empty[name] = .nil }
            self.generation = generation
            self.empty = empty
            self.slots = names.map { empty.index(forKey: $0)! }
        }
    }

    /// The row `statement` is on, as column name → value.
    static func dictionary(ofRowOf statement: Statement) -> [String: DAOValue] {
        let generation = statement.preparedGeneration
        let template: Template
        if let kept = statement.attachment as? Template, kept.generation == generation {
            template = kept
        } else {
            template = Template(statement: statement, generation: generation)
            statement.attachment = template
        }
        var row = template.empty
        for (column, slot) in template.slots.enumerated() {
            row.values[slot] = DAOValue(statement.value(at: column))
        }
        return row
    }
}
