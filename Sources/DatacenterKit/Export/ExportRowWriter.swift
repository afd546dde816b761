import Foundation

/// Writes the rows of a query in one `ExportFormat`, as bytes appended to a buffer: the
/// header (or prologue), each row as the statement stands on it, and the epilogue.
///
/// Values are written from the bytes SQLite holds (`Statement.withBytes`), with no Swift
/// value per cell, except the columns given a transform (decrypted columns), which are
/// read as values, transformed, then written by the same rules.
package struct ExportRowWriter {
    let format: ExportFormat
    /// Per column, what to do to its value first (nil: write it as stored).
    let transforms: [(@Sendable (DatabaseValue) throws -> DatabaseValue)?]
    /// CSV: the header line. JSONL: each column's `"name":` with the separator before it.
    /// SQL: the `INSERT INTO "t"("a","b") VALUES(` every row starts with.
    private let columnPrefixes: [[UInt8]]
    private let rowPrefix: [UInt8]
    /// The column names, for the CSV header.
    private let headerColumns: [String]

    /// A writer for rows of `columns` from `table`; `transforms` as many as the columns.
    init(format: ExportFormat, table: String, columns: [String], transforms: [(@Sendable (DatabaseValue) throws -> DatabaseValue)?]) {
        self.format = format
        self.transforms = transforms
        switch format {
        case .csv:
            columnPrefixes = []
            rowPrefix = []
        case .jsonl:
            columnPrefixes = columns.enumerated().map { index, name in
                var bytes: [UInt8] = index == 0 ? [UInt8(ascii: "{")] : [UInt8(ascii: ",")]
                var name = name
                name.withUTF8 { ExportRowWriter.appendJSONString($0, to: &bytes) }
                bytes.append(UInt8(ascii: ":"))
                return bytes
            }
            rowPrefix = []
        case .sql:
            columnPrefixes = []
            rowPrefix = Array(("INSERT INTO " + Database.quoteIdentifier(table) + "("
                               + columns.map(Database.quoteIdentifier).joined(separator: ",") + ") VALUES(").utf8)
        }
        headerColumns = columns
    }

    /// The bytes before the first row: the CSV header line, or `BEGIN TRANSACTION;`.
    func prologue(into out: inout [UInt8]) {
        switch format {
        case .csv:
            for (index, name) in headerColumns.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                var name = name
                name.withUTF8 { ExportRowWriter.appendCSVField($0, to: &out) }
            }
            out.append(UInt8(ascii: "\n"))
        case .jsonl: break
        case .sql: out.append(contentsOf: "BEGIN TRANSACTION;\n".utf8)
        }
    }

    /// The bytes after the last row: `COMMIT;` for SQL.
    func epilogue(into out: inout [UInt8]) {
        if format == .sql { out.append(contentsOf: "COMMIT;\n".utf8) }
    }

    /// Appends the row `statement` stands on.
    /// - throws: what a column's transform throws.
    func appendRow(of statement: Statement, into out: inout [UInt8]) throws {
        out.append(contentsOf: rowPrefix)
        for column in transforms.indices {
            switch format {
            case .csv: if column > 0 { out.append(UInt8(ascii: ",")) }
            case .jsonl: out.append(contentsOf: columnPrefixes[column])
            case .sql: if column > 0 { out.append(UInt8(ascii: ",")) }
            }
            if let transform = transforms[column] {
                append(try transform(statement.value(at: column)), to: &out)
            } else {
                appendStored(column, of: statement, to: &out)
            }
        }
        switch format {
        case .csv: out.append(UInt8(ascii: "\n"))
        case .jsonl: out.append(contentsOf: transforms.isEmpty ? "{}\n".utf8 : "}\n".utf8)
        case .sql: out.append(contentsOf: ");\n".utf8)
        }
    }

    /// Column `column` as stored, from SQLite's bytes.
    private func appendStored(_ column: Int, of statement: Statement, to out: inout [UInt8]) {
        let kind = statement.kind(at: column)
        switch (format, kind) {
        case (_, .real) where format != .csv:
            append(statement.value(at: column), to: &out) // exact digits, not the shell's 15
        default:
            statement.withBytes(at: column) { append(kind, $0, to: &out) }
        }
    }

    /// A value read and transformed: written as the same value stored would be.
    private func append(_ value: DatabaseValue, to out: inout [UInt8]) {
        switch value {
        case .null: append(.null, UnsafeBufferPointer(start: nil, count: 0), to: &out)
        case .integer(let i): var text = String(i); text.withUTF8 { append(.integer, $0, to: &out) }
        case .real(let d): appendReal(d, to: &out)
        case .text(var s): s.withUTF8 { append(.text, $0, to: &out) }
        case .blob(let d): d.withUnsafeBytes { append(.blob, $0.bindMemory(to: UInt8.self), to: &out) }
        }
    }

    /// A real in JSON or SQL: the shortest digits that read back as the same double.
    private func appendReal(_ d: Double, to out: inout [UInt8]) {
        switch format {
        case .csv:
            // As SQLite writes a real (what the shell prints): 15 significant digits.
            var text = Database.realText(d)
            text.withUTF8 { out.append(contentsOf: $0) }
        case .jsonl:
            out.append(contentsOf: d.isFinite ? String(d).utf8 : "null".utf8)
        case .sql:
            out.append(contentsOf: DatabaseValue.realLiteral(d).utf8)
        }
    }

    /// A value of `kind` whose bytes are `bytes` (text as UTF-8, numbers as SQLite writes
    /// them, a blob's bytes).
    private func append(_ kind: ColumnKind, _ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        switch (format, kind) {
        case (.csv, .null): break
        case (.csv, .blob): ExportRowWriter.appendHexLiteral(bytes, to: &out)
        case (.csv, _): ExportRowWriter.appendCSVField(bytes, to: &out)
        case (.jsonl, .null): out.append(contentsOf: "null".utf8)
        case (.jsonl, .text): ExportRowWriter.appendJSONString(bytes, to: &out)
        case (.jsonl, .blob):
            out.append(contentsOf: #"{"$blob":""#.utf8)
            out.append(contentsOf: Data(bytes).base64EncodedString().utf8)
            out.append(contentsOf: #""}"#.utf8)
        case (.jsonl, _): out.append(contentsOf: bytes)
        case (.sql, .null): out.append(contentsOf: "NULL".utf8)
        case (.sql, .text):
            if bytes.contains(0) {
                // A NUL cannot stand in SQL text (SQLite would stop reading there).
                out.append(contentsOf: "CAST(".utf8)
                ExportRowWriter.appendHexLiteral(bytes, to: &out)
                out.append(contentsOf: " AS TEXT)".utf8)
            } else {
                out.append(UInt8(ascii: "'"))
                for byte in bytes {
                    if byte == UInt8(ascii: "'") { out.append(byte) }
                    out.append(byte)
                }
                out.append(UInt8(ascii: "'"))
            }
        case (.sql, .blob): ExportRowWriter.appendHexLiteral(bytes, to: &out)
        case (.sql, _): out.append(contentsOf: bytes)
        }
    }

    /// True for the bytes that make the sqlite3 shell quote a CSV field: controls and
    /// space, `"`, `'`, DEL and every non-ASCII byte (and the separator, a comma).
    @inline(__always) static func needsCSVQuote(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: ",")
    }

    /// A CSV field: as is, or quoted with its quotes doubled when empty or when a byte
    /// needs it (`needsCSVQuote`).
    static func appendCSVField(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard bytes.isEmpty || bytes.contains(where: needsCSVQuote) else {
            out.append(contentsOf: bytes)
            return
        }
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            if byte == UInt8(ascii: "\"") { out.append(byte) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `text` as one CSV field, quoted as the sqlite3 shell quotes it (`appendCSVField`).
    package static func csvField(_ text: String) -> String {
        var bytes: [UInt8] = []
        var text = text
        text.withUTF8 { appendCSVField($0, to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `X'0A1B'`.
    static func appendHexLiteral(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let digits = Array("0123456789ABCDEF".utf8)
        out.append(UInt8(ascii: "X"))
        out.append(UInt8(ascii: "'"))
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        out.append(UInt8(ascii: "'"))
    }

    /// A JSON string of UTF-8 `bytes`: `"` and `\` escaped, control characters as `\n`,
    /// `\t`… or `\u00XX`; text that is not valid UTF-8 has its bad bytes replaced by U+FFFD
    /// (JSON holds only Unicode).
    static func appendJSONString(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            var repaired = String(decoding: bytes, as: UTF8.self)
            repaired.withUTF8 { appendJSONString($0, to: &out) }
            return
        }
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
