import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@_exported import DatacenterTestSupport
@testable import DatacenterBrowser

/// The demo root, built once per test in its own folder.
func makeDemo(_ folder: TemporaryFolder) throws -> String {
    let root = folder.file("demo")
    try DemoStore.build(at: root)
    try DAODemo.build(in: DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key])))
    return root
}

/// A browser on `path` with `keys`, sized `width` × `height`; `allowsWrites` false is
/// `--read-only`, and `busyTimeout` how long its writes wait for a lock.
func browser(_ path: String, keys: KeyRing = KeyRing([DemoStore.key]), width: Int = 100, height: Int = 30,
             allowsWrites: Bool = true, busyTimeout: Double = 5, stateFolder: URL? = nil) throws -> Browser {
    Browser(catalog: try BrowserCatalog(path: path, keys: keys, allowsWrites: allowsWrites, busyTimeout: busyTimeout),
            width: width, height: height, stateFolder: stateFolder)
}

extension Browser {
    /// Sends keys, running any background commands at once (as the terminal loop would),
    /// and the commands their results ask for in turn.
    func press(_ keys: Key...) {
        for key in keys {
            handle(.key(key))
            runCommands()
        }
    }

    /// Runs every command asked for, on this thread, handing their events back, until none is left.
    func runCommands() {
        while true {
            let commands = takeCommands()
            if commands.isEmpty { return }
            for command in commands {
                if let event = command.perform(post: { self.handle($0) }) { handle(event) }
            }
        }
    }

    /// Opens the leaf named `name` as `browse --table` does, then runs the command that
    /// reads it (as the terminal loop would), so its grid is shown.
    func openNodeAndLoad(named name: String) {
        openNode(named: name)
        runCommands()
    }

    /// Sends one key `count` times.
    func press(_ key: Key, times count: Int) {
        for _ in 0..<count { press(key) }
    }

    /// Moves the tree cursor to the node labelled `label` and opens it.
    func openTreeNode(_ label: String) {
        guard let index = tree.visibleTree.firstIndex(where: { $0.node.label == label }) else {
            Issue.record("no tree node \(label)")
            return
        }
        tree.cursor = index
        press(.enter)
    }

    var screenText: String { render().text }
}

/// Types `text` into the browser, a character a key.
func type(_ text: String, into b: Browser) {
    for c in text { b.press(.character(c)) }
}

/// Replaces the prompt's prefilled text with `text` and presses Enter.
func answer(_ text: String, in b: Browser) {
    while !(b.prompt?.text.isEmpty ?? true) { b.press(.backspace) }
    type(text, into: b)
    b.press(.enter)
}

/// Compares a screen with `Snapshots/NAME.txt`; `RECORD_SNAPSHOTS=1` writes it instead.
/// `redact` replaces text that changes between runs (paths) before comparing.
func assertSnapshot(_ screen: ScreenGrid, named name: String, redact: [String: String] = [:],
                    sourceLocation: Testing.SourceLocation = #_sourceLocation, file: String = #filePath) throws {
    var text = screen.text
    // Test folders have random names: show them as <tmp>, however much the screen cut off.
    // The temporary folder may be cut anywhere by the header, so match from where it starts.
    let temporary = NSTemporaryDirectory()
    text = text.replacingOccurrences(of: NSRegularExpression.escapedPattern(for: temporary) + "[^ │\n]*", with: "<tmp>",
                                     options: .regularExpression)
    for (needle, replacement) in redact {
        // Redact keeping the column layout: pad or cut the replacement to the needle's width.
        let padded = replacement.count >= needle.count ? String(replacement.prefix(needle.count))
            : replacement + String(repeating: ".", count: needle.count - replacement.count)
        text = text.replacingOccurrences(of: needle, with: padded)
    }
    // Beside the text, a letter per cell for its colour role, so how a value is shown
    // (staged, decrypted, locked, NULL, selected…) is compared as well as what is shown.
    text += "\n\nroles:\n" + screen.roleLetters
    let directory = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Snapshots")
    let path = directory.appendingPathComponent(name + ".txt").path
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" || !FileManager.default.fileExists(atPath: path) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try (text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" { return }
        Issue.record("snapshot \(name) was missing and has been recorded; check it in", sourceLocation: sourceLocation)
        return
    }
    let expected = try String(contentsOfFile: path, encoding: .utf8)
    if text + "\n" != expected {
        let difference = lineDifference(expected: expected, actual: text + "\n")
        Issue.record("screen differs from Snapshots/\(name).txt (re-record with RECORD_SNAPSHOTS=1): \(difference)",
                     sourceLocation: sourceLocation)
    }
}

/// Every row of `source`, a page of `limit` at a time from the first.
func allRows(of source: GridSource, limit: Int = 100) throws -> [GridRow] {
    var all: [GridRow] = []
    var page = try source.firstPage(limit: limit)
    while let last = page.last { all += page; page = try source.page(after: last, limit: limit) }
    return all
}

/// The text of `column` in every row of `source`, a page of `limit` at a time: forwards
/// from the first page, and backwards from the last (both should be the source's order).
func walk(_ source: GridSource, column: String, limit: Int) throws -> (forward: [String], backward: [String]) {
    let index = try #require(source.columns.firstIndex(of: column))
    let forward = try allRows(of: source, limit: limit).map { $0.cells[index].text }
    var backward: [String] = []
    var page = try source.lastPage(limit: limit)
    while let first = page.first {
        backward = page.map { $0.cells[index].text } + backward
        page = try source.page(before: first, limit: limit)
    }
    return (forward, backward)
}

extension StyleRole {
    /// The letter a snapshot stores for a cell of this role (`ScreenGrid.roleLetters`).
    var snapshotLetter: Character {
        switch self {
        case .header: return "H"
        case .status: return "S"
        case .tree: return "t"
        case .treeSelected: return "T"
        case .grid: return "."
        case .gridHeader: return "h"
        case .gridSelected: return "G"
        case .decrypted: return "d"
        case .locked: return "l"
        case .null: return "n"
        case .blob: return "b"
        case .marker: return "m"
        case .staged: return "s"
        case .error: return "e"
        case .dialog: return "D"
        case .changed: return "c"
        }
    }
}

extension ScreenGrid {
    /// A line of role letters per screen line, one letter per cell (`StyleRole.snapshotLetter`).
    var roleLetters: String {
        (0..<height).map { y in String((0..<width).map { self[$0, y].role.snapshotLetter }) }.joined(separator: "\n")
    }
}
