import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `o`: another root or file is browsed without quitting, picked from the recent files kept
/// in the state folder; staged edits are never dropped by it.
@Suite struct OpenFileTests {
    /// A browser on `path` remembering its recent files in `state`.
    func browser(_ path: String, state: URL?, keys: KeyRing = .empty) throws -> Browser {
        Browser(catalog: try BrowserCatalog(path: path, keys: keys), width: 300, height: 30, stateFolder: state)
    }

    @Test func oOpensAnotherFileAndRemembersIt() throws {
        let folder = TemporaryFolder()
        let first = folder.file("first.db")
        let second = folder.file("second.db")
        try makeNumbersTable(at: first, rows: 3)
        let db = try Database(path: second)
        try db.execute("CREATE TABLE letters(c TEXT); INSERT INTO letters VALUES ('a')")
        let state = URL(fileURLWithPath: folder.file("state"))
        let b = try browser(first, state: state)
        b.recordOpened(first)
        b.runCommands()
        b.openNodeAndLoad(named: "numbers")
        b.press(.tab)                                          // the tree
        b.press(.character("o"))
        #expect(b.prompt?.purpose == .open)
        #expect(b.screenText.contains(first))                  // the recent files are listed
        answer(second, in: b)
        #expect(b.catalog.title == second)
        #expect(b.grid == nil)
        #expect(b.tree.visibleTree.contains { $0.node.label == "letters" })
        #expect(!b.tree.visibleTree.contains { $0.node.label == "numbers" })
        #expect(b.message?.text == "browsing \(second)")
        b.openNodeAndLoad(named: "letters")
        #expect(b.screenText.contains("letters · second.db"))

        // Written newest first, and read by the next session, whose ↑ gives the newest.
        let saved = try JSONDecoder().decode([String].self, from: Data(contentsOf: RecentFiles.file(in: state)))
        #expect(saved == [second, first])
        let next = try browser(second, state: state)
        next.press(.character("o"))
        next.press(.up)
        #expect(next.prompt?.text == second)
        next.press(.up)
        #expect(next.prompt?.text == first)
        next.press(.enter)
        #expect(next.catalog.title == first)
        let again = try JSONDecoder().decode([String].self, from: Data(contentsOf: RecentFiles.file(in: state)))
        #expect(again == [first, second])
    }

    @Test func OOpensFromTheGridAndAPathThatFailsKeepsTheFileBrowsed() throws {
        let folder = TemporaryFolder()
        let path = folder.file("numbers.db")
        try makeNumbersTable(at: path, rows: 3)
        let b = try browser(path, state: nil)
        b.openNodeAndLoad(named: "numbers")
        b.press(.character("O"))
        #expect(b.prompt?.purpose == .open)
        answer(folder.file("missing.db"), in: b)
        #expect(b.message?.isError == true)
        #expect(b.message?.text.contains("\(folder.file("missing.db")) does not exist") == true)
        #expect(b.catalog.title == path)
        #expect(b.grid != nil)                                 // the grid stays
    }

    @Test func stagedEditsRefuseOpeningAnotherFile() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), state: nil, keys: KeyRing([DemoStore.key]))
        b.openNodeAndLoad(named: "notes")
        b.press(.character("e"))
        answer("changed", in: b)
        #expect(b.review.staged.count == 1)
        b.press(.character("O"))
        #expect(b.prompt == nil)
        #expect(b.message?.text == "1 edit is staged: commit it (w, c) or discard it (w, u) before opening another file")
    }

    @Test func editsStagedWhileOpeningKeepTheFilesBrowsed() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let other = folder.file("other.db")
        try makeNumbersTable(at: other, rows: 1)
        let b = try browser(root, state: nil, keys: KeyRing([DemoStore.key]))
        b.openNodeAndLoad(named: "notes")
        b.press(.character("O"))
        for c in other { b.handle(.key(.character(c))) }
        b.handle(.key(.enter))
        let opening = b.takeCommands()
        #expect(b.screenText.contains("opening \(other)…"))
        b.press(.character("e"))
        answer("staged meanwhile", in: b)
        for command in opening { if let event = command.perform() { b.handle(event) } }
        #expect(b.catalog.title == root)
        #expect(b.review.staged.count == 1)
        #expect(b.message?.text.contains("not opened") == true)
    }

    @Test func recentFilesKeepTwentyNewestFirstEachOnce() {
        var list = RecentFiles()
        for n in 1...25 { list.record("/f\(n)") }
        list.record("/f10")
        #expect(list.paths.count == 20)
        #expect(list.paths.first == "/f10")
        #expect(list.paths[1] == "/f25")
        #expect(!list.paths.contains("/f5"))
        #expect(list.paths.filter { $0 == "/f10" }.count == 1)
    }

    /// A FIFO where the list should be (a mistake, or a trap) is ignored at once: reading it
    /// would wait for a writer for ever, and the browser would never start.
    @Test func aFIFOInPlaceOfTheListIsIgnoredWithoutWaiting() throws {
        let folder = TemporaryFolder()
        let state = URL(fileURLWithPath: folder.file("state"))
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let path = RecentFiles.file(in: state).path
        try #require(mkfifo(path, 0o600) == 0)
        let loaded = LockedState<(list: RecentFiles, warning: String?)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = RecentFiles.load(from: state)
            loaded.withLock { $0 = result }
            done.signal()
        }
        let returned = done.wait(timeout: .now() + 10) == .success
        if !returned {
            // Frees the reader stuck on the FIFO: a writer that closes at once gives it end of file.
            let fd = open(path, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            _ = done.wait(timeout: .now() + 10)
        }
        #expect(returned, "loading the recent files waited on the FIFO")
        let result = try #require(loaded.withLock { $0 })
        #expect(result.list.paths.isEmpty)
        #expect(result.warning == "recent files ignored: \(path) is not a regular file (it is rewritten at the next open)")
    }

    /// A folder where the list should be is named as such.
    @Test func aFolderInPlaceOfTheListIsIgnoredWithAMessage() throws {
        let folder = TemporaryFolder()
        let state = URL(fileURLWithPath: folder.file("state"))
        let path = RecentFiles.file(in: state).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let (list, warning) = RecentFiles.load(from: state)
        #expect(list.paths.isEmpty)
        #expect(warning == "recent files ignored: \(path) is a folder (it is rewritten at the next open)")
    }

    @Test(arguments: ["not json", "{\"files\": 3}", "[1, 2]"])
    func aDamagedListIsIgnoredWithAMessage(text: String) throws {
        let folder = TemporaryFolder()
        let state = URL(fileURLWithPath: folder.file("state"))
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try text.write(to: RecentFiles.file(in: state), atomically: true, encoding: .utf8)
        let path = folder.file("numbers.db")
        try makeNumbersTable(at: path, rows: 1)
        let b = try browser(path, state: state)
        #expect(b.catalogSwitch.recent.paths.isEmpty)
        #expect(b.message?.isError == true)
        #expect(b.message?.text == "recent files ignored: \(RecentFiles.file(in: state).path) is not a JSON array of paths (it is rewritten at the next open)")
        b.recordOpened(path)
        b.runCommands()
        let saved = try JSONDecoder().decode([String].self, from: Data(contentsOf: RecentFiles.file(in: state)))
        #expect(saved == [path])
        let mode = try FileManager.default.attributesOfItem(atPath: RecentFiles.file(in: state).path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
