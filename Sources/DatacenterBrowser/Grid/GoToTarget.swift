import DatacenterKit

/// Where `Ctrl-G` goes in a grid: the Nth row in the grid's order (its sort and filter
/// kept), or the row with a key (rowid, primary key, KV or cache key), as typed at its
/// prompt: `500`, or `key 42` / `key 'bob'` / `key 3, x` (one value per key column).
package enum GoToTarget: Sendable, Equatable, CustomStringConvertible {
    /// The row at this 1-based position in the grid's order.
    case number(Int)
    /// The row whose key is this, as typed (each source reads it: `GridSource.row(keyText:)`).
    case key(String)

    /// What the prompt asks for.
    static let promptLabel = "go to (row number, or key VALUE): "

    /// The target typed `text` names.
    /// - throws: `GoToError` for text that is neither a number nor `key VALUE`.
    static func parse(_ text: String) throws(GoToError) -> GoToTarget {
        let typed = text.trimmingCharacters(in: .whitespaces)
        if let number = Int(typed) {
            guard number >= 1 else { throw GoToError(description: "rows are numbered from 1: \(typed) is no row") }
            return .number(number)
        }
        if typed.lowercased().hasPrefix("key ") {
            let value = typed.dropFirst(4).trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { throw GoToError(description: "key: give the value after it, e.g. key 42") }
            return .key(value)
        }
        throw GoToError(description: "go to \(typed): type a row number (500) or key VALUE (key 42)")
    }

    /// The target in words, for the status line: `row 500`, `key 42`.
    package var description: String {
        switch self {
        case .number(let n): return "row \(Browser.grouped(n))"
        case .key(let text): return "key \(text)"
        }
    }
}

/// Why `Ctrl-G` goes nowhere: text that names no row, a row past the last, a key no row has.
package struct GoToError: Error, CustomStringConvertible, Equatable {
    /// The reason, for the status line.
    package let description: String

    /// The error that says `description`.
    package init(description: String) { self.description = description }
}
