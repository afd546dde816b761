import Foundation
import Testing
@_exported import DatacenterTestSupport
@testable import DatacenterKit

@Test func temporaryFolderIsEmptyAndRemoved() throws {
    var folderPath = ""
    do {
        let folder = TemporaryFolder()
        folderPath = folder.path
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
    #expect(!FileManager.default.fileExists(atPath: folderPath))
}

// MARK: SQLite result codes (primary codes, as `DatabaseError.code` reports them)

enum SQLiteCode {
    static let error: Int32 = 1
    static let busy: Int32 = 5
    static let readOnly: Int32 = 8
    static let corrupt: Int32 = 11
    static let cantOpen: Int32 = 14
    static let constraint: Int32 = 19
    static let misuse: Int32 = 21
    static let range: Int32 = 25
    static let notADatabase: Int32 = 26
}

// MARK: Threads

/// A value shared between threads behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
    var current: Value { withLock { $0 } }
}

/// Runs `body(i)` for i in 0..<count, each on its own thread, all released at the same moment.
/// Returns the errors thrown; records an issue when the threads have not all finished within
/// `timeout` seconds (a generous bound against hangs, not a speed assertion).
@discardableResult
func runOnThreads(_ count: Int, timeout: TimeInterval = 60,
                  sourceLocation: SourceLocation = #_sourceLocation,
                  _ body: @escaping @Sendable (Int) throws -> Void) -> [Error] {
    let errors = Locked<[Error]>([])
    let ready = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        let thread = Thread {
            ready.signal()
            start.wait()
            do { try body(i) } catch { errors.withLock { $0.append(error) } }
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { ready.wait() }
    for _ in 0..<count { start.signal() }
    let finished = group.wait(timeout: .now() + timeout) == .success
    #expect(finished, "threads did not finish within \(timeout) s", sourceLocation: sourceLocation)
    return errors.current
}

/// Waits for `semaphore` to be signalled `count` times; false when it timed out.
func wait(for semaphore: DispatchSemaphore, count: Int = 1, timeout: TimeInterval = 30) -> Bool {
    for _ in 0..<count where semaphore.wait(timeout: .now() + timeout) == .timedOut { return false }
    return true
}

// MARK: Files

/// The bytes of the file at `path` (empty when it cannot be read).
func fileBytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }

/// Creates a small database in rollback-journal (delete) mode with a few pages of data.
@discardableResult
func makeSmallDatabase(at path: String, rows: Int = 50) throws -> Database {
    let db = try Database(path: path)
    try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, payload BLOB)")
    try db.inTransaction {
        for i in 0..<rows {
            try db.execute("INSERT INTO items(name, payload) VALUES (?, ?)",
                           [.text("item \(i)"), .blob(Data(repeating: UInt8(i % 256), count: 200))])
        }
    }
    return db
}
