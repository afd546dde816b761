import DatacenterChanges
import DatacenterKit
import Foundation

/// `diff`'s text: store by store, a line a change (`+` added, `-` removed, `~` changed; with
/// `--verbose`, `=` re-encrypted and `.` touched), coloured on a terminal.
final class DiffTextPrinter: ChangeSink {
    private let out: BufferedOutput
    private let verbose: Bool
    private let colour: Bool
    private var stores = 0

    /// True when standard output is a terminal and `NO_COLOR` is not set.
    static var usesColour: Bool { isatty(1) == 1 && ProcessEnvironment.value("NO_COLOR") == nil }

    init(out: BufferedOutput, verbose: Bool, colour: Bool) {
        self.out = out
        self.verbose = verbose
        self.colour = colour
    }

    func beginStore(_ name: String, presence: StorePresence) {
        switch presence {
        case .both: pendingHeader = name
        case .onlyInA: out.line(paint("- \(Output.safe(name, limit: 200)): only in A", "31")); stores += 1
        case .onlyInB: out.line(paint("+ \(Output.safe(name, limit: 200)): only in B", "32")); stores += 1
        }
    }

    /// A store's name, printed before its first change (a store without any prints nothing).
    private var pendingHeader: String?

    private func header() {
        guard let name = pendingHeader else { return }
        pendingHeader = nil
        stores += 1
        out.line(paint(Output.safe(name, limit: 200), "1"))
    }

    func schemaChange(_ change: SchemaChange) {
        header()
        let sign = change.kind == .added ? "+" : change.kind == .removed ? "-" : "~"
        let note = change.note.map { " (\($0))" } ?? ""
        out.line(paint("  \(sign) \(change.type) \(Output.safe(change.name))\(note)", colourCode(sign)))
    }

    func rowChange(_ change: RowChange) {
        guard change.kind.changesValue || verbose else { return }
        header()
        let place: String
        switch change.section {
        case .kv(let business): place = "kv \(Output.safe(business))"
        case .dao(let table): place = Output.safe(table)
        case .cache(let name): place = "cache \(Output.safe(name))"
        case .table(let table): place = Output.safe(table)
        }
        let key: String
        switch change.section {
        case .kv, .cache: key = change.key.first.map { Self.text(.database($0.value)) } ?? ""
        default: key = change.key.map { "\(Output.safe($0.column))=\(Self.text(.database($0.value)))" }.joined(separator: ", ")
        }
        let detail: String
        let sign: String
        switch change.kind {
        case .added:
            sign = "+"
            detail = Self.fields(change.new)
        case .removed:
            sign = "-"
            detail = Self.fields(change.old)
        case .changed:
            sign = "~"
            detail = zip(change.old, change.new).map { old, new in
                let column = old.column == "value" && change.old.count == 1 ? "" : Output.safe(old.column) + " "
                let (before, after) = Self.changed(old.value, new.value)
                return column + before + " → " + after
            }.joined(separator: "; ")
        case .reencrypted:
            sign = "="
            detail = "encrypted anew, same value"
        case .touched:
            sign = "."
            detail = "written or used again, same value"
        }
        out.line(paint("  \(sign) \(place) \(key): \(detail)", colourCode(sign)))
    }

    func endStore() { pendingHeader = nil }

    /// The last line: how many changes, in how many stores.
    func finish(changes: Int, a: String, b: String) {
        if changes == 0 {
            out.line("no changes between \(Output.safe(a, limit: 200)) and \(Output.safe(b, limit: 200))")
        } else {
            out.line("\(changes) change\(changes == 1 ? "" : "s") in \(stores) store\(stores == 1 ? "" : "s")")
        }
    }

    private static func fields(_ values: [(column: String, value: ShownValue)]) -> String {
        if values.count == 1, values[0].column == "value" { return text(values[0].value) }
        return values.map { "\(Output.safe($0.column))=\(text($0.value))" }.joined(separator: ", ")
    }

    /// A value for a person: text quoted, numbers as they are, bytes counted, locked said;
    /// cut to `limit` columns.
    static func text(_ value: ShownValue, limit: Int = 60) -> String {
        switch value {
        case .database(let v), .decrypted(let v):
            switch v {
            case .null: return "NULL"
            case .integer(let i): return String(i)
            case .real(let d): return Database.realText(d)
            case .text(let s): return Output.safe(Output.jsonString(s), limit: limit)
            case .blob(let d): return "<\(d.count) bytes>"
            }
        case .kv(let v):
            if case .string(let s) = v { return Output.safe(Output.jsonString(s), limit: limit) }
            return Output.safe(v.displayString, limit: limit)
        case .cache(let p):
            if case .data(let d) = p { return "<\(d.count) bytes>" }
            return Output.safe((try? Output.jsonFragment(p.jsonObject)) ?? "?", limit: limit)
        case .locked(let why): return "<locked: \(why)>"
        }
    }

    /// Old and new as `text` shows them; when those read alike though the values differ (they
    /// part past the columns shown), each from a little before where they part, so the line
    /// shows the difference instead of two identical strings.
    static func changed(_ old: ShownValue, _ new: ShownValue) -> (String, String) {
        let (shortOld, shortNew) = (text(old), text(new))
        guard shortOld == shortNew else { return (shortOld, shortNew) }
        let (fullOld, fullNew) = (text(old, limit: .max), text(new, limit: .max))
        guard fullOld != fullNew else { return (shortOld, shortNew) }
        let start = max(0, zip(fullOld, fullNew).prefix { $0 == $1 }.count - 20)
        func window(_ full: String) -> String { "…" + Output.safe(String(full.dropFirst(start)), limit: 60) }
        return (window(fullOld), window(fullNew))
    }

    private func colourCode(_ sign: String) -> String {
        switch sign {
        case "+": return "32"
        case "-": return "31"
        case "~": return "33"
        default: return "2"
        }
    }

    private func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1b}[\(code)m" + text + "\u{1b}[0m" : text
    }
}

/// `diff --json`: one object, written as the diff goes, keys sorted (see docs/CLI.md):
/// `{"a", "b", "stores": [{"presence", "rows": […], "schema": […], "store"}], "total"}`.
/// Rows stream; a store's schema changes (a few) are held until its rows are written.
final class DiffJSONPrinter: ChangeSink {
    private let out: BufferedOutput
    private let verbose: Bool
    private var stores = 0
    private var rows = 0
    private var store = ""
    private var schema: [String] = []

    init(a: String, b: String, out: BufferedOutput, verbose: Bool) {
        self.out = out
        self.verbose = verbose
        out.write("{\"a\":\(Output.jsonString(a)),\"b\":\(Output.jsonString(b)),\"stores\":[")
    }

    func beginStore(_ name: String, presence: StorePresence) {
        out.write((stores == 0 ? "" : ",") + "{\"presence\":\"\(presence.rawValue)\",\"rows\":[")
        stores += 1
        rows = 0
        store = name
        schema = []
    }

    func schemaChange(_ change: SchemaChange) {
        let object: [String: Any] = ["change": change.kind.rawValue, "type": change.type, "name": change.name,
                                     "note": change.note ?? NSNull()]
        schema.append(Output.jsonText(object))
    }

    func rowChange(_ change: RowChange) {
        guard change.kind.changesValue || verbose else { return }
        var object: [String: Any] = ["change": change.kind.rawValue]
        switch change.section {
        case .kv(let business): object["section"] = "kv"; object["business"] = business
        case .dao(let table): object["section"] = "dao"; object["table"] = table
        case .cache(let name): object["section"] = "cache"; object["cache"] = name
        case .table(let table): object["section"] = "table"; object["table"] = table
        }
        object["key"] = Dictionary(change.key.map { ($0.column, Output.jsonValue($0.value)) }, uniquingKeysWith: { first, _ in first })
        object["old"] = change.kind == .added ? NSNull() : Self.values(change.old)
        object["new"] = change.kind == .removed ? NSNull() : Self.values(change.new)
        out.write((rows == 0 ? "" : ",") + Output.jsonText(object))
        rows += 1
    }

    func endStore() {
        out.write("],\"schema\":[" + schema.joined(separator: ",") + "],\"store\":\(Output.jsonString(store))}")
    }

    /// Closes the document with the count of changes of value.
    func finish(changes: Int) {
        out.write("],\"total\":\(changes)}\n")
    }

    private static func values(_ values: [(column: String, value: ShownValue)]) -> [String: Any] {
        Dictionary(values.map { ($0.column, json($0.value)) }, uniquingKeysWith: { first, _ in first })
    }

    /// A value as JSON: blobs `{"$blob": base64}`, cache data `{"$data": base64}`, a value no
    /// key opens `{"$locked": why}`.
    static func json(_ value: ShownValue) -> Any {
        switch value {
        case .database(let v), .decrypted(let v): return Output.jsonValue(v)
        case .kv(let v): return v.jsonObject
        case .cache(let p): return p.jsonObject
        case .locked(let why): return ["$locked": why]
        }
    }
}
