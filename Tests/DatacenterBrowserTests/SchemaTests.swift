import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `S` shows a table's schema; `J` follows a foreign key to the row it references and
/// `Backspace` comes back to the row it left.
@Suite struct SchemaTests {
    /// Authors and books (books.author references authors), codes keyed by text, and uses
    /// of them by a named column and by the primary key.
    func makeLibrary(at path: String) throws {
        let db = try Database(path: path)
        try db.execute("""
            CREATE TABLE authors(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE books(id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT 'untitled',
                               author INTEGER REFERENCES authors ON DELETE CASCADE, isbn TEXT UNIQUE);
            CREATE INDEX books_by_title ON books(title);
            CREATE TRIGGER books_touch AFTER UPDATE ON books BEGIN SELECT 1; END;
            CREATE TABLE codes(code TEXT PRIMARY KEY, label TEXT);
            CREATE TABLE uses(id INTEGER PRIMARY KEY, code TEXT REFERENCES codes(code), code2 TEXT REFERENCES codes);
            """)
        try db.inTransaction {
            for i in 1...300 {
                try db.execute("INSERT INTO authors VALUES (?, ?)", [.integer(Int64(i)), .text("author \(i)")])
                try db.execute("INSERT INTO books VALUES (?, ?, ?, ?)", [.integer(Int64(i)), .text("book \(i)"),
                                                                         i == 3 ? .null : .integer(Int64(301 - i)), .text("isbn-\(i)")])
                try db.execute("INSERT INTO codes VALUES (?, ?)", [.text(String(format: "c%03d", i)), .text("code \(i)")])
            }
            try db.execute("INSERT INTO uses VALUES (1, 'c200', 'c150')")
        }
    }

    func status(_ b: Browser) -> String { b.render().lines().last ?? "" }

    func cursorText(_ b: Browser, column: Int) -> String? {
        b.grid.flatMap { $0.rows.indices.contains($0.cursor) ? $0.rows[$0.cursor].cells[column].text : nil }
    }

    @Test func sShowsColumnsIndexesForeignKeysAndTriggers() throws {
        let folder = TemporaryFolder()
        let db = folder.file("library.db")
        try makeLibrary(at: db)
        let b = try browser(db, keys: .empty, width: 140, height: 40)
        b.openTreeNode("books")
        b.press(.character("S"))
        #expect(b.focus == .inspector)
        let text = b.screenText
        #expect(text.contains("TABLE books"))
        #expect(text.contains("id      INTEGER   "))
        #expect(b.render().lines().contains { $0.contains("id      INTEGER") && $0.trimmingCharacters(in: .whitespaces).hasSuffix("PK") })
        #expect(text.contains("title   TEXT     NOT NULL  DEFAULT 'untitled'"))
        #expect(b.render().lines().contains { $0.contains("author  INTEGER") && $0.trimmingCharacters(in: .whitespaces).hasSuffix("→ authors") })
        #expect(text.contains("books_by_title (title)"))
        #expect(text.contains("UNIQUE (isbn) (UNIQUE constraint)"))
        #expect(text.contains("(author) → authors(primary key) ON DELETE CASCADE"))
        #expect(text.contains("books_touch: CREATE TRIGGER books_touch"))
        b.press(.escape)
        #expect(b.focus == .grid)
    }

    @Test func sShowsTheDAOModuleAndItsEncryptedColumnsAndRefusesOtherGrids() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 140, height: 40)
        b.openTreeNode("messages")
        b.press(.character("S"))
        #expect(b.screenText.contains("TABLE messages · DAO module Messages v1.2 · encrypted: content"))
        #expect(b.screenText.contains("encrypted"))
        b.press(.escape, .tab)
        b.openTreeNode("session")
        b.press(.character("S"))
        #expect(b.focus == .grid)
        #expect(status(b).contains("S shows the schema of tables and views: kv: session is not one"))
    }

    @Test func jFollowsAForeignKeyAndBackspaceComesBack() throws {
        let folder = TemporaryFolder()
        let db = folder.file("library.db")
        try makeLibrary(at: db)
        let b = try browser(db, keys: .empty, width: 120, height: 20)
        b.openTreeNode("books")
        b.press(.down, times: 49)                           // book 50, by author 251
        b.press(.character("l"), .character("l"))
        #expect(cursorText(b, column: 2) == "251")
        b.press(.character("J"))
        #expect(b.grid?.source.title == "authors")
        #expect(cursorText(b, column: 1) == "author 251")
        b.press(.down, .backspace)
        #expect(b.grid?.source.title == "books")
        #expect(cursorText(b, column: 1) == "book 50")
        #expect(b.grid?.column == 2)
        b.press(.backspace)
        #expect(status(b).contains("nothing to go back to"))

        b.press(.character("h"), .character("J"))
        #expect(status(b).contains("title is not a foreign key"))
        b.press(.character("g"), .down, .down, .character("l"), .character("J"))   // book 3 has no author
        #expect(status(b).contains("author is NULL: it references no row"))
        #expect(b.grid?.source.title == "books")
    }

    @Test func aForeignKeyToATextPrimaryKeyFindsItsRow() throws {
        let folder = TemporaryFolder()
        let db = folder.file("library.db")
        try makeLibrary(at: db)
        try Database(path: db).execute("INSERT INTO uses VALUES (2, 'c999', NULL)")
        let b = try browser(db, keys: .empty, width: 120, height: 20)
        b.openTreeNode("uses")
        b.press(.character("l"), .character("l"), .character("J"))   // code2 → codes' primary key
        #expect(b.grid?.source.title == "codes")
        #expect(cursorText(b, column: 1) == "code 150")
        b.press(.backspace, .character("h"), .character("J"))          // code → codes(code)
        #expect(cursorText(b, column: 1) == "code 200")
        b.press(.backspace, .down, .character("J"))                    // a code no row has
        #expect(status(b).contains("no row of codes where code = c999"))
        #expect(b.grid?.source.title == "uses")
    }
}
