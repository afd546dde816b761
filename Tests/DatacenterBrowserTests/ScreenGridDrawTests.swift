import DatacenterText
import Testing
@testable import DatacenterBrowser

/// What the curses edge hands curses for a frame (`ScreenGrid.forEachCellToDraw`): the
/// cells that changed, which put on the frame before make the new one, held to drawing
/// every cell.
@Suite struct ScreenGridDrawTests {
    /// A frame of random narrow and wide characters in random roles.
    static func randomFrame(width: Int, height: Int, using generator: inout some RandomNumberGenerator) -> ScreenGrid {
        var grid = ScreenGrid(width: width, height: height)
        let roles: [StyleRole] = [.grid, .gridHeader, .gridSelected, .error, .dialog]
        for y in 0..<height {
            var x = 0
            while x < width {
                let role = roles.randomElement(using: &generator)!
                if x + 1 < width, Int.random(in: 0..<5, using: &generator) == 0 {
                    grid.write("日", x: x, y: y, maxWidth: 2, role: role)
                    x += 2
                } else {
                    grid.write(["a", "b", " "].randomElement(using: &generator)!, x: x, y: y, maxWidth: 1, role: role)
                    x += 1
                }
            }
        }
        return grid
    }

    /// What a terminal showing `previous` shows once handed the cells: each written over
    /// what was there, a wide character taking the cell after it too.
    static func apply(_ grid: ScreenGrid, after previous: ScreenGrid?) -> (ScreenGrid, count: Int) {
        var shown = previous ?? ScreenGrid(width: grid.width, height: grid.height)
        var count = 0
        grid.forEachCellToDraw(after: previous) { x, y, cell in
            shown[x, y] = cell
            if x + 1 < grid.width, grid[x + 1, y].text.isEmpty { shown[x + 1, y] = grid[x + 1, y] }
            count += 1
        }
        return (shown, count)
    }

    /// SplitMix64: the same frames on every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func theChangedCellsOverTheLastFrameMakeTheNewOne() {
        var generator = SeededGenerator(state: 42)
        var previous: ScreenGrid?
        for round in 0..<3_000 {
            var frame = Self.randomFrame(width: 12, height: 4, using: &generator)
            // Most frames change a little of the one before, as keys do.
            if let before = previous, round % 3 != 0 {
                frame = before
                let y = Int.random(in: 0..<4, using: &generator)
                frame.write(round % 2 == 0 ? "日本" : "xyz", x: Int.random(in: 0..<8, using: &generator), y: y, maxWidth: 4, role: .error)
                // Half a wide character written over leaves a blank in its other half.
                for x in 0..<frame.width {
                    let isWide = TerminalText.width(of: frame[x, y].text) == 2
                    let orphanFirst = isWide && (x + 1 == frame.width || !frame[x + 1, y].text.isEmpty)
                    let orphanSecond = frame[x, y].text.isEmpty && (x == 0 || TerminalText.width(of: frame[x - 1, y].text) < 2)
                    if orphanFirst || orphanSecond { frame[x, y] = Cell(" ", role: frame[x, y].role) }
                }
            }
            let (shown, count) = Self.apply(frame, after: previous)
            let differing = frame.cells.indices.filter { shown.cells[$0] != frame.cells[$0] }
                .map { i in "\(i % 12),\(i / 12): want \(frame.cells[i]) got \(shown.cells[i]) before \(previous?.cells[i].text ?? "-")" }
            #expect(shown == frame, "round \(round): \(differing)")
            let all = Self.apply(frame, after: nil)
            #expect(all.0 == frame)
            #expect(count <= all.count)
            previous = frame
        }
    }

    @Test func anUnchangedFrameHandsNothingAndAnotherSizeEverything() {
        var generator = SeededGenerator(state: 7)
        let frame = Self.randomFrame(width: 10, height: 3, using: &generator)
        #expect(Self.apply(frame, after: frame).count == 0)
        let wider = ScreenGrid(width: 11, height: 3)
        let everything = frame.cells.filter { !$0.text.isEmpty }.count
        #expect(Self.apply(frame, after: wider).count == everything)
        #expect(Self.apply(frame, after: nil).count == everything)
    }
}


/// `ScreenGrid.writeCut`'s path for printable ASCII draws what the cell-by-cell path draws.
@Suite struct WriteCutShortcutTests {
    @Test func printableASCIIIsCutAsTheCellsWouldBe() {
        for length in 0...50 {
            let text = String((0..<length).map { Character(Unicode.Scalar(UInt8(0x20 + $0 % 95))) })
            for width in 0...45 {
                var fast = ScreenGrid(width: 50, height: 1)
                var cells = ScreenGrid(width: 50, height: 1)
                let usedFast = fast.writeCut(text, x: 2, y: 0, width: width, role: .grid, markerRole: .marker)
                let usedCells = cells.writeCutByCells(text, x: 2, y: 0, width: width, role: .grid, markerRole: .marker)
                #expect(usedFast == usedCells, "\(length) bytes in \(width) columns")
                #expect(fast == cells, "\(length) bytes in \(width) columns: \(fast.text.debugDescription) vs \(cells.text.debugDescription)")
            }
        }
    }
}
