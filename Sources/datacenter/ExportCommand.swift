import ArgumentParser
import DatacenterDAO
import DatacenterKit
import Foundation

extension ExportFormat: ExpressibleByArgument {}

/// `datacenter export SOURCE TABLE`: a table's rows as CSV, JSON lines or SQL `INSERT`s.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a table's rows as CSV, JSON lines or SQL INSERTs.",
        discussion: ExitStatusHelp.discussion("""
            SOURCE is a database file or a data-center root (the common store, or a user's with --user). \
            The encrypted columns of a DAO table are decrypted with --key; without a key that opens them \
            the export fails, unless --raw writes them as stored. With -o, the file is written whole or \
            not at all (mode 0600); without it, rows stream to standard output. CSV is what \
            `sqlite3 -csv -header` writes, byte for byte, for text, numbers and NULL.
            """))

    @OptionGroup var global: GlobalOptions
    @Argument(help: "A database file, or a data-center root folder.") var source: String
    @Argument(help: "The table or view to export.") var table: String
    @Option(name: .long, help: ArgumentHelp("In a root: this user's store instead of the common store.", valueName: "id"))
    var user: String?
    @Option(name: .customLong("where"), help: ArgumentHelp("Only the rows this SQL expression holds for.", valueName: "sql"))
    var filter: String?
    @Option(name: .customLong("order-by"), help: ArgumentHelp("The rows' order, as SQL after ORDER BY.", valueName: "sql"))
    var orderBy: String?
    @Option(name: .long, help: ArgumentHelp("csv, jsonl or sql. Default: from the -o file's extension, else csv.", valueName: "format"))
    var format: ExportFormat?
    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?
    @Flag(name: .long, help: "Write encrypted columns as stored (ciphertext) instead of decrypting them.")
    var raw = false

    /// The format asked for, or the one the output file's name says.
    func resolvedFormat() throws -> ExportFormat {
        if let format { return format }
        guard let output, output != "-" else { return .csv }
        guard let named = ExportFormat(fileName: output) else {
            throw ValidationError("cannot tell the format from \(output): name it .csv, .jsonl or .sql, or pass --format")
        }
        return named
    }

    func validate() throws { _ = try resolvedFormat() }

    func run() throws {
        let format = try resolvedFormat()
        let path = try databasePath()
        let db = try global.openDatabase(path: path, mode: .readOnly)
        let name = try tableName(in: db, path: path)
        var export = TableExport(table: name, format: format)
        export.filter = filter
        export.order = orderBy
        export.transforms = try decryptions(of: name, in: db)
        let rows: Int
        do {
            if let output, output != "-" {
                let file = expandTilde(output)
                var written = 0
                try PrivateFile.writeAtomically(to: file) { written = try export.run(on: db, to: $0) }
                rows = written
                Output.error("exported \(rows) row(s) of \(name) to \(file)")
            } else {
                rows = try export.run(on: db, to: FileHandle.standardOutput)
            }
        } catch let error as TableExportError {
            throw CLIError("\(path): \(name): \(error)")
        }
    }

    /// The database file: SOURCE itself, or the store of a root it names.
    private func databasePath() throws -> String {
        let source = expandTilde(self.source)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isFolder) else { throw CLIError("no database or root at \(source)") }
        guard isFolder.boolValue else {
            if user != nil { throw CLIError("--user needs a data-center root, and \(source) is a file") }
            return source
        }
        let center = try DataCenter(rootPath: source, crypt: global.keyRing(), readOnly: true, busyTimeout: global.busyTimeout,
                                    databaseKeys: global.databaseKeyList())
        guard let user else { return center.commonStorePath }
        try KnownUser.require(user, in: center, create: nil)
        return try center.storePath(forUser: user)
    }

    /// The table's name as the database spells it.
    private func tableName(in db: Database, path: String) throws -> String {
        let names = try db.query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .compactMap { $0[0].stringValue }
        if let name = names.first(where: { $0 == table }) ?? names.first(where: { $0.lowercased() == table.lowercased() }) { return name }
        throw CLIError("\(path) has no table or view \(table) (it has: \(names.joined(separator: ", ")))")
    }

    /// How the crypt columns of `table` (a DAO table) are written: decrypted with the keys,
    /// or as stored with `--raw`.
    private func decryptions(of table: String, in db: Database) throws -> [String: @Sendable (DatabaseValue) throws -> DatabaseValue] {
        let encrypted = try TableVersions.entries(in: db).first { $0.tableName == table }?.encryptedColumns ?? []
        guard !encrypted.isEmpty, !raw else { return [:] }
        let keys = try global.keyRing()
        guard !keys.isEmpty else {
            throw CLIError("\(table) has encrypted columns (\(encrypted.joined(separator: ", "))): pass --key to decrypt them, or --raw to export them as stored")
        }
        var transforms: [String: @Sendable (DatabaseValue) throws -> DatabaseValue] = [:]
        for column in encrypted {
            transforms[column] = { value in
                do { return try CryptColumn.plaintext(of: value, with: keys) } catch {
                    throw CLIError("column \(column) does not decrypt: \(error)")
                }
            }
        }
        return transforms
    }
}
