import CSQLite
import Foundation

/// A statement of a SQL dump that failed, with where it stood in the file.
public struct DumpStatementFailure: Error, Sendable, Equatable {
    /// The dump file.
    public let file: String
    /// The 1-based line the statement starts on.
    public let line: Int
    /// The statement's text, shortened to its first 200 characters.
    public let statement: String
    /// What SQLite said.
    public let error: DatabaseError
}

extension DumpStatementFailure: CustomStringConvertible, LocalizedError {
    public var description: String {
        "\(file):\(line): \(error.message) — in `\(statement)`"
    }
    public var errorDescription: String? { description }
}

/// What an import did.
public struct DumpImportReport: Sendable, Equatable {
    /// Statements that ran successfully.
    public var executedCount = 0
    /// Statements that failed and were skipped (only with `continueOnError`).
    public var failures: [DumpStatementFailure] = []
}

extension Database {
    /// Runs the statements of a SQL dump file (DBConnect's `databaseFromFile`) in one
    /// transaction.
    ///
    /// Transaction statements in the dump (`BEGIN`, `COMMIT`, `END`) are absorbed into that one
    /// transaction. Without `continueOnError`, the first failing statement rolls everything
    /// back and is thrown as a `DumpStatementFailure` naming its line; with it, each failing
    /// statement is skipped and reported, and the rest commits.
    public func importDump(atPath dumpPath: String, continueOnError: Bool = false) throws -> DumpImportReport {
        // Read through a handle, so devices and pipes (/dev/stdin, /dev/null) work too.
        guard let handle = FileHandle(forReadingAtPath: dumpPath), let data = try? handle.readToEnd() ?? Data() else {
            throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: "cannot read dump file", path: dumpPath)
        }
        try? handle.close()
        return try importDump(bytes: [UInt8](data), named: dumpPath, continueOnError: continueOnError)
    }

    /// Runs the statements of dump text; `name` is how failures name the source.
    public func importDump(_ text: String, named name: String = "(dump)", continueOnError: Bool = false) throws -> DumpImportReport {
        try importDump(bytes: Array(text.utf8), named: name, continueOnError: continueOnError)
    }

    private func importDump(bytes: [UInt8], named name: String, continueOnError: Bool) throws -> DumpImportReport {
        var report = DumpImportReport()
        var text = bytes
        text.append(0)
        try inTransaction(.immediate) {
            try text.withUnsafeBufferPointer { buffer in
                var cursor = DumpCursor(base: UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self),
                                        end: buffer.count - 1)
                while cursor.skipSpaceAndComments() {
                    let start = cursor.offset, line = cursor.line
                    var statement: OpaquePointer?
                    var tail: UnsafePointer<CChar>?
                    let rc = sqlite3_prepare_v2(handle, cursor.base + start, Int32(cursor.end - start + 1), &statement, &tail)
                    var failure: DatabaseError?
                    if rc != SQLITE_OK {
                        failure = DatabaseError.from(handle, code: rc, path: path)
                        cursor.advance(to: cursor.endOfStatement(from: start))
                    } else {
                        guard let statement, let tail else { break }   // only comments were left
                        defer { sqlite3_finalize(statement) }
                        cursor.advance(to: tail - cursor.base)
                        if !cursor.isTransactionControl(from: start) {
                            var step = sqlite3_step(statement)
                            while step == SQLITE_ROW { step = sqlite3_step(statement) }
                            if step == SQLITE_DONE { report.executedCount += 1 } else {
                                failure = DatabaseError.from(handle, code: step, path: path)
                            }
                        }
                    }
                    if let failure {
                        let error = DumpStatementFailure(file: name, line: line,
                                                         statement: cursor.text(from: start, limit: 200), error: failure)
                        // Some errors (disk full, I/O) end the transaction: nothing can continue then.
                        guard continueOnError, isInTransaction else { throw error }
                        report.failures.append(error)
                    }
                }
            }
        }
        return report
    }
}

/// A position in NUL-terminated dump text that tracks its line number.
private struct DumpCursor {
    let base: UnsafePointer<CChar>
    /// Offset of the terminating NUL.
    let end: Int
    private(set) var offset = 0
    private(set) var line = 1

    init(base: UnsafePointer<CChar>, end: Int) {
        self.base = base
        self.end = end
    }

    private func byte(_ i: Int) -> UInt8 { UInt8(bitPattern: base[i]) }

    /// Moves to `target`, counting the newlines passed.
    mutating func advance(to target: Int) {
        var i = offset
        while i < target {
            if byte(i) == 0x0A { line += 1 }
            i += 1
        }
        offset = max(offset, min(target, end))
    }

    /// Skips white space and SQL comments; false at the end of the text.
    mutating func skipSpaceAndComments() -> Bool {
        while offset < end {
            let c = byte(offset)
            if c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0C || c == 0x0B { offset += 1 }
            else if c == 0x0A { offset += 1; line += 1 }
            else if c == 0x2D, offset + 1 < end, byte(offset + 1) == 0x2D {   // -- comment
                var i = offset
                while i < end && byte(i) != 0x0A { i += 1 }
                advance(to: i)
            } else if c == 0x2F, offset + 1 < end, byte(offset + 1) == 0x2A { // /* comment */
                var i = offset + 2
                while i + 1 < end && !(byte(i) == 0x2A && byte(i + 1) == 0x2F) { i += 1 }
                advance(to: min(end, i + 2))
            } else if c == 0x3B { offset += 1 }   // an empty statement
            else { return true }
        }
        return false
    }

    /// Where the statement starting at `start` ends: after the first `;` that completes it
    /// (SQLite's own `sqlite3_complete` decides), else the end of the text. Used only when a
    /// statement fails to prepare, so the import can go on after it.
    func endOfStatement(from start: Int) -> Int {
        var i = start
        while i < end {
            if byte(i) == 0x3B {
                let candidate = String(decoding: UnsafeRawBufferPointer(start: base + start, count: i - start + 1), as: UTF8.self)
                if sqlite3_complete(candidate) != 0 { return i + 1 }
            }
            i += 1
        }
        return end
    }

    /// True when the statement at `start` is BEGIN, COMMIT or END.
    func isTransactionControl(from start: Int) -> Bool {
        var word: [UInt8] = []
        var i = start
        while i < end, word.count < 7 {
            let c = byte(i) | 0x20
            guard c >= 0x61 && c <= 0x7A else { break }
            word.append(c)
            i += 1
        }
        return word == Array("begin".utf8) || word == Array("commit".utf8) || word == Array("end".utf8)
    }

    /// Up to `limit` characters of text from `start`, trimmed.
    func text(from start: Int, limit: Int) -> String {
        let stop = min(end, endOfStatement(from: start))
        let raw = String(decoding: UnsafeRawBufferPointer(start: base + start, count: max(0, stop - start)), as: UTF8.self)
        return String(raw.trimmingCharacters(in: .whitespacesAndNewlines).prefix(limit))
    }
}
