import DatacenterDAO
import DatacenterKit
import Foundation

// A writer for the kill -9 tests (Tests/DatacenterCLITests/CrashTests.swift): it writes in a
// loop and prints `ack N` on stdout once write N is committed, so the test knows which writes
// were acknowledged when it kills the process at a random moment.
//
//   crash-writer kv ROOT         KV sets of k<N> = v<N> in the common store, one per write
//   crash-writer dao FILE        DAO foreach inserts of 25 rows per call (ids N*25 ..< N*25+25)
//   crash-writer cache ROOT      disk-cache sets of k<N>, each flushed before it is acknowledged
//   crash-writer cipher FILE     a SQLCipher-format database in WAL mode: one row per write, every
//                                tenth write 100 rows in a transaction that spills to the WAL and
//                                writes pages there again before it commits
//   crash-writer cipher-update FILE delete|wal [SETTINGS]
//                                the cross-implementation writer: every row of an existing
//                                encrypted table rewritten per transaction, the cache spilling;
//                                SETTINGS, `;` between pairs, are the file's (cipher=chacha20)
//   crash-writer lock-rule FILE  breaks the lock rule on purpose (waits, holding a store, on a
//                                queue whose work takes it): a debug build traps, naming both

/// Says write `n` is committed: written straight to the descriptor, so nothing acknowledged
/// sits in a buffer when the process is killed.
func acknowledge(_ n: Int) {
    FileHandle.standardOutput.write(Data("ack \(n)\n".utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 3 || ((4...5).contains(arguments.count) && arguments[1] == "cipher-update") else {
    FileHandle.standardError.write(Data("usage: crash-writer kv|dao|cache|cipher|lock-rule PATH, or cipher-update PATH delete|wal [SETTINGS]\n".utf8))
    exit(2)
}
let path = arguments[2]

do {
    switch arguments[1] {
    case "lock-rule":
        let store = try DatabaseQueue(path: path)
        store.write { _ in
            StoreLockRule.wait(on: DispatchQueue(label: "crash-writer.store-work"), needing: [store]) {}
        }
        print("waited without a trap")
    case "kv":
        let kv = try DataCenter(rootPath: path).commonPreferences
        var n = 0
        while true {
            try kv.setString("v\(n)", forKey: "k\(n)", business: "crash")
            acknowledge(n)
            n += 1
        }
    case "dao":
        let xml = """
            <module name="crash" initializer="create" tableName="rows" version="1.0">
              <update id="create">create table if not exists ${T} (id integer primary key, body text not null)</update>
              <insert id="addAll" arguments="rows" foreach="rows.r">insert into ${T} (id, body) values (#{r.id}, #{r.body})</insert>
            </module>
            """
        let dao = try DAOObject(config: try DAOConfig(xml: xml, file: "crash.xml"), path: path)
        var n = 0
        while true {
            let rows: [DAOValue] = (0..<25).map { i in ["id": .integer(Int64(n * 25 + i)), "body": .string("row \(n * 25 + i)")] }
            try dao.call("addAll", [.array(rows)])
            acknowledge(n)
            n += 1
        }
    case "cache":
        let center = try DataCenter(rootPath: path)
        let cache = try LRUDiskCache(name: "crash", capacity: 1_000_000, dataCenter: center)
        var n = 0
        while true {
            try cache.setData(Data("v\(n)".utf8), forKey: "k\(n)")
            if n % 7 == 6 { try cache.flush() ; for i in (n - 6)...n { acknowledge(i) } }
            n += 1
        }
    case "cipher":
        let db = try Database(path: path, key: .passphrase("crash test"))
        try db.enableWAL()
        try db.execute("PRAGMA cache_size = 4")
        try db.execute("CREATE TABLE IF NOT EXISTS rows(id INTEGER PRIMARY KEY, write INTEGER NOT NULL, body BLOB)")
        var n = 0
        while true {
            if n % 10 == 9 {
                try db.execute("BEGIN")
                try db.execute("""
                    WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 100)
                    INSERT INTO rows(write, body) SELECT ?, randomblob(300) FROM i
                    """, [.integer(Int64(n))])
                try db.execute("UPDATE rows SET body = randomblob(310) WHERE write = ?", [.integer(Int64(n))])
                try db.execute("COMMIT")
            } else {
                try db.execute("INSERT INTO rows(write, body) VALUES (?, randomblob(200))", [.integer(Int64(n))])
            }
            acknowledge(n)
            n += 1
        }
    case "cipher-update":
        // The cross-implementation crash tests' writer (SQLCipher runs the same loop): an
        // encrypted file in rollback-journal or WAL mode (arguments[3]), a page cache so small
        // that every transaction spills into the file or the WAL before it commits, and one
        // transaction per generation rewriting every row's indexed value.
        let settings = arguments.count > 4
            ? try DatabaseCipherSettings(pairs: arguments[4].split(separator: ";").map(String.init)) : .sqlcipher4
        let db = try Database(path: path, key: .passphrase("cross crash", settings: settings))
        if arguments.count > 3, arguments[3] == "wal" { try db.enableWAL() }
        try db.execute("PRAGMA cache_size = 8")
        var generation = 1
        while true {
            try db.execute("BEGIN IMMEDIATE")
            try db.execute("UPDATE t SET v = 'gen ' || ? || ' row ' || id", [.integer(Int64(generation))])
            try db.execute("COMMIT")
            acknowledge(generation)
            generation += 1
        }
    default:
        FileHandle.standardError.write(Data("unknown kind \(arguments[1])\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("crash-writer: \(error)\n".utf8))
    exit(1)
}
