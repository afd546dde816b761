import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// Selected rows (`s`, `*`, `|`, `U`): kept by key, shown in the grid and the status line,
/// deleted (`x`) and exported (`E`) alone — exactly those, no other.
@Suite struct RowSelectionTests {
    /// A browser on `numbers` (`rows` rows labelled `row N`).
    func numbers(_ folder: TemporaryFolder, rows: Int = 30) throws -> (Browser, String) {
        let path = folder.file("rows.db")
        try makeNumbersTable(at: path, rows: rows)
        let b = try browser(path, keys: .empty, width: 100, height: 20)
        b.openNodeAndLoad(named: "numbers")
        return (b, path)
    }

    func status(_ b: Browser) -> String { b.render().lines().last ?? "" }

    @Test func sSelectsRowByRowAndUClears() throws {
        let folder = TemporaryFolder()
        let (b, _) = try numbers(folder)
        b.press(.character("s"), .character("s"), .down, .character("s"))
        #expect(b.grid?.selectedKeys == [[.integer(1)], [.integer(2)], [.integer(4)]])
        #expect(b.grid?.cursor == 4)
        #expect(status(b).contains("3 selected"))
        b.press(.up, .character("s"))                               // again: unselected
        #expect(b.grid?.selectedKeys.count == 2)
        b.press(.character("U"))
        #expect(b.grid?.selectedKeys.isEmpty == true)
        #expect(!status(b).contains("selected ·"))
    }

    @Test func starSelectsTheFilterAndBarTheSearch() throws {
        let folder = TemporaryFolder()
        let (b, _) = try numbers(folder, rows: 12_000)
        b.press(.character("*"))
        b.runCommands()
        #expect(b.grid?.selectedKeys.isEmpty == true, "more than the limit: none")
        #expect(b.message?.text.contains("more than 10,000 rows") == true)
        b.press(.character("f"))
        answer("n <= 5", in: b)
        b.runCommands()
        b.press(.character("*"))
        b.runCommands()
        #expect(b.grid?.selectedKeys == Set((1...5).map { [DatabaseValue.integer(Int64($0))] }))
        // A selection that would grow past the limit stays as it was.
        b.press(.character("f"), .character("\u{15}"))
        answer("n <= 10000", in: b)
        b.runCommands()
        b.press(.character("*"))
        b.runCommands()
        #expect(b.grid?.selectedKeys.count == 10_000)
        b.press(.character("f"), .character("\u{15}"))
        answer("n > 11990", in: b)
        b.runCommands()
        b.press(.character("*"))
        b.runCommands()
        #expect(b.grid?.selectedKeys.count == 10_000, "nothing dropped, nothing added")
        #expect(b.message?.isError == true && b.message?.text.contains("would be selected") == true)
        b.press(.character("U"), .character("f"))
        b.press(.character("\u{15}"))
        answer("", in: b)
        b.runCommands()
        b.press(.character("/"))
        answer("row 119", in: b)
        b.runCommands()
        b.press(.character("|"))
        b.runCommands()
        let matching = (1...12_000).filter { "row \($0)".contains("row 119") }   // 119, 1190…1199, 11900…11999
        #expect(b.grid?.selectedKeys == Set(matching.map { [DatabaseValue.integer(Int64($0))] }))
    }

    @Test func xDeletesAndEExportsExactlyTheSelectedRows() throws {
        let folder = TemporaryFolder()
        let (b, path) = try numbers(folder)
        b.press(.character("s"), .down, .down, .character("s"))  // rows 1 and 4
        let out = folder.file("selected.csv")
        b.press(.character("E"))
        answer(out, in: b)
        b.runCommands()
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "n,label\n1,\"row 1\"\n4,\"row 4\"\n")
        b.press(.character("x"))
        #expect(b.review.staged.count == 2)
        b.press(.character("w"))
        b.handle(.key(.character("c")))
        b.runCommands()
        let left = try Database(path: path, mode: .readOnly).query("SELECT n FROM numbers ORDER BY n").compactMap { $0[0].int64Value }
        #expect(left == Array(2...30).filter { $0 != 4 }.map(Int64.init))
    }

    @Test func yCopiesTheSelectedRowsEvenOffScreenAndOnlyThem() throws {
        let folder = TemporaryFolder()
        let (b, _) = try numbers(folder, rows: 3_000)
        b.press(.character("Y"))
        #expect(b.takeClipboard() == #"{"n":1,"label":"row 1"}"#, "no selection: the cursor's row, as before")
        b.press(.character("f"))
        answer("n % 700 = 0", in: b)                     // 700 … 2800: none of them on the first page
        b.runCommands()
        b.press(.character("*"))
        b.runCommands()
        b.press(.character("f"), .character("\u{15}"))
        answer("", in: b)                                // the filter cleared: the selection stays
        b.runCommands()
        b.press(.character("Y"))
        b.runCommands()
        #expect(b.takeClipboard() == (1...4).map { #"{"n":\#($0 * 700),"label":"row \#($0 * 700)"}"# + "\n" }.joined())
        #expect(b.message?.text.contains("copied 4 selected rows") == true)
    }

    @Test func tooManyBytesForTheClipboardAreRefusedWhole() throws {
        let folder = TemporaryFolder()
        let path = folder.file("wide.db")
        let db = try Database(path: path)
        try db.execute("CREATE TABLE wide(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
                       + "INSERT INTO wide SELECT i, printf('%.1000c', 'x') FROM n")
        let b = try browser(path, keys: .empty, width: 100, height: 20)
        b.openNodeAndLoad(named: "wide")
        b.press(.character("*"))
        b.runCommands()
        #expect(b.grid?.selectedKeys.count == 5_000)
        b.press(.character("Y"))
        b.runCommands()
        #expect(b.takeClipboard() == nil, "5 MB of text: nothing copied")
        #expect(b.message?.isError == true && b.message?.text.contains("too much for the clipboard") == true)
    }

    @Test func aViewIsNotSelectable() throws {
        let folder = TemporaryFolder()
        let path = folder.file("rows.db")
        try makeNumbersTable(at: path, rows: 5)
        try Database(path: path).execute("CREATE VIEW v AS SELECT label FROM numbers")
        let b = try browser(path, keys: .empty, width: 100, height: 20)
        b.openNodeAndLoad(named: "v")
        b.press(.character("s"))
        #expect(b.message?.isError == true && b.message?.text.contains("rowid or primary key") == true)
        #expect(b.grid?.selectedKeys.isEmpty == true)
    }
}
