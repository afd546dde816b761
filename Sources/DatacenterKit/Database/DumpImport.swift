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
        let url = URL(fileURLWithPath: dumpPath)
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: "cannot read dump: \(error.localizedDescription)", path: dumpPath)
        }
        return try importDump(String(decoding: data, as: UTF8.self), named: dumpPath, continueOnError: continueOnError)
    }

    /// Runs the statements of dump text; `name` is how failures name the source.
    public func importDump(_ text: String, named name: String = "(dump)", continueOnError: Bool = false) throws -> DumpImportReport {
        var report = DumpImportReport()
        try inTransaction(.immediate) {
            var chunk = ""
            var chunkLine = 1
            var lineNumber = 0
            var chunkStarted = false
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                lineNumber += 1
                if !chunkStarted {
                    if line.allSatisfy(\.isWhitespace) { continue }
                    chunkStarted = true
                    chunkLine = lineNumber
                }
                chunk += line
                chunk += "\n"
                // Like the sqlite3 shell: only a line ending in ';' can complete a statement.
                guard line.last(where: { !$0.isWhitespace }) == ";" || line.last == ";",
                      sqlite3_complete(chunk) != 0 else { continue }
                try runDumpChunk(chunk, startLine: chunkLine, file: name, continueOnError: continueOnError, report: &report)
                chunk = ""
                chunkStarted = false
            }
            if chunkStarted, !chunk.allSatisfy(\.isWhitespace) {
                try runDumpChunk(chunk, startLine: chunkLine, file: name, continueOnError: continueOnError, report: &report)
            }
        }
        return report
    }

    /// Runs each statement of one complete chunk of dump text.
    private func runDumpChunk(_ chunk: String, startLine: Int, file: String, continueOnError: Bool,
                              report: inout DumpImportReport) throws {
        var rest = Substring(chunk)
        var line = startLine
        while !rest.allSatisfy(\.isWhitespace) {
            // Find where the next statement ends: the shortest complete prefix.
            let leading = rest.prefix { $0.isWhitespace }
            line += leading.filter { $0 == "\n" }.count
            rest = rest.dropFirst(leading.count)
            let statementText = Database.firstCompleteStatement(in: rest)
            rest = rest.dropFirst(statementText.count)
            defer { line += statementText.filter { $0 == "\n" }.count }
            if Database.isTransactionControl(statementText) { continue }
            do {
                try executeScript(String(statementText))
                report.executedCount += 1
            } catch let error as DatabaseError {
                let failure = DumpStatementFailure(file: file, line: line,
                                                   statement: String(statementText.trimmingCharacters(in: .whitespacesAndNewlines).prefix(200)),
                                                   error: DatabaseError(extendedCode: error.extendedCode, message: error.message, path: path))
                guard continueOnError, isInTransaction else { throw failure }
                report.failures.append(failure)
            }
        }
    }

    /// The first statement of `text` up to and including its `;`, or all of `text`.
    static func firstCompleteStatement(in text: Substring) -> Substring {
        var index = text.startIndex
        while let semicolon = text[index...].firstIndex(of: ";") {
            let candidate = text[text.startIndex...semicolon]
            if sqlite3_complete(String(candidate)) != 0 { return candidate }
            index = text.index(after: semicolon)
        }
        return text
    }

    /// True for BEGIN/COMMIT/END statements, which an import folds into its own transaction.
    static func isTransactionControl(_ statement: Substring) -> Bool {
        let words = statement.lowercased().split(whereSeparator: { $0.isWhitespace || $0 == ";" })
        guard let first = words.first else { return false }
        return first == "begin" || first == "commit" || first == "end"
    }
}
