import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterChanges
import DatacenterTestSupport

/// Snapshots and value diffs of a whole root, plain and with its files SQLCipher-encrypted:
/// every kind of change is found, read as the store says (KV decoded and decrypted, DAO
/// crypt columns and cache values decrypted), and a value encrypted anew with the same
/// content is not a change.
@Suite struct StoreDiffTests {
    /// What a diff sent, in order.
    final class Recorder: ChangeSink {
        var stores: [(String, StorePresence)] = []
        var schema: [SchemaChange] = []
        var rows: [RowChange] = []
        func beginStore(_ name: String, presence: StorePresence) { stores.append((name, presence)) }
        func schemaChange(_ change: SchemaChange) { schema.append(change) }
        func rowChange(_ change: RowChange) { rows.append(change) }
        func endStore() {}

        /// The change of `key` in `section`, if any.
        func row(_ section: ChangeSection, _ key: DatabaseValue) -> RowChange? {
            rows.first { $0.section == section && $0.key.first?.value == key }
        }
    }

    /// A demo root in `folder` (its files encrypted with the demo's passphrase when
    /// `encrypted`), and the database keys that open it.
    func demo(_ folder: TemporaryFolder, encrypted: Bool) throws -> (root: String, databaseKeys: DatabaseKeyList) {
        let root = folder.file("root")
        let databaseKeys = encrypted ? DemoStore.databaseKeys : .empty
        try DemoStore.build(at: root, databaseKeys: databaseKeys)
        try DAODemo.build(in: DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key]), databaseKeys: databaseKeys))
        return (root, databaseKeys)
    }

    /// The app's writes after the snapshot: one of each kind.
    func write(_ root: String, databaseKeys: DatabaseKeyList) throws {
        let center = try DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key]), databaseKeys: databaseKeys)
        let common = try center.commonPreferences
        try common.setString("light", forKey: "theme", business: "settings")                      // changed
        try common.setInteger(14, forKey: "fontSize", business: "settings")                       // the same value again
        _ = try common.removeValue(forKey: "volume", business: "settings")                        // removed
        try common.setString("added", forKey: "fresh", business: "settings")                      // added
        try common.setString("sk_live_51Hdemo-secret-token", forKey: "apiToken", business: "session",
                             encryption: .default)                                                // encrypted anew
        try common.saveJsonObject(["user": "alice", "scope": "read"], forKey: "grant", business: "session",
                                  encryption: .default)                                           // encrypted, changed
        let tokens = try LRUDiskCache(name: "tokens", capacity: 20, encrypted: true, dataCenter: center)
        try tokens.set("refresh-8b4c", forKey: "refresh-token")                                  // cache, encrypted, changed
        try tokens.flush()
        // A DAO crypt column encrypted anew with the same text, and a plain column changed.
        let user = try databaseKeys.open(path: try center.storePath(forUser: "alice")).database
        let content = try user.queryFirst("SELECT content FROM messages WHERE id = 2")?[0] ?? .null
        let plain = try CryptColumn.plaintext(of: content, with: KeyRing([DemoStore.key]))
        let again = try KeyRing([DemoStore.key]).encrypt(Data((plain.stringValue ?? "").utf8))
        try user.execute("UPDATE messages SET content = ?, starred = 1 WHERE id = 2", [.blob(again)])
        try user.execute("CREATE TABLE notes_v2(id INTEGER PRIMARY KEY)")
    }

    @Test(arguments: [false, true])
    func aSnapshotThenTheAppsWritesAreEachFoundDecrypted(encrypted: Bool) throws {
        let folder = TemporaryFolder()
        let (root, databaseKeys) = try demo(folder, encrypted: encrypted)
        let keys = KeyRing([DemoStore.key])
        let source = try ChangeSource.at(root, keys: keys, databaseKeys: databaseKeys)
        let snapshot = folder.file("snap")
        let manifest = try StoreSnapshot.take(of: source, to: snapshot, databaseKeys: databaseKeys)
        #expect(manifest.stores.map(\.name) == source.stores.map(\.name))
        #expect(manifest.stores.allSatisfy { $0.encrypted == encrypted }, "copied encrypted exactly when the source is")
        let taken = try ChangeSource.at(snapshot)
        #expect(taken.kind == .snapshot && taken.stores.count == source.stores.count)
        for store in taken.stores {
            let copy = try databaseKeys.open(path: store.path, mode: .readOnly).database
            #expect(try copy.scalar("PRAGMA journal_mode", cached: false) == .text("delete"), "a copy needs no -shm to be read")
            copy.close()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: snapshot + "/users/alice").sorted() == ["user.sqlite"])
        #expect(try StoreDiff(keys: keys, databaseKeys: databaseKeys).run(taken, source, into: Recorder()) == 0,
                "a fresh snapshot holds what its root holds")

        try write(root, databaseKeys: databaseKeys)
        let recorder = Recorder()
        let count = try StoreDiff(keys: keys, databaseKeys: databaseKeys).run(taken, try ChangeSource.at(root, keys: keys, databaseKeys: databaseKeys),
                                                                             into: recorder)
        let settings = ChangeSection.kv(business: "settings"), session = ChangeSection.kv(business: "session")
        #expect(recorder.row(settings, "theme")?.kind == .changed)
        #expect(recorder.row(settings, "theme")?.old.first?.value == .kv(.string("dark")))
        #expect(recorder.row(settings, "theme")?.new.first?.value == .kv(.string("light")))
        #expect(recorder.row(settings, "volume")?.kind == .removed)
        #expect(recorder.row(settings, "volume")?.old.first?.value == .kv(.double(0.75)))
        #expect(recorder.row(settings, "fresh")?.kind == .added)
        #expect(recorder.row(settings, "fontSize")?.kind == .touched, "written again with the same value")
        #expect(recorder.row(session, "apiToken")?.kind == .reencrypted, "a new nonce, the same text: no change of value")
        let grant = recorder.row(session, "grant")
        #expect(grant?.kind == .changed)
        #expect(grant?.new.first.map { if case .kv(.json) = $0.value { true } else { false } } == true, "decrypted and decoded")
        let token = recorder.row(.cache(name: "tokens"), "refresh-token")
        #expect(token?.kind == .changed)
        #expect(token?.new.first?.value == .cache(.string("refresh-8b4c")), "a cache value decrypted")
        let message = recorder.rows.first { $0.section == .dao(table: "messages") && $0.key.first?.value == .integer(2) }
        #expect(message?.kind == .changed)
        #expect(message?.old.map(\.column) == ["starred"], "the crypt column encrypted anew is no change of value")
        #expect(recorder.schema.contains { $0.kind == .added && $0.name == "notes_v2" })
        let counted = recorder.rows.filter { $0.kind.changesValue }.count + recorder.schema.count
        #expect(count == counted && count == 7, "changes of value: theme, volume, fresh, grant, token, message, notes_v2")
    }

    @Test func withoutTheKeyAValueIsLockedAndItsBytesSayWhetherItChanged() throws {
        let folder = TemporaryFolder()
        let (root, _) = try demo(folder, encrypted: false)
        let snapshot = folder.file("snap")
        try StoreSnapshot.take(of: try ChangeSource.at(root), to: snapshot, databaseKeys: .empty)
        try write(root, databaseKeys: .empty)
        let recorder = Recorder()
        try StoreDiff().run(try ChangeSource.at(snapshot), try ChangeSource.at(root), into: recorder)
        let token = recorder.row(.kv(business: "session"), "apiToken")
        #expect(token?.kind == .changed, "without the key, new bytes may be a new value")
        #expect(token?.new.first?.value == .locked("no key"), "never the ciphertext as text")
        #expect(recorder.row(.kv(business: "settings"), "theme")?.kind == .changed)
    }

    /// A store of a snapshot that is a link out of the snapshot's folder (to a file the
    /// manifest's author chose) is refused, naming it; a snapshot as taken still reads.
    @Test func aStoreLinkedOutOfTheSnapshotIsRefused() throws {
        let folder = TemporaryFolder()
        let (root, _) = try demo(folder, encrypted: false)
        let snapshot = folder.file("snap")
        let manifest = try StoreSnapshot.take(of: try ChangeSource.at(root), to: snapshot, databaseKeys: .empty)
        #expect(try ChangeSource.at(snapshot).stores.count == manifest.stores.count)
        let name = try #require(manifest.stores.first?.name)
        let outside = folder.file("elsewhere.sqlite")
        try FileManager.default.moveItem(atPath: snapshot + "/" + name, toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: snapshot + "/" + name, withDestinationPath: outside)
        #expect { try ChangeSource.at(snapshot) } throws: { error in
            guard let error = error as? ChangeError else { return false }
            return error.path == snapshot + "/" + name && "\(error)".contains("outside the snapshot's folder")
        }
    }

    @Test func aSnapshotIsWholeOrAbsentAndNeverReplacesAFolder() throws {
        let folder = TemporaryFolder()
        let (root, _) = try demo(folder, encrypted: false)
        let snapshot = folder.file("snap")
        try FileManager.default.createDirectory(atPath: snapshot, withIntermediateDirectories: false)
        #expect(throws: ChangeError.self) { try StoreSnapshot.take(of: try ChangeSource.at(root), to: snapshot, databaseKeys: .empty) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: snapshot).isEmpty, "the folder there is left as it was")
        // A store that does not open (the wrong database key) fails the snapshot: nothing left.
        let encryptedFolder = TemporaryFolder()
        let (encryptedRoot, _) = try demo(encryptedFolder, encrypted: true)
        let wrong = try DatabaseKeyList(sqlcipherKeys: ["not the passphrase"])
        let target = encryptedFolder.file("snap")
        #expect(throws: (any Error).self) {
            try StoreSnapshot.take(of: try ChangeSource.at(encryptedRoot, keys: KeyRing([DemoStore.key]), databaseKeys: DemoStore.databaseKeys),
                                   to: target, databaseKeys: wrong)
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try FileManager.default.contentsOfDirectory(atPath: encryptedFolder.path).filter { $0.contains(".dc-partial-") }.isEmpty,
                "no partial folder left")
        // Modes: the folder 0700, every file 0600.
        let good = encryptedFolder.file("good")
        try StoreSnapshot.take(of: try ChangeSource.at(encryptedRoot, keys: KeyRing([DemoStore.key]), databaseKeys: DemoStore.databaseKeys),
                               to: good, databaseKeys: DemoStore.databaseKeys)
        #expect(try FileManager.default.attributesOfItem(atPath: good)[.posixPermissions] as? Int == 0o700)
        let files = FileManager.default.enumerator(atPath: good)?.allObjects.compactMap { $0 as? String } ?? []
        for name in files {
            let attributes = try FileManager.default.attributesOfItem(atPath: good + "/" + name)
            let mode = attributes[.posixPermissions] as? Int
            #expect(mode == (attributes[.type] as? FileAttributeType == .typeDirectory ? 0o700 : 0o600), "\(name)")
        }
    }

    @Test(.enabled(if: SQLCipherReference.isAvailable, "needs SQLCipher 4 from PyPI (make test installs it)"))
    func anEncryptedStoresCopyOpensInSQLCipherWithThePassphraseAlone() throws {
        let folder = TemporaryFolder()
        let (root, databaseKeys) = try demo(folder, encrypted: true)
        let snapshot = folder.file("snap")
        try StoreSnapshot.take(of: try ChangeSource.at(root, keys: KeyRing([DemoStore.key]), databaseKeys: databaseKeys),
                               to: snapshot, databaseKeys: databaseKeys)
        let copy = snapshot + "/common.sqlite"
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: copy)).read(upToCount: 16) ?? Data()
        #expect(header != Data("SQLite format 3\0".utf8), "no plaintext header: encrypted")
        let result = try SQLCipherReference.query(path: copy, keyLiteral: "'\(DemoStore.databasePassphrase)'", compatibility: 4,
                                                  sql: "SELECT value FROM datacenter_kv WHERE business = 'settings' AND key = 'theme'")
        #expect(result.status == 0 && result.output == "dark", "\(result.output)")
    }
}
