import DatacenterDAO
import DatacenterKit
import Foundation
import DatacenterText

/// The DAO panel's body as lines, and its scrolling: the body (fields, preview, results) may
/// be taller than the pane, so it scrolls (PgUp/PgDn) and keeps what the user works on — the
/// field under the cursor, the confirmation, fresh results — in view.
extension DAOPanel {
    /// What a line belongs to, so scrolling can bring it into view.
    enum Anchor: Equatable {
        /// A method of the list, a field of the form (by index), the results, the confirmation.
        case method(Int), field(Int), results, confirm
    }

    /// One line of the panel's body.
    struct Line: Equatable {
        let text: String
        let role: StyleRole
        var indent = 0
        var anchor: Anchor? = nil
        /// True for a line cut at the pane's edge with `…` (a result row) rather than wrapped.
        var isCut = false
    }

    /// True when the results are rows laid out in columns (a select's, not an error): they
    /// are cut at the edge and scroll sideways, so their columns stay aligned.
    var resultsAreRows: Bool { !resultIsError && method?.kind == .select }

    /// Every line of the body (below the title) for a pane `width` columns wide. Pure: the
    /// same panel and width give the same lines.
    func bodyLines(width: Int) -> [Line] {
        var lines: [Line] = []
        func wrapped(_ label: String, _ text: String, _ role: StyleRole, anchor: Anchor? = nil) {
            let body = Inspector.wrapWords(text, width: max(8, width - 11))
            for (i, part) in body.enumerated() {
                let head = i == 0 ? label.padding(toLength: 10, withPad: " ", startingAt: 0) : String(repeating: " ", count: 10)
                lines.append(Line(text: head + " " + part, role: role, anchor: anchor))
            }
        }
        switch stage {
        case .methods:
            for (index, method) in config.methods.enumerated() {
                lines.append(Line(text: method.signature, role: index == methodCursor ? .gridSelected : .grid, indent: 1,
                                  anchor: .method(index)))
            }
            return lines
        case .form, .confirm:
            break
        }
        guard let method else { return lines }
        lines.append(Line(text: method.signature, role: .grid, indent: 1))
        let labelWidth = fieldLabelWidth
        for (index, field) in fields.enumerated() {
            let active = index == fieldCursor && stage == .form
            let label = (field.isRequired ? "$" : " ") + field.name
            let head = label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + ": "
            let value: String
            if field.isNil {
                value = "nil"
            } else if active {
                // The editor's window on the text, a caret at the cursor (one column of the room).
                let layout = field.editor.layout(width: fieldRoom(width: width) - 1)
                let columns = layout.columns
                let cut = min(layout.cursorColumn, columns.count)
                value = columns[..<cut].joined() + "▏" + columns[cut...].joined()
            } else {
                value = field.editor.layout(width: fieldRoom(width: width)).visible
            }
            lines.append(Line(text: head + value, role: active ? .gridSelected : (field.isNil ? .null : .grid), indent: 1,
                              anchor: .field(index)))
            if case .failure(let error) = field.parsed {
                lines.append(Line(text: String(repeating: " ", count: labelWidth + 2) + "✗ \(error)", role: .error, indent: 1,
                                  anchor: .field(index)))
            }
        }
        if fields.isEmpty { lines.append(Line(text: "(no arguments)", role: .null, indent: 1)) }
        lines.append(Line(text: "", role: .grid))
        for field in fields { wrapped("argument", field.summary, field.isNil ? .null : .grid) }
        if let error = renderError {
            wrapped("error", error, .error)
        } else if skipped {
            lines.append(Line(text: "skipped: onVoid=quit applies, nothing will run", role: .marker, indent: 1))
        } else if argumentError == nil {
            if let preparation, !preparation.isEmpty {
                lines.append(Line(text: "Before the call, preparing table \(table) runs (confirmed with the write):", role: .marker, indent: 1))
                for part in preparation.parts { wrapped("prepare", part.label + ": " + part.statement.preview, .marker) }
            }
            for preview in previews {
                if let heading = preview.heading { lines.append(Line(text: "-- " + heading, role: .marker, indent: 1)) }
                wrapped("SQL", preview.sql, .gridHeader)
                wrapped("bindings", preview.bindings.isEmpty ? "(none)" : preview.bindings, .grid)
                wrapped("inlined", preview.inlined, .grid)
                wrapped("plan", preview.plan.joined(separator: "; "), .null)
            }
            if let cryptRefusal { wrapped("refused", cryptRefusal, .error) }
        }
        if stage == .confirm {
            lines.append(Line(text: "", role: .grid))
            let prepared = preparation.map { $0.isEmpty ? "" : " and prepares the table first" } ?? ""
            let question = "It writes to the file\(prepared): run \(method.kind.rawValue) \(method.id) on \(storeName)? (y/n)"
            for part in Inspector.wrapWords(question, width: max(8, width - 2)) {
                lines.append(Line(text: part, role: .dialog, indent: 1, anchor: .confirm))
            }
        } else if !resultLines.isEmpty {
            if resultsFocused {
                let sideways = resultShift > 0 ? " · \(resultShift) columns hidden on the left" : ""
                lines.append(Line(text: "output (↑↓ ←→ scroll, Tab: the form)" + sideways,
                                  role: .gridSelected, indent: 1, anchor: .results))
            } else {
                lines.append(Line(text: "", role: .grid))
            }
            let role: StyleRole = resultIsError ? .error : .decrypted
            for (index, result) in resultLines.enumerated() {
                if resultsAreRows && index > 0 {
                    // Rows (a table laid out in columns) are cut at the edge and scroll sideways;
                    // the first line is the summary (`resultSummary`), which wraps.
                    // A line that fits (a count line) stays put.
                    let shifted = TerminalText.width(of: TerminalText.visible(result)) > width - 2 ? DAOPanel.dropColumns(result, resultShift) : result
                    lines.append(Line(text: shifted, role: role, indent: 1, anchor: .results, isCut: true))
                } else {
                    // Messages wrap.
                    for part in Inspector.wrapWords(result, width: max(8, width - 2)) {
                        lines.append(Line(text: part, role: role, indent: 1, anchor: .results))
                    }
                }
            }
        }
        return lines
    }

    /// `text` without its first `count` columns (a wide character across the edge goes whole).
    static func dropColumns(_ text: String, _ count: Int) -> String {
        guard count > 0 else { return text }
        var dropped = 0, kept = ""
        TerminalText.forEachCell(in: text) { cell, width in
            if dropped < count { dropped += width } else { kept += cell }
            return true
        }
        return kept
    }

    /// How far the result rows may scroll sideways on a panel `width` wide: until the widest
    /// row's end shows.
    func maximumResultShift(width: Int) -> Int {
        max(0, (resultLines.map { TerminalText.width(of: TerminalText.visible($0)) }.max() ?? 0) - (width - 2))
    }

    /// `scroll` kept within the lines: the last page ends at the last line.
    static func clamped(_ scroll: Int, lineCount: Int, height: Int) -> Int {
        max(0, min(scroll, lineCount - height))
    }

    /// Scrolls by `delta` lines (a page is `height`).
    mutating func scroll(by delta: Int, width: Int, height: Int) {
        scroll = DAOPanel.clamped(scroll + delta, lineCount: bodyLines(width: width).count, height: height)
    }

    /// Scrolls the least that brings the lines of `anchor` into view (their start when they
    /// do not all fit).
    mutating func reveal(_ anchor: Anchor, width: Int, height: Int) {
        let lines = bodyLines(width: width)
        scroll = DAOPanel.clamped(scroll, lineCount: lines.count, height: height)
        guard let first = lines.firstIndex(where: { $0.anchor == anchor }),
              let last = lines.lastIndex(where: { $0.anchor == anchor }) else { return }
        if last >= scroll + height { scroll = last - height + 1 }
        if first < scroll { scroll = first }
    }

    /// The columns of a field's label column (names up to 18 wide, then `: `).
    var fieldLabelWidth: Int { min(20, (fields.map { TerminalText.width(of: $0.name) }.max() ?? 0) + 2) }

    /// The columns a field's value has on a panel `width` wide, after its label.
    func fieldRoom(width: Int) -> Int { max(4, width - 2 - fieldLabelWidth - 2) }
}
