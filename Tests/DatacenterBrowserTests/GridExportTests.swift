import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `E`: the rows a table grid shows, filtered and sorted as shown, written to a file whose
/// extension names the format; written whole or not at all, never over a file unasked, and
/// encrypted columns decrypted or refused, never written as ciphertext.
@Suite struct GridExportTests {
    /// A browser showing `numbers` (n, label) with `rows` rows.
    func numbers(_ folder: TemporaryFolder, rows: Int = 10, width: Int = 100) throws -> Browser {
        let path = folder.file("numbers.db")
        try makeNumbersTable(at: path, rows: rows)
        let b = try browser(path, keys: .empty, width: width)
        b.openNodeAndLoad(named: "numbers")
        return b
    }

    func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func exportsTheRowsShownWithTheirFilterAndSort() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder)
        b.press(.character("f"))
        answer("n <= 3", in: b)
        b.press(.character("]"))                                  // n, descending
        let out = folder.file("three.csv")
        b.press(.character("E"))
        #expect(b.prompt?.purpose == .export)
        #expect(b.prompt?.text == "numbers.csv")
        answer(out, in: b)
        #expect(try contents(out) == "n,label\n3,\"row 3\"\n2,\"row 2\"\n1,\"row 1\"\n")
        #expect(b.message?.text == "exported 3 rows of numbers to \(out)")
        let mode = try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test(arguments: [("rows.jsonl", "{\"n\":1,\"label\":\"row 1\"}\n{\"n\":2,\"label\":\"row 2\"}\n"),
                      ("rows.ndjson", "{\"n\":1,\"label\":\"row 1\"}\n{\"n\":2,\"label\":\"row 2\"}\n"),
                      ("rows.sql", "BEGIN TRANSACTION;\nINSERT INTO \"numbers\"(\"n\",\"label\") VALUES(1,'row 1');\n"
                                   + "INSERT INTO \"numbers\"(\"n\",\"label\") VALUES(2,'row 2');\nCOMMIT;\n")])
    func theExtensionNamesTheFormat(name: String, expected: String) throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder, rows: 2)
        b.press(.character("E"))
        answer(folder.file(name), in: b)
        #expect(try contents(folder.file(name)) == expected)
    }

    @Test func aConsoleResultExportsAsShownSortedAndFiltered() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder)
        b.press(.character(":"))
        type("SELECT n, n * n AS square, label FROM numbers WHERE n > 2 -- the big ones", into: b)
        b.press(.enter)
        #expect(b.focus == .grid)
        b.press(.character("f"))
        answer("square < 50", in: b)
        b.press(.right)
        b.press(.character("]"))                                  // square, descending
        b.press(.character("E"))
        #expect(b.prompt?.text == "result.csv")
        let csv = folder.file("result.csv")
        answer(csv, in: b)
        #expect(try contents(csv) == "n,square,label\n7,49,\"row 7\"\n6,36,\"row 6\"\n5,25,\"row 5\"\n4,16,\"row 4\"\n3,9,\"row 3\"\n")
        #expect(b.message?.text == "exported 5 rows of result to \(csv)")
        // As SQL, the INSERTs name the result.
        b.press(.character("E"))
        answer(folder.file("result.sql"), in: b)
        #expect(try contents(folder.file("result.sql")).contains("INSERT INTO \"result\"(\"n\",\"square\",\"label\") VALUES(7,49,'row 7');"))
    }

    @Test func anUnknownExtensionIsRefusedListingTheFormats() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder)
        b.press(.character("E"))
        answer(folder.file("rows.xlsx"), in: b)
        #expect(b.message?.isError == true)
        #expect(b.message?.text.contains(".csv, .jsonl (or .ndjson), .sql") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.file("rows.xlsx")))
    }

    @Test func anExistingFileIsReplacedOnlyWhenConfirmed() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder, rows: 1)
        let out = folder.file("kept.csv")
        try "mine\n".write(toFile: out, atomically: true, encoding: .utf8)
        b.press(.character("E"))
        answer(out, in: b)
        #expect(b.prompt?.purpose == .exportReplace)              // asked, nothing written
        #expect(try contents(out) == "mine\n")
        b.press(.escape)
        #expect(try contents(out) == "mine\n")
        #expect(b.message?.text == "export cancelled: the file is left as it was")

        b.press(.character("E"))
        answer(out, in: b)
        b.press(.enter)                                           // the same name: replace it
        #expect(try contents(out) == "n,label\n1,\"row 1\"\n")

        b.press(.character("E"))
        answer(out, in: b)
        answer(folder.file("other.csv"), in: b)                   // another name: a new file
        #expect(try contents(folder.file("other.csv")) == "n,label\n1,\"row 1\"\n")
    }

    @Test func escCancelsARunningExportAndLeavesNoFile() throws {
        let folder = TemporaryFolder()
        let b = try numbers(folder, rows: 20_000, width: 300)
        let out = folder.file("big.csv")
        b.press(.character("E"))
        while !(b.prompt?.text.isEmpty ?? true) { b.press(.backspace) }
        for c in out { b.handle(.key(.character(c))) }
        b.handle(.key(.enter))
        let commands = b.takeCommands()
        #expect(b.screenText.contains("exporting numbers to \(out)"))
        #expect(b.screenText.contains("0 of 20,000 rows written · Esc cancels"))
        var progressShown = false
        for command in commands {
            // The first progress event is where the user presses Esc.
            let last = command.perform { event in
                b.handle(event)
                if case .exportProgress = event, !progressShown {
                    progressShown = b.screenText.contains("[##") && b.screenText.contains("4,096 of 20,000 rows written")
                    b.handle(.key(.escape))
                }
            }
            if let last { b.handle(last) }
        }
        #expect(progressShown)
        #expect(b.message?.text == "export cancelled: no file written")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("big") }.isEmpty)
    }

    @Test func encryptedColumnsAreWrittenDecrypted() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 140)
        b.openNodeAndLoad(named: "messages")
        let out = folder.file("messages.jsonl")
        b.press(.character("E"))
        answer(out, in: b)
        let text = try contents(out)
        #expect(text.contains("\"content\":\"Stand-up moved to 10:30\""))
        #expect(!text.contains("$blob"))
    }

    @Test func encryptedColumnsTheKeysDoNotOpenAreRefused() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let none = try browser(root, keys: .empty, width: 140)
        none.openNodeAndLoad(named: "messages")
        none.press(.character("E"))
        #expect(none.prompt == nil)
        #expect(none.message?.text == "messages has encrypted columns (content): pass --key to export them decrypted")

        let wrong = try browser(root, keys: KeyRing([try EncryptionKey(bytes: Array(repeating: 9, count: 32))]), width: 140)
        wrong.openNodeAndLoad(named: "messages")
        let out = folder.file("messages.csv")
        wrong.press(.character("E"))
        answer(out, in: wrong)
        #expect(wrong.message?.isError == true)
        #expect(wrong.message?.text.contains("column content does not decrypt") == true)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aKVBusinessIsNotExported() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNodeAndLoad(named: "settings")
        b.press(.character("E"))
        #expect(b.prompt == nil)
        #expect(b.message?.text.hasPrefix("E exports tables, views and console results; kv: settings is none of them") == true)
    }
}
