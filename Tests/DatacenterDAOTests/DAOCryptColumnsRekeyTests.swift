import DatacenterKit
import Foundation
import Testing
import DatacenterDAO

/// `DAOCryptColumnsRekey`: the recorded crypt columns of rowid and `WITHOUT ROWID` tables.
@Suite struct DAOCryptColumnsRekeyTests {
    let old = EncryptionKey.random()
    let new = EncryptionKey.random()

    /// A store with two recorded DAO tables: `notes` (rowid) and `pairs` (`WITHOUT ROWID`,
    /// a two-column key), each with an encrypted column holding `count` values, one plain
    /// value written before the column was encrypted, and a table with no record.
    func makeStore(_ folder: TemporaryFolder, count: Int) throws -> Store {
        let store = try Store(path: folder.file("dao.sqlite"))
        let crypt = AESGCMCrypt(key: old)
        try store.queue.inTransaction { db in
            try TableVersions.createTables(in: db)
            try db.executeScript("""
                CREATE TABLE notes(id INTEGER PRIMARY KEY, body BLOB);
                CREATE TABLE pairs(a TEXT, b INTEGER, secret BLOB, PRIMARY KEY (a, b)) WITHOUT
                  ROWID;
                CREATE TABLE unrecorded(id INTEGER PRIMARY KEY, body BLOB);
                INSERT INTO datacenter_dao_tables(table_name, module, version, config_path, encrypted_columns) VALUES
                  ('notes', 'Notes', NULL, 'notes.xml', '["body"]'),
                  ('pairs', 'Pairs', NULL, 'pairs.xml', '["secret", "gone"]');
                """)
            for i in 0..<count {
                try db.execute("INSERT INTO notes(id, body) VALUES (?, ?)", [.integer(Int64(i)), .blob(try crypt.encrypt(Data("note \(i)".utf8)))])
                try db.execute("INSERT INTO pairs(a, b, secret) VALUES (?, ?, ?)",
                               [.text("k\(i % 3)"), .integer(Int64(i)), .blob(try crypt.encrypt(Data("pair \(i)".utf8)))])
                try db.execute("INSERT INTO unrecorded(id, body) VALUES (?, ?)", [.integer(Int64(i)), .blob(try crypt.encrypt(Data("u".utf8)))])
            }
            try db.execute("INSERT INTO notes(id, body) VALUES (?, 'written before encryption')", [.integer(Int64(count))])
        }
        return store
    }

    @Test func everyRecordedColumnMovesAndARerunFindsItDone() throws {
        let folder = TemporaryFolder()
        let count = EncryptedColumnRewrite.pageSize + 5
        let store = try makeStore(folder, count: count)
        let pass = DAOCryptColumnsRekey()
        let tallies = try store.queue.inTransaction { db in
            try pass.reencrypt(in: db, crypt: RekeyCrypt(current: KeyRing([old]), new: new), looked: {})
        }
        #expect(tallies == [RekeyTally(kind: "dao", name: "notes", moved: count), RekeyTally(kind: "dao", name: "pairs", moved: count)])
        let newCrypt = AESGCMCrypt(key: new)
        try store.queue.read { db in
            for row in try db.query("SELECT id, body FROM notes") {
                let id = row[0].int64Value ?? -1
                if id == Int64(count) { #expect(row[1] == .text("written before encryption")); continue }
                #expect(try newCrypt.decrypt(row[1].dataValue ?? Data()) == Data("note \(id)".utf8))
            }
            for row in try db.query("SELECT b, secret FROM pairs") {
                #expect(try newCrypt.decrypt(row[1].dataValue ?? Data()) == Data("pair \(row[0].int64Value ?? -1)".utf8))
            }
            let untouched = try #require(try db.scalar("SELECT body FROM unrecorded LIMIT 1")?.dataValue)
            #expect(throws: CryptError.self) { try newCrypt.decrypt(untouched) }
        }
        let again = try store.queue.inTransaction { db in
            try pass.reencrypt(in: db, crypt: RekeyCrypt(current: KeyRing([old]), new: new), looked: {})
        }
        #expect(again.map(\.alreadyDone) == [count, count] && again.map(\.moved) == [0, 0])
    }

    @Test func aValueNoKeyOpensIsNamedWithItsRow() throws {
        let folder = TemporaryFolder()
        let store = try makeStore(folder, count: 3)
        try store.queue.write { db in
            try db.execute("UPDATE pairs SET secret = ? WHERE b = 1", [.blob(try AESGCMCrypt(key: .random()).encrypt(Data("x".utf8)))])
        }
        #expect {
            try store.queue.inTransaction { db in
                try DAOCryptColumnsRekey().reencrypt(in: db, crypt: RekeyCrypt(current: KeyRing([old]), new: new), looked: {})
            }
        } throws: { error in
            "\(error)".hasPrefix("dao pairs k1/1 secret: wrong key")
        }
    }
}
