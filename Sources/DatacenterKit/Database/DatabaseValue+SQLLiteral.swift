import Foundation

extension DatabaseValue {
    /// The value as an SQL literal that SQLite reads back as the same value: `NULL`, an
    /// integer, a real, text in single quotes (each quote doubled), a blob as `X'…'` (hex).
    /// The one spelling of a value in SQL the project writes (an export's statements, the
    /// browser's staged edits, `@{}` in a DAO template, `diff --sql`), as GRDB has one
    /// `sqlExpression`.
    public var sqlLiteral: String {
        switch self {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d): return DatabaseValue.realLiteral(d)
        case .text(let s): return Database.quoteLiteral(s)
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// A real as an SQL literal: the shortest digits that read back as the same double (a
    /// decimal point or an exponent always, so it reads as a real); an infinity as `1e999` or
    /// `-1e999`, as the sqlite3 shell's `.dump` writes it (SQLite reads either back as the
    /// infinity); NaN, which SQLite stores as NULL, as `NULL`.
    public static func realLiteral(_ d: Double) -> String {
        if d.isNaN { return "NULL" }
        if d.isInfinite { return d < 0 ? "-1e999" : "1e999" }
        return String(d)
    }
}
