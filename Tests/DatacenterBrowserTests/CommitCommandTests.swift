import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// A commit of staged edits runs as a command: until its result comes, the edits stay
/// staged and the list does not change under it; edits staged meanwhile stay staged after.
extension EditTrustTests {
    func commits(_ commands: [BrowserCommand]) -> [StagedCommit] {
        commands.compactMap { if case .commit(let commit) = $0 { return commit } else { return nil } }
    }

    @Test func aCommitRunsAsACommandAndItsEditsStayStagedUntilItsResult() throws {
        let folder = TemporaryFolder()
        let (b, path) = try browserWithAStagedEdit(folder)
        b.press(.character("w"))
        b.handle(.key(.character("c")))
        let commands = b.takeCommands()
        #expect(commits(commands).count == 1)
        #expect(commits(commands).first?.edits.count == 1)
        #expect(b.review.staged.count == 1)
        #expect(try noteCount(path) == 3)
        #expect(b.screenText.contains("committing 1 edit(s)…"))
        b.handle(.key(.character("x")))                   // the list does not change under the commit
        b.handle(.key(.character("u")))
        #expect(b.review.staged.count == 1)
        #expect(b.message?.text.contains("committing…") == true)
        b.handle(.key(.character("c")))                   // nor is it committed twice
        #expect(b.takeCommands().isEmpty)
        b.handle(try #require(commands[0].perform()))
        #expect(b.review.staged.isEmpty)
        #expect(try noteCount(path) == 2)
        #expect(b.screenText.contains("committed 1 edit(s)"))
        #expect(b.focus == .grid)
    }

    @Test func anEditStagedWhileACommitRunsStaysStaged() throws {
        let folder = TemporaryFolder()
        let (b, path) = try browserWithAStagedEdit(folder)   // deletes note 1
        b.press(.character("w"))
        b.handle(.key(.character("c")))
        let commands = b.takeCommands()
        b.handle(.key(.escape))
        #expect(b.focus == .grid)
        b.handle(.key(.down))
        b.handle(.key(.character("x")))                   // delete note 2, staged during the commit
        #expect(b.review.staged.count == 2)
        b.handle(try #require(commands[0].perform()))
        b.runCommands()
        #expect(try noteCount(path) == 2)
        #expect(b.review.staged.count == 1)
        #expect(b.review.staged.first?.preview == "DELETE FROM \"notes\" WHERE \"_rowid_\" = 2")
    }

    @Test func quittingWaitsForARunningCommitAndCommitAndQuitEndsAfterIt() throws {
        let folder = TemporaryFolder()
        let (b, path) = try browserWithAStagedEdit(folder)
        b.press(.character("w"))
        b.handle(.key(.character("c")))
        let running = b.takeCommands()
        b.handle(.key(.character("\u{3}")))
        #expect(!b.isFinished)
        #expect(!b.review.confirmingQuit)
        #expect(b.message?.text.contains("a commit is running: quit when it has ended") == true)
        b.handle(try #require(running[0].perform()))
        #expect(try noteCount(path) == 2)
        // Commit and quit from the quit question: the browser ends when the write is done.
        b.press(.down)
        b.press(.character("x"))
        b.handle(.key(.character("q")))
        #expect(b.review.confirmingQuit)
        b.handle(.key(.character("c")))
        let commands = b.takeCommands()
        #expect(commits(commands).count == 1)
        #expect(!b.isFinished)
        b.handle(try #require(commands[0].perform()))
        #expect(b.isFinished)
        #expect(try noteCount(path) == 1)
    }
}
