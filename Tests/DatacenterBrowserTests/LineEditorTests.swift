import DatacenterKit
import Testing
@testable import DatacenterBrowser
import DatacenterText

/// The line editor behind every prompt: each key, characters as units (wide ones, marks,
/// joined emoji), sideways scrolling that keeps the cursor on screen, and the history.
@Suite struct LineEditorTests {
    static let family = "👨\u{200D}👩\u{200D}👧"

    /// An editor holding `text` with the cursor before character `cursor` (the end when nil).
    func editor(_ text: String, cursor: Int? = nil, history: LineHistory? = nil) -> LineEditor {
        var editor = LineEditor(text, history: history)
        if let cursor { editor.moveCursor(to: cursor) }
        return editor
    }

    // MARK: - Keys

    @Test func theControlKeysAreTheCharactersTheTerminalSends() {
        #expect(Key.control("a") == .character("\u{1}"))
        #expect(Key.control("d") == .character("\u{4}"))
        #expect(Key.control("e") == .character("\u{5}"))
        #expect(Key.control("k") == .character("\u{B}"))
        #expect(Key.control("u") == .character("\u{15}"))
        #expect(Key.control("w") == .character("\u{17}"))
        #expect(Key.control("W") == .character("\u{17}"))
    }

    @Test func typingInsertsAtTheCursor() {
        var e = editor("ac", cursor: 1)
        #expect(e.handle(.character("b")) == .edited)
        #expect(e.text == "abc")
        #expect(e.cursor == 2)
        #expect(e.handle(.character("é")) == .edited)
        #expect(e.text == "abéc")
        #expect(e.cursor == 3)
        var empty = LineEditor()
        #expect(empty.handle(.character("日")) == .edited)
        #expect(empty.text == "日" && empty.cursor == 1)
    }

    @Test func leftAndRightMoveOneCharacterAndStopAtTheEnds() {
        var e = editor("ab")
        #expect(e.handle(.left) == .consumed)
        #expect(e.cursor == 1)
        #expect(e.handle(.left) == .consumed)
        #expect(e.cursor == 0)
        #expect(e.handle(.left) == .consumed)
        #expect(e.cursor == 0)
        #expect(e.handle(.right) == .consumed)
        #expect(e.cursor == 1)
        _ = e.handle(.right)
        #expect(e.handle(.right) == .consumed)
        #expect(e.cursor == 2)
        #expect(e.text == "ab")
    }

    @Test func homeEndAndCtrlAEGoToTheEnds() {
        for (home, end) in [(Key.home, Key.end), (.control("a"), .control("e"))] {
            var e = editor("hello", cursor: 2)
            #expect(e.handle(home) == .consumed)
            #expect(e.cursor == 0)
            #expect(e.handle(end) == .consumed)
            #expect(e.cursor == 5)
            #expect(e.text == "hello")
        }
    }

    @Test func backspaceDeletesTheCharacterBeforeTheCursor() {
        var e = editor("abc", cursor: 2)
        #expect(e.handle(.backspace) == .edited)
        #expect(e.text == "ac")
        #expect(e.cursor == 1)
        _ = e.handle(.backspace)
        #expect(e.text == "c" && e.cursor == 0)
        #expect(e.handle(.backspace) == .consumed)
        #expect(e.text == "c" && e.cursor == 0)
    }

    @Test func ctrlDDeletesTheCharacterUnderTheCursor() {
        var e = editor("abc", cursor: 1)
        #expect(e.handle(.control("d")) == .edited)
        #expect(e.text == "ac")
        #expect(e.cursor == 1)
        _ = e.handle(.control("d"))
        #expect(e.text == "a" && e.cursor == 1)
        #expect(e.handle(.control("d")) == .consumed)
        #expect(e.text == "a")
    }

    @Test func ctrlUDeletesToTheStartAndCtrlKToTheEnd() {
        var u = editor("hello world", cursor: 6)
        #expect(u.handle(.control("u")) == .edited)
        #expect(u.text == "world" && u.cursor == 0)
        #expect(u.handle(.control("u")) == .consumed)
        #expect(u.text == "world")

        var k = editor("hello world", cursor: 5)
        #expect(k.handle(.control("k")) == .edited)
        #expect(k.text == "hello" && k.cursor == 5)
        #expect(k.handle(.control("k")) == .consumed)
        #expect(k.text == "hello")
    }

    @Test func ctrlWDeletesTheWordBeforeTheCursorAndTheBlanksAfterIt() {
        var e = editor("select * from  t.col  ")
        #expect(e.handle(.control("w")) == .edited)
        #expect(e.text == "select * from  ")
        _ = e.handle(.control("w"))
        #expect(e.text == "select * ")
        #expect(e.cursor == 9)

        var middle = editor("foo bar baz", cursor: 7)
        _ = middle.handle(.control("w"))
        #expect(middle.text == "foo  baz")
        #expect(middle.cursor == 4)

        var inWord = editor("foo barbaz", cursor: 7)        // only the part before the cursor
        _ = inWord.handle(.control("w"))
        #expect(inWord.text == "foo baz" && inWord.cursor == 4)

        var start = editor("foo", cursor: 0)
        #expect(start.handle(.control("w")) == .consumed)
        #expect(start.text == "foo")
    }

    @Test func enterSubmitsAndEscapeCancelsLeavingTheText() {
        var e = editor("select 1", cursor: 3)
        #expect(e.handle(.enter) == .submitted("select 1"))
        #expect(e.text == "select 1" && e.cursor == 3)
        #expect(e.handle(.escape) == .cancelled)
        #expect(e.text == "select 1" && e.cursor == 3)
        var empty = LineEditor()
        #expect(empty.handle(.enter) == .submitted(""))
    }

    @Test func keysThatAreNotTheEditorsAreLeftToTheOwner() {
        let others: [Key] = [.tab, .backTab, .pageUp, .pageDown, .up, .down,
                             .control("n"), .control("r"), .character("\u{3}"), .character("\u{7F}"),
                             .character("\u{1B}"), .character("\u{85}"), .character("\r\n")]
        for key in others {
            var e = editor("abc", cursor: 1)
            #expect(e.handle(key) == .ignored, "\(key)")
            #expect(e.text == "abc" && e.cursor == 1, "\(key)")
        }
    }

    @Test func settingTheTextPutsTheCursorAtItsEnd() {
        var e = editor("abc", cursor: 0)
        e.text = "日本"
        #expect(e.cursor == 2)
        e.moveCursor(to: 9)
        #expect(e.cursor == 2)
        e.moveCursor(to: -3)
        #expect(e.cursor == 0)
        e.insert("x\ny")
        #expect(e.text == "x\ny日本" && e.cursor == 3)
    }

    // MARK: - Characters as units

    @Test func aCombiningMarkMovesAndDeletesWithItsLetter() {
        var e = editor("cafe\u{301}s")
        #expect(e.characters.count == 5)
        _ = e.handle(.left)
        _ = e.handle(.left)
        #expect(e.cursor == 3)
        #expect(e.layout(width: 20).cursorColumn == 3)
        _ = e.handle(.right)
        #expect(e.handle(.backspace) == .edited)
        #expect(e.text == "cafs")
        #expect(Array(e.text.unicodeScalars.map(\.value)) == [0x63, 0x61, 0x66, 0x73])
    }

    @Test func aJoinedEmojiAndAFlagAreOneCharacter() {
        var e = editor("a" + Self.family + "🇺🇸b")
        #expect(e.characters.count == 4)
        _ = e.handle(.left)
        _ = e.handle(.left)
        #expect(e.cursor == 2)
        #expect(e.handle(.backspace) == .edited)
        #expect(e.text == "a🇺🇸b")
        _ = e.handle(.control("d"))
        #expect(e.text == "ab")
        #expect(e.cursor == 1)
    }

    @Test func aMarkOrAJoinerTypedAfterACharacterMergesWithIt() {
        var e = LineEditor()
        for piece in ["e", "\u{301}"] { _ = e.handle(.character(Character(piece))) }
        #expect(e.characters == ["e\u{301}"])
        #expect(e.cursor == 1)

        var emoji = editor("x")
        for scalar in Self.family.unicodeScalars { _ = emoji.handle(.character(Character(scalar))) }
        #expect(emoji.characters == ["x", Character(Self.family)])
        #expect(emoji.cursor == 2)
    }

    @Test func anEditThatMergesCharactersLeavesTheCursorOnABoundary() {
        // Deleting the newline brings the mark next to the letter: one character, cursor after it.
        var e = editor("e\n\u{301}z", cursor: 2)
        #expect(e.characters.count == 4)
        _ = e.handle(.backspace)
        #expect(e.characters == ["e\u{301}", "z"])
        #expect(e.cursor == 1)
        // Typing before a lone leading mark: the mark joins what was typed.
        var lone = editor("\u{301}b", cursor: 0)
        _ = lone.handle(.character("x"))
        #expect(lone.characters == ["x\u{301}", "b"])
        #expect(lone.cursor == 1)
    }

    // MARK: - Layout

    @Test func wideCharactersTakeTwoColumnsAndTheCursorStopsAtTheirStart() {
        let text = "a日本語🚀b" + Self.family + "c"
        var e = editor(text, cursor: 0)
        let characters = Array(text)
        for position in 0...characters.count {
            e.moveCursor(to: position)
            let layout = e.layout(width: 40)
            // Where ncursesw puts the cursor: the library's widths of what comes before it.
            #expect(layout.cursorColumn == LibCWidth.columns(String(characters[..<position])), "at \(position)")
            if position < characters.count, TerminalText.width(of: characters[position]) >= 2 {
                #expect(layout.columns[layout.cursorColumn + 1] == "", "at \(position)")
            }
            if position < characters.count {
                #expect(layout.cursorWidth == TerminalText.width(of: characters[position]), "at \(position)")
            }
        }
        let layout = e.layout(width: 40)
        #expect(layout.lineWidth == LibCWidth.columns(text))
        #expect(layout.lineWidth == 1 + 6 + 2 + 1 + 6 + 1)
        #expect(layout.visible == text + String(repeating: " ", count: 40 - layout.lineWidth))
        #expect(Array(layout.columns[1...2]) == ["日", ""])
    }

    @Test func aControlCharacterIsShownEscapedAndStepsAsOne() {
        var e = editor("a\tb", cursor: 2)
        let layout = e.layout(width: 10)
        #expect(layout.visible == "a\\tb      ")
        #expect(layout.cursorColumn == 3)
        _ = e.handle(.backspace)
        #expect(e.text == "ab")
    }

    /// A zero width space would hide in a value: it is shown escaped, as controls are, and
    /// the cursor steps over it as one character.
    @Test func aZeroWidthSpaceIsShownEscapedAndStepsAsOne() {
        var e = editor("a\u{200B}b", cursor: 1)
        #expect(e.characters.count == 3)
        let before = e.layout(width: 12)
        _ = e.handle(.right)
        let after = e.layout(width: 12)
        #expect(before.lineWidth == 10)
        #expect(before.visible.hasPrefix("a\\u{200b}b"))
        #expect(after.cursorColumn == before.cursorColumn + 8)
    }

    @Test func aShortLineIsShownWholeWithoutMarks() {
        let layout = editor("hello", cursor: 2).layout(width: 8)
        #expect(layout.visible == "hello   ")
        #expect(layout.firstColumn == 0 && !layout.leftClipped && !layout.rightClipped)
        #expect(!layout.showsLeftMark && !layout.showsRightMark)
        #expect(layout.cursorColumn == 2)
        // Exactly as wide as the field, cursor inside: still whole.
        let exact = editor("12345678", cursor: 7).layout(width: 8)
        #expect(exact.visible == "12345678" && exact.firstColumn == 0 && !exact.showsRightMark)
    }

    @Test func aLongLineScrollsToTheCursorAndMarksWhatIsHidden() {
        var e = editor("0123456789abcdefghij")
        let atEnd = e.followCursor(width: 10)
        #expect(atEnd.visible == "…cdefghij ")
        #expect(atEnd.cursorColumn == 9)
        #expect(atEnd.firstColumn == 11)
        #expect(atEnd.showsLeftMark && !atEnd.showsRightMark && atEnd.leftClipped && !atEnd.rightClipped)

        _ = e.handle(.home)
        let atStart = e.followCursor(width: 10)
        #expect(atStart.visible == "012345678…")
        #expect(atStart.cursorColumn == 0)
        #expect(!atStart.showsLeftMark && atStart.showsRightMark && atStart.rightClipped)

        e.moveCursor(to: 12)
        let middle = e.followCursor(width: 10)       // scrolled just enough: the cursor by the right mark
        #expect(middle.visible == "…56789abc…")
        #expect(middle.cursorColumn == 8)
        #expect(middle.firstColumn == 4)
    }

    @Test func theTextStaysPutWhileTheCursorMovesInsideTheField() {
        var e = editor("0123456789abcdefghij")
        e.followCursor(width: 10)                    // first column 11: "…cdefghij "
        for expected in [8, 7, 6, 5, 4, 3, 2, 1] {
            _ = e.handle(.left)
            let layout = e.followCursor(width: 10)
            #expect(layout.firstColumn == 11, "cursor \(e.cursor)")
            #expect(layout.cursorColumn == expected)
        }
        // One more and the cursor would be under the mark: the line scrolls by one column.
        _ = e.handle(.left)
        let scrolled = e.followCursor(width: 10)
        #expect(scrolled.firstColumn == 10)
        #expect(scrolled.cursorColumn == 1)
        #expect(scrolled.visible == "…bcdefghij")
    }

    @Test func aWideCharacterCutByAMarkIsBlankedNotSplit() {
        var e = editor(String(repeating: "日", count: 10))
        // 20 columns and the end cursor in 9: first column 12, the 7th 日 (columns 12–13)
        // under the mark, so its second half is blank rather than half a character.
        let layout = e.followCursor(width: 9)
        #expect(layout.firstColumn == 12)
        #expect(layout.visible == "… 日日日 ")
        #expect(layout.columns[1] == " ")
        #expect(LibCWidth.columns(layout.visible) == 9)
        #expect(layout.cursorColumn == 8)
    }

    @Test func narrowFieldsShowNoMarksButStillTheCursor() {
        for width in 1...3 {
            var e = editor("abcdefgh", cursor: 0)
            for position in 0...8 {
                e.moveCursor(to: position)
                let layout = e.followCursor(width: width)
                #expect(layout.columns.count == width)
                #expect(!layout.visible.contains("…"))
                #expect((0..<width).contains(layout.cursorColumn))
                let shown = position < 8 ? String(Array("abcdefgh")[position]) : " "
                #expect(layout.columns[layout.cursorColumn] == shown, "width \(width) at \(position)")
            }
        }
        let none = editor("abc").layout(width: 0)
        #expect(none.columns.isEmpty && none.cursorColumn == 0)
    }

    @Test func drawPaintsTextMarksAndTheCursorCell() {
        var grid = ScreenGrid(width: 12, height: 2)
        var e = editor("日本語のテキスト", cursor: 2)
        e.followCursor(width: 8)
        let layout = e.draw(into: &grid, x: 2, y: 1, width: 8, role: .dialog, cursorRole: .gridSelected)
        #expect(grid.lines()[1] == "  " + layout.visible + "  ")
        #expect(layout.cursorColumn == 4 && layout.cursorWidth == 2)
        #expect(grid[2 + 4, 1] == Cell("語", role: .gridSelected))
        #expect(grid[2 + 5, 1] == Cell("", role: .gridSelected))
        #expect(grid[2 + 2, 1].role == .dialog)
        #expect(grid[2 + 7, 1] == Cell("…", role: .marker))
        #expect(grid[1, 1] == Cell(" ", role: .grid))          // nothing drawn outside the field
        #expect(grid.lines()[0] == String(repeating: " ", count: 12))

        // A field running off the grid: the wide character at the grid's edge becomes a space.
        var narrow = ScreenGrid(width: 5, height: 1)
        editor("ab日本", cursor: 0).draw(into: &narrow, x: 2, y: 0, width: 8, role: .dialog)
        #expect(narrow.lines()[0] == "  ab ")
    }

    @Test func theCursorStaysVisibleAtEveryPositionOfALongLine() {
        let text = "SELECT 名前, " + Self.family + " FROM t WHERE x = 'cafe\u{301} 🚀🚀🚀' AND y\t= 日本語テキスト 🇺🇸;"
        let characters = Array(text)
        for width in [4, 5, 7, 12, 30] {
            var e = editor(text, cursor: 0)
            var walk = Array(0...characters.count)
            walk += walk.reversed()
            for position in walk {
                e.moveCursor(to: position)
                let layout = e.followCursor(width: width)
                let column = characters[..<position].reduce(0) { $0 + TerminalText.width(of: $1) }
                #expect(layout.firstColumn + layout.cursorColumn == column, "width \(width) at \(position)")
                #expect((0..<width).contains(layout.cursorColumn), "width \(width) at \(position)")
                #expect(!(layout.showsLeftMark && layout.cursorColumn == 0), "width \(width) at \(position)")
                #expect(!(layout.showsRightMark && layout.cursorColumn + layout.cursorWidth > width - 1),
                        "width \(width) at \(position)")
                // The whole character under the cursor is on screen when the field has room for it.
                if position < characters.count {
                    let own = lineColumns([characters[position]])
                    if own.count <= width - 2, layout.cursorColumn + own.count <= width {
                        #expect(Array(layout.columns[layout.cursorColumn..<(layout.cursorColumn + own.count)]) == own,
                                "width \(width) at \(position)")
                    } else {
                        #expect(own.count > width - 2, "width \(width) at \(position): \(characters[position]) cut")
                    }
                }
            }
        }
    }

    /// The columns of `characters` each laid out on its own, as the editor promises: one
    /// entry a column, `""` for the second column of a wide cell.
    func lineColumns(_ characters: [Character]) -> [String] {
        var columns: [String] = []
        for character in characters {
            TerminalText.forEachCell(in: String(character)) { cell, width in
                columns.append(cell)
                if width == 2 { columns.append("") }
                return true
            }
        }
        return columns
    }

    @Test func randomEditsKeepTheCursorVisibleAndScrollAsLittleAsNeeded() {
        // Seeded and printed: a failure names the seed, the step and the field.
        let seed = testSeed("LINE_EDITOR_SEED", default: 0x11E_ED17)
        var random = SplitMix64(seed: seed)
        let pieces = ["a", "b", " ", "x", ".", "日", "本", "🚀", "e\u{301}", Self.family, "🇺🇸", "\t", "✅"]
        let keys: [Key] = [.left, .right, .home, .end, .backspace, .control("d"), .control("w"), .control("k"),
                           .control("u"), .control("a"), .control("e")]
        for round in 0..<testCount("LINE_EDITOR_ROUNDS", default: 60) {
            let width = random.below(5) == 0 ? 1 + random.below(3) : 4 + random.below(21)
            let start = (0..<random.below(40)).map { _ in pieces[random.below(pieces.count)] }
            var model = start.map { Character($0) }      // what the text must be, character by character
            var cursor = model.count
            var e = LineEditor(start.joined())
            var previous = e.followCursor(width: width).firstColumn
            for step in 0..<150 {
                let place = "seed \(seed) round \(round) step \(step) width \(width)"
                // A key, applied to the editor and to the model.
                if random.below(3) == 0 {
                    let piece = Character(pieces[random.below(pieces.count)])
                    if piece == "\t" { e.insert("\t") } else { _ = e.handle(.character(piece)) }
                    model.insert(piece, at: cursor)
                    cursor += 1
                } else {
                    let key = keys[random.below(keys.count)]
                    _ = e.handle(key)
                    switch key {
                    case .left: cursor = max(0, cursor - 1)
                    case .right: cursor = min(model.count, cursor + 1)
                    case .home, .control("a"): cursor = 0
                    case .end, .control("e"): cursor = model.count
                    case .backspace where cursor > 0: model.remove(at: cursor - 1); cursor -= 1
                    case .control("d") where cursor < model.count: model.remove(at: cursor)
                    case .control("k"): model.removeSubrange(cursor...)
                    case .control("u"): model.removeSubrange(..<cursor); cursor = 0
                    case .control("w"):
                        var from = cursor
                        while from > 0, model[from - 1].isWhitespace { from -= 1 }
                        while from > 0, !model[from - 1].isWhitespace { from -= 1 }
                        model.removeSubrange(from..<cursor)
                        cursor = from
                    default: break
                    }
                }
                #expect(e.characters == model, "\(place)")
                #expect(e.cursor == cursor, "\(place)")
                guard e.characters == model, e.cursor == cursor else { return }

                let layout = e.followCursor(width: width)
                let line = lineColumns(model)
                let column = lineColumns(Array(model[..<cursor])).count
                // The cursor needs its whole character, or its first cell when that does not fit.
                var cursorWidth = 1
                if cursor < model.count {
                    let own = lineColumns([model[cursor]])
                    cursorWidth = own.count <= width - 2 ? own.count : (own.count > 1 && own[1] == "" ? 2 : 1)
                }
                // The cursor: on screen, where its character starts, never under a mark.
                #expect(layout.columns.count == width, "\(place)")
                #expect((0..<width).contains(layout.cursorColumn), "\(place)")
                #expect(layout.firstColumn + layout.cursorColumn == column, "\(place)")
                if width >= 4 {
                    #expect(layout.cursorColumn + cursorWidth <= width, "\(place)")
                    #expect(layout.columns[layout.cursorColumn] == (cursor < model.count ? line[column] : " "), "\(place)")
                    #expect(!(layout.showsLeftMark && layout.cursorColumn == 0), "\(place)")
                    #expect(!(layout.showsRightMark && layout.cursorColumn + cursorWidth > width - 1), "\(place)")
                    // Marks exactly where text is hidden.
                    #expect(layout.showsLeftMark == (layout.firstColumn > 0), "\(place)")
                    #expect(layout.showsRightMark == (line.count > layout.firstColumn + width), "\(place)")
                }
                // What is shown is the line from the first column: no character split or moved.
                #expect(LibCWidth.columns(layout.visible) == width, "\(place) \(layout.visible.debugDescription)")
                for index in 0..<width where layout.columns[index] != " " && layout.columns[index] != "…" {
                    let at = layout.firstColumn + index
                    #expect(at < line.count && layout.columns[index] == line[at], "\(place) column \(index)")
                }
                // No blank beyond the end cursor's column while text is hidden on the left.
                if layout.firstColumn > 0 { #expect(layout.firstColumn + width <= line.count + 1, "\(place)") }
                // As little scrolling as needed: the previous first column kept when it still shows
                // the cursor, else no column nearer to it would.
                func shows(_ left: Int) -> Bool {
                    guard left >= 0, left <= max(0, line.count + 1 - width) else { return false }
                    let leftMark = width >= 4 && left > 0 ? 1 : 0
                    let rightMark = width >= 4 && line.count > left + width ? 1 : 0
                    return left + leftMark <= column && column + cursorWidth <= left + width - rightMark
                }
                if width >= 4 {
                    let kept = min(previous, max(0, line.count + 1 - width))
                    if shows(kept) {
                        #expect(layout.firstColumn == kept, "\(place)")
                    } else {
                        let nearer = layout.firstColumn < kept ? layout.firstColumn + 1 : layout.firstColumn - 1
                        #expect(!shows(nearer), "\(place)")
                        #expect(shows(layout.firstColumn), "\(place)")
                    }
                }
                previous = layout.firstColumn
            }
        }
    }

    // MARK: - History

    @Test func historyRecordsNeitherBlankLinesNorTheNewestAgain() {
        var h = LineHistory()
        for line in ["a", "a", "", "  ", "b", "a"] { h.record(line) }
        #expect(h.entries == ["a", "b", "a"])
    }

    @Test func historyKeepsTheNewestLinesUpToItsCapacity() {
        var h = LineHistory(capacity: 3)
        for line in ["1", "2", "3", "4", "5"] { h.record(line) }
        #expect(h.entries == ["3", "4", "5"])
        let carried = LineHistory(capacity: 2, entries: ["x", "x", "y", "", "z"])
        #expect(carried.entries == ["y", "z"])
        #expect(LineHistory(capacity: 0).capacity == 1)
    }

    @Test func walkingTheHistoryKeepsTheDraftAndGivesItBack() {
        var h = LineHistory(entries: ["one", "two", "three"])
        #expect(h.newer() == nil)
        #expect(h.older(current: "dra") == "three")
        #expect(h.isWalking && h.draft == "dra")
        #expect(h.older(current: "three") == "two")
        #expect(h.older(current: "two") == "one")
        #expect(h.older(current: "one") == nil)
        #expect(h.position == 0)
        #expect(h.newer() == "two")
        #expect(h.newer() == "three")
        #expect(h.newer() == "dra")
        #expect(!h.isWalking)
        #expect(h.newer() == nil)
        #expect(h.older(current: "again") == "three")
        h.record("four")
        #expect(!h.isWalking)
        #expect(h.older(current: "") == "four")
        var empty = LineHistory()
        #expect(empty.older(current: "x") == nil)
        #expect(!empty.isWalking)
    }

    @Test func upAndDownWalkTheEditorsHistory() {
        var e = LineEditor("dra", history: LineHistory(entries: ["select 1", "select 2"]))
        _ = e.handle(.left)
        #expect(e.handle(.up) == .edited)
        #expect(e.text == "select 2" && e.cursor == 8)
        #expect(e.handle(.up) == .edited)
        #expect(e.text == "select 1")
        #expect(e.handle(.up) == .consumed)              // nothing older
        #expect(e.text == "select 1")
        #expect(e.handle(.down) == .edited)
        #expect(e.text == "select 2")
        #expect(e.handle(.down) == .edited)
        #expect(e.text == "dra" && e.cursor == 3)        // the draft is back
        #expect(e.handle(.down) == .consumed)
        #expect(e.text == "dra")
    }

    @Test func enterRecordsTheLineAndEditsOfARecalledLineAreNotKept() {
        var e = LineEditor(history: LineHistory(entries: ["select 1"]))
        _ = e.handle(.up)
        _ = e.handle(.character("0"))                     // "select 10", not run
        _ = e.handle(.down)
        #expect(e.text == "")
        _ = e.handle(.up)
        #expect(e.text == "select 1")
        #expect(e.handle(.enter) == .submitted("select 1"))
        #expect(e.history?.entries == ["select 1"])      // not twice
        e.text = "select 2"
        #expect(e.handle(.enter) == .submitted("select 2"))
        #expect(e.history?.entries == ["select 1", "select 2"])
        #expect(e.history?.isWalking == false)
    }

    @Test func escapeOrNewTextEndsAWalk() {
        var e = LineEditor("draft", history: LineHistory(entries: ["old"]))
        _ = e.handle(.up)
        #expect(e.handle(.escape) == .cancelled)
        #expect(e.history?.isWalking == false)
        #expect(e.handle(.down) == .consumed)
        #expect(e.text == "old")

        var f = LineEditor("draft", history: LineHistory(entries: ["old"]))
        _ = f.handle(.up)
        f.text = "new"
        #expect(f.history?.isWalking == false)
        #expect(f.handle(.down) == .consumed)
        #expect(f.text == "new")
    }
}
