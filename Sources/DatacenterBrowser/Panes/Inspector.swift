import DatacenterKit
import Foundation
import DatacenterText

/// One value shown in full: text, pretty JSON (or a property-list tree), or a hex dump. The
/// inspector pane: its keys scroll and switch the view, and it draws over the grid.
package struct Inspector: Sendable {
    /// How the value is laid out; `m` cycles through them.
    package enum Mode: String, CaseIterable, Sendable { case text, json, hex }

    /// The name of the value's column, for the summary line.
    package let title: String
    /// The value inspected: a cell's, or a staged update's new value.
    private let value: GridCell
    /// The value a staged update replaces (the one read), shown instead with `o`; nil for a
    /// cell not staged.
    private let replaced: GridCell?
    /// True when a staged update's new value is written encrypted.
    private let encryptedOnCommit: Bool
    /// True while `o` shows the value the staged update replaces.
    package private(set) var showsReplaced = false
    /// The cell shown; its content is what is laid out.
    package var cell: GridCell { showsReplaced ? replaced ?? value : value }
    /// The current layout.
    package var mode: Mode
    /// The first content line on screen.
    package var scroll = 0

    /// The content laid out for one width and mode.
    package struct Layout: Sendable {
        /// The columns the lines were laid out for.
        package let width: Int
        /// The view they were laid out in.
        package let mode: Mode
        /// The lines.
        package let lines: [String]
    }

    /// The lines last laid out (`layOut(width:)`): a huge value is wrapped once per width and
    /// view, not on every key and every frame. The inspector's value never changes, so the
    /// width and view are the whole key.
    package private(set) var layout: Layout?

    /// The most lines an inspector lays out, so a huge value stays quick.
    package static let lineLimit = 20_000

    /// An inspector of `cell`, starting in the layout that suits its value: JSON for
    /// structured values, hex for blobs, else text.
    package init(title: String, cell: GridCell) {
        self.init(title: title, value: cell, replaced: nil, encryptedOnCommit: false)
    }

    /// An inspector of a staged update's new value, `replacing` the cell's value read, which
    /// `o` shows.
    init(title: String, staged: StagedValue, replacing: GridCell) {
        self.init(title: title, value: staged.cell, replaced: replacing, encryptedOnCommit: staged.encryptedOnCommit)
    }

    private init(title: String, value cell: GridCell, replaced: GridCell?, encryptedOnCommit: Bool) {
        self.title = title
        self.value = cell
        self.replaced = replaced
        self.encryptedOnCommit = encryptedOnCommit
        switch cell.content {
        case .kv(let v) where ![.string, .integer, .double, .bool].contains(v.encoding): mode = .json
        case .propertyList: mode = .json
        case .database(.blob): mode = .hex
        default: mode = .text
        }
    }

    /// An inspector of text the browser made (a schema, the last message), named `typeName`.
    init(text: String, typeName: String, title: String) {
        self.init(title: title, cell: GridCell(text: text, role: .grid, typeName: typeName, content: .database(.text(text))))
    }

    /// The first line: what the value is and whether it was decrypted.
    package var summary: String {
        let state: String
        switch cell.encryption {
        case .plain: state = ""
        case .decrypted: state = " · decrypted"
        case .locked(let why): state = " · locked (\(why))"
        }
        guard replaced != nil else { return "\(title) · \(cell.typeName)\(state) · \(mode.rawValue) view (m: switch)" }
        let staged = showsReplaced ? "the value before the staged edit (o: the new one)"
            : "staged, written on commit" + (encryptedOnCommit ? " encrypted" : "") + " (o: the value before)"
        return "\(title) · \(cell.typeName)\(state) · \(staged) · \(mode.rawValue) view (m: switch)"
    }

    /// The content laid out for `width` columns: the kept layout when it is for this width
    /// and view (see `layOut(width:)`), else laid out now.
    package func lines(width: Int) -> [String] {
        if let layout, layout.width == width, layout.mode == mode { return layout.lines }
        return makeLines(width: width)
    }

    /// True when the hex view is shown: its lines are made from the bytes when drawn, a
    /// screenful at a time, so any value can be scrolled to its last byte.
    private var showsHex: Bool {
        if case .locked = cell.encryption { return false }
        return mode == .hex
    }

    /// How many lines the content has at `width` columns.
    package func lineCount(width: Int) -> Int {
        showsHex ? Inspector.hexLineCount(bytes.count, width: max(8, width)) : lines(width: width).count
    }

    /// The lines `range` of the content at `width` columns (those that exist).
    package func lines(_ range: Range<Int>, width: Int) -> [String] {
        if showsHex {
            let data = bytes
            let count = Inspector.hexLineCount(data.count, width: max(8, width))
            return range.clamped(to: 0..<count).map { Inspector.hexLine($0, of: data, width: max(8, width)) }
        }
        let all = lines(width: width)
        return Array(all[range.clamped(to: all.indices)])
    }

    /// Lays the content out for `width` columns in the current view and keeps it, unless
    /// the kept layout is already that one (the hex view is not laid out: see `showsHex`).
    package mutating func layOut(width: Int) {
        if showsHex { return }
        if let layout, layout.width == width, layout.mode == mode { return }
        layout = Layout(width: width, mode: mode, lines: makeLines(width: width))
    }

    /// The content laid out for `width` columns, from scratch.
    private func makeLines(width: Int) -> [String] {
        WorkMeter.count(.inspectorLayouts)
        let width = max(8, width)
        if case .locked(let why) = cell.encryption {
            return ["This value is encrypted and no key given opens it (\(why)).", "Pass the key with --key to see it."]
        }
        switch mode {
        case .hex: return Inspector.hexDump(bytes, width: width)
        case .json: return Inspector.wrap(prettyJSON ?? text, width: width)
        case .text: return Inspector.wrap(text, width: width)
        }
    }

    /// One key, in a pane `context.paneWidth` columns wide and `context.bodyHeight` lines
    /// tall (title included); `Inspector.keys` says what each does.
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect] {
        layOut(width: context.paneWidth)
        return Inspector.keys.run(key, on: &self, context: context) ?? []
    }

    /// The inspector's keys.
    static let keys = KeyMap<Inspector>("Inspector (Enter on a cell)", [
        KeyCommand([.down, .character("j"), .up, .character("k")], "↑ ↓ j k", "scroll", hint: "↑↓ scroll") { pane, key, context in
            pane.scroll(to: key == .up || key == .character("k") ? pane.scroll - 1 : pane.scroll + 1, context)
        },
        KeyCommand([.pageDown, .character(" "), .pageUp], "PgUp PgDn Space", "page") { pane, key, context in
            let page = context.bodyHeight - 1
            return pane.scroll(to: key == .pageUp ? pane.scroll - page : pane.scroll + page, context)
        },
        KeyCommand([.home, .character("g"), .end, .character("G")], "g G Home End", "first / last line") { pane, key, context in
            let last = pane.lineCount(width: context.paneWidth) - (context.bodyHeight - 1)
            pane.scroll = key == .home || key == .character("g") ? 0 : max(0, last)
            return []
        },
        KeyCommand([.character("m")], "m", "view: text, json, hex", hint: "m view") { pane, _, context in
            let modes = Mode.allCases
            pane.mode = modes[((modes.firstIndex(of: pane.mode) ?? 0) + 1) % modes.count]
            pane.scroll = 0
            pane.layOut(width: context.paneWidth)
            return []
        },
        KeyCommand([.character("o")], "o", "a staged cell: its new value / the value before") { pane, _, context in
            guard pane.replaced != nil else { return [.message("o shows the value a staged edit replaces: this cell is not staged", isError: false)] }
            pane.showsReplaced.toggle()
            pane.scroll = 0
            pane.layout = nil
            pane.layOut(width: context.paneWidth)
            return []
        },
        KeyCommand([.escape, .character("q"), .enter, .tab], "Esc q Enter Tab", "back to the grid", hint: "Esc back") { _, _, _ in
            [.close, .focus(.grid)]
        },
        .help,
    ])

    /// Scrolls to line `line`, kept between the first and the last.
    private mutating func scroll(to line: Int, _ context: PaneContext) -> [PaneEffect] {
        scroll = max(0, min(max(0, lineCount(width: context.paneWidth) - 1), line))
        return []
    }

    /// Draws the summary line, then the lines from `scroll` that fit in `area`.
    func draw(into screen: inout ScreenGrid, area: PaneArea, focused: Bool) {
        screen.fill(x: area.x, y: area.y, count: area.width, role: .gridHeader)
        screen.write(summary, x: area.x, y: area.y, maxWidth: area.width, role: .gridHeader)
        let role: StyleRole
        switch cell.encryption {
        case .plain: role = .grid
        case .decrypted: role = .decrypted
        case .locked: role = .locked
        }
        for (line, text) in lines(scroll..<(scroll + max(0, area.height - 1)), width: area.width).enumerated() {
            screen.write(text, x: area.x, y: area.y + 1 + line, maxWidth: area.width, role: role)
        }
    }

    private var text: String {
        switch cell.content {
        case .database(let v):
            switch v {
            case .null: return "NULL"
            case .integer(let i): return String(i)
            case .real(let d): return String(d)
            case .text(let s): return s
            case .blob(let d): return String(data: d, encoding: .utf8) ?? ValueFormatter.blobPreview(d)
            }
        case .kv(let v):
            if case .string(let s) = v { return s }
            return v.displayString
        case .propertyList(let p): return KVValue.plist(p).displayString
        case .none: return cell.text
        }
    }

    /// What the hex view shows: the value's bytes as stored (decrypted), never the JSON
    /// the other views show of a property list.
    private var bytes: Data {
        if let stored = cell.storedBytes { return stored }
        switch cell.content {
        case .database(.blob(let d)): return d
        case .propertyList(.data(let d)): return d
        default: return Data(text.utf8)
        }
    }

    private var prettyJSON: String? {
        let object: Any
        switch cell.content {
        case .kv(let v): object = v.jsonObject
        case .propertyList(let p): object = p.jsonObject
        case .database(.text(let s)):
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(s.utf8), options: [.fragmentsAllowed]) else { return nil }
            object = parsed
        default: return nil
        }
        guard JSONSerialization.isValidJSONObject(object) || object is String || object is NSNumber,
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Splits text into lines of at most `width` columns, control and unprintable characters
    /// made visible. Lines break between cells (`TerminalText.forEachCell(in:_:)`): a wide
    /// character is never split, and zero-width scalars (joiners, combining marks) stay on
    /// the line of the character they follow, so every scalar is shown.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = "", columns = 0, full = false
            TerminalText.forEachCell(in: String(paragraph)) { cell, w in
                if columns > 0, columns + w > width {
                    lines.append(line)
                    if lines.count >= lineLimit { full = true; return false }
                    line = ""
                    columns = 0
                }
                line += cell
                columns += w
                return true
            }
            if full { return lines + ["… (cut at \(lineLimit) lines)"] }
            lines.append(line)
            if lines.count >= lineLimit { return lines + ["… (cut at \(lineLimit) lines)"] }
        }
        return lines
    }

    /// Splits text into lines of at most `width` columns at spaces where it can (a word longer
    /// than a line is cut), control characters made visible: for SQL and other prose.
    static func wrapWords(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in TerminalText.visible(text).split(separator: " ", omittingEmptySubsequences: false) {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if TerminalText.width(of: candidate) <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            line = String(word)
            if TerminalText.width(of: line) > width {
                // Cut the long word by cells; its last piece starts the next line.
                let pieces = wrap(line, width: width)
                lines += pieces.dropLast()
                line = pieces.last ?? ""
            }
        }
        lines.append(line)
        return lines
    }

    /// `offset  hex bytes  ascii`, as many bytes per line as fit (8 or 16): every line, to
    /// the last byte.
    static func hexDump(_ data: Data, width: Int) -> [String] {
        (0..<hexLineCount(data.count, width: width)).map { hexLine($0, of: data, width: width) }
    }

    /// Bytes per line of the hex view at `width` columns.
    private static func hexBytesPerLine(width: Int) -> Int { width >= 76 ? 16 : 8 }

    /// Lines of the hex view of `count` bytes (one, `(empty)`, for none).
    static func hexLineCount(_ count: Int, width: Int) -> Int {
        let perLine = hexBytesPerLine(width: width)
        return max(1, (count + perLine - 1) / perLine)
    }

    /// Line `index` of the hex view of `data`, made from its bytes alone.
    static func hexLine(_ index: Int, of data: Data, width: Int) -> String {
        guard !data.isEmpty else { return "(empty)" }
        let perLine = hexBytesPerLine(width: width)
        let offset = index * perLine
        let chunk = [UInt8](data[(data.startIndex + offset)..<(data.startIndex + min(offset + perLine, data.count))])
        let hex = chunk.map { String(format: "%02x", $0) }.joined(separator: " ")
        let ascii = String(chunk.map { $0 >= 0x20 && $0 < 0x7F ? Character(Unicode.Scalar($0)) : "." })
        return String(format: "%08x  ", offset) + hex.padding(toLength: perLine * 3, withPad: " ", startingAt: 0) + " " + ascii
    }
}

extension WorkMeter.Counter {
    /// Times an inspector laid its whole value out (`Inspector.layOut(width:)`), counted so a
    /// test can pin that keys and frames reuse the kept layout.
    static let inspectorLayouts = Self("inspector layouts")
}

extension Inspector: Pane {
    static var keyMaps: [KeyMap<Inspector>] { [keys] }
    var keyMap: KeyMap<Inspector> { Inspector.keys }
}
