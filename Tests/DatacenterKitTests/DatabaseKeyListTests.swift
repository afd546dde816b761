import Foundation
import Testing
@testable import DatacenterKit

/// Opening a file with a list of database keys, newest first (CTPersistance's key list).
@Suite struct DatabaseKeyListTests {
    @Test func aNewFileIsCreatedWithTheNewestKeyAndOpensWithItAlone() throws {
        let folder = TemporaryFolder()
        let path = folder.file("new.sqlite")
        let list = try DatabaseKeyList(sqlcipherKeys: ["newest", "older"])
        do {
            let (db, key) = try list.open(path: path)
            #expect(key == list.newest)
            try db.execute("CREATE TABLE t(x)")
        }
        #expect(try DatabaseFileKind.of(path: path) == .encryptedOrNotADatabase)
        _ = try Database(path: path, key: .passphrase("newest"), mode: .readOnly)
        #expect(throws: DatabaseError.self) { try Database(path: path, key: .passphrase("older"), mode: .readOnly) }
    }

    @Test func anOlderFileOpensWithTheOlderKeyInItsOwnFormat() throws {
        let folder = TemporaryFolder()
        let path = folder.file("old.sqlite")
        do {
            let db = try Database(path: path, key: .passphrase("older", format: .sqlcipher3))
            try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (42)")
        }
        let list = try DatabaseKeyList(sqlcipherKeys: ["newest", "older"])
        let (db, key) = try list.open(path: path, mode: .readOnly)
        #expect(key == (try DatabaseKey.passphrase("older", format: .sqlcipher3)))
        #expect(try db.scalar("SELECT x FROM t") == .integer(42))
    }

    @Test func noKeyThatFitsIsAWrongKeyErrorCountingTheTries() throws {
        let folder = TemporaryFolder()
        let path = folder.file("enc.sqlite")
        _ = try Database(path: path, key: .passphrase("right")).execute("CREATE TABLE t(x)")
        let list = try DatabaseKeyList(sqlcipherKeys: ["wrong one", "wrong two"])
        let error = #expect(throws: DatabaseError.self) { try list.open(path: path) }
        #expect(error?.keyProblem == .wrongKey)
        // It says what was tried (for each of the 2 keys) and what to give.
        #expect(error?.description.contains("none of the 2 keys, tried SQLCipher 4, 3, 2 and 1 settings and page sizes 512–65536") == true,
                "\(String(describing: error))")
        #expect(error?.description.contains("give it with --db-cipher") == true)
        #expect(error?.description.contains(path) == true)
    }

    @Test func anEncryptedFileWithoutAKeySaysItNeedsOne() throws {
        let folder = TemporaryFolder()
        let path = folder.file("enc.sqlite")
        _ = try Database(path: path, key: .passphrase("secret")).execute("CREATE TABLE t(x)")
        let error = #expect(throws: DatabaseError.self) { try DatabaseKeyList.empty.open(path: path) }
        #expect(error?.keyProblem == .missingKey)
        #expect(error?.description.contains("database key") == true)
    }

    @Test func aPlainFileGivenAKeyIsRefusedAndLeftPlain() throws {
        let folder = TemporaryFolder()
        let path = folder.file("plain.sqlite")
        _ = try Database(path: path).execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: DatabaseError.self) { try DatabaseKeyList(sqlcipherKeys: ["k"]).open(path: path) }
        #expect(error?.keyProblem == .notEncrypted)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        // Without keys, the same file opens as it always did.
        let (db, key) = try DatabaseKeyList.empty.open(path: path)
        #expect(key == nil)
        #expect(try db.scalar("SELECT x FROM t") == .integer(1))
    }

    @Test func theDescriptionNeverShowsASecret() throws {
        let list = try DatabaseKeyList(sqlcipherKeys: ["hunter2", "x'\(EncryptedDatabaseTests.rawKeyHex)'"])
        #expect(!list.description.contains("hunter2"))
        #expect(!list.description.contains(EncryptedDatabaseTests.rawKeyHex))
        #expect(list.keys.count == 4)
    }
}
