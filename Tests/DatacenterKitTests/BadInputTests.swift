import Foundation
import Testing
@testable import DatacenterKit

/// Files that are not databases, or damaged ones: opening fails with a clear error naming
/// the file, never a crash.
@Suite struct BadInputTests {
    enum Damage: String, CaseIterable, Sendable {
        case randomBytes, truncatedToHalf, first50Bytes, zeroedHeader, textFile
    }

    /// Writes a damaged file of the given kind at `path`, built from a small database.
    private func makeDamagedFile(_ damage: Damage, at path: String, in folder: TemporaryFolder) throws {
        let sourcePath = folder.file("source.sqlite")
        try makeSmallDatabase(at: sourcePath, rows: 200)
        let good = fileBytes(sourcePath)
        try #require(good.count >= 4 * 4096, "the source database is too small to damage meaningfully")
        let bytes: Data
        switch damage {
        case .randomBytes:
            var rng = SplitMix64(seed: 0xBAD_F11E)
            bytes = rng.bytes(good.count)
        case .truncatedToHalf:
            bytes = good.prefix(good.count / 2)
        case .first50Bytes:
            bytes = good.prefix(50)
        case .zeroedHeader:
            bytes = Data(count: 100) + good.dropFirst(100)
        case .textFile:
            bytes = Data(String(repeating: "this is not a database\n", count: 400).utf8)
        }
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: Damage.allCases)
    func openingADatabaseFailsWithNotADatabase(_ damage: Damage) throws {
        let folder = TemporaryFolder()
        let path = folder.file("damaged.sqlite")
        try makeDamagedFile(damage, at: path, in: folder)
        let before = fileBytes(path)
        for mode in [Database.OpenMode.readOnly, .readWriteExisting, .readWrite] {
            let error = #expect(throws: DatabaseError.self, "\(damage) opened in \(mode)") { try Database(path: path, mode: mode) }
            #expect(error?.isNotADatabase == true, "\(damage), \(mode): \(String(describing: error))")
            #expect(error?.description.contains(path) == true, "\(damage), \(mode): \(String(describing: error))")
        }
        #expect(fileBytes(path) == before, "opening changed the damaged file")
    }

    @Test(arguments: Damage.allCases, [false, true])
    func openingAStoreFailsWithNotADatabase(_ damage: Damage, readOnly: Bool) throws {
        let folder = TemporaryFolder()
        let path = folder.file("damaged.sqlite")
        try makeDamagedFile(damage, at: path, in: folder)
        let error = #expect(throws: DatabaseError.self) { try Store(path: path, readOnly: readOnly) }
        #expect(error?.isNotADatabase == true, "\(damage): \(String(describing: error))")
        #expect(error?.description.contains(path) == true, "\(damage): \(String(describing: error))")
    }

    @Test func aDataCenterWithADamagedCommonStoreReportsIt() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try makeDamagedFile(.randomBytes, at: root + "/common.sqlite", in: folder)
        let center = try DataCenter(rootPath: root)
        let error = #expect(throws: DatabaseError.self) { try center.commonPreferences }
        #expect(error?.isNotADatabase == true)
        #expect(error?.description.contains(root + "/common.sqlite") == true)
    }

    @Test func aDumpOfGarbageFailsCleanly() throws {
        let folder = TemporaryFolder()
        var rng = SplitMix64(seed: 0xD0_0D)
        let garbage = String(decoding: rng.bytes(2000), as: UTF8.self)
        let db = try Database(path: folder.file("db.sqlite"))
        #expect(throws: DumpStatementFailure.self) { try db.importDump(garbage) }
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master") == .integer(0))
        #expect(!db.isInTransaction)
    }

    @Test func aKVRowWithAnUnknownEncodingIsACorruptValue() throws {
        let folder = TemporaryFolder()
        let store = try Store(path: folder.file("kv.sqlite"))
        try store.queue.write { db in
            try db.execute("INSERT INTO datacenter_kv VALUES ('b', 'weird', 'x', 'no-such-encoding', 0, 0)")
            try db.execute("INSERT INTO datacenter_kv VALUES ('b', 'mismatch', X'00', 'integer', 0, 0)")
            try db.execute("INSERT INTO datacenter_kv VALUES ('b', 'fake', 'not a blob', 'string', 1, 0)")
        }
        for key in ["weird", "mismatch", "fake"] {
            let error = #expect(throws: KVError.self, "\(key)") { try store.kv.value(forKey: key, business: "b") }
            if case .corruptValue(let why)? = error { #expect(why.contains("b/\(key)")) } else {
                Issue.record("\(key): got \(String(describing: error))")
            }
        }
    }
}
