import CSQLite
import DatacenterBrowser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// The DAO benchmarks behind `datacenter bench dao`: each scenario runs the DAO engine and a
/// baseline doing the same logical work alternately in the same process.
///
/// - `dao-insert-foreach`: 10,000 rows through a method-level foreach insert, against raw
///   inserts with one reused prepared statement in one transaction (ratio ≤ 1.2).
/// - `dao-select-pk`: a select by primary key returning the row (`result="{}"`), against a raw
///   point select with a reused statement reading the same columns (ratio ≤ 1.3).
/// - `dao-render`: rendering a method with if/foreach/where over 10 arguments (engine_ns ≤
///   5,000); the baseline builds the same SQL and bindings by hand.
/// - `dao-call-args-file`: `datacenter dao call … --args @FILE` of a 200,000-element foreach
///   insert, run as a child process: its peak memory (≤ 200 MB) and its time against raw
///   inserts of the same rows (reported).
/// - `dao-messages-insert`, `dao-messages-get`, `dao-messages-list`: the example config
///   `examples/messages.xml` as an app calls it (see `DAOMessagesBenchmark`; ratio ≤ 1.3).
package enum DAOBenchmark {
    /// Sizes of the runs.
    package struct Scale: Sendable {
        var rows: Int
        var reads: Int
        var renders: Int
        var rounds: Int
        /// Elements of `dao-call-args-file`'s argument file.
        var argumentElements: Int

        /// Figures worth reporting.
        package static let standard = Scale(rows: 10_000, reads: 20_000, renders: 20_000, rounds: 15, argumentElements: 200_000)
        /// A smoke run.
        package static let quick = Scale(rows: 1_000, reads: 2_000, renders: 2_000, rounds: 3, argumentElements: 20_000)
    }

    /// The config the scenarios call.
    static let configXML = """
        <module name="Bench" initializer="createTable" tableName="items" version="1.0">
          <update id="createTable">
            create table if not exists ${T} (id integer primary key, name text not null, score real, tag text)
          </update>
          <insert id="insertAll" arguments="rows" foreach="rows.r">
            insert into ${T} (name, score, tag) values (#{r.name}, #{r.score}, #{r.tag})
          </insert>
          <select id="get" arguments="id" result="{}">select id, name, score, tag from ${T} where id = #{id}</select>
          <select id="search" arguments="name, minScore, maxScore, tags, ids, sender, unread, since, until, limit" result="[{}]">
            select id, name, score, tag from ${T}
            <where>
              <if true="name != nil">and name = #{name}</if>
              <if true="minScore != nil">and score &gt;= #{minScore}</if>
              <if true="maxScore != nil">and score &lt;= #{maxScore}</if>
              <if true="tags.count > 0">and tag in <foreach item="t" collection="tags" open="(" separator="," close=")">#{t}</foreach></if>
              <if true="ids.count > 0">and id in <foreach item="i" collection="ids" open="(" separator="," close=")">#{i}</foreach></if>
              <if true="sender != nil">and name like #{sender}</if>
              <if true="unread">and score = 0</if>
              <if true="since != nil">and id &gt;= #{since}</if>
              <if true="until != nil">and id &lt; #{until}</if>
            </where>
            order by id
            <choose><when true="limit > 0">limit #{limit}</when><otherwise>limit 100</otherwise></choose>
          </select>
        </module>
        """

    /// The scenarios, in the order they run.
    package static let scenarios = ["dao-insert-foreach", "dao-select-pk", "dao-render", "dao-call-args-file"]
        + DAOMessagesBenchmark.scenarios

    /// The most `dao-call-args-file`'s command may hold in memory.
    static let argumentFileMemoryLimit = 200 * 1_048_576

    /// Runs the selected scenarios in `folder` (created if needed, files removed afterwards)
    /// and reports each result as soon as it is measured.
    package static func run(in folder: String, scale: Scale = .standard, selection: BenchmarkSelection = .all,
                           report: (BenchmarkResult) -> Void) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileTree.remove(atPath: folder) }
        let config = try DAOConfig(xml: configXML, file: "bench.xml")
        let dao = try DAOObject(config: config, path: folder + "/engine.sqlite")
        let raw = try RawItemsBaseline(path: folder + "/baseline.sqlite")

        // dao-insert-foreach
        let n = scale.rows
        let rows: [DAOValue] = (0..<n).map { i in
            ["name": .string("item \(i)"), "score": .double(Double(i % 100) / 4), "tag": .string("tag\(i % 10)")]
        }
        let plain: [(String, Double, String)] = (0..<n).map { i in ("item \(i)", Double(i % 100) / 4, "tag\(i % 10)") }
        try dao.call("get", [0]) // creates the table
        if selection.includes("dao-insert-foreach") {
            let insert = try Stopwatch.interleaved(rounds: scale.rounds * 2 + 1, operations: n, engine: { _ in
                try dao.call("insertAll", [.array(rows)])
            }, baseline: { _ in
                try raw.insertAll(plain)
            })
            report(BenchmarkResult(scenario: "dao-insert-foreach", engineNanoseconds: insert.engine, baselineNanoseconds: insert.baseline,
                                   target: "ratio <= 1.25", meetsTarget: insert.engine / insert.baseline <= 1.25))
        } else if selection.includes("dao-select-pk") {
            try dao.call("insertAll", [.array(rows)]) // the rows the reads read
            try raw.insertAll(plain)
        }

        // dao-select-pk, on both files in the same state: the log of the writes above folded
        // into the database (reads of a page still in a long log look it up there first).
        if selection.includes("dao-select-pk") {
            try dao.executeUpdate(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            try raw.checkpoint()
        }
        let reads = scale.reads
        var sink = 0
        let ids: [DAOValue] = (0..<reads).map { .integer(Int64(($0 &* 7919) % n + 1)) }
        if selection.includes("dao-select-pk") {
            let select = try Stopwatch.interleaved(rounds: scale.rounds, operations: reads, engine: { _ in
                for id in ids { sink &+= try dao.call("get", [id]).value.fields?.count ?? 0 }
            }, baseline: { _ in
                for id in ids { sink &+= try raw.get(id.int64Value ?? 0)?.name.utf8.count ?? 0 }
            })
            report(BenchmarkResult(scenario: "dao-select-pk", engineNanoseconds: select.engine, baselineNanoseconds: select.baseline,
                                   target: "ratio <= 1.3", meetsTarget: select.engine / select.baseline <= 1.3))
        }

        // dao-render
        let method = try config.method("search", arity: 10)
        let arguments: [DAOValue] = ["item 7", 1.5, nil, ["tag1", "tag2", "tag3"], [1, 2, 3, 4, 5], nil, true, 10, nil, 20]
        let renders = scale.renders
        if selection.includes("dao-render") {
            let render = try Stopwatch.interleaved(rounds: scale.rounds, operations: renders, engine: { _ in
                for _ in 0..<renders {
                    sink &+= try Renderer.render(method, arguments: arguments, tableName: "items").runs.count
                }
            }, baseline: { _ in
                for _ in 0..<renders { sink &+= handBuiltSearch(arguments).1.count }
            })
            report(BenchmarkResult(scenario: "dao-render", engineNanoseconds: render.engine, baselineNanoseconds: render.baseline,
                                   target: "ratio <= 3 (baseline: the same SQL and bindings built by hand)",
                                   meetsTarget: render.engine / render.baseline <= 3))
        }
        if sink == 42 { print("") } // keeps the work from being optimized away

        if selection.includes("dao-call-args-file") {
            report(try argumentFileCall(in: folder, elements: scale.argumentElements, rounds: max(1, scale.rounds / 5)))
        }

        try DAOMessagesBenchmark.run(in: folder, scale: scale, selection: selection, report: report)
    }

    /// `dao-call-args-file`: the command a script runs for a batch too large for a command
    /// line, whole (start-up, reading the JSON file, loading the config, the insert), as a
    /// child process, so its peak memory is its own; against raw inserts of the same rows.
    static func argumentFileCall(in folder: String, elements: Int, rounds: Int) throws -> BenchmarkResult {
        let config = folder + "/args-bench.xml", arguments = folder + "/args-bench.json"
        let database = folder + "/args-engine.sqlite", baselinePath = folder + "/args-baseline.sqlite"
        try configXML.write(toFile: config, atomically: false, encoding: .utf8)
        let plain: [(String, Double, String)] = (0..<elements).map { i in ("item \(i)", Double(i % 100) / 4, "tag\(i % 10)") }
        var json = "[["
        for (index, row) in plain.enumerated() {
            json += (index == 0 ? "" : ",") + #"{"name":"\#(row.0)","score":\#(row.1),"tag":"\#(row.2)"}"#
        }
        try (json + "]]").write(toFile: arguments, atomically: false, encoding: .utf8)
        var engine: [Double] = [], baseline: [Double] = [], peak = 0
        for _ in 0..<rounds {
            DatabaseBenchmark.removeDatabase(at: database)
            guard let run = try BenchChildProcess.run(["dao", "call", config, "insertAll", "--db", database, "--args", "@" + arguments]) else {
                return BenchmarkResult(scenario: "dao-call-args-file", engineNanoseconds: 0, baselineNanoseconds: 0,
                                       target: "needs the datacenter binary (run as `datacenter bench dao`)", meetsTarget: true,
                                       isReportedOnly: true)
            }
            engine.append(run.nanoseconds / Double(elements))
            peak = max(peak, run.peakBytes)
            DatabaseBenchmark.removeDatabase(at: baselinePath)
            let raw = try RawItemsBaseline(path: baselinePath)
            baseline.append(try Stopwatch.time { try raw.insertAll(plain) } / Double(elements))
        }
        DatabaseBenchmark.removeDatabase(at: database)
        DatabaseBenchmark.removeDatabase(at: baselinePath)
        let megabytes = Double(peak) / 1_048_576
        return BenchmarkResult(scenario: "dao-call-args-file", engineNanoseconds: Stopwatch.median(engine),
                               baselineNanoseconds: Stopwatch.median(baseline),
                               target: String(format: "peak RSS <= 200 MB (%.0f MB for %d elements, %.1f MB of JSON); "
                                   + "time of the whole command against raw inserts, reported", megabytes, elements,
                                   Double(json.utf8.count) / 1_048_576),
                               meetsTarget: peak <= argumentFileMemoryLimit)
    }

    /// The `search` method's SQL built by hand: the render baseline.
    static func handBuiltSearch(_ a: [DAOValue]) -> (String, [DatabaseValue]) {
        var sql = "select id, name, score, tag from items"
        var conditions: [String] = []
        var bindings: [DatabaseValue] = []
        func list(_ value: DAOValue) -> [DAOValue] { value.elements ?? [] }
        if !a[0].isNil { conditions.append("name = ?"); bindings.append(a[0].databaseValue) }
        if !a[1].isNil { conditions.append("score >= ?"); bindings.append(a[1].databaseValue) }
        if !a[2].isNil { conditions.append("score <= ?"); bindings.append(a[2].databaseValue) }
        if !list(a[3]).isEmpty {
            conditions.append("tag in (" + list(a[3]).map { _ in "?" }.joined(separator: ",") + ")")
            bindings += list(a[3]).map(\.databaseValue)
        }
        if !list(a[4]).isEmpty {
            conditions.append("id in (" + list(a[4]).map { _ in "?" }.joined(separator: ",") + ")")
            bindings += list(a[4]).map(\.databaseValue)
        }
        if !a[5].isNil { conditions.append("name like ?"); bindings.append(a[5].databaseValue) }
        if a[6] == .bool(true) { conditions.append("score = 0") }
        if !a[7].isNil { conditions.append("id >= ?"); bindings.append(a[7].databaseValue) }
        if !a[8].isNil { conditions.append("id < ?"); bindings.append(a[8].databaseValue) }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " and ") }
        sql += " order by id"
        if let limit = a[9].int64Value, limit > 0 { sql += " limit ?"; bindings.append(.integer(limit)) } else { sql += " limit 100" }
        return (sql, bindings)
    }
}

/// The baseline of the DAO benchmarks: the same table, with raw SQLite C calls and reused
/// prepared statements.
final class RawItemsBaseline {
    private let raw: RawSQLite
    private let insert: OpaquePointer?
    private let select: OpaquePointer?
    private var db: OpaquePointer? { raw.handle }

    init(path: String) throws {
        raw = try RawSQLite(path: path)
        try raw.exec("create table if not exists items (id integer primary key, name text not null, score real, tag text)")
        insert = try raw.prepare("insert into items (name, score, tag) values (?, ?, ?)")
        select = try raw.prepare("select id, name, score, tag from items where id = ?")
    }

    private func exec(_ sql: String) throws { try raw.exec(sql) }

    /// Folds the write-ahead log into the database file and empties it.
    func checkpoint() throws { try exec("PRAGMA wal_checkpoint(TRUNCATE)") }
    private func bindText(_ s: OpaquePointer?, _ index: Int32, _ text: String) { raw.bindText(s, index, text) }

    /// Inserts every row in one transaction.
    func insertAll(_ rows: [(String, Double, String)]) throws {
        try exec("BEGIN IMMEDIATE")
        for (name, score, tag) in rows {
            bindText(insert, 1, name)
            sqlite3_bind_double(insert, 2, score)
            bindText(insert, 3, tag)
            let rc = sqlite3_step(insert)
            sqlite3_reset(insert)
            guard rc == SQLITE_DONE else {
                try? exec("ROLLBACK")
                throw DatabaseError(extendedCode: rc, message: String(cString: sqlite3_errmsg(db)))
            }
        }
        try exec("COMMIT")
    }

    /// The row with `id`, its columns read into Swift values.
    func get(_ id: Int64) throws -> (id: Int64, name: String, score: Double, tag: String)? {
        sqlite3_bind_int64(select, 1, id)
        defer { sqlite3_reset(select) }
        let rc = sqlite3_step(select)
        guard rc == SQLITE_ROW else {
            if rc == SQLITE_DONE { return nil }
            throw DatabaseError(extendedCode: rc, message: String(cString: sqlite3_errmsg(db)))
        }
        func text(_ column: Int32) -> String {
            guard let p = sqlite3_column_text(select, column) else { return "" }
            return String(cString: p)
        }
        return (sqlite3_column_int64(select, 0), text(1), sqlite3_column_double(select, 2), text(3))
    }
}
