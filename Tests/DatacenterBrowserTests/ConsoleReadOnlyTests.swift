import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// The console's SQL writes nothing, not even another file: its connection is read-only and
/// its authorizer refuses every statement that could write one, each said in its output.
@Suite struct ConsoleReadOnlyTests {
    @Test(arguments: ["vacuum into '%@'", "attach database '%@' as other", "pragma journal_mode = delete",
                      "select load_extension('%@')"])
    func aStatementThatCouldWriteIsRefused(_ template: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("app.db")
        try Database(path: path).execute("create table t (x); insert into t values (1)")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let target = folder.file("copy.db")
        let b = try browser(path)
        b.press(.character(":"))
        type(template.replacingOccurrences(of: "%@", with: target), into: b)
        b.press(.enter)
        b.runCommands()
        let output = try #require(b.console?.output).joined(separator: "\n")
        #expect(output.contains("not authorized") || output.contains("read-only") || output.contains("refused"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: target), "the console wrote \(target)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
