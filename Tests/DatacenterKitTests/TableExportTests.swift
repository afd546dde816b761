import DatacenterTestSupport
import Foundation
import Testing
@testable import DatacenterKit

// Exports against the reference: CSV byte for byte against `sqlite3 -csv -header`, SQL
// loaded back by the sqlite3 shell giving the same values, JSON lines read back.

/// A table of random values of every kind, awkward text included.
private func makeTable(at path: String, seed: UInt64, rows: Int = 200) throws -> Database {
    var rng = SplitMix64(seed: seed)
    let db = try Database(path: path)
    try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, \"a b\" TEXT, \"c,\" REAL, \"d\"\"q\" BLOB, e)")
    let texts = ["", " ", "plain", "a,b", "say \"hi\"", "it's", "tab\there", "line\nbreak", "cr\rhere", "é ü", "日本",
                 "-1", "0x10", "\u{7F}", "semi;colon", "back\\slash", "{braces}", "nul\u{0}inside", "trailing "]
    func value() -> DatabaseValue {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .null
        case 1: return .integer(Int64.random(in: -1_000_000...1_000_000, using: &rng) * (Bool.random(using: &rng) ? 1 : 1_000_000_000))
        case 2: return .real([0.1, -2.5, 1e20, 1e-7, 3.0, 0.30000000000000004, -0.0, 123456789.125, .infinity].randomElement(using: &rng)!)
        case 3: return .blob(Data((0..<Int.random(in: 0..<6, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        default: return .text(texts.randomElement(using: &rng)!)
        }
    }
    for _ in 0..<rows {
        try db.execute("INSERT INTO t (\"a b\", \"c,\", \"d\"\"q\", e) VALUES (?, ?, ?, ?)", [value(), value(), value(), value()])
    }
    return db
}

/// What `export` writes, as bytes.
private func exported(_ export: TableExport, from db: Database, in folder: TemporaryFolder) throws -> Data {
    let path = folder.file("out-\(UUID().uuidString)")
    #expect(FileManager.default.createFile(atPath: path, contents: nil))
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try export.run(on: db, to: handle)
    try handle.close()
    return try Data(contentsOf: URL(fileURLWithPath: path))
}

@Suite struct TableExportTests {
    /// CSV is the shell's, byte for byte, wherever no blob is written (blobs are `X'…'`).
    @Test(arguments: [UInt64(1), 2, 3])
    func csvIsWhatTheShellWrites(seed: UInt64) throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.db")
        let db = try makeTable(at: path, seed: seed)
        // The shell writes a text up to its first NUL: compare rows without NULs in text.
        let noBlobs = "typeof(\"a b\") != 'blob' AND typeof(\"c,\") != 'blob' AND typeof(\"d\"\"q\") != 'blob' AND typeof(e) != 'blob'"
            + " AND instr(coalesce(\"a b\", ''), char(0)) = 0 AND instr(coalesce(e, ''), char(0)) = 0"
            + " AND instr(CAST(coalesce(\"c,\", '') AS TEXT), char(0)) = 0 AND instr(CAST(coalesce(\"d\"\"q\", '') AS TEXT), char(0)) = 0"
        var export = TableExport(table: "t", format: .csv)
        export.filter = noBlobs
        export.order = "id DESC"
        let ours = try exported(export, from: db, in: folder)
        let theirs = try sqlite3ShellBytes(["-csv", "-header", path, "SELECT * FROM t WHERE \(noBlobs) ORDER BY id DESC"])
        #expect(try db.scalar("SELECT count(*) FROM t WHERE \(noBlobs)")?.int64Value ?? 0 > 20)
        #expect(ours == theirs, "seed \(seed):\n\(String(decoding: ours, as: UTF8.self))\n---\n\(String(decoding: theirs, as: UTF8.self))")
    }

    /// The SQL export, loaded by the shell into an empty table, gives every value back:
    /// blobs, text holding NULs, reals to the last bit, infinities.
    @Test(arguments: [UInt64(4), 5])
    func sqlLoadsBackTheSameValues(seed: UInt64) throws {
        let folder = TemporaryFolder()
        let db = try makeTable(at: folder.file("t.db"), seed: seed)
        let script = folder.file("t.sql")
        try exported(TableExport(table: "t", format: .sql), from: db, in: folder).write(to: URL(fileURLWithPath: script))
        let copy = folder.file("copy.db")
        _ = try sqlite3ShellBytes([copy, "CREATE TABLE t (id INTEGER PRIMARY KEY, \"a b\" TEXT, \"c,\" REAL, \"d\"\"q\" BLOB, e)"])
        _ = try sqlite3ShellBytes([copy, ".read \(script)"])
        let values = "SELECT quote(id), quote(\"a b\"), quote(\"c,\"), quote(\"d\"\"q\"), quote(e), typeof(e) FROM t ORDER BY id"
        let original = try sqlite3ShellBytes([folder.file("t.db"), values])
        #expect(!original.isEmpty)
        #expect(try sqlite3ShellBytes([copy, values]) == original)
    }

    /// JSON lines: one object per row, keys in column order, values of their JSON kinds.
    @Test func jsonLinesReadBack() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("j.db"))
        try db.execute("CREATE TABLE j (b, a, c, d, e)")
        try db.execute("INSERT INTO j VALUES (1, 'x\"\\\n\u{1}', NULL, X'00FF', 2.5)")
        try db.execute("INSERT INTO j VALUES (-7, '日本', 9e999, '', 1e20)")
        let lines = String(decoding: try exported(TableExport(table: "j", format: .jsonl), from: db, in: folder), as: UTF8.self)
            .split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix(#"{"b":1,"a":"#))
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(first?["a"] as? String == "x\"\\\n\u{1}")
        #expect(first?["c"] is NSNull)
        #expect((first?["d"] as? [String: String])?["$blob"] == "AP8=")
        #expect(first?["e"] as? Double == 2.5)
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        #expect(second?["a"] as? String == "日本")
        #expect(second?["c"] is NSNull)       // an infinite real has no JSON number
        #expect(second?["e"] as? Double == 1e20)
    }

    /// Transforms replace their column's values; one that throws stops the export naming
    /// the row; a progress callback that says stop cancels it.
    @Test func transformsErrorsAndCancelling() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("x.db"))
        try db.execute("CREATE TABLE x (k, v)")
        try db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) INSERT INTO x SELECT i, 'v' || i FROM n")
        var export = TableExport(table: "x", format: .csv)
        export.filter = "k <= 2"
        export.transforms = ["v": { value in .text("<\(value.stringValue ?? "")>") }]
        #expect(String(decoding: try exported(export, from: db, in: folder), as: UTF8.self) == "k,v\n1,<v1>\n2,<v2>\n")

        export.filter = nil
        export.transforms = ["v": { value in
            if value.stringValue == "v3" { throw TableExportError.badQuery(sql: "", reason: "no key") }
            return value
        }]
        #expect(throws: TableExportError.transform(row: 3, reason: "cannot export with : no key")) {
            _ = try exported(export, from: db, in: folder)
        }
        export.transforms = [:]
        var seen: [Int] = []
        let handle = FileHandle(forWritingAtPath: "/dev/null")!
        #expect(throws: TableExportError.cancelled(afterRows: 8192)) {
            try export.run(on: db, to: handle) { rows in seen.append(rows); return rows < 8192 }
        }
        #expect(seen == [4096, 8192])

        export.transforms = ["nope": { $0 }]
        #expect(throws: TableExportError.self) { _ = try exported(export, from: db, in: folder) }
        export.transforms = [:]
        export.filter = "k <"
        #expect(throws: TableExportError.self) { _ = try exported(export, from: db, in: folder) }
        export.filter = "1; DROP TABLE x"
        #expect(throws: TableExportError.self) { _ = try exported(export, from: db, in: folder) }
        #expect(try db.scalar("SELECT count(*) FROM x")?.int64Value == 10000)
    }

    /// The format a file name says.
    @Test func formatsByFileName() {
        #expect(ExportFormat(fileName: "a.csv") == .csv)
        #expect(ExportFormat(fileName: "dir.x/a.JSONL") == .jsonl)
        #expect(ExportFormat(fileName: "a.ndjson") == .jsonl)
        #expect(ExportFormat(fileName: "a.sql") == .sql)
        #expect(ExportFormat(fileName: "a.txt") == nil)
        #expect(ExportFormat(fileName: "dir.csv/a") == nil)
    }
}
