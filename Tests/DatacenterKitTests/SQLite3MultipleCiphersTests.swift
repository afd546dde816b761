import DatacenterTestSupport
import Foundation
import Testing
@testable import DatacenterKit

/// Files SQLite3 Multiple Ciphers writes (the real library, PyPI's `apsw-sqlite3mc`, which
/// `make test` installs): this version does not read its schemes, and says so, never calling
/// a right key wrong without a word. Page 1 of every scheme but rc4 keeps bytes 16–23 of
/// SQLite's header in the clear; those files are named as SQLite3 Multiple Ciphers' own.
@Suite struct SQLite3MultipleCiphersTests {
    static let isAvailable: Bool = SQLCipherReference.isAvailable
        && (try? SQLCipherReference.run(["-c", "import apsw"]).status) == 0

    /// Writes a one-row table into `path` with SQLite3 Multiple Ciphers in `scheme`.
    private func write(_ path: String, scheme: String) throws {
        let program = """
        import sys, apsw
        db = apsw.Connection(sys.argv[1])
        db.execute("PRAGMA cipher = '" + sys.argv[2] + "'")
        db.execute("PRAGMA key = 'secret'")
        db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        db.close()
        """
        let made = try SQLCipherReference.run(["-c", program, path, scheme])
        #expect(made.status == 0, "\(scheme): \(made.output)")
    }

    @Test(.enabled(if: SQLite3MultipleCiphersTests.isAvailable),
          arguments: ["chacha20", "aes128cbc", "aes256cbc", "sqlcipher", "ascon128", "aegis", "rc4"])
    func aSchemeNotReadIsNamedNotCalledAWrongKey(scheme: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("\(scheme).db")
        try write(path, scheme: scheme)
        let keys = DatabaseKeyList([try DatabaseKey.passphrase("secret")])
        let error = #expect(throws: DatabaseError.self) { _ = try keys.open(path: path, mode: .readOnly) }
        let text = error?.description ?? ""
        if scheme == "rc4" {
            // rc4 encrypts the whole page: nothing tells it from a wrong key, and the error says it is not read.
            #expect(text.contains("wrong key or not an encrypted database") && text.contains("not SQLite3 Multiple Ciphers' rc4"), "\(text)")
        } else {
            #expect(text.contains("not opened: page 1 keeps bytes 16–23 of SQLite's header in the clear"), "\(scheme): \(text)")
            #expect(text.contains("so the key may be right") && !text.contains("wrong key"), "\(scheme): \(text)")
        }
    }

    /// The sign is read only where SQLCipher cannot leave it: not on a plain header, nor on
    /// a SQLCipher file's first bytes.
    @Test func theSignIsNotReadIntoPlainOrSQLCipherFiles() throws {
        let folder = TemporaryFolder()
        let plain = folder.file("plain.db")
        try Database(path: plain).execute("CREATE TABLE t(x)")
        #expect(!DatabaseKeyList.keepsHeaderFieldsInTheClear(DatabaseFileHead.read(plain, count: 24)))
        let encrypted = folder.file("sqlcipher.db")
        try Database(path: encrypted, key: .passphrase("secret")).execute("CREATE TABLE t(x)")
        #expect(!DatabaseKeyList.keepsHeaderFieldsInTheClear(DatabaseFileHead.read(encrypted, count: 24)))
        var header = [UInt8](repeating: 0xA5, count: 16) + [0x10, 0x00, 0x01, 0x01, 0x20, 0x40, 0x20, 0x20]
        #expect(DatabaseKeyList.keepsHeaderFieldsInTheClear(Data(header)))
        header[21] = 0x41   // not SQLite's payload fraction
        #expect(!DatabaseKeyList.keepsHeaderFieldsInTheClear(Data(header)))
    }
}
