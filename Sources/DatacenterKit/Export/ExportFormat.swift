/// The formats a table is exported in (`TableExport`).
///
/// - `csv`: RFC 4180 with a header row, written as `sqlite3 -csv -header` writes it, byte for
///   byte, for text, integer, real and NULL values: a field is quoted when it is empty or
///   holds a space or control character, a quote (`"` or `'`), a comma, DEL or any non-ASCII
///   byte; NULL is an empty unquoted field; lines end with `\n`. **Decision**: a blob is
///   written `X'0A1B'` (the shell writes its bytes up to the first NUL, losing the rest).
/// - `jsonl`: one JSON object per row, its keys the column names in order; a blob is
///   `{"$blob": "<base64>"}` as in `datacenter sql --json`; a real that is not finite is null.
/// - `sql`: one `INSERT INTO "table"("a","b") VALUES(…);` per row inside
///   `BEGIN TRANSACTION;` … `COMMIT;`, which `sqlite3 FILE < export.sql` loads as one
///   transaction; reals round-trip exactly, infinities are `1e999`/`-1e999` (`DatabaseValue.realLiteral`), NaN is NULL.
public enum ExportFormat: String, Sendable, CaseIterable {
    case csv, jsonl, sql

    /// The format a file name's extension names (`.csv`; `.jsonl`, `.ndjson`; `.sql`), or nil.
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "csv": self = .csv
        case "jsonl", "ndjson": self = .jsonl
        case "sql": self = .sql
        default: return nil
        }
    }
}
