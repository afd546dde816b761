import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `Z` in the review undoes the last commit: each commit keeps, per store, an undo file of
/// its exact inverse statements in the state folder (0600, the store's values as stored,
/// encrypted with the store's key); `Z` stages them for the review, and refuses, naming the
/// rows, when rows the commit wrote changed since.
@Suite struct CommitUndoTests {
    static let sqldiff = "/usr/bin/sqldiff"

    /// What `sqldiff` says between a copy of the live store `live` (taken through SQLite, page
    /// for page, as the store's connections see it) and `copy`: empty when they hold the
    /// same schema and rows.
    func differences(_ live: String, _ copy: String) throws -> String {
        let now = try copies([live], suffix: ".now")[0]
        defer { try? FileManager.default.removeItem(atPath: now) }
        let result = try runProcess(Self.sqldiff, [now, copy])
        #expect(result.status == 0, "\(result.output)")
        return result.output
    }

    /// Copies of `paths` taken now through SQLite's backup (what their WAL holds included).
    func copies(_ paths: [String], suffix: String = ".before") throws -> [String] {
        try paths.map { path in
            let copy = path + suffix
            try Database(path: path, mode: .readOnly).backup(to: copy, overwrite: true, key: nil)
            return copy
        }
    }

    /// Edits to a plain column, a delete and an encrypted column in two stores, committed,
    /// then undone with `Z` and `c`: both stores are as before the commit (sqldiff), and
    /// the undo files never held the new plaintext of the crypt column.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqldiff)))
    func zUndoesACommitOfPlainAndCryptColumnsExactly() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let state = URL(fileURLWithPath: folder.file("state"))
        let common = root + "/common.sqlite", alice = root + "/users/alice/user.sqlite"
        let b = try browser(root, width: 160, height: 30, stateFolder: state)
        b.openNodeAndLoad(named: "notes")
        b.press(.right, .character("e"))
        answer("Hello again", in: b)
        b.press(.down, .character("x"))
        b.openNodeAndLoad(named: "messages")
        let content = try #require(b.grid?.source.columns.firstIndex(of: "content"))
        b.press(.right, times: content)
        b.press(.character("e"))
        answer("'Lunch at 1?'", in: b)
        #expect(b.review.staged.count == 3)
        let before = try copies([common, alice])
        b.press(.character("w"), .character("c"))
        #expect(b.review.staged.isEmpty)
        #expect(b.message?.text.hasPrefix("committed 3 edit(s) · w then Z undoes it") == true)
        #expect(try differences(common, before[0]) != "")

        // One undo file per store, private, holding no plaintext of the crypt column.
        for store in [common, alice] {
            let undo = UndoFile.path(storePath: store, stateFolder: state)
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: undo)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: undo))
            #expect(bytes.range(of: Data("Lunch at 1?".utf8)) == nil)
        }

        // Nothing staged: w opens the review anyway, which offers Z.
        b.press(.character("w"))
        #expect(b.focus == .review)
        #expect(b.screenText.contains("Nothing staged. Z stages the undo of the last commit"))
        b.press(.character("Z"))
        #expect(b.review.staged.count == 2, "one change set per store")
        #expect(b.screenText.contains("undo the commit of"))
        #expect(b.review.staged[0].preview.contains("UPDATE \"notes\" SET \"title\" = 'Welcome' WHERE \"_rowid_\" = 1"))
        #expect(try differences(common, before[0]) != "", "staged, not written")
        b.press(.character("c"))
        #expect(b.review.staged.isEmpty)
        #expect(b.message?.text.hasPrefix("committed 2 edit(s) · w then Z undoes it") == true)
        #expect(try differences(common, before[0]) == "")
        #expect(try differences(alice, before[1]) == "")

        // The undo was a commit too: Z again does the edits again.
        b.press(.character("w"), .character("Z"), .character("c"))
        let db = try Database(path: common, mode: .readOnly)
        #expect(try db.scalar("SELECT title FROM notes WHERE id = 1") == .text("Hello again"))
        #expect(try db.scalar("SELECT count(*) FROM notes WHERE id = 2") == .integer(0))
        let stored = try Database(path: alice, mode: .readOnly).scalar("SELECT content FROM messages WHERE id = 1")
        #expect(try CryptColumn.plaintext(of: try #require(stored), with: KeyRing([DemoStore.key])) == .text("Lunch at 1?"))
    }

    /// A row the commit wrote and something else changed since makes `Z` refuse, naming it;
    /// nothing is staged or written. Rows nobody touched would not have stopped it.
    @Test func zRefusesNamingTheRowsChangedSinceTheCommit() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let state = URL(fileURLWithPath: folder.file("state"))
        let common = root + "/common.sqlite"
        let b = try browser(root, width: 160, height: 30, stateFolder: state)
        b.openNodeAndLoad(named: "notes")
        b.press(.right, .character("e"))
        answer("Hello again", in: b)
        b.press(.down, .character("x"))
        b.press(.character("w"), .character("c"))
        // Another program writes row 1 after the commit, and re-creates row 2.
        let other = try Database(path: common)
        let body = try other.scalar("SELECT body FROM notes WHERE id = 1") ?? .null
        try other.execute("UPDATE notes SET body = 'changed by the app' WHERE id = 1")
        try other.execute("INSERT INTO notes(id, title) VALUES (2, 'back')")
        let snapshot = try other.query("SELECT * FROM notes ORDER BY id").map(\.values)
        b.press(.character("w"), .character("Z"))
        #expect(b.review.staged.isEmpty)
        let message = try #require(b.message)
        #expect(message.isError)
        #expect(message.text.hasPrefix("Z refused, nothing staged: 2 row(s) changed since the commit of "), "\(message.text)")
        #expect(message.text.contains("notes row 1 changed since the commit"))
        #expect(message.text.contains("notes row 2 cannot be put back: UNIQUE constraint failed: notes.id"), "\(message.text)")
        #expect(try other.query("SELECT * FROM notes ORDER BY id").map(\.values) == snapshot)
        // Put back as the commit left them, the rows undo.
        try other.execute("UPDATE notes SET body = ? WHERE id = 1", [body])
        try other.execute("DELETE FROM notes WHERE id = 2")
        b.press(.character("Z"), .character("c"))
        #expect(try other.scalar("SELECT title FROM notes WHERE id = 1") == .text("Welcome"))
        #expect(try other.scalar("SELECT count(*) FROM notes WHERE id = 2") == .integer(1))
        // Read-only, the review does not open to offer an undo it could not write.
        let readOnly = try browser(root, width: 160, height: 30, allowsWrites: false, stateFolder: state)
        readOnly.press(.character("w"))
        #expect(readOnly.focus != .review)
        #expect(readOnly.message?.text == "nothing staged: e, x and o stage edits in a table's grid")
    }

    /// Without a state folder, a commit keeps no undo and `Z` says why.
    @Test func withoutAStateFolderZSaysNoUndoIsKept() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 160, height: 30)
        b.openNodeAndLoad(named: "notes")
        b.press(.character("x"), .character("w"), .character("c"))
        b.press(.character("w"))
        #expect(b.message?.text == "nothing staged: e, x and o stage edits in a table's grid")
        b.press(.character("x"), .character("w"), .character("Z"))
        #expect(b.message?.text == "Z undoes the last commit: commit or discard the 1 staged edit(s) first")
    }

    /// A file of every kind of table the undo names rows in (an implicit rowid, an INTEGER
    /// PRIMARY KEY with AUTOINCREMENT, a primary key WITHOUT ROWID, generated columns between
    /// written ones), and a commit of every
    /// kind of edit: updates, deletes, inserts, a column renamed, a CSV imported into a new
    /// table. `Z` and `c` give back the file as it was (sqldiff), and `Z` again the commit.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqldiff)))
    func zUndoesEveryKindOfEditOnEveryKindOfTable() throws {
        let folder = TemporaryFolder()
        let path = folder.file("app.sqlite")
        let db = try Database(path: path)
        try db.executeScript("""
            CREATE TABLE plain(a TEXT, b REAL, c BLOB);
            INSERT INTO plain VALUES ('one', 1.5, X'00ff'), ('two', NULL, NULL), ('three', 3, 'x');
            CREATE TABLE counted(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE);
            INSERT INTO counted(name) VALUES ('a'), ('b');
            CREATE TABLE keyed(k1 TEXT, k2 INTEGER, v, PRIMARY KEY (k1, k2)) WITHOUT ROWID;
            INSERT INTO keyed VALUES ('x', 1, 'first'), ('x', 2, 'second');
            CREATE TABLE derived(a INTEGER, twice INTEGER AS (a * 2) VIRTUAL, b TEXT, label TEXT AS (b || '!') STORED, c BLOB);
            INSERT INTO derived(a, b, c) VALUES (1, 'one', X'01'), (2, 'two', NULL);
            """)
        let csv = folder.file("people.csv")
        try Data("name,age\nAda,36\n\"Grace, R.\",45\n".utf8).write(to: URL(fileURLWithPath: csv))
        let before = try copies([path])[0]
        let state = URL(fileURLWithPath: folder.file("state"))
        let b = try browser(path, keys: .empty, width: 160, height: 30, stateFolder: state)
        func stage(_ sql: String, _ arguments: [DatabaseValue] = [], _ action: StagedEdit.Action? = nil) {
            b.apply([.stage(StagedEdit(storePath: path, action: action ?? .execute(sql: sql, arguments: arguments), preview: sql, target: "t"))])
        }
        stage("UPDATE plain SET b = 2.5, c = NULL WHERE rowid = 1")
        stage("UPDATE plain SET rowid = 10 WHERE rowid = 2")
        stage("DELETE FROM plain WHERE rowid = 3")
        stage("INSERT INTO plain VALUES ('four', 4, X'04')")
        stage("INSERT INTO counted(name) VALUES ('c')")
        stage("INSERT OR REPLACE INTO counted(name) VALUES ('a')")
        stage("UPDATE keyed SET k2 = 3, v = 'moved' WHERE k1 = 'x' AND k2 = 1")
        stage("DELETE FROM keyed WHERE k2 = 2")
        stage("UPDATE derived SET a = 10, c = X'0a' WHERE a = 1")
        stage("DELETE FROM derived WHERE a = 2")
        stage("INSERT INTO derived(a, b) VALUES (3, 'three')")
        stage("", [], .executeSchema(sql: "ALTER TABLE plain RENAME COLUMN a TO name",
                                     inverse: "ALTER TABLE plain RENAME COLUMN name TO a"))
        stage("UPDATE plain SET name = 'ONE' WHERE rowid = 1")
        stage("", [], .importRows(file: csv, format: .csv, table: "people"))
        b.press(.character("w"), .character("c"))
        #expect(b.message?.text.hasPrefix("committed 14 edit(s) · w then Z undoes it") == true, "\(b.message as Any)")
        let committed = try copies([path], suffix: ".committed")[0]
        #expect(try differences(path, before) != "")

        b.press(.character("w"), .character("Z"))
        #expect(b.review.staged.count == 1, "\(b.message as Any)")
        b.press(.character("c"))
        #expect(b.message?.text.hasPrefix("committed 1 edit(s)") == true, "\(b.message as Any)")
        #expect(try differences(path, before) == "")
        // And the undo of the undo is the commit again.
        b.press(.character("w"), .character("Z"), .character("c"))
        #expect(try differences(path, committed) == "")
    }

    /// The undo file of an encrypted store is encrypted with the store's key and settings:
    /// not a plain SQLite file, unreadable without the key; the undo restores the rows.
    @Test func anEncryptedStoreKeepsItsUndoEncryptedWithItsKey() throws {
        let folder = TemporaryFolder()
        let path = folder.file("enc.sqlite")
        let key = try DatabaseKey.passphrase("undo secret", settings: try DatabaseCipherSettings(pairs: ["kdf_iter=1000"]))
        let db = try Database(path: path, key: key)
        try db.executeScript("CREATE TABLE t(id INTEGER PRIMARY KEY, secret TEXT); INSERT INTO t VALUES (1, 'old secret'), (2, 'kept');")
        db.close()
        let state = URL(fileURLWithPath: folder.file("state"))
        let catalog = try BrowserCatalog(path: path, keys: .empty, databaseKeys: DatabaseKeyList([key]), databaseSettings: key.settings)
        let b = Browser(catalog: catalog, width: 160, height: 30, stateFolder: state)
        b.apply([.stage(StagedEdit(storePath: path, action: .execute(sql: "UPDATE t SET secret = 'new secret' WHERE id = 1", arguments: []),
                                   preview: "", target: "t"))])
        b.apply([.stage(StagedEdit(storePath: path, action: .execute(sql: "DELETE FROM t WHERE id = 2", arguments: []), preview: "", target: "t"))])
        b.press(.character("w"), .character("c"))
        let undo = UndoFile.path(storePath: path, stateFolder: state)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: undo))
        #expect(!bytes.starts(with: Data("SQLite format 3".utf8)))
        #expect(bytes.range(of: Data("old secret".utf8)) == nil && bytes.range(of: Data("kept".utf8)) == nil)
        #expect(throws: DatabaseError.self) { try Database(path: undo, mode: .readOnly).scalar("SELECT count(*) FROM undo_statement") }
        #expect(try UndoFile.open(path: undo, key: key).scalar("SELECT count(*) FROM undo_statement") == .integer(2))
        b.press(.character("w"), .character("Z"), .character("c"))
        let rows = try Database(path: path, key: key, mode: .readOnly).query("SELECT id, secret FROM t ORDER BY id").map(\.values)
        #expect(rows == [[.integer(1), .text("old secret")], [.integer(2), .text("kept")]])
    }

    /// A confirmed DAO write is a commit too: it keeps its undo, and `Z` takes it back.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqldiff)))
    func aDAOWriteKeepsItsUndo() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let store = root + "/users/alice/user.sqlite"
        let before = try copies([store])[0]
        let b = try browser(root, width: 130, height: 40, stateFolder: URL(fileURLWithPath: folder.file("state")))
        b.openNodeAndLoad(named: "messages")
        b.press(.character("d"))
        let index = try #require(b.daoPanel?.config.methods.firstIndex { $0.id == "updateFlags" })
        b.press(.down, times: index)
        b.press(.enter)
        type("3", into: b)
        b.press(.down, .character("\u{e}"))
        type("1", into: b)
        b.press(.enter, .character("y"))
        #expect(b.screenText.contains("ok · 1 change(s) · w then Z undoes it"))
        #expect(try differences(store, before) != "")
        b.press(.escape, .escape, .character("w"), .character("Z"))
        #expect(b.review.staged.first?.preview.contains("UPDATE \"messages\" SET \"read\" = 0 WHERE \"_rowid_\" = 3") == true,
                "\(b.review.staged.first?.preview ?? "nothing staged: \(b.message as Any)")")
        b.press(.character("c"))
        #expect(try differences(store, before) == "")
    }

    /// KV edits (a value set, one encrypted, a key removed) go through the store's KV code:
    /// their undo puts the rows back as they were stored, and holds no new plaintext.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqldiff)))
    func kvEditsUndoToTheStoredRows() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let common = root + "/common.sqlite"
        let state = URL(fileURLWithPath: folder.file("state"))
        let before = try copies([common])[0]
        let b = try browser(root, width: 130, height: 30, stateFolder: state)
        b.openNodeAndLoad(named: "settings")
        b.press(.character("e"))                     // fontSize, an int
        answer("17", in: b)
        b.press(.down, .character("x"))
        b.openNodeAndLoad(named: "session")
        b.press(.character("e"))                     // apiToken, encrypted with the app key
        answer("'a brand new token'", in: b)
        #expect(b.review.staged.count == 3, "\(b.message as Any)")
        #expect(b.review.staged.last?.preview.contains("encrypt") == true, "\(b.review.staged.last?.preview ?? "")")
        b.press(.character("w"), .character("c"))
        #expect(try differences(common, before) != "")
        let undo = try Data(contentsOf: URL(fileURLWithPath: UndoFile.path(storePath: common, stateFolder: state)))
        #expect(undo.range(of: Data("a brand new token".utf8)) == nil)
        b.press(.character("w"), .character("Z"), .character("c"))
        #expect(try differences(common, before) == "")
    }

    /// A write that changed no row leaves an undo of nothing: `Z` says so and stages nothing.
    @Test func zOnAWriteThatChangedNothingSaysSo() throws {
        let folder = TemporaryFolder()
        let path = folder.file("app.sqlite")
        try Database(path: path).execute("CREATE TABLE t(x)")
        let state = URL(fileURLWithPath: folder.file("state"))
        let queue = try DatabaseQueue(path: path, wal: false)
        let (_, note) = try UndoRecorder.transaction(on: queue, storePath: path, stateFolder: state) { db, _ in
            try db.execute("UPDATE t SET x = 1")             // no row
        }
        #expect(note == nil)
        queue.close()
        let b = try browser(path, keys: .empty, stateFolder: state)
        b.press(.character("w"), .character("Z"))
        #expect(b.review.staged.isEmpty)
        #expect(b.message?.text.hasSuffix("changed no row: there is nothing to undo") == true, "\(b.message as Any)")
    }

    /// The undo is found however the file's path is spelt the next time (`browse demo`, then
    /// `browse ~/demo`): it is kept by the file, not by the words.
    @Test func theUndoIsFoundWhateverThePathsSpelling() throws {
        let folder = TemporaryFolder()
        let path = folder.file("app.sqlite")
        try Database(path: path).executeScript("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let state = URL(fileURLWithPath: folder.file("state"))
        let b = try browser(path, keys: .empty, stateFolder: state)
        b.apply([.stage(StagedEdit(storePath: path, action: .execute(sql: "UPDATE t SET x = 2", arguments: []), preview: "", target: "t"))])
        b.press(.character("w"), .character("c"))
        let spelt = (path as NSString).deletingLastPathComponent + "/./" + (path as NSString).lastPathComponent
        let again = try browser(spelt, keys: .empty, stateFolder: state)
        again.press(.character("w"), .character("Z"))
        #expect(again.review.staged.count == 1, "\(again.message as Any)")
        again.press(.character("c"))
        #expect(try Database(path: path).scalar("SELECT x FROM t") == .integer(1))
    }
}
