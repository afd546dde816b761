import Foundation
import Testing
@testable import DatacenterKit

/// `AndroidSharedPreferences` and its editor.
@Suite struct AndroidEditorTests {
    private func makePrefs(_ folder: TemporaryFolder) throws -> (AndroidSharedPreferences, Store) {
        let store = try Store(path: folder.file("prefs.sqlite"))
        return (AndroidSharedPreferences(store: store.kv, group: "app_prefs"), store)
    }

    @Test func gettersReturnDefaultsForMissingKeys() throws {
        let folder = TemporaryFolder()
        let (prefs, _) = try makePrefs(folder)
        #expect(try prefs.getString("s", "fallback") == "fallback")
        #expect(try prefs.getString("s", nil) == nil)
        #expect(try prefs.getInt("i", 7) == 7)
        #expect(try prefs.getLong("l", -1) == -1)
        #expect(try prefs.getFloat("f", 0.25) == 0.25)
        #expect(try prefs.getBoolean("b", true) == true)
        #expect(try !prefs.contains("s"))
        #expect(try prefs.getAll().isEmpty)
    }

    @Test func commitWritesEveryChangeAndGettersReadThem() throws {
        let folder = TemporaryFolder()
        let (prefs, store) = try makePrefs(folder)
        let ok = prefs.edit()
            .putString("name", "ann")
            .putInt("age", 33)
            .putLong("big", 1 << 40)
            .putFloat("ratio", 0.5)
            .putBoolean("premium", true)
            .commit()
        #expect(ok)
        #expect(try prefs.getString("name", nil) == "ann")
        #expect(try prefs.getInt("age", 0) == 33)
        #expect(try prefs.getLong("big", 0) == 1 << 40)
        #expect(try prefs.getFloat("ratio", 0) == 0.5)
        #expect(try prefs.getBoolean("premium", false))
        #expect(try prefs.contains("name"))
        #expect(try prefs.getAll() == [
            "name": .string("ann"), "age": .integer(33), "big": .integer(1 << 40),
            "ratio": .double(0.5), "premium": .bool(true),
        ])
        // Committed to the file: another store on it reads them.
        let other = try Store(path: store.path)
        #expect(try other.kv.allKeys(business: "app_prefs") == ["age", "big", "name", "premium", "ratio"])
    }

    @Test func nothingIsWrittenBeforeCommit() throws {
        let folder = TemporaryFolder()
        let (prefs, _) = try makePrefs(folder)
        let editor = prefs.edit().putString("k", "v")
        #expect(try !prefs.contains("k"))
        #expect(editor.commit())
        #expect(try prefs.contains("k"))
    }

    @Test func aCommitLandsInOneTransaction() throws {
        let folder = TemporaryFolder()
        let (prefs, store) = try makePrefs(folder)
        #expect(prefs.edit().putString("keep", "old").commit())
        // A commit whose last change fails writes nothing at all.
        try store.queue.write { db in
            try db.execute("""
                CREATE TRIGGER refuse BEFORE INSERT ON datacenter_kv WHEN NEW.key = 'poison'
                BEGIN SELECT RAISE(ABORT, 'refused'); END
                """)
        }
        let editor = prefs.edit().putString("keep", "new").putInt("n", 1).putString("poison", "x")
        #expect(!editor.commit())
        #expect(try prefs.getString("keep", nil) == "old")
        #expect(try !prefs.contains("n"))
        #expect(try store.kv.allKeys(business: "app_prefs") == ["keep"])

        let throwing = prefs.edit().remove("keep").putString("poison", "x")
        #expect(throws: DatabaseError.self) { try throwing.commitOrThrow() }
        #expect(try prefs.getString("keep", nil) == "old")
    }

    @Test func removeAndPutNilRemove() throws {
        let folder = TemporaryFolder()
        let (prefs, _) = try makePrefs(folder)
        #expect(prefs.edit().putString("a", "1").putString("b", "2").putInt("c", 3).commit())
        #expect(prefs.edit().remove("a").putString("b", nil).commit())
        #expect(try prefs.getAll() == ["c": .integer(3)])
    }

    @Test func laterChangesToTheSameKeyWin() throws {
        let folder = TemporaryFolder()
        let (prefs, _) = try makePrefs(folder)
        #expect(prefs.edit().putInt("k", 1).putInt("k", 2).remove("gone").putString("gone", "back").commit())
        #expect(try prefs.getInt("k", 0) == 2)
        #expect(try prefs.getString("gone", nil) == "back")
    }

    @Test func clearRemovesTheGroupBeforeTheOtherChanges() throws {
        let folder = TemporaryFolder()
        let (prefs, store) = try makePrefs(folder)
        try store.kv.setString("other group", forKey: "x", business: "elsewhere")
        #expect(prefs.edit().putString("a", "1").putString("b", "2").commit())
        // clear() is applied first, whatever order it was called in.
        #expect(prefs.edit().putString("c", "3").clear().commit())
        #expect(try prefs.getAll() == ["c": .string("3")])
        #expect(try store.kv.string(forKey: "x", business: "elsewhere") == "other group")
        #expect(prefs.edit().clear().commit())
        #expect(try prefs.getAll().isEmpty)
    }

    @Test func anEditorIsEmptyAfterCommit() throws {
        let folder = TemporaryFolder()
        let (prefs, _) = try makePrefs(folder)
        let editor = prefs.edit().putString("a", "1")
        #expect(editor.commit())
        #expect(prefs.edit().remove("a").commit())
        // Committing the same editor again writes nothing: its changes were consumed.
        #expect(editor.commit())
        #expect(try !prefs.contains("a"))
    }

    @Test func applyCompletesAndWrites() throws {
        let folder = TemporaryFolder()
        let (prefs, store) = try makePrefs(folder)
        let done = DispatchSemaphore(value: 0)
        let result = Locked<[Error?]>([])
        for i in 0..<5 {
            prefs.edit().putInt("k\(i)", i).putString("s\(i)", "v\(i)").apply { error in
                result.withLock { $0.append(error) }
                done.signal()
            }
        }
        #expect(wait(for: done, count: 5), "apply never completed")
        #expect(result.current.count == 5)
        #expect(result.current.allSatisfy { $0 == nil })
        #expect(try prefs.getInt("k4", -1) == 4)
        #expect(try prefs.getAll().count == 10)
        #expect(try Store(path: store.path).kv.allKeys(business: "app_prefs").count == 10)
    }

    @Test func applyReportsAFailure() throws {
        let folder = TemporaryFolder()
        let path = folder.file("prefs.sqlite")
        _ = try Store(path: path)
        let readOnly = try Store(path: path, readOnly: true)
        let prefs = AndroidSharedPreferences(store: readOnly.kv, group: "g")
        let done = DispatchSemaphore(value: 0)
        let reported = Locked<Error?>(nil)
        prefs.edit().putInt("k", 1).apply { error in reported.withLock { $0 = error }; done.signal() }
        #expect(wait(for: done))
        #expect(reported.current as? KVError == .readOnly(path: path))
        #expect(!prefs.edit().putInt("k", 1).commit())
    }

    // MARK: Shared instances, string sets, apply seen at once

    @Test func getInstanceReturnsTheSameInstanceForTheSameStoreAndGroup() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("prefs.sqlite"))
        let a = SharedPreferencesManager.getInstance(store.kv, "g")
        let b = SharedPreferencesManager.getInstance(store.kv, "g")
        #expect(a === b)
        #expect(a !== SharedPreferencesManager.getInstance(store.kv, "other"))
        let center = try DataCenter(rootPath: folder.file("root"))
        let c = try SharedPreferencesManager.getInstance(center, "g")
        #expect(try c === SharedPreferencesManager.getInstance(center, "g"))
        #expect(c !== a)
        // An apply through one is seen through the other at once.
        a.writeQueue.suspend()
        a.edit().putString("k", "v").apply()
        #expect(try b.getString("k", nil) == "v")
        a.writeQueue.resume()
    }

    @Test func stringSetsRoundTrip() throws {
        let folder = TemporaryFolder()
        let (prefs, store) = try makePrefs(folder)
        #expect(try prefs.getStringSet("s", ["d"]) == ["d"])
        #expect(try prefs.getStringSet("s", nil) == nil)
        #expect(prefs.edit().putStringSet("s", ["b", "a", ""]).commit())
        #expect(try prefs.getStringSet("s", nil) == ["a", "b", ""])
        #expect(try store.kv.value(forKey: "s", business: "app_prefs") == .plist(.array([.string(""), .string("a"), .string("b")])))
        #expect(prefs.edit().putStringSet("s", nil).commit())
        #expect(try !prefs.contains("s"))
        #expect(prefs.edit().putInt("n", 1).commit())
        #expect(throws: KVError.typeMismatch(business: "app_prefs", key: "n", stored: .integer, requested: .plist)) {
            try prefs.getStringSet("n", nil)
        }
        try store.kv.set(.plist(.array([.integer(1)])), forKey: "bad", business: "app_prefs")
        #expect(throws: KVError.self) { try prefs.getStringSet("bad", nil) }
    }

    @Test func applyIsSeenAtOnceBeforeItIsWritten() throws {
        let folder = TemporaryFolder()
        let (prefs, store) = try makePrefs(folder)
        #expect(prefs.edit().putString("a", "old").putString("gone", "x").putInt("n", 1).commit())
        prefs.writeQueue.suspend()   // the write is held back
        let done = DispatchSemaphore(value: 0)
        prefs.edit().putString("a", "new").remove("gone").putStringSet("set", ["z"]).apply { _ in done.signal() }
        #expect(try prefs.getString("a", nil) == "new")
        #expect(try !prefs.contains("gone"))
        #expect(try prefs.getStringSet("set", nil) == ["z"])
        #expect(try prefs.getAll() == ["a": .string("new"), "n": .integer(1), "set": .plist(.array([.string("z")]))])
        // Not on disk yet.
        #expect(try Store(path: store.path).kv.string(forKey: "a", business: "app_prefs") == "old")
        // A later clear applied hides everything written before it.
        prefs.edit().clear().putInt("m", 2).apply { _ in done.signal() }
        #expect(try prefs.getAll() == ["m": .integer(2)])
        #expect(try prefs.getString("a", "none") == "none")
        prefs.writeQueue.resume()
        #expect(wait(for: done, count: 2))
        #expect(try Store(path: store.path).kv.allValues(business: "app_prefs") == ["m": .integer(2)])
        #expect(try prefs.getAll() == ["m": .integer(2)])
    }

    @Test func aCommitAfterAnApplyLandsAfterIt() throws {
        let folder = TemporaryFolder()
        let (prefs, store) = try makePrefs(folder)
        prefs.writeQueue.suspend()
        prefs.edit().putInt("k", 1).putInt("only", 1).apply()
        let committed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = prefs.edit().putInt("k", 2).commit()
            committed.signal()
        }
        prefs.writeQueue.resume()
        #expect(wait(for: committed))
        #expect(try prefs.getInt("k", 0) == 2)
        #expect(try Store(path: store.path).kv.allValues(business: "app_prefs") == ["k": .integer(2), "only": .integer(1)])
    }

    @Test func aFailedApplyIsReportedAndStopsBeingSeen() throws {
        let folder = TemporaryFolder()
        let (prefs, store) = try makePrefs(folder)
        #expect(prefs.edit().putString("keep", "old").commit())
        try store.queue.write { db in
            try db.execute("""
                CREATE TRIGGER refuse BEFORE INSERT ON datacenter_kv WHEN NEW.key = 'poison'
                BEGIN SELECT RAISE(ABORT, 'refused'); END
                """)
        }
        prefs.writeQueue.suspend()
        let done = DispatchSemaphore(value: 0)
        let reported = Locked<Error?>(nil)
        prefs.edit().putString("keep", "new").putString("poison", "x").apply { error in
            reported.withLock { $0 = error }
            done.signal()
        }
        #expect(try prefs.getString("keep", nil) == "new")
        prefs.writeQueue.resume()
        #expect(wait(for: done))
        #expect(reported.current is DatabaseError)
        #expect(try prefs.getString("keep", nil) == "old", "a value that was never written is not shown")
        #expect(try !prefs.contains("poison"))
    }
}
