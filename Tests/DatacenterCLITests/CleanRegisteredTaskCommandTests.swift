import Foundation
import Testing

/// `datacenter clean` with a task file naming tasks only an app can register.
@Suite struct CleanRegisteredTaskCommandTests {
    @Test func aTaskFileNamingARegisteredTaskIsRefusedAndNothingIsCleaned() throws {
        let scratch = TemporaryFolder("CleanRegisteredTask")
        let root = scratch.file("root")
        try FileManager.default.createDirectory(atPath: root + "/Caches", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: root + "/Caches/a.cache", contents: Data(count: 10)))
        let tasks = scratch.file("tasks.json")
        #expect(FileManager.default.createFile(atPath: tasks, contents: Data(#"[{"path": "Caches", "entries": ["*.cache"]}, {"registered": "appImages"}]"#.utf8)))
        let result = try CLI.run(["clean", "--tasks", tasks, "--root", root])
        #expect(result.status == 1)
        #expect(result.stderr.contains("appImages") && result.stderr.contains("the command line has none"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: root + "/Caches/a.cache"))

        // The reference's name of a built-in task works here.
        #expect(FileManager.default.createFile(atPath: tasks, contents: Data(#"[{"builtin": "cleanDefaultPreferences"}]"#.utf8)))
        let alias = try CLI.run(["clean", "--tasks", tasks, "--root", root])
        #expect(alias.status == 0, "\(alias.stderr)")
        #expect(alias.stdout.contains("cleanDefaultPreferences"))
    }
}
