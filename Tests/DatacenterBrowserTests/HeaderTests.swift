import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser
import DatacenterText

/// The header names the store of whatever the pane shown works on: the grid, the console,
/// the DAO panel, the staged edits; within the screen's width.
@Suite struct HeaderTests {
    /// The header line of `b`'s screen.
    func header(_ b: Browser) -> String { b.render().lines()[0] }

    @Test func theHeaderNamesTheStoreOfEachPane() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 160)
        b.openNodeAndLoad(named: "notes")
        #expect(header(b).hasPrefix(" datacenter │ notes · common · common.sqlite │ "))
        b.press(.character("e"))
        answer("changed in common", in: b)
        b.openNodeAndLoad(named: "conversation_team")
        #expect(header(b).hasPrefix(" datacenter │ conversation_team · user alice · user.sqlite │ "))
        b.press(.character("e"))
        answer("changed for alice", in: b)
        #expect(b.review.staged.count == 2)

        b.press(.character("w"))
        #expect(header(b).hasPrefix(" datacenter │ staged edits · common · common.sqlite, user alice · user.sqlite │ "))
        b.press(.escape)
        b.press(.character(":"))
        #expect(header(b).hasPrefix(" datacenter │ SQL console · user alice · user.sqlite │ "))
    }

    @Test func theHeaderStaysWithinTheWidth() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 40, height: 12)
        b.openNodeAndLoad(named: "conversation_team")
        let line = header(b)
        #expect(TerminalText.width(of: line) == 40)
        #expect(line.hasPrefix(" datacenter │ conversation_team · user"))
    }

    /// An encrypted file's SQLCipher settings show in the header as an app would set them.
    @Test(arguments: [(["cipher_compatibility=3"], "db: SQLCipher 3"),
                      (["cipher_page_size=8192", "kdf_iter=64000"], "db: cipher_page_size = 8192; kdf_iter = 64000")])
    func theHeaderNamesTheDatabaseSettings(pairs: [String], shown: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("enc.sqlite")
        let key = try DatabaseKey.passphrase("header", settings: try DatabaseCipherSettings(pairs: pairs))
        try Database(path: path, key: key).execute("CREATE TABLE t(x)")
        let catalog = try BrowserCatalog(path: path, keys: .empty, databaseKeys: DatabaseKeyList([key]), databaseSettings: key.settings)
        let b = Browser(catalog: catalog, width: 300, height: 20)
        #expect(header(b).contains("enc.sqlite │ \(shown)"), "\(header(b))")
    }
}
