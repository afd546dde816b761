import Foundation
import Testing
@testable import DatacenterKit
import DatacenterText

/// A result handed from the thread that made it to the one waiting for it.
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}

/// Paths that hold something other than a regular file are refused at once (never waited on),
/// and what the engine creates is private: files 0600, folders 0700, no partial file left.
@Suite struct FileSafetyTests {
    /// Runs `body` on its own thread; fails (instead of hanging) when it takes over `limit`
    /// seconds, then opens `fifo` for writing so a reader stuck on it wakes up.
    private func withinTime<T: Sendable>(_ limit: TimeInterval = 10, unblocking fifo: String,
                                         _ body: @escaping @Sendable () throws -> T) -> Result<T, Error>? {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            box.result = Result(catching: body)
            done.signal()
        }
        if done.wait(timeout: .now() + limit) == .timedOut {
            Issue.record("still blocked after \(limit) s: a FIFO was waited on")
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            _ = done.wait(timeout: .now() + 5)
            return nil
        }
        return box.result
    }

    private func makeFIFO(_ path: String) throws {
        try #require(mkfifo(path, 0o600) == 0, "mkfifo failed")
    }

    private func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// The pid of a process that has exited.
    private func deadPID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test func aFIFOAsDatacenterJSONIsRefusedAtOnce() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try makeFIFO(root + "/datacenter.json")
        let result = withinTime(unblocking: root + "/datacenter.json") { try DataCenter(rootPath: root, readOnly: true).rootPath }
        guard case .failure(let error)? = result else { Issue.record("opened: \(String(describing: result))"); return }
        #expect("\(error)".contains("not a regular file (a FIFO)"), "\(error)")
        #expect("\(error)".contains(root + "/datacenter.json"), "\(error)")
    }

    @Test func aFIFODumpIsRefusedAtOnce() throws {
        let folder = TemporaryFolder()
        let fifo = folder.file("dump.sql")
        try makeFIFO(fifo)
        let db = folder.file("db.sqlite")
        let result = withinTime(unblocking: fifo) { try Database(path: db).importDump(atPath: fifo).executedCount }
        guard case .failure(let error)? = result else { Issue.record("imported: \(String(describing: result))"); return }
        #expect("\(error)".contains("not a regular file (a FIFO)"), "\(error)")
    }

    @Test func aFIFOIsNeitherAnEncryptedFileNorAPlainOne() throws {
        let folder = TemporaryFolder()
        let fifo = folder.file("secret.enc")
        try makeFIFO(fifo)
        let key = try EncryptionKey(parsing: String(repeating: "ab", count: 32))
        let result = withinTime(unblocking: fifo) { () -> Bool in
            #expect(!EncryptedFile.isEncrypted(atPath: fifo))
            try EncryptedFile.decrypt(from: fifo, to: folder.file("out"), keys: KeyRing([key]))
            return true
        }
        guard case .failure(let error)? = result else { Issue.record("decrypted: \(String(describing: result))"); return }
        #expect("\(error)".contains("not a regular file (a FIFO)"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out")))
    }

    @Test func regularFileRefusesFoldersAndDevicesButMayAcceptTheNullDevice() throws {
        let folder = TemporaryFolder()
        for path in [folder.path, "/dev/zero"] {
            let error = #expect(throws: FileAccessError.self) { try RegularFile.openForReading(path) }
            #expect(error?.reason.hasPrefix("not a regular file") == true, "\(String(describing: error))")
        }
        #expect(throws: FileAccessError.self) { try RegularFile.openForReading("/dev/null") }
        let null = try RegularFile.openForReading("/dev/null", allowingNullDevice: true)
        #expect(try null.readToEnd() == nil)
        let missing = #expect(throws: FileAccessError.self) { try RegularFile.contents(atPath: folder.file("absent")) }
        #expect(missing?.description == folder.file("absent") + ": cannot open it: no such file or folder")
        #expect(try RegularFile.contentsIfPresent(atPath: folder.file("absent")) == nil)
    }

    @Test func storesTheirFoldersAndDatacenterJSONArePrivateWhateverTheUmask() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let center = try DataCenter(rootPath: root)
        try center.setCurrentUserId("alice")
        try center.userPreferences?.setString("dark", forKey: "theme", business: "settings")
        let store = try center.storePath(forUser: "alice")
        #expect(try mode(root) == 0o700)
        #expect(try mode(root + "/users") == 0o700)
        #expect(try mode((store as NSString).deletingLastPathComponent) == 0o700)
        #expect(try mode(root + "/datacenter.json") == 0o600)
        for file in [store, store + "-wal", store + "-shm"] {
            #expect(try mode(file) == 0o600, "\(file)")
        }
        // A plain database created by the engine, and its rollback journal, too.
        let db = try Database(path: folder.file("plain.sqlite"))
        try db.execute("CREATE TABLE t(x)")
        try db.inTransaction(.immediate) {
            try db.execute("INSERT INTO t VALUES (1)")
            if FileManager.default.fileExists(atPath: folder.file("plain.sqlite-journal")) {
                #expect(try mode(folder.file("plain.sqlite-journal")) == 0o600)
            }
        }
        #expect(try mode(folder.file("plain.sqlite")) == 0o600)
    }

    @Test func aDecryptedFileIsPrivateAndNoPartialFileStays() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let folder = TemporaryFolder()
        let key = try EncryptionKey(parsing: String(repeating: "ab", count: 32))
        let plain = folder.file("plain.txt")
        try Data("secret".utf8).write(to: URL(fileURLWithPath: plain))
        try EncryptedFile.encrypt(from: plain, to: folder.file("secret.enc"), key: key)
        try EncryptedFile.decrypt(from: folder.file("secret.enc"), to: folder.file("out.txt"), keys: KeyRing([key]))
        #expect(try mode(folder.file("out.txt")) == 0o600)
        #expect(try mode(folder.file("secret.enc")) == 0o600)
        #expect(try String(contentsOfFile: folder.file("out.txt"), encoding: .utf8) == "secret")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["out.txt", "plain.txt", "secret.enc"])
        // An output that is a folder is refused and left alone.
        try FileManager.default.createDirectory(atPath: folder.file("dir"), withIntermediateDirectories: true)
        let error = #expect(throws: EncryptedFileError.self) {
            try EncryptedFile.decrypt(from: folder.file("secret.enc"), to: folder.file("dir"), keys: KeyRing([key]))
        }
        #expect("\(String(describing: error))".contains("not a regular file (a folder)"))
    }

    @Test func partialFilesOfDeadProcessesAreRemovedWhenTheRootOpens() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        _ = try DataCenter(rootPath: root)
        let dead = try deadPID()
        let stale = root + "/.datacenter.json.dc-partial-\(dead)-1a2b"
        let live = root + "/.datacenter.json.dc-partial-\(getpid())-3c4d"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: stale))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: live))
        let center = try DataCenter(rootPath: root)
        #expect(!FileManager.default.fileExists(atPath: stale), "a dead writer's partial file stayed")
        #expect(FileManager.default.fileExists(atPath: live), "a running writer's partial file was removed")
        try center.setCurrentUserId("bob")
        let names = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.contains("partial") && $0 != (live as NSString).lastPathComponent }
        #expect(names.isEmpty, "\(names)")
    }

    @Test func aRootThatIsAFileOrAUsersFileIsAPlainError() throws {
        let folder = TemporaryFolder()
        let file = folder.file("root")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        for readOnly in [false, true] {
            let error = #expect(throws: StorageError.self) { try DataCenter(rootPath: file, readOnly: readOnly) }
            #expect(error == .rootNotAFolder(file))
        }
        let root = folder.file("other")
        let center = try DataCenter(rootPath: root)
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/users"))
        let error = #expect(throws: (any Error).self) { try center.preferences(forUser: "alice") }
        #expect(error.map { "\($0)" } == root + "/users: not a folder (a regular file)")
    }

    @Test func dumpErrorsShowAShortEscapedExcerpt() throws {
        let folder = TemporaryFolder()
        let db = try Database(path: folder.file("db.sqlite"))
        let binary = "INSERT INTO t VALUES ('\u{1b}[31m" + String(repeating: "\u{07}\u{01}zz", count: 150) + "');"
        let failure = #expect(throws: DumpStatementFailure.self) { try db.importDump(binary) }
        let text = failure?.description ?? ""
        #expect(failure?.statement.hasPrefix("INSERT INTO t VALUES ('\\u{1b}[31m") == true, "\(text)")
        #expect((failure?.statement.count ?? 999) <= TextExcerpt.defaultLimit + 1, "\(text)")
        #expect(!text.unicodeScalars.contains { TerminalText.isControl($0) }, "\(text)")
        #expect(text.count < 200, "\(text)")
        // A token SQLite quotes in its message is cut too.
        let token = try #require(#expect(throws: DumpStatementFailure.self) {
            try db.importDump("SELECT \"" + String(repeating: "q\u{1b}", count: 300))
        })
        #expect(token.description.count < 200, "\(token.description)")
        #expect(!token.description.unicodeScalars.contains { TerminalText.isControl($0) })
        // So is a long name SQLite repeats unquoted.
        let name = try #require(#expect(throws: DumpStatementFailure.self) {
            try db.importDump("INSERT INTO \"" + String(repeating: "n", count: 500) + "\" VALUES (1);")
        })
        #expect(name.description.count < 200, "\(name.description)")
        #expect(name.description.contains("no such table: nnnn"), "\(name.description)")
    }

    @Test func aGarbagePropertyListIsACorruptValueNotAFoundationError() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("kv.sqlite"))
        try store.queue.write { db in
            try db.execute("INSERT INTO datacenter_kv VALUES ('b', 'p', X'00112233445566', 'plist', 0, 0)")
        }
        let error = #expect(throws: KVError.self) { try store.kv.value(forKey: "p", business: "b") }
        #expect("\(String(describing: error))".contains("not a valid property list"))
    }

    @Test func listingsCarryOnPastADamagedRow() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("kv.sqlite"))
        try store.kv.setString("one", forKey: "a", business: "b")
        try store.queue.write { db in
            try db.execute("INSERT INTO datacenter_kv VALUES ('b', 'b-weird', 'x', 'no-such-encoding', 0, 0)")
        }
        try store.kv.setString("three", forKey: "c", business: "b")
        var seen: [String] = []
        try store.kv.forEachEntryOrDamagedRow { item in
            switch item {
            case .success(let entry): seen.append(entry.key)
            case .failure(let row): seen.append("damaged " + row.key + ": " + row.reason)
            }
            return true
        }
        #expect(seen == ["a", "damaged b-weird: unknown encoding 'no-such-encoding'", "c"])
        var metadata = 0
        try store.kv.forEachEntryMetadataOrDamagedRow { _ in metadata += 1; return true }
        #expect(metadata == 3)
    }

    @Test func cleaningSkipsADamagedUserStoreAndCleansTheOthers() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let center = try DataCenter(rootPath: root)
        try center.commonPreferences.set(.string("x"), forKey: "k", business: "b", options: .purgeable)
        try center.preferences(forUser: "alice").set(.string("y"), forKey: "k", business: "b", options: .purgeable)
        _ = try center.preferences(forUser: "bob")
        let bob = try center.storePath(forUser: "bob")
        let reopened = try { () throws -> DataCenter in
            try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: bob))
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: bob + suffix) }
            return try DataCenter(rootPath: root)
        }()
        let report = try CacheCleaner(dataCenter: reopened, tasks: [CleaningTask(builtin: "cleanPurgeableValues")]).run()
        #expect(report.tasks.first?.itemsDeleted == 2)
        #expect(report.damagedStores.map(\.path) == [bob])
        #expect(report.damagedStores.first?.reason.hasPrefix("not a SQLite database") == true)
    }
}
