import Foundation
import Testing
@testable import DatacenterKit

/// A default crypt whose next decrypt, once armed, stops at a gate: it holds a read between
/// fetching a row and caching the decoded value.
private final class GatedCrypt: DataCrypt, @unchecked Sendable {
    let inner = AESGCMCrypt(key: .random())
    private let armed = Locked(false)
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)

    func arm() { armed.withLock { $0 = true } }
    func encrypt(_ plaintext: Data) throws -> Data { try inner.encrypt(plaintext) }
    func decrypt(_ ciphertext: Data) throws -> Data {
        let hold = armed.withLock { armed -> Bool in
            defer { armed = false }
            return armed
        }
        if hold {
            entered.signal()
            _ = gate.wait(timeout: .now() + 30)
        }
        return try inner.decrypt(ciphertext)
    }
}

/// Many threads on one store, and many connections on one file.
@Suite struct ConcurrencyTests {
    enum Change: String, CaseIterable, Sendable { case replace, remove, removeLike, batch }

    /// A read fetches "old" and is held while decrypting it; meanwhile another thread changes
    /// the key. Once both are done, the store must not serve "old" from its memory cache.
    @Test(arguments: Change.allCases)
    func aSlowReadNeverCachesAValueChangedMeanwhile(_ change: Change) throws {
        let folder = TemporaryFolder()
        let crypt = GatedCrypt()
        let store = try Store(path: folder.file("gate.sqlite"), crypt: crypt)
        let kv = store.kv
        try kv.setString("old", forKey: "k", business: "b", encryption: .default)
        kv.clearMemoryCache()
        crypt.arm()

        let readerDone = DispatchSemaphore(value: 0)
        let readValue = Locked<String?>(nil)
        Thread {
            readValue.withLock { $0 = try? kv.string(forKey: "k", business: "b") }
            readerDone.signal()
        }.start()
        #expect(wait(for: crypt.entered), "the read never reached decryption")

        let writerDone = DispatchSemaphore(value: 0)
        let writerError = Locked<Error?>(nil)
        Thread {
            do {
                switch change {
                case .replace: try kv.setString("new", forKey: "k", business: "b", encryption: .default)
                case .remove: try kv.removeValue(forKey: "k", business: "b")
                case .removeLike: try kv.removeValues(like: "%", business: "b")
                case .batch: try kv.batch { try kv.setString("new", forKey: "k", business: "b") }
                }
            } catch { writerError.withLock { $0 = error } }
            writerDone.signal()
        }.start()
        // Let the write finish first when it can (it need not wait for the read); the wait
        // bounds the test, it asserts nothing about time.
        let writerFinishedFirst = writerDone.wait(timeout: .now() + 5) == .success
        crypt.gate.signal()
        #expect(wait(for: readerDone))
        if !writerFinishedFirst { #expect(wait(for: writerDone)) }
        #expect(writerError.current == nil)
        #expect(readValue.current == "old" || readValue.current == (change == .replace || change == .batch ? "new" : nil))

        let expected: String? = (change == .replace || change == .batch) ? "new" : nil
        #expect(try kv.string(forKey: "k", business: "b") == expected, "the cache served a value the \(change) replaced")
        #expect(try kv.containsValue(forKey: "k", business: "b") == (expected != nil))
    }

    static let threads = 8
    static let perThread = 200

    private func busyErrors(_ errors: [Error]) -> [Error] {
        errors.filter { ($0 as? DatabaseError)?.isBusy == true || "\($0)".contains("locked") }
    }

    @Test func eightThreadsWritingIntoOneStore() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("shared.sqlite"), crypt: KeyRing([.random()]))
        let errors = runOnThreads(Self.threads) { t in
            for i in 0..<Self.perThread {
                try store.kv.setString("t\(t) v\(i)", forKey: "k\(i)", business: "thread\(t)",
                                       encryption: i % 4 == 0 ? .default : .none)
                if i % 50 == 0 { _ = try store.kv.string(forKey: "k\(i)", business: "thread\(t)") }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        let total = try store.queue.read { try $0.scalar("SELECT count(*) FROM datacenter_kv") }
        #expect(total == .integer(Int64(Self.threads * Self.perThread)))
        store.kv.clearMemoryCache()
        for t in 0..<Self.threads {
            let values = try store.kv.allValues(business: "thread\(t)")
            #expect(values.count == Self.perThread)
            #expect(values["k199"] == .string("t\(t) v199"))
            #expect(values["k0"] == .string("t\(t) v0"))
        }
    }

    @Test func eightStoresOnOneFileWritingAtOnce() throws {
        let folder = TemporaryFolder()
        let path = folder.file("many.sqlite")
        let ring = KeyRing([.random()])
        // Each thread opens its own store (its own connection) at the same moment, then writes.
        let errors = runOnThreads(Self.threads) { t in
            let store = try Store(path: path, crypt: ring)
            for i in 0..<Self.perThread {
                try store.kv.setInteger(i, forKey: "k\(i)", business: "thread\(t)")
            }
            try store.kv.batch {
                try store.kv.setString("done", forKey: "status", business: "thread\(t)")
            }
            try store.kv.sync()
        }
        #expect(busyErrors(errors).isEmpty, "SQLITE_BUSY surfaced: \(busyErrors(errors))")
        #expect(errors.isEmpty, "\(errors)")
        let check = try Store(path: path, crypt: ring)
        let total = try check.queue.read { try $0.scalar("SELECT count(*) FROM datacenter_kv") }
        #expect(total == .integer(Int64(Self.threads * (Self.perThread + 1))))
        for t in 0..<Self.threads {
            #expect(try check.kv.integer(forKey: "k\(Self.perThread - 1)", business: "thread\(t)") == Self.perThread - 1)
            #expect(try check.kv.string(forKey: "status", business: "thread\(t)") == "done")
        }
    }

    @Test func readersAndWritersOnOneStoreNeverSeeAStaleCachedValue() throws {
        // One thread keeps counting a key up; others keep reading it and emptying the cache.
        // Once all have finished, a read must return the last value written, not one a reader
        // cached from an earlier snapshot.
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("race.sqlite"), cacheCapacity: 16)
        let last = 1500
        for round in 0..<3 {
            let key = "counter\(round)"
            let errors = runOnThreads(4) { t in
                if t == 0 {
                    for i in 0...last { try store.kv.setInteger(i, forKey: key, business: "b") }
                } else {
                    for _ in 0..<last {
                        store.kv.clearMemoryCache()
                        _ = try store.kv.integer(forKey: key, business: "b")
                    }
                }
            }
            #expect(errors.isEmpty, "\(errors)")
            #expect(try store.kv.integer(forKey: key, business: "b") == last, "round \(round)")
        }
    }

    @Test func removalsRacingReadsLeaveNoGhostValue() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("race.sqlite"), cacheCapacity: 16)
        for round in 0..<3 {
            let errors = runOnThreads(4) { t in
                for i in 0..<400 {
                    let key = "k\(i % 20)"
                    if t == 0 {
                        try store.kv.setInteger(i, forKey: key, business: "b\(round)")
                        try store.kv.removeValue(forKey: key, business: "b\(round)")
                    } else {
                        if i % 10 == 0 { store.kv.clearMemoryCache() }
                        _ = try store.kv.integer(forKey: key, business: "b\(round)")
                    }
                }
            }
            #expect(errors.isEmpty, "\(errors)")
            for i in 0..<20 {
                #expect(try store.kv.integer(forKey: "k\(i)", business: "b\(round)") == nil, "round \(round), k\(i)")
                #expect(try !store.kv.containsValue(forKey: "k\(i)", business: "b\(round)"))
            }
        }
    }

    @Test func dataCenterSharedAcrossThreads() throws {
        let folder = TemporaryFolder()
        let center = try DataCenter(rootPath: folder.file("root"))
        try center.setCurrentUserId("alice")
        let errors = runOnThreads(6) { t in
            for i in 0..<50 {
                try center.commonPreferences.setInteger(i, forKey: "k\(i)", business: "t\(t)")
                try center.preferences(forUser: "alice").setInteger(i, forKey: "k\(i)", business: "t\(t)")
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(try center.commonPreferences.entries().count == 300)
        #expect(try center.userPreferences?.entries().count == 300)
    }
}
