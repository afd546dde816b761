import Foundation
import Testing
@testable import DatacenterKit

/// `DataCenter.rekeyDatabases`: every SQLite file of a root moved to one database key.
@Suite struct DatabaseRekeyTests {
    static let valueKey = try! EncryptionKey(parsing: String(repeating: "5", count: 64))

    /// A root with a common store, two users and an encrypted value in each.
    static func makeRoot(_ folder: TemporaryFolder, databaseKeys: DatabaseKeyList = .empty) throws -> String {
        let root = folder.file("root")
        let center = try DataCenter(rootPath: root, crypt: KeyRing([valueKey]), databaseKeys: databaseKeys)
        try center.commonPreferences.setString("common-secret", forKey: "k", business: "b", encryption: .default)
        for user in ["ann", "bo"] {
            try center.setCurrentUserId(user)
            try center.userPreferences?.setString("\(user)-secret", forKey: "k", business: "b", encryption: .default)
        }
        return root
    }

    static func read(_ root: String, keys: DatabaseKeyList) throws -> [String?] {
        let center = try DataCenter(rootPath: root, crypt: KeyRing([valueKey]), readOnly: true, databaseKeys: keys)
        return try [center.commonPreferences.string(forKey: "k", business: "b")]
            + ["ann", "bo"].map { try center.preferences(forUser: $0).string(forKey: "k", business: "b") }
    }

    @Test func aPlainRootIsEncryptedWholeAndRecordsItsFormat() throws {
        let folder = TemporaryFolder()
        let root = try Self.makeRoot(folder)
        let key = try DatabaseKey.passphrase("root pass")
        let results = try DataCenter.rekeyDatabases(rootPath: root, from: .empty, to: key)
        #expect(results.map(\.name) == ["common", "user ann", "user bo"])
        #expect(results.allSatisfy { $0.outcome == .encrypted })
        for result in results {
            #expect(try DatabaseFileKind.of(path: result.path) == .encryptedOrNotADatabase)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: result.path))
            #expect(bytes.range(of: Data("datacenter_meta".utf8)) == nil, "\(result.path) holds plaintext")
        }
        #expect(try Self.read(root, keys: DatabaseKeyList([key])) == ["common-secret", "ann-secret", "bo-secret"])
        let state = try String(contentsOfFile: root + "/datacenter.json", encoding: .utf8)
        #expect(state.contains("sqlcipher4") && !state.contains("root pass"))
        // Without the key, the root now says it needs one.
        #expect(throws: StorageError.encryptedRootNeedsKey(root: root, format: .sqlcipher4)) {
            try DataCenter(rootPath: root, readOnly: true)
        }
        // A rerun finds everything done.
        let again = try DataCenter.rekeyDatabases(rootPath: root, from: DatabaseKeyList([key]), to: key)
        #expect(again.allSatisfy { $0.outcome == .alreadyDone })
    }

    @Test func anEncryptedRootMovesToANewKeyAndFormat() throws {
        let folder = TemporaryFolder()
        let old = try DatabaseKey.passphrase("old pass")
        let root = try Self.makeRoot(folder, databaseKeys: DatabaseKeyList([old]))
        let new = try DatabaseKey(sqlcipherKey: "x'\(String(repeating: "c4", count: 32))'", format: .sqlcipher3)
        let results = try DataCenter.rekeyDatabases(rootPath: root, from: DatabaseKeyList([old]), to: new)
        #expect(results.allSatisfy { $0.outcome == .rekeyed }, "\(results)")
        #expect(try Self.read(root, keys: DatabaseKeyList([new])) == ["common-secret", "ann-secret", "bo-secret"])
        #expect(throws: (any Error).self) { try Self.read(root, keys: DatabaseKeyList([old])) }
        #expect(throws: DatabaseError.self) { try Database(path: root + "/common.sqlite", key: old, mode: .readOnly) }
        #expect(try String(contentsOfFile: root + "/datacenter.json", encoding: .utf8).contains("sqlcipher3"))
    }

    @Test func aFileInUseFailsAloneAndARerunFinishes() throws {
        let folder = TemporaryFolder()
        let root = try Self.makeRoot(folder)
        let key = try DatabaseKey.passphrase("root pass")
        let results: [DatabaseRekeyResult]
        do {
            // Another connection keeps ann's store open in WAL mode.
            let holder = try Database(path: root + "/users/ann/user.sqlite")
            _ = try holder.scalar("SELECT count(*) FROM sqlite_master")
            results = try DataCenter.rekeyDatabases(rootPath: root, from: .empty, to: key, busyTimeout: 0.2)
        }
        #expect(results.first { $0.name == "user ann" }?.failure?.contains("in use") == true, "\(results)")
        #expect(results.filter { $0.failure == nil }.map(\.outcome) == [.encrypted, .encrypted])
        #expect(try DatabaseFileKind.of(path: root + "/users/ann/user.sqlite") == .plain)
        // Not recorded as encrypted while a file is left plain, but as begun: the root is half
        // done, and says so.
        let state = try RootState.load(from: root + "/datacenter.json")
        #expect(state.databaseEncryption == nil && state.databaseEncryptionBegun?.format == key.format)
        let error = #expect(throws: StorageError.self) { try DataCenter(rootPath: root, readOnly: true) }
        if case .halfConverted? = error {} else { Issue.record("expected halfConverted, got \(String(describing: error))") }
        let rerun = try DataCenter.rekeyDatabases(rootPath: root, from: DatabaseKeyList([key]), to: key)
        #expect(rerun.map(\.outcome) == [.alreadyDone, .encrypted, .alreadyDone])
        #expect(try Self.read(root, keys: DatabaseKeyList([key])) == ["common-secret", "ann-secret", "bo-secret"])
    }
}
