#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CPageCipher
import CSQLite
import Foundation

/// Whole-file conversion of a database: plaintext into SQLCipher's format and back, and from
/// one key or SQLCipher format to another (SQLCipher's `sqlcipher_export`), crash-safe.
///
/// The source is opened with the key that fits it, and a new file is attached to the same
/// connection with the destination's key (or none), so that schema and rows move with
/// `INSERT INTO new.t SELECT * FROM main.t` inside SQLite — rowids, `WITHOUT ROWID` tables,
/// `sqlite_sequence`, `sqlite_stat1`, indexes, views, triggers (created after the rows, so
/// they do not fire), virtual tables with their shadow tables (as `VACUUM` copies them),
/// `user_version`, `application_id`, `auto_vacuum` and the text encoding. The new file has the
/// destination format's page size and reserve.
///
/// Crash safety: the new file is written to a partial file beside the destination (`0600`,
/// named as `PartialFiles` names them, so a run killed with `SIGKILL` leaves a file the next
/// run removes), reopened and checked (`PRAGMA integrity_check`, the same schema, the same
/// number of rows in every table, the same header values), synced, and only then renamed
/// into place, and the folder synced. The source is never modified (not even checkpointed),
/// except by an in-place `rekey`, which replaces it whole with the rename.
public enum DatabaseFileConversion {
    /// What a conversion did.
    public struct Summary: Sendable, Equatable {
        /// The key that opened the source; nil for a plain source.
        public let sourceKey: DatabaseKey?
        /// The tables copied (shadow tables of virtual tables and `sqlite_` tables included).
        public let tables: Int
        /// The rows copied, all tables together.
        public let rows: Int
        /// The size of the new file, in bytes.
        public let bytes: Int64
    }

    /// A step of a conversion, reported as it starts, for a progress display.
    public enum Step: Sendable, Equatable {
        /// Copying the rows of `table`, the `index`th (from 1) of `count` tables.
        case copying(table: String, index: Int, count: Int)
        /// Checking the new file against the source.
        case verifying
        /// Syncing the new file and renaming it into place.
        case finishing
    }

    /// The name the new file is attached under.
    static let schema = "dc_export"

    /// Encrypts the plain database `source` into the new file `destination` with `key`.
    /// - throws: `DatabaseConversionError` (`destinationExists` when `destination` exists),
    ///   `DatabaseError` (`.missingKey` when `source` is encrypted already).
    @discardableResult
    public static func encrypt(from source: String, to destination: String, key: DatabaseKey,
                               busyTimeout: TimeInterval = 5, progress: ((Step) -> Void)? = nil) throws -> Summary {
        try export(from: source, keys: .empty, to: destination, key: key, busyTimeout: busyTimeout, progress: progress)
    }

    /// Decrypts the encrypted database `source`, opened with whichever of `keys` fits, into
    /// the new plain file `destination`.
    /// - throws: `DatabaseError` with `keyProblem` `.wrongKey` when no key fits, `.notEncrypted`
    ///   when `source` is plain; `DatabaseConversionError` as `export` does.
    @discardableResult
    public static func decrypt(from source: String, keys: DatabaseKeyList, to destination: String,
                               busyTimeout: TimeInterval = 5, progress: ((Step) -> Void)? = nil) throws -> Summary {
        guard !keys.isEmpty else {
            throw DatabaseConversionError(path: source, reason: "decrypting needs the database key", kind: .unsuitableSource)
        }
        return try export(from: source, keys: keys, to: destination, key: nil, busyTimeout: busyTimeout, progress: progress)
    }

    /// Copies the database `source` (opened with whichever of `keys` fits; plain when `keys`
    /// is empty) into the new file `destination`, encrypted with `key` (plain when nil).
    ///
    /// The source is read in one transaction, so the copy is one consistent state of it even
    /// while others write; its WAL frames not yet checkpointed are part of that state.
    /// - throws: `DatabaseConversionError` when `destination` exists (`destinationExists`), or
    ///   the new file cannot be written or does not verify; `DatabaseError` when the source
    ///   does not open with `keys`.
    @discardableResult
    public static func export(from source: String, keys: DatabaseKeyList, to destination: String, key: DatabaseKey?,
                              busyTimeout: TimeInterval = 5, progress: ((Step) -> Void)? = nil) throws -> Summary {
        try refuseExisting(destination)
        return try convert(source: source, keys: keys, target: destination, key: key, inPlace: false,
                           busyTimeout: busyTimeout, progress: progress)
    }

    /// Re-encrypts the database at `path`, opened with whichever of `keys` fits, with
    /// `newKey` (whose format may differ from the old one): the file is copied into a new one
    /// beside it, which is renamed over it. After a crash at any point the file opens with
    /// the old key or with the new one; a rerun with both keys finishes the job.
    ///
    /// The file must not be in use: its WAL is checkpointed and the file switched to
    /// `journal_mode=DELETE`, which fails while another connection has it open in WAL mode,
    /// and it is then held under an exclusive lock until the new file has replaced it, so no
    /// `-wal` or `-journal` of the old file is left to be replayed onto the new one. A file in
    /// WAL mode gets WAL mode back once rekeyed. (A connection that keeps a file in rollback
    /// mode open without a lock cannot be seen: close the apps that use the file first.)
    /// - throws: `DatabaseConversionError` with kind `inUse` when another connection holds the
    ///   file; `DatabaseError` when no key fits.
    @discardableResult
    public static func rekey(path: String, keys: DatabaseKeyList, to newKey: DatabaseKey,
                             busyTimeout: TimeInterval = 5, progress: ((Step) -> Void)? = nil) throws -> Summary {
        guard !keys.isEmpty else {
            throw DatabaseConversionError(path: path, reason: "rekeying needs the current database key", kind: .unsuitableSource)
        }
        // Through a symbolic link, the file it names is replaced, not the link.
        var resolved = path
        if let real = realpath(path, nil) {
            resolved = String(cString: real)
            free(real)
        }
        return try namingPathAsGiven(path, resolved: resolved) {
            try convert(source: resolved, keys: keys, target: resolved, key: newKey, inPlace: true,
                        busyTimeout: busyTimeout, progress: progress)
        }
    }

    /// Runs `body` on the file `resolved` (the one `path` names through its links), and names
    /// `path` as it was given in any error about that file or the files beside it.
    private static func namingPathAsGiven<T>(_ path: String, resolved: String, _ body: () throws -> T) rethrows -> T {
        guard path != resolved else { return try body() }
        func given(_ named: String?) -> String? {
            guard let named, named.hasPrefix(resolved) else { return named }
            return path + named.dropFirst(resolved.count)
        }
        do {
            return try body()
        } catch let error as DatabaseError {
            throw error.with(path: given(error.path))
        } catch let error as DatabaseConversionError {
            throw DatabaseConversionError(path: given(error.path) ?? error.path, reason: error.reason, kind: error.kind)
        }
    }

    /// Encrypts the plain database at `path` in place with `key`: the encrypted copy replaces
    /// it by a rename, as `rekey` does (the same checks, the same exclusive lock, the journal
    /// mode kept). What `DataCenter.rekeyDatabases` does to the plain files of a root.
    @discardableResult
    public static func encryptInPlace(path: String, key: DatabaseKey, busyTimeout: TimeInterval = 5,
                                      progress: ((Step) -> Void)? = nil) throws -> Summary {
        var resolved = path
        if let real = realpath(path, nil) {
            resolved = String(cString: real)
            free(real)
        }
        return try namingPathAsGiven(path, resolved: resolved) {
            try convert(source: resolved, keys: .empty, target: resolved, key: key, inPlace: true,
                        busyTimeout: busyTimeout, progress: progress)
        }
    }

    // MARK: The conversion

    private static func refuseExisting(_ destination: String) throws {
        var status = stat()
        if lstat(destination, &status) == 0 {
            throw DatabaseConversionError(path: destination, reason: "exists already: conversions never overwrite a file; remove it or choose another name",
                                          kind: .destinationExists)
        }
    }

    private static func convert(source: String, keys: DatabaseKeyList, target: String, key: DatabaseKey?, inPlace: Bool,
                                busyTimeout: TimeInterval, progress: ((Step) -> Void)?) throws -> Summary {
        let folder = PrivateFile.folder(of: target)
        // What a run killed earlier left in this folder (its partial file, and that file's
        // -journal, -wal or -shm) goes first.
        PartialFiles.removeStale(inFolder: folder)
        try checkSource(source)
        let (db, sourceKey) = try keys.open(path: source, mode: .readWriteExisting, busyTimeout: busyTimeout)
        // Reading must leave the source as it was: no checkpoint into it when this closes.
        if !inPlace { _ = dc_no_checkpoint_on_close(db.handle) }
        var journalMode = try db.scalar("PRAGMA main.journal_mode", cached: false)?.stringValue?.lowercased() ?? "delete"
        // A run killed after it took the file out of WAL mode left this mark: the file was
        // in WAL mode before, and gets it back when this run finishes.
        let walMark = wasWALMark(for: source)
        if inPlace, FileManager.default.fileExists(atPath: walMark) { journalMode = "wal" }
        if inPlace, journalMode == "wal" {
            // Set before the switch out of WAL mode, so no kill can lose what the mode was.
            guard FileManager.default.fileExists(atPath: walMark) || FileManager.default.createFile(atPath: walMark, contents: nil,
                                                                                                   attributes: [.posixPermissions: 0o600]) else {
                throw DatabaseConversionError(path: walMark, reason: "cannot create it beside the file being rekeyed")
            }
            PrivateFile.syncFolder(PrivateFile.folder(of: source))
        }
        if inPlace { try takeSole(db, path: source, journalMode: journalMode) }
        var finished = false
        defer {
            // A rekey that stops early leaves the file as it was, WAL mode included.
            if inPlace, !finished, journalMode == "wal" {
                _ = try? db.scalar("PRAGMA main.locking_mode=NORMAL", cached: false)
                if (try? db.scalar("PRAGMA main.journal_mode=WAL", cached: false))??.stringValue?.lowercased() == "wal" {
                    unlink(walMark)
                }
            }
            if inPlace, finished { unlink(walMark) }
        }
        try db.execute("PRAGMA foreign_keys=OFF")

        let partial = try createPartial(for: target)
        let slot = PartialFiles.register(partial)
        defer { PartialFiles.unregister(slot) }
        defer { if !finished { removeDatabaseFiles(partial) } }

        try attach(db, path: partial, key: key)
        let copied: (tables: Int, rows: Int, perTable: [String: Int])
        do {
            copied = try copy(db, progress: progress)
        } catch {
            if db.isInTransaction { try? db.rollback() }
            throw error
        }
        try db.detach(schema)

        progress?(.verifying)
        try attach(db, path: partial, key: key)
        try verify(db, destination: target, copiedRows: copied.perTable)
        try db.detach(schema)

        progress?(.finishing)
        if journalMode == "wal" {
            // WAL mode is written in the file's header: set on the new file, it stays.
            let reopened = try Database(path: partial, key: key, mode: .readWriteExisting, busyTimeout: busyTimeout)
            _ = try reopened.scalar("PRAGMA journal_mode=WAL", cached: false)
        }
        try syncFile(partial, reportingAs: target)
        if inPlace {
            // Under the exclusive lock nothing can have made these; were one there, SQLite
            // could replay it onto the new file. (An empty WAL, and the zeroed or empty
            // journal that journal_mode PERSIST or TRUNCATE leaves, replay nothing.)
            for suffix in ["-wal", "-journal"] where replayable(source + suffix) {
                throw DatabaseConversionError(path: source + suffix, reason: "appeared during the rekey: the file is in use; nothing was changed",
                                              kind: .inUse)
            }
            var status = stat()
            if stat(source, &status) == 0 { _ = chmod(partial, status.st_mode & 0o7777) }
            guard rename(partial, source) == 0 else {
                throw DatabaseConversionError(path: source, reason: "cannot replace it: \(FileAccessError.describe(errno: errno))")
            }
        } else {
            // link() never replaces: a file that appeared at the destination meanwhile stays.
            if link(partial, target) == 0 {
                unlink(partial)
            } else {
                let code = errno
                if code == EEXIST { try refuseExisting(target) }
                // A file system without hard links: check again, then rename.
                guard [EPERM, ENOTSUP, EOPNOTSUPP, EMLINK, EXDEV].contains(code) else {
                    throw DatabaseConversionError(path: target, reason: "cannot create it: \(FileAccessError.describe(errno: code))")
                }
                try refuseExisting(target)
                guard rename(partial, target) == 0 else {
                    throw DatabaseConversionError(path: target, reason: "cannot create it: \(FileAccessError.describe(errno: errno))")
                }
            }
        }
        finished = true
        PrivateFile.syncFolder(folder)
        var status = stat()
        let bytes = stat(target, &status) == 0 ? Int64(status.st_size) : 0
        return Summary(sourceKey: sourceKey, tables: copied.tables, rows: copied.rows, bytes: bytes)
    }

    /// The mark an in-place conversion leaves beside `path` while it holds a file it took
    /// out of WAL mode (`.NAME.dc-was-wal`), so that a run killed in between is finished with
    /// WAL mode back.
    static func wasWALMark(for path: String) -> String {
        PrivateFile.folder(of: path) + "/." + (path as NSString).lastPathComponent + ".dc-was-wal"
    }

    /// True when the `-wal` or `-journal` at `path` holds something SQLite could replay: a WAL
    /// with any bytes, a rollback journal whose header is not zeroed.
    private static func replayable(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 8), !head.isEmpty else { return false }
        return path.hasSuffix("-wal") || head.contains { $0 != 0 }
    }

    /// Refuses a source that is not there or holds nothing, naming it.
    private static func checkSource(_ source: String) throws {
        let kind: DatabaseFileKind
        do { kind = try DatabaseFileKind.of(path: source) } catch let error as FileAccessError {
            throw DatabaseConversionError(path: source, reason: error.reason, kind: .unsuitableSource)
        }
        switch kind {
        case .missing: throw DatabaseConversionError(path: source, reason: "no such file", kind: .unsuitableSource)
        case .empty: throw DatabaseConversionError(path: source, reason: "an empty file, not a database yet", kind: .unsuitableSource)
        case .plain, .encryptedOrNotADatabase: break
        }
    }

    /// Makes `db` the only connection to its file, and keeps it so until it closes: the WAL
    /// checkpointed away and the file in rollback mode, under an exclusive lock.
    private static func takeSole(_ db: Database, path: String, journalMode: String) throws {
        let inUse = DatabaseConversionError(path: path, reason: "in use by another connection or process: close it and retry; nothing was changed",
                                            kind: .inUse)
        do {
            if journalMode == "wal" {
                let row = try db.queryFirst("PRAGMA main.wal_checkpoint(TRUNCATE)")
                if row?[0].int64Value != 0 { throw inUse }
                let mode = try db.scalar("PRAGMA main.journal_mode=DELETE", cached: false)?.stringValue?.lowercased()
                if mode != "delete" { throw inUse }
            }
            _ = try db.scalar("PRAGMA main.locking_mode=EXCLUSIVE", cached: false)
            try db.execute("BEGIN EXCLUSIVE")
            try db.execute("COMMIT")
            // Another process may have put the file back in WAL mode before the lock was taken.
            if try db.scalar("PRAGMA main.journal_mode", cached: false)?.stringValue?.lowercased() == "wal" { throw inUse }
        } catch let error as DatabaseError where error.isBusy {
            throw inUse
        }
    }

    /// Creates the partial file the new database is written to, `0600`, never an existing one.
    private static func createPartial(for target: String) throws -> String {
        for _ in 0..<8 {
            let partial = PartialFiles.partialPath(for: target)
            do {
                if try PrivateFile.createIfMissing(atPath: partial) { return partial }
            } catch let error as FileAccessError {
                throw DatabaseConversionError(path: target, reason: "cannot create a file beside it: \(error.reason)")
            }
        }
        throw DatabaseConversionError(path: target, reason: "cannot create a file beside it")
    }

    /// Removes a database file and SQLite's files beside it.
    private static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// Attaches the file at `path` as `schema` (the conversion's own by default), encrypted
    /// with `key` or plain. A new plain file gets 4096-byte pages.
    package static func attach(_ db: Database, path: String, key: DatabaseKey?, as schema: String = schema) throws {
        if let key {
            let (secret, isRaw) = key.material
            var settings = key.settings.cValue
            let rc = dc_cipher_attach(db.handle, path, schema, secret, Int32(secret.count), isRaw ? 1 : 0, &settings)
            guard rc == SQLITE_OK else { throw DatabaseError.from(db.handle, code: rc, path: path) }
        } else {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "/._-~")
            var uri = "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)
            // Named, or the file would open through the connection's own VFS: the cipher's,
            // when the source is encrypted.
            if let vfs = sqlite3_vfs_find(nil)?.pointee.zName {
                uri += "?vfs=" + (String(cString: vfs).addingPercentEncoding(withAllowedCharacters: allowed) ?? "unix")
            }
            if db.isReadOnly { uri += (uri.contains("?") ? "&" : "?") + "mode=ro" }
            try db.attach(path: uri, as: schema)
            if !db.isReadOnly { try db.execute("PRAGMA \(schema).page_size=4096") }
        }
    }

    /// One object of the source's schema.
    private struct SchemaObject {
        let type: String
        let name: String
        let sql: String?
        let rootpage: Int64

        var isVirtualTable: Bool {
            type == "table" && rootpage == 0 && (sql?.uppercased().hasPrefix("CREATE VIRTUAL TABLE") ?? false)
        }
        /// A table with rows of its own (a virtual table's shadow tables are such tables).
        var hasRows: Bool { type == "table" && rootpage != 0 }
    }

    /// Copies schema, rows and header values of `main` into the attached new file, in one
    /// transaction. Returns how many tables and rows were copied.
    private static func copy(_ db: Database, progress: ((Step) -> Void)?) throws -> (tables: Int, rows: Int, perTable: [String: Int]) {
        let objects = try db.query("SELECT type, name, rootpage, sql FROM main.sqlite_master ORDER BY rowid").map {
            SchemaObject(type: $0[0].stringValue ?? "", name: $0[1].stringValue ?? "", sql: $0[3].stringValue,
                         rootpage: $0[2].int64Value ?? 0)
        }
        let autoVacuum = try db.scalar("PRAGMA main.auto_vacuum", cached: false)?.int64Value ?? 0
        try db.execute("PRAGMA \(schema).auto_vacuum=\(autoVacuum)")
        // The new file is a partial file until verified and renamed: no journal, no syncs
        // (it is synced once, whole, at the end).
        _ = try db.scalar("PRAGMA \(schema).journal_mode=OFF", cached: false)
        try db.execute("PRAGMA \(schema).synchronous=OFF")

        try db.execute("BEGIN")
        // Tables first, then their indexes, so that each table's rows go across in SQLite's
        // transfer optimization: records copied as they are, rowids and index entries with them.
        for object in objects where object.hasRows && !object.name.hasPrefix("sqlite_") {
            try db.execute(try qualified(object))
        }
        try createInternalTables(db, objects: objects)
        for object in objects where object.type == "index" && object.sql != nil {
            try db.execute(try qualified(object))
        }
        let tables = objects.filter { $0.hasRows && $0.name != "sqlite_sequence" }
        var rows = 0
        var perTable: [String: Int] = [:]
        for (index, table) in tables.enumerated() {
            progress?(.copying(table: table.name, index: index + 1, count: tables.count))
            let name = Database.quoteIdentifier(table.name)
            if table.name.hasPrefix("sqlite_") { try db.execute("DELETE FROM \(schema).\(name)") }
            try db.execute("INSERT INTO \(schema).\(name) SELECT * FROM main.\(name)")
            rows += db.changes
            perTable[table.name] = db.changes
        }
        // sqlite_sequence last: copying AUTOINCREMENT tables wrote their own entries.
        if objects.contains(where: { $0.name == "sqlite_sequence" }) {
            try db.execute("DELETE FROM \(schema).sqlite_sequence")
            try db.execute("INSERT INTO \(schema).sqlite_sequence SELECT * FROM main.sqlite_sequence")
            rows += db.changes
            perTable["sqlite_sequence"] = db.changes
        }
        // Virtual tables as VACUUM copies them: their shadow tables came across as tables
        // above; their own entries go into the schema as they are (creating them anew would
        // make new, empty shadow tables).
        if objects.contains(where: \.isVirtualTable) {
            try db.execute("PRAGMA writable_schema=ON")
            try db.execute("""
                INSERT INTO \(schema).sqlite_master(type, name, tbl_name, rootpage, sql)
                SELECT type, name, tbl_name, 0, sql FROM main.sqlite_master
                WHERE type = 'table' AND rootpage = 0 AND upper(sql) LIKE 'CREATE VIRTUAL TABLE%'
                """)
            try db.execute("PRAGMA writable_schema=OFF")
        }
        // Views, then triggers, after the rows: a trigger created earlier would have fired.
        for type in ["view", "trigger"] {
            for object in objects where object.type == type { try db.execute(try qualified(object)) }
        }
        for pragma in ["user_version", "application_id"] {
            let value = try db.scalar("PRAGMA main.\(pragma)", cached: false)?.int64Value ?? 0
            try db.execute("PRAGMA \(schema).\(pragma)=\(value)")
        }
        try db.execute("COMMIT")
        return (tables.count + (objects.contains { $0.name == "sqlite_sequence" } ? 1 : 0), rows, perTable)
    }

    /// Creates in the new file the `sqlite_` tables the source has that the tables created
    /// so far did not bring: `sqlite_sequence` (kept after its last AUTOINCREMENT table was
    /// dropped) and the statistics tables `ANALYZE` makes. Any other is refused by name.
    private static func createInternalTables(_ db: Database, objects: [SchemaObject]) throws {
        func exists(_ name: String) throws -> Bool {
            try db.scalar("SELECT count(*) FROM \(schema).sqlite_master WHERE name = ?", [.text(name)], cached: false)?.int64Value ?? 0 > 0
        }
        for object in objects where object.hasRows && object.name.hasPrefix("sqlite_") {
            if try exists(object.name) { continue }
            if object.name == "sqlite_sequence" {
                try db.execute("CREATE TABLE \(schema).dc_export_sequence(id INTEGER PRIMARY KEY AUTOINCREMENT)")
                try db.execute("DROP TABLE \(schema).dc_export_sequence")
            } else if object.name.hasPrefix("sqlite_stat") {
                // ANALYZE of the (index-less) schema table creates the statistics tables, empty.
                try db.execute("ANALYZE \(schema).sqlite_master")
            }
            guard try exists(object.name) else {
                throw DatabaseConversionError(path: db.path, reason: "cannot copy the internal table \(object.name): not a table this version knows how to copy",
                                              kind: .unsuitableSource)
            }
        }
    }

    /// The SQL creating `object`, as stored in the schema, aimed at the new file.
    private static func qualified(_ object: SchemaObject) throws -> String {
        let pattern = #"^\s*CREATE\s+(UNIQUE\s+)?(TABLE|INDEX|VIEW|TRIGGER)\s+(IF\s+NOT\s+EXISTS\s+)?"#
        guard let sql = object.sql,
              let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]),
              let match = regex.firstMatch(in: sql, range: NSRange(sql.startIndex..., in: sql)),
              let range = Range(match.range, in: sql) else {
            throw DatabaseConversionError(path: "\(object.type) \(object.name)",
                                          reason: "cannot copy it: its SQL is not a CREATE statement as SQLite stores it",
                                          kind: .unsuitableSource)
        }
        let unique = match.range(at: 1).location != NSNotFound ? "UNIQUE " : ""
        let kind = Range(match.range(at: 2), in: sql).map { sql[$0].uppercased() } ?? object.type.uppercased()
        return "CREATE \(unique)\(kind) \(schema)." + sql[range.upperBound...]
    }

    /// Checks the attached new file against `main` and the copy: the same schema; every
    /// table's rows counted through its own b-tree and every index's entries through the index
    /// (a full index scan), each equal to the rows the copy inserted from the source; the same
    /// header values.
    ///
    /// Counting walks every page of every b-tree once, so every page of the new file is read
    /// back (and, encrypted, authenticated and decrypted) and every b-tree is navigable from
    /// its root: a page that does not authenticate, a broken link, a lost row or index entry
    /// fails here. `PRAGMA integrity_check` also looks each index entry up in its table, one
    /// page-cache miss each past the cache (8 times the copy's own time on a 100 MB file), and
    /// `quick_check` reads every page twice (its structure pass, then a scan of every row).
    static func verify(_ db: Database, destination: String, copiedRows: [String: Int]) throws {
        func fail(_ reason: String) -> DatabaseConversionError {
            DatabaseConversionError(path: destination, reason: "the new file does not match the source (\(reason)); it was removed and nothing was changed",
                                    kind: .verificationFailed)
        }
        let schemaSQL = "SELECT type, name, tbl_name, coalesce(sql, '') FROM %@.sqlite_master ORDER BY type, name"
        let old = try db.query(schemaSQL.replacingOccurrences(of: "%@", with: "main")).map { $0.dictionary }
        let new = try db.query(schemaSQL.replacingOccurrences(of: "%@", with: schema)).map { $0.dictionary }
        guard old == new else {
            let missing = old.filter { !new.contains($0) }.compactMap { $0["name"]?.stringValue }
            throw fail(missing.isEmpty ? "the schemas differ" : "schema objects missing or different: \(missing.prefix(5).joined(separator: ", "))")
        }
        let objects = try db.query("SELECT type, name, tbl_name, coalesce(sql, '') FROM \(schema).sqlite_master WHERE rootpage != 0")
        for table in objects where table[0].stringValue == "table" {
            guard let name = table[1].stringValue else { continue }
            let quoted = Database.quoteIdentifier(name)
            let rows = try db.scalar("SELECT count(*) FROM \(schema).\(quoted) NOT INDEXED", cached: false)?.int64Value ?? -1
            let expected = copiedRows[name] ?? 0
            guard rows == Int64(expected) else { throw fail("table \(name) has \(expected) rows in the source, \(rows) in the copy") }
            // Each index of it, scanned whole; a partial index (WHERE) holds fewer entries.
            for index in objects where index[0].stringValue == "index" && index[2].stringValue == name {
                guard let indexName = index[1].stringValue,
                      !(index[3].stringValue ?? "").uppercased().contains(" WHERE ") else { continue }
                // `WHERE 1` keeps SQLite from answering with its count shortcut, which reads
                // the table whatever INDEXED BY says: this scans the index itself.
                let entries = try db.scalar("SELECT count(*) FROM \(schema).\(quoted) INDEXED BY \(Database.quoteIdentifier(indexName)) WHERE 1",
                                            cached: false)?.int64Value ?? -1
                guard entries == rows else { throw fail("index \(indexName) has \(entries) entries for the \(rows) rows of \(name)") }
            }
        }
        for pragma in ["user_version", "application_id", "auto_vacuum", "encoding"] {
            let a = try db.scalar("PRAGMA main.\(pragma)", cached: false)
            let b = try db.scalar("PRAGMA \(schema).\(pragma)", cached: false)
            guard a == b else { throw fail("\(pragma) differs") }
        }
    }

    /// Syncs the file at `path` to the disk.
    private static func syncFile(_ path: String, reportingAs target: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DatabaseConversionError(path: target, reason: "cannot sync the new file: \(FileAccessError.describe(errno: errno))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw DatabaseConversionError(path: target, reason: "cannot sync the new file: \(FileAccessError.describe(errno: errno))") }
    }
}
