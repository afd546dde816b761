import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// The DAO panel's select runs through the engine's executor (`DAOConfig.readRows`), so it
/// reads what a call of the app reads: the same statements, the same rows, `<try>` and
/// resumable steps as the dialect says.
@Suite struct DAOPanelReadTests {
    /// Arguments for every select of the example configs; a new example select must be added
    /// here (the test fails on a select it has no arguments for).
    static let arguments: [String: [[DAOValue]]] = [
        "page": [[nil, 10], [2, 1]],
        "count": [[]],
        "getMessage": [[1], [4], [999]],
        "listMessages": [[nil, [], false, 0], ["team", ["alice", "carol"], false, 5], ["bob", [], true, 1]],
        "countUnread": [["team"], ["nobody"]],
        "getTemplate": [["welcome", "en"], ["welcome", "de"], ["missing", nil]],
        "listTemplates": [[["de", "en"]], [[]]],
    ]

    /// The example config with every select's result made `[{}]`, so a call returns the rows
    /// of its last statement as they are, to compare with the rows the panel reads.
    static func rowsConfig(_ xml: String, file: String) throws -> DAOConfig {
        let pattern = try NSRegularExpression(pattern: #"(<select [^>]*?)result="[^"]*""#)
        let plain = pattern.stringByReplacingMatches(in: xml, range: NSRange(xml.startIndex..., in: xml), withTemplate: #"$1result="[{}]""#)
        return try DAOConfig(xml: plain, file: file)
    }

    @Test func everyExampleSelectReadsWhatACallReads() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let keys = KeyRing([DemoStore.key])
        let center = try DataCenter(rootPath: root, crypt: keys)
        var compared = 0
        for (name, xml) in DAOExamples.all {
            let config = try DAOConfig(xml: xml, file: name)
            let store = name.hasPrefix("templates") ? try center.commonStore() : try center.store(forUser: DemoStore.users[0])
            let table = name.hasPrefix("conversation") ? DAODemo.conversationTables[0] : config.module.tableName
            let dao = DAOObject(config: try Self.rowsConfig(xml, file: name), store: store)
            dao.tableName = table
            let db = try Database(path: store.path, mode: .readOnly)
            for method in config.methods where method.kind == .select {
                let cases = try #require(Self.arguments[method.id], "no arguments for the example select \(method.id)")
                for arguments in cases {
                    let call = try dao.call(method.id, arguments)
                    let read = try config.readRows(method.id, arguments: arguments, tableName: table, on: db, encryptor: keys)
                    #expect(read.statements == call.statements, "\(name) \(method.id)\(arguments)")
                    let rows = read.batches.last.map { batch in
                        DAOValue.array(batch.map { .dictionary($0.dictionary.mapValues(DAOValue.init)) })
                    }
                    #expect(rows == call.value, "\(name) \(method.id)\(arguments)")
                    compared += 1
                }
            }
        }
        #expect(compared >= 15)
    }

    /// Before, the panel ran every statement it rendered: both parts of a `<try>`, and a
    /// failing resumable step failed the whole select.
    @Test func tryAndResumableStepsRunAsTheDialectSays() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.sqlite")
        let db = try Database(path: path)
        try db.execute("create table t (x integer); insert into t values (1), (2)")
        let config = try DAOConfig(xml: """
            <module name="T" tableName="t">
              <select id="tried" result="[{}]">
                <try>select x from ${T} order by x<except>select -x as x from ${T}</except></try>
              </select>
              <select id="fellBack" result="[{}]">
                <try>select x from no_such_table<except>select 10 * x as x from ${T} order by x</except></try>
              </select>
              <select id="stepped" result="[{}]">
                <step resumable="true">select x from no_such_table</step>
                <step>select x + 100 as x from ${T} order by x</step>
              </select>
            </module>
            """, file: "t.xml")
        let readOnly = try Database(path: path, mode: .readOnly)
        func values(_ id: String) throws -> [[Int64]] {
            try config.readRows(id, arguments: [], on: readOnly, encryptor: KeyRing.empty).batches.map { $0.map { $0[0].int64Value ?? 0 } }
        }
        #expect(try values("tried") == [[1, 2]])
        #expect(try values("fellBack") == [[10, 20]])
        #expect(try values("stepped") == [[101, 102]])

        // The panel's run: what it shows.
        func shown(_ id: String) throws -> [String] {
            let run = DAORun(id: 1, kind: .select, config: config, method: try config.method(id, arity: 0), values: [], table: "t",
                             storePath: path, encryptedColumns: [], keys: KeyRing.empty, databaseKeys: .empty, busyTimeout: 1)
            guard case .daoFinished(_, let lines, let isError, _) = run.perform() else { return [] }
            #expect(!isError, "\(lines)")
            return lines
        }
        let tried = try shown("tried").joined(separator: "\n")
        #expect(tried.contains("2 row(s)") && !tried.contains("-1"), "\(tried)")
        let stepped = try shown("stepped").joined(separator: "\n")
        #expect(stepped.contains("101") && !stepped.contains("no such table"), "\(stepped)")
    }
}
