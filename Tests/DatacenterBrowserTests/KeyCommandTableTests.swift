import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// The command table holds: every key a pane or the frame handles is declared with a help
/// line, every declared key is handled, and the help screen is made from the declarations.
@Suite struct KeyCommandTableTests {
    /// Every key a test presses: the special keys, each printable ASCII character, and the
    /// control characters but Ctrl-C (quits everywhere) and Ctrl-J (Enter but in the console).
    static let probeKeys: [Key] = [.up, .down, .left, .right, .pageUp, .pageDown, .home, .end, .enter, .escape, .tab, .backTab,
                                   .backspace]
        + (0x20...0x7E).map { .character(Character(Unicode.Scalar(UInt8($0)))) }
        + (0x01...0x1A).filter { $0 != 0x03 && $0 != 0x0A }.map { .character(Character(Unicode.Scalar(UInt8($0)))) }

    /// The demo, with the browser in each state a pane takes keys in: the name of the
    /// state, and the browser with focus there.
    private func states(_ folder: TemporaryFolder) throws -> [(String, Browser)] {
        let root = try makeDemo(folder)
        var out: [(String, Browser)] = []
        let tree = try browser(root)
        out.append(("tree", tree))
        let grid = try browser(root)
        grid.openNodeAndLoad(named: "notes")
        out.append(("grid", grid))
        let inspector = try browser(root)
        inspector.openNodeAndLoad(named: "notes")
        inspector.press(.enter)
        out.append(("inspector", inspector))
        let review = try browser(root)
        review.openNodeAndLoad(named: "notes")
        review.press(.character("e"))
        type("x", into: review)
        review.press(.enter, .character("w"))
        out.append(("review", review))
        let methods = try browser(root)
        methods.openNodeAndLoad(named: "messages")
        methods.press(.character("d"))
        out.append(("DAO methods", methods))
        return out
    }

    @Test func theStatesAreThoseOfTheirPanes() throws {
        let folder = TemporaryFolder()
        let focuses = try states(folder).map { "\($0.0): \($0.1.focus)" }
        #expect(focuses == ["tree: tree", "grid: grid", "inspector: inspector", "review: review", "DAO methods: dao"])
    }

    /// The keys the frame's maps and the pane's map list in `b`'s state, and what pressing
    /// `key` on a copy of the pane with focus answers, with its drawing before and after.
    private func paneAnswer(_ b: Browser, _ key: Key) -> (declared: Bool, effects: [PaneEffect], changed: Bool) {
        let frame = FrameKeys.applying(in: b).flatMap(\.keys)
        func press<P: Pane>(_ pane: P) -> (Bool, [PaneEffect], Bool) {
            var copy = pane
            let area = b.paneArea
            var before = ScreenGrid(width: b.width, height: b.height), after = before
            pane.draw(into: &before, area: area, focused: true)
            let effects = copy.handle(key, context: b.context)
            copy.draw(into: &after, area: area, focused: true)
            return (pane.keyMap.command(for: key) != nil || frame.contains(key), effects, before != after)
        }
        switch b.focus {
        case .tree: return press(b.tree)
        case .grid: return press(b.grid!)
        case .inspector: return press(b.inspector!)
        case .review: return press(b.review)
        case .dao: return press(b.daoPanel!)
        case .console: return press(b.console!)
        }
    }

    @Test func aKeyNotDeclaredDoesNothingAndSaysSo() throws {
        let folder = TemporaryFolder()
        for (state, b) in try states(folder) {
            for key in Self.probeKeys {
                let (declared, effects, changed) = paneAnswer(b, key)
                guard !declared else { continue }
                #expect(!changed, "\(state): \(key) is handled (the pane changed) but not declared")
                for effect in effects {
                    guard case .message(let text, _) = effect, text.contains("does nothing") else {
                        Issue.record("\(state): \(key) is handled (\(effect)) but not declared")
                        continue
                    }
                }
            }
        }
    }

    @Test func aDeclaredKeyIsHandled() throws {
        let folder = TemporaryFolder()
        for (state, b) in try states(folder) {
            for key in Self.probeKeys where b.paneKeyMapKeys.contains(key) {
                let (_, effects, _) = paneAnswer(b, key)
                for case .message(let text, _) in effects {
                    #expect(!text.contains("does nothing"), "\(state): \(key) is declared but not handled: \(text)")
                }
            }
        }
    }

    @Test func everyFrameKeyIsHandledWhereItsMapApplies() throws {
        let folder = TemporaryFolder()
        for (state, _) in try states(folder) {
            // A fresh browser per key: frame keys open panes and prompts.
            let keys = try states(folder).first { $0.0 == state }.map { FrameKeys.applying(in: $0.1).flatMap(\.keys) } ?? []
            for key in keys {
                let b = try states(folder).first { $0.0 == state }!.1
                let before = b.render()
                b.press(key)
                let said = b.message?.text ?? ""
                #expect(!said.contains("does nothing"), "\(state): the frame's \(key) is declared but not handled")
                #expect(b.render() != before || !said.isEmpty || b.isFinished, "\(state): the frame's \(key) did nothing")
            }
        }
    }

    @Test func aFrameKeyNeverHidesAPanesKey() throws {
        // Where a frame map applies, the pane's map must not list its keys: the pane's would
        // never run.
        let folder = TemporaryFolder()
        for (state, b) in try states(folder) {
            for key in FrameKeys.applying(in: b).flatMap(\.keys) where b.paneKeyMapKeys.contains(key) {
                Issue.record("\(state): the frame's \(key) hides the pane's")
            }
        }
    }

    @Test func wWithNothingStagedSaysSo() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder))
        b.openNodeAndLoad(named: "notes")
        b.press(.character("w"))
        #expect(b.focus == .grid)
        #expect(b.message?.text == "nothing staged: e, x and o stage edits in a table's grid")
    }

    @Test func noMapListsAKeyTwice() {
        func check<S>(_ map: KeyMap<S>) {
            var seen: [Key] = []
            for key in map.keys {
                #expect(!seen.contains(key), "\(map.title) lists \(key) twice")
                seen.append(key)
            }
        }
        TreePane.keyMaps.forEach(check)
        GridPane.keyMaps.forEach(check)
        Inspector.keyMaps.forEach(check)
        ConsolePane.keyMaps.forEach(check)
        DAOPanel.keyMaps.forEach(check)
        ReviewPane.keyMaps.forEach(check)
        FrameKeys.all.map(\.map).forEach(check)
        HelpScreen.keyMaps.forEach(check)
    }

    @Test func theHelpScreenIsMadeFromTheTable() {
        // Each map's lines, in its order, stand together in the help.
        func isListed<S>(_ map: KeyMap<S>) -> Bool {
            let lines = map.helpLines
            return HelpScreen.keyLines.indices.contains { start in Array(HelpScreen.keyLines.dropFirst(start).prefix(lines.count)) == lines }
        }
        var maps: [(String, Bool)] = []
        maps += TreePane.keyMaps.map { ($0.title, isListed($0)) }
        maps += GridPane.keyMaps.map { ($0.title, isListed($0)) }
        maps += Inspector.keyMaps.map { ($0.title, isListed($0)) }
        maps += ConsolePane.keyMaps.map { ($0.title, isListed($0)) }
        maps += DAOPanel.keyMaps.map { ($0.title, isListed($0)) }
        maps += ReviewPane.keyMaps.map { ($0.title, isListed($0)) }
        maps += FrameKeys.all.map { ($0.map.title, isListed($0.map)) }
        maps += HelpScreen.keyMaps.map { ($0.title, isListed($0)) }
        for (title, listed) in maps { #expect(listed, "the help does not list \(title) as its map declares it") }
        // And every line of a key in the help comes from a map: none written by hand.
        var declared: Set<String> = []
        declared.formUnion(TreePane.keyMaps.flatMap(\.helpLines))
        declared.formUnion(GridPane.keyMaps.flatMap(\.helpLines))
        declared.formUnion(Inspector.keyMaps.flatMap(\.helpLines))
        declared.formUnion(ConsolePane.keyMaps.flatMap(\.helpLines))
        declared.formUnion(DAOPanel.keyMaps.flatMap(\.helpLines))
        declared.formUnion(ReviewPane.keyMaps.flatMap(\.helpLines))
        declared.formUnion(FrameKeys.all.flatMap(\.map.helpLines))
        declared.formUnion(HelpScreen.keyMaps.flatMap(\.helpLines))
        let keysPart = HelpScreen.keyLines.prefix { $0 != HelpScreen.typingHelp.first }
        let handWritten = keysPart.filter { !$0.isEmpty && !declared.contains($0) && !ConsolePane.helpAfterKeys.contains($0) }
        #expect(handWritten == ["Keys (Esc closes the help)"])
    }

    @Test func theHintsAreTheTablesHints() throws {
        let folder = TemporaryFolder()
        for (state, b) in try states(folder) {
            let status = b.render().text.split(separator: "\n").last.map(String.init) ?? ""
            b.message = nil
            let hints = b.render().text.split(separator: "\n").last.map(String.init) ?? ""
            // The first hints fit on a 100-column line: the help's key, then the pane's first.
            #expect(hints.hasPrefix(" H help  ") || state == "inspector" && hints.hasPrefix(" H help"), "\(state): \(hints) (\(status))")
            let first = try #require(b.statusHints.dropFirst().first, "\(state) has no hint of its own")
            #expect(hints.contains(first), "\(state): \(first) not in \(hints)")
        }
    }
}

extension Browser {
    /// The keys of the map of the pane with focus, in its state now.
    var paneKeyMapKeys: [Key] {
        switch focus {
        case .tree: return tree.keyMap.keys
        case .grid: return grid?.keyMap.keys ?? []
        case .inspector: return inspector?.keyMap.keys ?? []
        case .review: return review.keyMap.keys
        case .dao: return daoPanel?.keyMap.keys ?? []
        case .console: return console?.keyMap.keys ?? []
        }
    }
}
