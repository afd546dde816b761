import Foundation

/// Rows of a CSV or JSON Lines file loaded into a table (`datacenter import --csv/--jsonl`),
/// in the caller's transaction: the file is read a chunk at a time (memory stays flat
/// whatever its size), each record checked as it comes, and the first bad one stops the
/// import with `TableImportError` naming its file, line and column, so the caller's rollback
/// leaves nothing written.
///
/// CSV is read as the sqlite3 shell's `.import --csv` reads it: a UTF-8 byte-order mark
/// skipped, fields separated by `,`, records by LF or CRLF, a field in `"` quotes holding
/// commas, line breaks and `""` for a quote; the first record names the columns. Unlike the
/// shell, a record with more or fewer fields than the header is an error, not filled or cut.
/// Values are bound as text, so a column's affinity types them as the shell's do. JSON Lines:
/// one object a line, its keys columns, its values typed (numbers, text, `null`; arrays and
/// objects as JSON text).
public enum TableImport {
    /// What the file holds.
    public enum Format: Sendable {
        case csv, jsonl
    }

    /// Imports `file` into `table` of `db` (created from the header when missing, its columns
    /// `TEXT` or the type `types` gives by name), `transform` applied to each value on its way
    /// in (a crypt column's encryption). Returns the rows inserted.
    public static func run(file: String, format: Format, into db: Database, table: String, types: [String: String] = [:],
                           transform: ((String, DatabaseValue) throws -> DatabaseValue)? = nil) throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: file) else { throw TableImportError(file: file, line: 0, column: 0, message: "cannot be read") }
        defer { try? handle.close() }
        var reader = ChunkReader(handle: handle)
        var insert: (statement: Statement, columns: [String])?
        var count = 0
        let fail = { (line: Int, column: Int, message: String) in TableImportError(file: file, line: line, column: column, message: message) }
        func prepare(header: [String], line: Int) throws {
            var seen: Set<String> = []
            for name in header {
                guard !name.isEmpty else { throw fail(line, 1, "a column has no name") }
                guard seen.insert(name.lowercased()).inserted else { throw fail(line, 1, "the column \(name) is named twice") }
            }
            for name in types.keys where !header.contains(name) {
                throw fail(line, 1, "--types names \(name), which is not a column of the file (\(header.joined(separator: ", ")))")
            }
            let existing = try db.query("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0.values[0].stringValue }
            if existing.isEmpty {
                let columns = header.map { name in Database.quoteIdentifier(name) + " " + (types[name] ?? "TEXT") }
                try db.execute("CREATE TABLE \(Database.quoteIdentifier(table)) (\(columns.joined(separator: ", ")))")
            } else {
                let known = Set(existing.map { $0.lowercased() })
                let unknown = header.filter { !known.contains($0.lowercased()) }
                guard unknown.isEmpty else {
                    throw fail(line, 1, "\(table) has no column \(unknown.joined(separator: ", ")) (its columns: \(existing.joined(separator: ", ")))")
                }
            }
            let sql = "INSERT INTO \(Database.quoteIdentifier(table)) (\(header.map(Database.quoteIdentifier).joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: header.count).joined(separator: ", ") + ")"
            insert = (try db.makeStatement(sql), header)
        }
        func insertRow(_ values: [DatabaseValue], line: Int) throws {
            guard let (statement, columns) = insert else { return }
            var bound = values
            if let transform {
                for index in bound.indices { bound[index] = try transform(columns[index], bound[index]) }
            }
            do { try statement.execute(StatementArguments(bound)) } catch { throw fail(line, 1, "\(error)") }
            count += 1
        }
        switch format {
        case .csv:
            var parser = CSVRecordParser()
            while let record = try parser.next(from: &reader, file: file) {
                if insert == nil { try prepare(header: record.fields, line: record.line); continue }
                let columns = insert?.columns.count ?? 0
                guard record.fields.count == columns else {
                    throw fail(record.line, 1, "\(record.fields.count) field\(record.fields.count == 1 ? "" : "s") where the header has \(columns)")
                }
                try insertRow(record.fields.map { .text($0) }, line: record.line)
            }
            if insert == nil { throw fail(1, 1, "no header: the file is empty") }
        case .jsonl:
            var line = 0
            while let bytes = try reader.line() {
                line += 1
                guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
                let data = Data(bytes)
                guard let object = try? JSONSerialization.jsonObject(with: data), let row = object as? [String: Any] else {
                    throw fail(line, 1, "not a JSON object")
                }
                if insert == nil { try prepare(header: JSONKeyOrder.keys(of: data) ?? row.keys.sorted(), line: line) }
                guard let columns = insert?.columns else { continue }
                let known = Set(columns)
                if let extra = row.keys.sorted().first(where: { !known.contains($0) }) {
                    throw fail(line, 1, "the key \(extra) is not a column of the first line's (\(columns.joined(separator: ", ")))")
                }
                try insertRow(columns.map { name in row[name].map(DatabaseValue.init(jsonObject:)) ?? .null }, line: line)
            }
        }
        return count
    }
}

/// Where an import stopped: the file, line and column, and why.
public struct TableImportError: Error, CustomStringConvertible, Equatable {
    /// The file read.
    public let file: String
    /// Its line (1-based; 0 when the file could not be read).
    public let line: Int
    /// The column in the line (1-based, in bytes).
    public let column: Int
    /// What is wrong.
    public let message: String

    public var description: String { line == 0 ? "\(file): \(message)" : "\(file):\(line):\(column): \(message)" }
}

extension DatabaseValue {
    /// A value parsed from JSON (`JSONSerialization`): `null`, a bool as 0 or 1, a number as
    /// it is written, as SQLite's JSON functions read it (`1` an integer, exactly, `1.0` and
    /// `1e3` reals; an integer past 64 bits a real), text, and an array or object as its JSON
    /// text (keys sorted).
    public init(jsonObject object: Any) {
        switch object {
        case is NSNull: self = .null
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "c": self = .integer(n.boolValue ? 1 : 0)
            case "d", "f": self = .real(n.doubleValue)
            case "Q": self = n.uint64Value <= UInt64(Int64.max) ? .integer(Int64(n.uint64Value)) : .real(n.doubleValue)
            default: self = .integer(n.int64Value)
            }
        case let s as String: self = .text(s)
        default:
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            self = .text(String(decoding: data, as: UTF8.self))
        }
    }
}

/// Reads a file a chunk at a time, a byte or a line at a time.
private struct ChunkReader {
    let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false

    init(handle: FileHandle) { self.handle = handle }

    /// The next byte, or nil at the end.
    mutating func byte() throws -> UInt8? {
        if position == buffer.count {
            guard try fill() else { return nil }
        }
        defer { position += 1 }
        return buffer[position]
    }

    /// The next byte without taking it.
    mutating func peek() throws -> UInt8? {
        if position == buffer.count {
            guard try fill() else { return nil }
        }
        return buffer[position]
    }

    /// The next line without its LF, or nil at the end.
    mutating func line() throws -> [UInt8]? {
        var out: [UInt8] = []
        var any = false
        while let b = try byte() {
            any = true
            if b == 0x0A { return out }
            out.append(b)
        }
        return any ? out : nil
    }

    private mutating func fill() throws -> Bool {
        guard !ended else { return false }
        let data = try handle.read(upToCount: 1 << 16) ?? Data()
        guard !data.isEmpty else { ended = true; return false }
        buffer = [UInt8](data)
        position = 0
        return true
    }
}

/// The CSV records of a file, one at a time (see `TableImport`).
private struct CSVRecordParser {
    private var line = 1
    private var column = 1
    private var started = false

    /// The next record's fields and the line it starts on; nil at the end. A blank line is
    /// no record.
    mutating func next(from reader: inout ChunkReader, file: String) throws -> (fields: [String], line: Int)? {
        if !started {
            started = true
            // A UTF-8 byte-order mark is skipped.
            if try reader.peek() == 0xEF {
                var bom: [UInt8] = []
                for _ in 0..<3 { if let b = try reader.byte() { bom.append(b) } }
                if bom != [0xEF, 0xBB, 0xBF] { return try record(startingWith: bom, from: &reader, file: file) }
            }
        }
        return try record(startingWith: [], from: &reader, file: file)
    }

    private mutating func record(startingWith pending: [UInt8], from reader: inout ChunkReader, file: String) throws -> (fields: [String], line: Int)? {
        var pending = pending[...]
        func nextByte() throws -> UInt8? {
            if let b = pending.popFirst() { return b }
            return try reader.byte()
        }
        record: while true {
            let start = line
            var fields: [String] = []
            var field: [UInt8] = []
            var quoted = false, wasQuoted = false
            var quoteLine = 0, quoteColumn = 0
            var sawAny = false
            func finishField() throws {
                guard let text = String(validating: field, as: UTF8.self) else {
                    throw TableImportError(file: file, line: line, column: column, message: "the field is not UTF-8 text")
                }
                fields.append(text)
                field = []
                wasQuoted = false
            }
            while true {
                guard let b = try nextByte() else {
                    if quoted { throw TableImportError(file: file, line: quoteLine, column: quoteColumn, message: "a quoted field is not closed") }
                    if !sawAny { return nil }
                    try finishField()
                    return (fields, start)
                }
                sawAny = true
                if quoted {
                    if b == 0x22 {
                        if try pending.first ?? reader.peek() == 0x22 {
                            _ = try nextByte()
                            field.append(0x22)
                            column += 2
                        } else {
                            quoted = false
                            column += 1
                        }
                    } else {
                        field.append(b)
                        if b == 0x0A { line += 1; column = 1 } else { column += 1 }
                    }
                    continue
                }
                switch b {
                case 0x2C:
                    try finishField()
                    column += 1
                case 0x0A:
                    if field.last == 0x0D { field.removeLast() }
                    line += 1
                    column = 1
                    if fields.isEmpty, field.isEmpty || field == [0x0D], !wasQuoted { continue record }   // a blank line: no record
                    try finishField()
                    return (fields, start)
                case 0x22 where field.isEmpty && !wasQuoted:
                    quoted = true
                    wasQuoted = true
                    (quoteLine, quoteColumn) = (line, column)
                    column += 1
                default:
                    if wasQuoted, b != 0x0D {
                        throw TableImportError(file: file, line: line, column: column, message: "text after a closing quote (a quote inside a quoted field is written \"\")")
                    }
                    field.append(b)
                    column += 1
                }
            }
        }
    }
}

/// The keys of a JSON object's text in the order they are written (Foundation's parser keeps
/// no order), for the columns of a table made from JSON Lines.
private enum JSONKeyOrder {
    /// The top-level keys of the object in `data`, or nil when it is not one.
    static func keys(of data: Data) -> [String]? {
        var keys: [String] = []
        var depth = 0, inString = false, escaped = false
        var current: [UInt8] = [], pendingKey: [UInt8]?
        for byte in data {
            if inString {
                if escaped { escaped = false; current.append(byte); continue }
                if byte == 0x5C { escaped = true; current.append(byte); continue }
                if byte == 0x22 { inString = false; if depth == 1 { pendingKey = current }; continue }
                current.append(byte)
                continue
            }
            switch byte {
            case 0x22: inString = true; current = []
            case 0x7B, 0x5B: depth += 1; pendingKey = nil
            case 0x7D, 0x5D: depth -= 1; pendingKey = nil
            case 0x3A:
                if depth == 1, let key = pendingKey,
                   let text = try? JSONSerialization.jsonObject(with: Data([0x22] + key + [0x22]), options: [.fragmentsAllowed]) as? String {
                    keys.append(text)
                }
                pendingKey = nil
            case 0x20, 0x09, 0x0A, 0x0D: break
            default: pendingKey = nil
            }
        }
        return keys.isEmpty ? nil : keys
    }
}
