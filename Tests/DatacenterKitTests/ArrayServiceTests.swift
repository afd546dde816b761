import Foundation
import Testing
@testable import DatacenterKit

private struct Note: Codable, Equatable, Sendable {
    var title: String
    var pages: Int
}

/// Waits for `group`, recording an issue when it does not finish in a generous time.
private func waitFor(_ group: DispatchGroup, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let finished = group.wait(timeout: .now() + 60) == .success
    #expect(finished, "\(what): not every completion arrived", sourceLocation: sourceLocation)
}

/// The stored bytes of every row of a file service's table.
private func storedRows(_ service: FileArrayService, in store: Store) throws -> [String: Data] {
    try store.queue.read { db in
        var rows: [String: Data] = [:]
        for row in try db.query("SELECT name, data FROM \(Database.quoteIdentifier(service.tableName))") {
            rows[row[0].stringValue ?? ""] = row[1].dataValue
        }
        return rows
    }
}

/// `FileArrayService` and `ObjectArrayService`.
@Suite struct ArrayServiceTests {
    let folder = TemporaryFolder()
    let key = EncryptionKey.random()

    func store(_ name: String = "s.sqlite", crypt: KeyRing? = nil) throws -> Store {
        try Store(path: folder.file(name), crypt: crypt ?? KeyRing([key]))
    }

    // MARK: Files

    @Test func everyCompletionArrivesInTheOrderAsked() throws {
        let service = try FileArrayService(name: "files", store: try store())
        let group = DispatchGroup()
        let log = Locked<[String]>([])
        let n = 300
        for i in 0..<n {
            group.enter()
            let done: @Sendable (String) -> Void = { text in
                log.withLock { $0.append("\(i) \(text)") }
                group.leave()
            }
            let text: @Sendable (Result<Data?, Error>) -> String = { result in
                (try? result.get()).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? "nil"
            }
            switch i % 5 {
            case 0: service.write(Data("v\(i)".utf8), to: "f\(i)") { done("write \($0 == nil)") }
            case 1: service.read("f\(i - 1)") { done("read " + text($0)) }
            case 2: service.rename("f\(i - 2)", to: "r\(i)") { done("rename \($0 == nil)") }
            case 3: service.read("r\(i - 1)") { done("read " + text($0)) }
            default: service.remove("r\(i - 2)") { done("remove \($0 == nil)") }
            }
        }
        waitFor(group, "\(n) operations")
        let entries = log.current
        #expect(entries.count == n)
        #expect(entries.map { Int($0.split(separator: " ")[0])! } == Array(0..<n), "completions out of order")
        // Each read saw the operations asked before it; every operation succeeded.
        for i in stride(from: 1, to: n, by: 5) { #expect(entries[i] == "\(i) read v\(i - 1)") }
        for i in stride(from: 3, to: n, by: 5) { #expect(entries[i] == "\(i) read v\(i - 3)") }
        #expect(entries.allSatisfy { !$0.hasSuffix("false") })
        #expect(try service.count() == 0, "every written file was renamed, then removed")
    }

    @Test func aSynchronousReadWaitsForEarlierAsynchronousWrites() throws {
        let service = try FileArrayService(name: "sync", store: try store())
        for i in 0..<100 {
            service.write(Data("\(i)".utf8), to: "k")
            #expect(try service.read("k") == Data("\(i)".utf8))
        }
        service.write(Data("a".utf8), to: "one")
        service.write(Data("b".utf8), to: "two")
        #expect(try service.exists("one"))
        #expect(try service.allNames() == ["k", "one", "two"])
        #expect(try service.count() == 3)
        service.rename("one", to: "uno")
        #expect(try service.read("uno") == Data("a".utf8))
        #expect(try service.read("one") == nil)
        service.remove("two")
        #expect(try !service.exists("two"))
        #expect(try service.read(like: "%o") == ["uno": Data("a".utf8)])
        service.write(Data(), to: "empty")
        #expect(try service.read("empty") == Data())
        service.waitForPendingOperations()
    }

    @Test func renameAndRemoveEdgeCases() throws {
        let service = try FileArrayService(name: "edges", store: try store())
        let group = DispatchGroup()
        let outcome = Locked<[String: String]>([:])
        service.write(Data("A".utf8), to: "a")
        service.write(Data("B".utf8), to: "b")
        group.enter()
        service.rename("missing", to: "x") { error in
            outcome.withLock { $0["missing"] = error.map { "\($0)" } ?? "ok" }
            group.leave()
        }
        group.enter()
        service.rename("a", to: "b") { error in
            outcome.withLock { $0["replace"] = error.map { "\($0)" } ?? "ok" }
            group.leave()
        }
        group.enter()
        service.remove("nothing") { error in
            outcome.withLock { $0["remove"] = error.map { "\($0)" } ?? "ok" }
            group.leave()
        }
        waitFor(group, "edge cases")
        #expect(outcome.current["missing"] != "ok")
        #expect(outcome.current["replace"] == "ok")
        #expect(outcome.current["remove"] == "ok")
        #expect(try service.read("b") == Data("A".utf8))
        #expect(try service.allNames() == ["b"])
        #expect(try service.read("x") == nil)
        #expect(throws: CacheError.self) { try FileArrayService(name: "", store: try store()) }
    }

    @Test func readAndRemoveLike() throws {
        let service = try FileArrayService(name: "like", store: try store())
        for name in ["img-1", "img-2", "img_3", "doc-1", "IMG-4"] { service.write(Data(name.utf8), to: name) }
        let images = try service.read(like: "img-%")
        #expect(Set(images.keys) == ["img-1", "img-2", "IMG-4"], "SQL LIKE is case-insensitive for ASCII")
        #expect(images["img-2"] == Data("img-2".utf8))
        #expect(try service.remove(like: "doc%") == 1)
        #expect(try service.remove(like: "nomatch%") == 0)
        #expect(try service.allNames() == ["IMG-4", "img-1", "img-2", "img_3"])
        try service.removeAll()
        #expect(try service.count() == 0)
    }

    @Test func capacityDropsTheOldestFiles() throws {
        let service = try FileArrayService(name: "capped", store: try store(), capacity: 3)
        // Names in reverse order, so age and not name decides.
        for name in ["z", "y", "x", "w", "v"] { service.write(Data(name.utf8), to: name) }
        #expect(try service.allNames() == ["v", "w", "x"])
        // Rewriting the oldest makes it the newest.
        service.write(Data("x2".utf8), to: "x")
        service.write(Data("u".utf8), to: "u")
        #expect(try service.allNames() == ["u", "v", "x"])
        #expect(try service.read("x") == Data("x2".utf8))
        let unlimited = try FileArrayService(name: "all", store: try store())
        for i in 0..<50 { unlimited.write(Data(), to: "f\(i)") }
        #expect(try unlimited.count() == 50)
    }

    @Test func encryptedFilesHoldNoPlaintextAndNeedTheKey() throws {
        let s = try store()
        let secret = Data("the launch codes are 0000".utf8)
        let crypted = try FileArrayService(name: "vault", store: s, encrypted: true)
        let plain = try FileArrayService(name: "open", store: s)
        crypted.write(secret, to: "codes")
        plain.write(secret, to: "codes")
        plain.waitForPendingOperations()   // the raw reads below bypass the services' queues
        #expect(try crypted.read("codes") == secret)
        let cryptedRow = try #require(try storedRows(crypted, in: s)["codes"])
        #expect(cryptedRow.range(of: secret) == nil)
        #expect(try storedRows(plain, in: s)["codes"] == secret)
        #expect(try crypted.read(like: "%") == ["codes": secret])

        // The same file opened with another key.
        let other = try Store(path: folder.file("s.sqlite"), crypt: KeyRing([EncryptionKey.random()]))
        let wrong = try FileArrayService(name: "vault", store: other, encrypted: true)
        do {
            _ = try wrong.read("codes")
            Issue.record("a wrong key read the file")
        } catch let CacheError.cannotDecrypt(cache, key, _) {
            #expect(cache == "vault" && key == "codes")
        }
        let group = DispatchGroup()
        let failed = Locked(false)
        group.enter()
        wrong.read("codes") { result in
            if case .failure(let error) = result, error is CacheError { failed.withLock { $0 = true } }
            group.leave()
        }
        // With no key, writes fail in their completion.
        let keyless = try FileArrayService(name: "vault", store: try Store(path: folder.file("s.sqlite")), encrypted: true)
        let writeError = Locked<Error?>(nil)
        group.enter()
        keyless.write(secret, to: "more") { error in
            writeError.withLock { $0 = error }
            group.leave()
        }
        waitFor(group, "failing operations")
        #expect(failed.current)
        #expect(writeError.current is CacheError)
        #expect(try !crypted.exists("more"))
    }

    // MARK: Objects

    @Test func objectsRoundTripAndCompletionsArriveInOrder() throws {
        let s = try store()
        let service = try ObjectArrayService<Note>(name: "notes", store: s)
        let group = DispatchGroup()
        let log = Locked<[String]>([])
        for i in 0..<100 {
            group.enter()
            service.set(Note(title: "n\(i)", pages: i), forKey: "k\(i % 10)") { error in
                log.withLock { $0.append("set \(i) \(error == nil)") }
                group.leave()
            }
            group.enter()
            service.object(forKey: "k\(i % 10)") { result in
                let note = (try? result.get()).flatMap { $0 }
                log.withLock { $0.append("get \(i) \(note?.pages ?? -1)") }
                group.leave()
            }
        }
        group.enter()
        service.remove(forKey: "k0") { error in
            log.withLock { $0.append("remove \(error == nil)") }
            group.leave()
        }
        waitFor(group, "object operations")
        var expected: [String] = []
        for i in 0..<100 { expected += ["set \(i) true", "get \(i) \(i)"] }
        expected.append("remove true")
        #expect(log.current == expected)

        #expect(try service.object(forKey: "k0") == nil)
        #expect(try service.object(forKey: "k9") == Note(title: "n99", pages: 99))
        #expect(try service.allKeys() == (1..<10).map { "k\($0)" })
        #expect(try service.count() == 9)
        #expect(try service.exists("k5"))

        // Another instance reads from the store.
        let reopened = try ObjectArrayService<Note>(name: "notes", store: s)
        #expect(try reopened.object(forKey: "k5") == Note(title: "n95", pages: 95))
        #expect(try reopened.objects(like: "k_").count == 9)
        service.set(nil, forKey: "k5")
        #expect(try service.object(forKey: "k5") == nil)
        #expect(try service.remove(like: "k%") == 8)
        #expect(try service.object(forKey: "k9") == nil, "remove(like:) left a cached object")
        service.set(Note(title: "t", pages: 1), forKey: "last")
        try service.removeAll()
        #expect(try service.object(forKey: "last") == nil)
        #expect(try service.count() == 0)
    }

    @Test func theMemoryCacheServesReadsWithoutTheStore() throws {
        let s = try store()
        let service = try ObjectArrayService<Note>(name: "cached", store: s, memoryCapacity: 2)
        service.set(Note(title: "a", pages: 1), forKey: "a")
        service.waitForPendingOperations()
        // Change the stored file behind the service's back: the cached object is still served.
        let other = try ObjectArrayService<Note>(name: "cached", store: s)
        other.set(Note(title: "changed", pages: 2), forKey: "a")
        other.waitForPendingOperations()
        #expect(try service.object(forKey: "a")?.title == "a")
        #expect(try other.object(forKey: "a")?.title == "changed")
        // Two newer objects push "a" out of the two-entry memory cache: now it is read again.
        service.set(Note(title: "b", pages: 1), forKey: "b")
        service.set(Note(title: "c", pages: 1), forKey: "c")
        #expect(try service.object(forKey: "a")?.title == "changed")
        // A bad stored value is reported as a decoding error.
        service.files.write(Data("not an archive".utf8), to: "bad")
        #expect(throws: CacheError.self) { try service.object(forKey: "bad") }
    }

    @Test func aCappedObjectServiceNeverServesAnEvictedObject() throws {
        let service = try ObjectArrayService<Note>(name: "capped", store: try store(), capacity: 2)
        service.set(Note(title: "a", pages: 1), forKey: "a")
        #expect(try service.object(forKey: "a")?.title == "a")
        service.set(Note(title: "b", pages: 1), forKey: "b")
        service.set(Note(title: "c", pages: 1), forKey: "c")
        #expect(try !service.exists("a"))
        #expect(try service.object(forKey: "a") == nil, "an object dropped for capacity came from the memory cache")
        #expect(try service.allKeys() == ["b", "c"])
    }

    @Test func encryptedObjects() throws {
        let s = try store()
        let service = try ObjectArrayService<Note>(name: "secret", store: s, encrypted: true)
        service.set(Note(title: "classified title", pages: 3), forKey: "n")
        service.waitForPendingOperations()
        let row = try #require(try storedRows(service.files, in: s)["n"])
        #expect(row.range(of: Data("classified title".utf8)) == nil)
        let reopened = try ObjectArrayService<Note>(name: "secret", store: s, encrypted: true)
        #expect(try reopened.object(forKey: "n")?.title == "classified title")
    }

    @Test func servicesInACustomStorage() throws {
        let center = try DataCenter(rootPath: folder.file("root"), crypt: KeyRing([key]))
        let storage = center.customStorage(atPath: folder.file("custom"))
        #expect(try FileArrayService(name: "u", storage: storage, userDependent: true) == nil, "no user, no service")
        #expect(try ObjectArrayService<Note>(name: "u", storage: storage, userDependent: true) == nil)
        let common = try #require(try FileArrayService(name: "c", storage: storage))
        common.write(Data("x".utf8), to: "f")
        #expect(try common.read("f") == Data("x".utf8))
        try center.setCurrentUserId("ann")
        let mine = try #require(try ObjectArrayService<Note>(name: "u", storage: storage, userDependent: true))
        mine.set(Note(title: "ann's", pages: 1), forKey: "n")
        #expect(try mine.object(forKey: "n")?.title == "ann's")
    }

    // MARK: Memory cache of files

    @Test func theFileMemoryCacheServesReadsAndIsDroppedByEveryChange() throws {
        let s = try store()
        let service = try FileArrayService(name: "cached", store: s, encrypted: true, memoryCapacity: 8)
        service.write(Data("one".utf8), to: "f")
        #expect(try service.read("f") == Data("one".utf8))
        // Behind the service's back: the cached contents still answer.
        try s.queue.write { db in try db.execute("UPDATE \(Database.quoteIdentifier(service.tableName)) SET data = x'00'") }
        #expect(try service.read("f") == Data("one".utf8), "the read came from the memory cache")
        service.write(Data("two".utf8), to: "f")
        #expect(try service.read("f") == Data("two".utf8), "a write replaces the cached contents")
        service.rename("f", to: "g")
        #expect(try service.read("f") == nil, "a rename drops the old name")
        #expect(try service.read("g") == Data("two".utf8))
        service.remove("g")
        #expect(try service.read("g") == nil, "a remove drops the file")
        service.write(Data("three".utf8), to: "h1")
        #expect(try service.read("h1") != nil)
        try service.remove(like: "h%")
        #expect(try service.read("h1") == nil, "remove(like:) drops what matched")
        service.write(Data("four".utf8), to: "k")
        #expect(try service.read("k") != nil)
        try service.removeAll()
        #expect(try service.read("k") == nil, "removeAll drops everything")
    }

    @Test func theFileMemoryCacheNeverServesAFileDroppedForCapacity() throws {
        let service = try FileArrayService(name: "capped", store: try store(), capacity: 2, memoryCapacity: 8)
        for name in ["a", "b", "c"] {
            service.write(Data(name.utf8), to: name)
            #expect(try service.read(name) == Data(name.utf8))
        }
        #expect(try service.read("a") == nil, "a file dropped for capacity came from the memory cache")
    }

    // MARK: Following the current user

    @Test func aUserDependentFileServiceFollowsTheCurrentUser() throws {
        let center = try DataCenter(rootPath: folder.file("root"), crypt: KeyRing([key]))
        let service = try FileArrayService(name: "photos", dataCenter: center, userDependent: true)
        // No one signed in: typed errors, for completions too, and nothing written.
        let failed = DispatchGroup()
        failed.enter()
        let received = Locked<Error?>(nil)
        service.write(Data("lost".utf8), to: "p") { error in received.withLock { $0 = error }; failed.leave() }
        waitFor(failed, "the write's completion")
        #expect(received.current as? NoCurrentUserError == NoCurrentUserError(subject: "file service photos", operation: "write"))
        #expect(throws: NoCurrentUserError.self) { try service.read("p") }
        #expect(center.users().isEmpty)
        try center.setCurrentUserId("alice")
        service.write(Data("alice's".utf8), to: "p")
        #expect(try service.read("p") == Data("alice's".utf8))
        try center.setCurrentUserId("bob")
        #expect(try service.read("p") == nil, "bob never sees alice's file, cached or not")
        service.write(Data("bob's".utf8), to: "p")
        try center.setCurrentUserId("alice")
        #expect(try service.read("p") == Data("alice's".utf8))
        #expect(try storedRows(service, in: try center.store(forUser: "bob")).keys.sorted() == ["p"])
        #expect(try !Store.tableExistsIn(try center.commonStore(), service.tableName), "nothing in the common store")
    }

    @Test func afterAResetTheServicesShowNothingOfTheDeletedStoresAndWriteToTheNewOnes() throws {
        let center = try DataCenter(rootPath: folder.file("root"), crypt: KeyRing([key]))
        let files = try FileArrayService(name: "photos", dataCenter: center, userDependent: true)
        let objects = try ObjectArrayService<Note>(name: "notes", dataCenter: center, userDependent: true)
        try center.setCurrentUserId("alice")
        files.write(Data("before".utf8), to: "p")
        objects.set(Note(title: "before", pages: 1), forKey: "n")
        #expect(try files.read("p") == Data("before".utf8), "read once, so the memory caches hold it")
        #expect(try objects.object(forKey: "n")?.title == "before")
        try center.reset()
        try center.setCurrentUserId("alice")
        #expect(try files.read("p") == nil, "reset deleted it: the memory cache must not bring it back")
        #expect(try objects.object(forKey: "n") == nil)
        files.write(Data("after".utf8), to: "p")
        files.waitForPendingOperations()
        #expect(try storedRows(files, in: try center.store(forUser: "alice")).keys.sorted() == ["p"],
                "the write reached alice's store as it is now")
    }

    @Test func aReadLooksItsStoreUpOnceSoASwitchMidwayCannotMixTwoUsers() throws {
        let center = try DataCenter(rootPath: folder.file("root"), crypt: KeyRing([key]))
        for user in ["alice", "bob"] {
            try center.setCurrentUserId(user)
            let own = try ObjectArrayService<Note>(name: "notes", store: try center.store(forUser: user))
            own.set(Note(title: user + "'s", pages: 1), forKey: "n")
            own.waitForPendingOperations()
        }
        // A current user that changes at every look: alice, then bob, then alice…
        let looks = Locked(0)
        let flipping = FollowedStore(userDependent: true, currentUserId: {
            looks.withLock { $0 += 1; return $0 % 2 == 1 ? "alice" : "bob" }
        }) { owner in
            guard case .user(let id) = owner else { return try center.commonStore() }
            return try center.store(forUser: id)
        }
        let service = try ObjectArrayService<Note>(name: "notes", followedStore: flipping, memoryCapacity: 0)
        let read = try service.object(forKey: "n")
        #expect(looks.current == 1, "one look for the whole read")
        #expect(read?.title == "alice's")
        let done = DispatchGroup()
        done.enter()
        let received = Locked<String?>(nil)
        service.object(forKey: "n") { result in received.withLock { $0 = try? result.get()?.title }; done.leave() }
        waitFor(done, "the read's completion")
        #expect(looks.current == 2)
        #expect(received.current == "bob's", "the second look is bob's, and so is what was read")
    }

    @Test func aUserDependentObjectServiceFollowsTheCurrentUser() throws {
        let center = try DataCenter(rootPath: folder.file("root"), crypt: KeyRing([key]))
        let service = try ObjectArrayService<Note>(name: "notes", dataCenter: center, userDependent: true)
        #expect(throws: NoCurrentUserError.self) { try service.object(forKey: "n") }
        try center.setCurrentUserId("alice")
        service.set(Note(title: "alice's", pages: 1), forKey: "n")
        #expect(try service.object(forKey: "n")?.title == "alice's")
        try center.setCurrentUserId("bob")
        #expect(try service.object(forKey: "n") == nil, "bob never gets alice's object from the memory cache")
        service.set(Note(title: "bob's", pages: 2), forKey: "n")
        #expect(try service.object(forKey: "n")?.title == "bob's")
        try center.setCurrentUserId(nil)
        let done = DispatchGroup()
        done.enter()
        let received = Locked<Error?>(nil)
        service.set(Note(title: "lost", pages: 0), forKey: "m") { error in received.withLock { $0 = error }; done.leave() }
        waitFor(done, "the set's completion")
        #expect(received.current is NoCurrentUserError)
        try center.setCurrentUserId("alice")
        #expect(try service.object(forKey: "n")?.title == "alice's")
        #expect(try service.allKeys() == ["n"], "the set with no user wrote nothing")
    }
}

private extension Store {
    /// True when `store` has a table called `name`.
    static func tableExistsIn(_ store: Store, _ name: String) throws -> Bool {
        try store.queue.read { db in try Store.tableExists(name, in: db) }
    }
}
