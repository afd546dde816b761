import DatacenterKit
import Foundation

/// The sqlite3 shell's dot-commands a console user reaches for first: `.tables`, `.schema`,
/// `.indexes`, `.dump` and `.help`. Each reads the store and answers in lines of text, as
/// the shell does; a pattern is matched with `LIKE`, as the shell matches it.
///
/// `.dump FILE` writes a file, which the console's rule (its SQL writes nothing) is not
/// about: it is the user's own file, written whole or not at all (`0600`), never one that
/// exists, and the store is only read.
enum ConsoleDotCommand: Equatable {
    /// `.tables ?PATTERN?`: the tables and views.
    case tables(pattern: String?)
    /// `.schema ?PATTERN?`: the `CREATE` statements of the tables matching, and of their
    /// indexes and triggers.
    case schema(pattern: String?)
    /// `.indexes ?TABLE?`: the indexes, of the tables matching.
    case indexes(table: String?)
    /// `.dump ?FILE?`: the whole store as SQL (`DatabaseDump`), into FILE; without one,
    /// its first `dumpPreviewLines` lines.
    case dump(file: String?)
    /// `.help`: the dot-commands.
    case help

    /// How many lines `.dump` without a file shows.
    static let dumpPreviewLines = 200

    /// What `.help` says, one line per command.
    static let helpLines = [
        ".tables ?PATTERN?    tables and views (LIKE pattern)",
        ".schema ?PATTERN?    CREATE statements of the tables matching",
        ".indexes ?TABLE?     indexes, of the tables matching",
        ".dump ?FILE?         the whole store as SQL, into FILE (a new file)",
        ".mode ?MODE?         how rows show: grid column list csv tabs json line",
        ".headers on|off      column names first in list, csv and tabs",
        ".import FILE TABLE   stage a CSV or JSON Lines file's rows (w, c)",
        ".help                this list",
    ]

    /// Why a line starting with `.` is not a dot-command the console knows.
    struct ParseError: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    /// The command `line` (starting with `.`) asks for.
    /// - throws: `ParseError` naming the command that is unknown or takes fewer arguments.
    init(parsing line: String) throws {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        let name = words.first ?? "."
        let arguments = Array(words.dropFirst())
        let pattern = arguments.first.map(Self.unquoted)
        func atMostOne() throws {
            if arguments.count > 1 { throw ParseError(description: "\(name) takes at most one argument: \(Self.usage(of: name))") }
        }
        switch name.lowercased() {
        case ".tables": try atMostOne(); self = .tables(pattern: pattern)
        case ".schema": try atMostOne(); self = .schema(pattern: pattern)
        case ".indexes", ".indices": try atMostOne(); self = .indexes(table: pattern)
        case ".dump": try atMostOne(); self = .dump(file: pattern)
        case ".help": self = .help
        default:
            throw ParseError(description: "unknown command \(name): the console knows .tables, .schema, .indexes, .dump, .mode, .headers, .import and .help")
        }
    }

    /// The usage line of the command `name`.
    private static func usage(of name: String) -> String {
        helpLines.first { $0.hasPrefix(name.lowercased() + " ") }?.components(separatedBy: "  ").first ?? name
    }

    /// A pattern given in quotes, as the shell accepts it, without them.
    private static func unquoted(_ word: String) -> String {
        for quote in ["'", "\""] where word.count >= 2 && word.hasPrefix(quote) && word.hasSuffix(quote) {
            return String(word.dropFirst().dropLast())
        }
        return word
    }

    /// The command's answer, read from `db`; `progress` is called with the rows a `.dump`
    /// has written so far, and returning false stops it.
    /// - throws: `DatabaseError`, `ParseError` (a `.dump` file that exists), what writing
    ///   the file throws, `TableExportError.cancelled`.
    func lines(on db: Database, progress: (Int) -> Bool = { _ in true }) throws -> [String] {
        let visible = "name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        switch self {
        case .help: return Self.helpLines
        case .dump(let file?):
            let path = NSString(string: file).expandingTildeInPath
            guard !FileManager.default.fileExists(atPath: path) else {
                throw ParseError(description: "\(path) exists: .dump writes a new file (remove it, or name another)")
            }
            var report = DatabaseDump.Report()
            try PrivateFile.writeAtomically(to: path) { handle in
                report = try DatabaseDump().run(on: db, to: { try handle.write(contentsOf: $0) }, progress: progress)
            }
            return ["dumped \(report.tables) table\(report.tables == 1 ? "" : "s"), \(report.rows) row\(report.rows == 1 ? "" : "s") to \(path)",
                    "(plain SQL, values as stored: encrypted columns stay ciphertext; the file itself is not encrypted)"]
        case .dump(nil):
            var text: [UInt8] = []
            let limit = Self.dumpPreviewLines
            do {
                try DatabaseDump().run(on: db, to: { bytes in
                    text += bytes
                    if text.lazy.filter({ $0 == UInt8(ascii: "\n") }).count > limit { throw DumpPreviewFull() }
                }, progress: progress)
            } catch is DumpPreviewFull {}
            var lines = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
            guard lines.count > limit else { return lines }
            return Array(lines.prefix(limit)) + ["… (the first \(limit) lines: .dump FILE writes it all)"]
        case .tables(let pattern):
            let rows = try db.query("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND \(visible)"
                                        + (pattern == nil ? "" : " AND name LIKE ?") + " ORDER BY name",
                                    StatementArguments(pattern.map { [.text($0)] } ?? []))
            let names = rows.compactMap { $0[0].stringValue }
            return names.isEmpty ? ["(no tables)"] : names
        case .indexes(let table):
            let rows = try db.query("SELECT name FROM sqlite_schema WHERE type = 'index'"
                                        + (table == nil ? "" : " AND tbl_name LIKE ?") + " ORDER BY name",
                                    StatementArguments(table.map { [.text($0)] } ?? []))
            let names = rows.compactMap { $0[0].stringValue }
            return names.isEmpty ? ["(no indexes)"] : names
        case .schema(let pattern):
            // Tables first, then what hangs on them, as the shell lists them.
            let rows = try db.query("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND \(visible)"
                                        + (pattern == nil ? "" : " AND tbl_name LIKE ?")
                                        + " ORDER BY tbl_name, type <> 'table', type <> 'view', name",
                                    StatementArguments(pattern.map { [.text($0)] } ?? []))
            let statements = rows.compactMap { $0[0].stringValue }
            guard !statements.isEmpty else { return [pattern.map { "(nothing matches \($0))" } ?? "(empty schema)"] }
            return statements.flatMap { ($0 + ";").split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        }
    }
}

/// Stops a `.dump` preview once it has its lines.
private struct DumpPreviewFull: Error {}
