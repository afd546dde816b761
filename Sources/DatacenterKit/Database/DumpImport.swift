import CSQLite
import Foundation

/// A statement of a SQL dump that failed, with where it stood in the file.
public struct DumpStatementFailure: Error, Sendable, Equatable {
    /// The dump file.
    public let file: String
    /// The 1-based line the statement starts on.
    public let line: Int
    /// An excerpt of the statement's text: its first `TextExcerpt.defaultLimit` columns,
    /// control characters and escape sequences escaped, so a binary dump never floods or
    /// drives the terminal through an error line.
    public let statement: String
    /// What SQLite said.
    public let error: DatabaseError
}

extension DumpStatementFailure: CustomStringConvertible, LocalizedError {
    public var description: String {
        "\(file):\(line): \(TextExcerpt.message(error.message)) — in `\(statement)`"
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
    /// transaction, reading it a few statements at a time: memory stays bounded by the
    /// largest statement, whatever the dump's size.
    ///
    /// Transaction statements in the dump (`BEGIN`, `COMMIT`, `END`) are absorbed into that one
    /// transaction; a `ROLLBACK` (other than `ROLLBACK TO` a savepoint) fails, as it would end
    /// it midway. Without `continueOnError`, the first failing statement rolls everything
    /// back and is thrown as a `DumpStatementFailure` naming its line; with it, each failing
    /// statement is skipped and reported, and the rest commits.
    public func importDump(atPath dumpPath: String, continueOnError: Bool = false) throws -> DumpImportReport {
        // A regular file only: a FIFO or a device would block or never end. `/dev/null`
        // reads as an empty dump (it creates an empty database).
        let handle: FileHandle
        do { handle = try RegularFile.openForReading(dumpPath, allowingNullDevice: true) } catch let error as FileAccessError {
            throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: "cannot read the dump: \(error.reason)", path: dumpPath)
        }
        defer { try? handle.close() }
        var reader = DumpReader { try handle.read(upToCount: DumpReader.blockSize) ?? Data() }
        return try importDump(from: &reader, named: dumpPath, continueOnError: continueOnError)
    }

    /// Runs the statements of dump text; `name` is how failures name the source.
    public func importDump(_ text: String, named name: String = "(dump)", continueOnError: Bool = false) throws -> DumpImportReport {
        var remaining: Data? = Data(text.utf8)
        var reader = DumpReader { defer { remaining = nil }; return remaining ?? Data() }
        return try importDump(from: &reader, named: name, continueOnError: continueOnError)
    }

    private func importDump(from reader: inout DumpReader, named name: String, continueOnError: Bool) throws -> DumpImportReport {
        var report = DumpImportReport()
        try inTransaction(.immediate) {
            while let chunk = try reader.nextStatements() {
                try run(chunk, named: name, continueOnError: continueOnError, into: &report)
            }
        }
        return report
    }

    /// Runs the complete statements of `chunk`, counting lines from its first.
    private func run(_ chunk: DumpReader.Chunk, named name: String, continueOnError: Bool, into report: inout DumpImportReport) throws {
        var text = chunk.bytes
        text.append(0)
        try text.withUnsafeBufferPointer { buffer in
            var cursor = DumpCursor(base: UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self),
                                    end: buffer.count - 1, line: chunk.firstLine)
            while cursor.skipSpaceAndComments() {
                let start = cursor.offset, line = cursor.line
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v2(handle, cursor.base + start, Int32(cursor.end - start + 1), &statement, &tail)
                var failure: DatabaseError?
                if rc != SQLITE_OK {
                    failure = DatabaseError.from(handle, code: rc, path: path)
                    cursor.advance(to: cursor.endOfStatement(from: start))
                } else if statement == nil, cursor.isNUL(at: start) {
                    // SQLite reads text up to a NUL byte: one inside the dump would silently end it.
                    failure = DatabaseError(extendedCode: SQLITE_ERROR, message: "a NUL byte in the dump text", path: path)
                    cursor.advance(to: start + 1)
                } else {
                    guard let statement, let tail else { break }   // only comments were left
                    defer { sqlite3_finalize(statement) }
                    cursor.advance(to: tail - cursor.base)
                    switch cursor.transactionControl(from: start) {
                    case .absorbed: break
                    case .endsTransaction:
                        failure = DatabaseError(extendedCode: SQLITE_ERROR,
                                                message: "ROLLBACK would end the import's one transaction midway; it is not run", path: path)
                    case nil:
                        var step = sqlite3_step(statement)
                        while step == SQLITE_ROW { step = sqlite3_step(statement) }
                        if step != SQLITE_DONE {
                            failure = DatabaseError.from(handle, code: step, path: path)
                        } else if !isInTransaction {
                            // Nothing in a dump may end the import's transaction; should one
                            // have, stop before anything runs outside it.
                            throw DumpStatementFailure(file: name, line: line, statement: cursor.text(from: start, limit: TextExcerpt.defaultLimit),
                                                       error: DatabaseError(extendedCode: SQLITE_ERROR,
                                                                            message: "the statement ended the import's transaction", path: path))
                        } else {
                            report.executedCount += 1
                        }
                    }
                }
                if let failure {
                    let error = DumpStatementFailure(file: name, line: line,
                                                     statement: cursor.text(from: start, limit: TextExcerpt.defaultLimit), error: failure)
                    // Some errors (disk full, I/O) end the transaction: nothing can continue then.
                    guard continueOnError, isInTransaction else { throw error }
                    report.failures.append(error)
                }
            }
        }
    }
}

/// Reads dump text a few complete statements at a time, so an import holds one chunk, not
/// the file. A chunk ends at the end of a line where SQLite's `sqlite3_complete` says the
/// text so far ends a statement, once it holds `chunkSize` bytes or more (or at the end of
/// the dump, with whatever is left, complete or not).
struct DumpReader {
    /// Some complete statements, and the line the first byte stands on.
    struct Chunk {
        let bytes: [UInt8]
        let firstLine: Int
    }

    static let blockSize = 1 << 16
    static let chunkSize = 1 << 18

    /// Hands out the next block of the dump; empty at its end.
    private let readBlock: () throws -> Data
    private var block: [UInt8] = []
    private var blockOffset = 0
    private var atEnd = false
    private var line = 1

    init(readBlock: @escaping () throws -> Data) { self.readBlock = readBlock }

    /// The next chunk, or nil when the dump is done.
    mutating func nextStatements() throws -> Chunk? {
        var pending: [UInt8] = []
        pending.reserveCapacity(Self.chunkSize + Self.blockSize)
        let firstLine = line
        var statementStart = 0        // where the text not yet known complete starts in `pending`
        var lineHasSemicolon = false  // the line read so far (it may span blocks) holds a ';'
        while true {
            if blockOffset == block.count {
                if atEnd { break }
                block = [UInt8](try readBlock())
                blockOffset = 0
                if block.isEmpty { atEnd = true; break }
            }
            // One line (or the rest of the block) into `pending`.
            let (lineEnd, sawSemicolon, sawNewline) = block.withUnsafeBufferPointer { bytes -> (Int, Bool, Bool) in
                let start = bytes.baseAddress! + blockOffset
                let count = bytes.count - blockOffset
                let newline = memchr(start, 0x0A, count).map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - start + 1 }
                let length = newline ?? count
                return (blockOffset + length, memchr(start, 0x3B, length) != nil, newline != nil)
            }
            pending.append(contentsOf: block[blockOffset..<lineEnd])
            blockOffset = lineEnd
            lineHasSemicolon = lineHasSemicolon || sawSemicolon
            guard sawNewline else { continue }
            line += 1
            defer { lineHasSemicolon = false }
            if lineHasSemicolon, Self.isComplete(&pending, from: statementStart) {
                statementStart = pending.count
                if pending.count >= Self.chunkSize { return Chunk(bytes: pending, firstLine: firstLine) }
            }
        }
        return pending.isEmpty ? nil : Chunk(bytes: pending, firstLine: firstLine)
    }

    /// True when `bytes` from `start` end a statement (the text before `start` does).
    private static func isComplete(_ bytes: inout [UInt8], from start: Int) -> Bool {
        bytes.append(0)
        defer { bytes.removeLast() }
        return bytes.withUnsafeBufferPointer { buffer in
            sqlite3_complete(UnsafeRawPointer(buffer.baseAddress! + start).assumingMemoryBound(to: CChar.self)) != 0
        }
    }
}

/// A position in NUL-terminated dump text that tracks its line number.
private struct DumpCursor {
    let base: UnsafePointer<CChar>
    /// Offset of the terminating NUL.
    let end: Int
    private(set) var offset = 0
    private(set) var line = 1

    init(base: UnsafePointer<CChar>, end: Int, line: Int) {
        self.base = base
        self.end = end
        self.line = line
    }

    private func byte(_ i: Int) -> UInt8 { UInt8(bitPattern: base[i]) }

    /// True when the byte at `index` (before the end) is a NUL.
    func isNUL(at index: Int) -> Bool { index < end && byte(index) == 0 }

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

    /// What a transaction statement at `start` means to the import's one transaction.
    enum TransactionControl {
        /// `BEGIN`, `COMMIT`, `END`: folded into the import's transaction (not run).
        case absorbed
        /// `ROLLBACK` (not `ROLLBACK TO`): it would end the transaction midway.
        case endsTransaction
    }

    /// The transaction statement at `start`, or nil for any other statement.
    func transactionControl(from start: Int) -> TransactionControl? {
        if keyword("begin", at: start) != nil || keyword("commit", at: start) != nil || keyword("end", at: start) != nil {
            return .absorbed
        }
        guard var next = keyword("rollback", at: start) else { return nil }
        // ROLLBACK [TRANSACTION] [TO [SAVEPOINT] name] undoes to a savepoint only.
        if let after = keyword("transaction", at: next) { next = after }
        return keyword("to", at: next) == nil ? .endsTransaction : nil
    }

    /// Where `word` (lower-case ASCII) ends when it stands at `start` (after white space) as
    /// a whole word, in any case; else nil.
    private func keyword(_ word: StaticString, at start: Int) -> Int? {
        var i = start
        while i < end, byte(i) == 0x20 || byte(i) == 0x09 || byte(i) == 0x0A || byte(i) == 0x0D { i += 1 }
        let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for letter in letters {
            guard i < end, byte(i) | 0x20 == letter else { return nil }
            i += 1
        }
        if i < end {
            let c = byte(i) | 0x20
            if (c >= 0x61 && c <= 0x7A) || byte(i) == 0x5F || (byte(i) >= 0x30 && byte(i) <= 0x39) { return nil }
        }
        return i
    }

    /// An excerpt of the statement from `start`: up to `limit` columns, trimmed, control
    /// characters escaped (`TextExcerpt`). Only a bounded prefix of the text is decoded.
    func text(from start: Int, limit: Int) -> String {
        let stop = min(end, endOfStatement(from: start), start + 4 * limit + 64)
        let raw = String(decoding: UnsafeRawBufferPointer(start: base + start, count: max(0, stop - start)), as: UTF8.self)
        return TextExcerpt.of(raw, limit: limit)
    }
}
