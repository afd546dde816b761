import Foundation

/// Re-encrypts everything one store (SQLite file) holds under the default key, in one
/// transaction: its default-encrypted KV values, its encrypted disk caches, its encrypted file
/// and object services, and whatever the passes given add (DAO crypt columns). The store ends
/// all under the new key, or — when one value cannot be re-encrypted, or the process dies —
/// as it was; a rerun finishes the job, skipping what is under the new key already.
///
/// Values encrypted with an app's custom crypt (`CustomEncrypted` KV values) are left alone.
enum StoreRekey {
    /// Re-encrypts the store at `path`.
    /// - parameter mustBeStore: true when the file sits where a store belongs (so a file that
    ///   is not one is an error); false for a file found elsewhere, which is then skipped.
    /// - returns: the tallies, or nil when the file is not a store and need not be one.
    static func run(path: String, crypt: RekeyCrypt, passes: [any StoreRekeyPass], mustBeStore: Bool,
                    busyTimeout: TimeInterval, databaseKeys: DatabaseKeyList = .empty, looked: () -> Void) throws -> [RekeyTally]? {
        let store: Store
        do {
            store = try Store(existingAt: path, busyTimeout: busyTimeout, databaseKeys: databaseKeys)
        } catch {
            // In an encrypted root, a file no database key opens may be a store under another
            // key: reported, never skipped. (Without keys it cannot be told from a file that
            // is no database, and is skipped as before.)
            if mustBeStore || (!databaseKeys.isEmpty && (error as? DatabaseError)?.keyProblem == .wrongKey) { throw error }
            return nil
        }
        guard try store.queue.read({ db in try Store.tableExists("datacenter_meta", in: db) }) else {
            if mustBeStore { throw RekeyError.notAStore(path) }
            return nil
        }
        return try store.queue.inTransaction { db in
            var tallies: [RekeyTally] = []
            if let kv = try kvValues(in: db, crypt: crypt, looked: looked) { tallies.append(kv) }
            tallies += try caches(in: db, crypt: crypt, looked: looked)
            tallies += try fileServices(in: db, crypt: crypt, looked: looked)
            for pass in passes { tallies += try pass.reencrypt(in: db, crypt: crypt, looked: looked) }
            return tallies.filter { $0.moved + $0.alreadyDone > 0 }
        }
    }

    /// Default-encrypted KV values, rewritten bound to their business, key and encoding
    /// (format 2), which upgrades unbound ones.
    static func kvValues(in db: Database, crypt: RekeyCrypt, looked: () -> Void) throws -> RekeyTally? {
        guard try Store.tableExists(KVStore.tableName, in: db) else { return nil }
        let rewrite = EncryptedColumnRewrite(table: KVStore.tableName, keyColumns: ["business", "key"], columns: ["value"],
                                             extraColumns: ["encoding"],
                                             filter: "options & \(KVOptions.defaultEncrypted.rawValue) != 0")
        let (moved, done) = try rewrite.run(in: db, looked: looked) { value in
            let place = "kv " + value.rowName
            guard case .blob(let ciphertext) = value.stored else {
                throw RekeyError.value(place: place, reason: "marked encrypted but not a blob")
            }
            guard let name = value.extras[0].stringValue, let encoding = KVEncoding(rawValue: name) else {
                throw RekeyError.value(place: place, reason: "unknown encoding \(value.extras[0])")
            }
            let context = CryptContext.kvValue(business: value.key[0].stringValue ?? "", key: value.key[1].stringValue ?? "",
                                               encoding: encoding)
            return try reasoned(place) { try crypt.reencryptBound(ciphertext, context: context) }
        }
        return RekeyTally(kind: "kv", moved: moved, alreadyDone: done)
    }

    /// The values of every disk cache `datacenter_caches` records as `crypted`.
    static func caches(in db: Database, crypt: RekeyCrypt, looked: () -> Void) throws -> [RekeyTally] {
        guard try Store.tableExists("datacenter_caches", in: db) else { return [] }
        let crypted = try db.query("SELECT name, table_name FROM datacenter_caches WHERE crypted != 0 ORDER BY name")
        var tallies: [RekeyTally] = []
        for row in crypted {
            guard let name = row[0].stringValue, let table = row[1].stringValue, try Store.tableExists(table, in: db) else { continue }
            let rewrite = EncryptedColumnRewrite(table: table, keyColumns: ["key"], columns: ["value"])
            let (moved, done) = try rewrite.run(in: db, looked: looked) { value in
                let place = "cache \(name) \(value.rowName)"
                guard let ciphertext = value.stored.dataValue else {
                    throw RekeyError.value(place: place, reason: "the cache is encrypted but the value is not a blob")
                }
                return try reasoned(place) { try crypt.reencryptUnbound(ciphertext) }
            }
            tallies.append(RekeyTally(kind: "cache", name: name, moved: moved, alreadyDone: done))
        }
        return tallies
    }

    /// The files of every file service (`files_<name>`; object services are file services)
    /// that is encrypted. A service records whether it is (`datacenter_file_services`): then
    /// every file of an encrypted one must open, and a plain one is left alone. A service of a
    /// store written before that record existed is told from its files: one some of whose
    /// files open with a key given is encrypted, and then all must; one none of whose files
    /// look encrypted is plain; one whose files look encrypted but none opens is an error (a
    /// key is missing, or plain files merely look encrypted): the store is left as it was
    /// rather than guess.
    static func fileServices(in db: Database, crypt: RekeyCrypt, looked: () -> Void) throws -> [RekeyTally] {
        let tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'files\\_%' ESCAPE '\\' ORDER BY name")
            .compactMap { $0[0].stringValue }
        var recorded: [String: Bool] = [:]
        if try Store.tableExists(FileArrayService.registryTable, in: db) {
            for row in try db.query("SELECT name, encrypted FROM \(FileArrayService.registryTable)") {
                if let name = row[0].stringValue { recorded["files_" + name] = (row[1].int64Value ?? 0) != 0 }
            }
        }
        var tallies: [RekeyTally] = []
        for table in tables {
            let columns = Set(try EncryptedColumnRewrite.columnNames(of: table, in: db))
            guard columns.isSuperset(of: ["name", "data", "size", "modified"]) else { continue }
            if recorded[table] == false { continue }
            let isRecordedEncrypted = recorded[table] == true
            var plain = 0, unopened = 0
            var firstFailure: (place: String, reason: String)?
            let rewrite = EncryptedColumnRewrite(table: table, keyColumns: ["name"], columns: ["data"])
            let (moved, done) = try rewrite.run(in: db, looked: looked) { value in
                let place = "files \(table.dropFirst("files_".count)) \(value.rowName)"
                guard let data = value.stored.dataValue, AESGCMCrypt.format(of: data) == 1 else {
                    plain += 1
                    if firstFailure == nil { firstFailure = (place, "not an encrypted value") }
                    return nil
                }
                do { return try crypt.reencryptUnbound(data) } catch let error as CryptError {
                    unopened += 1
                    if firstFailure == nil { firstFailure = (place, "\(error)") }
                    return nil
                }
            }
            let opened = moved + done
            if isRecordedEncrypted, plain + unopened > 0, let firstFailure {
                throw RekeyError.value(place: firstFailure.place, reason: firstFailure.reason)
            }
            if opened == 0 {
                // Plain (nothing looked encrypted), or undecided; nothing was written either way.
                if unopened > 0 { throw RekeyError.undecidedFileService(table: table, files: unopened) }
                continue
            }
            if plain + unopened > 0 {
                if let firstFailure, plain + unopened == 1 { throw RekeyError.value(place: firstFailure.place, reason: firstFailure.reason) }
                throw RekeyError.mixedFileService(table: table, opened: opened, notOpened: plain + unopened)
            }
            tallies.append(RekeyTally(kind: "files", name: String(table.dropFirst("files_".count)), moved: moved, alreadyDone: done))
        }
        return tallies
    }

    /// Runs `body`, turning a crypt error into one naming `place`.
    static func reasoned<T>(_ place: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CryptError {
            throw RekeyError.value(place: place, reason: "\(error)")
        }
    }
}
