import DatacenterKit
import Foundation

/// Literal SQL text from the config (consts and fragments already spliced in).
package final class TextNode: SQLNode {
    /// The text.
    package let text: String
    package let location: SourceLocation

    /// Literal `text` that starts at `location`.
    package init(_ text: String, location: SourceLocation) {
        self.text = text
        self.location = location
    }

    package func render(into context: inout RenderContext) throws {
        context.buffer.append(text: text)
    }
}

/// `${T}` / `${t}`: the DAO object's current table name.
///
/// **Decision**: a name that is a plain identifier is written as is; any other name is
/// quoted as an identifier, so a run-time table name cannot inject SQL. Inside the
/// template's quotes (`where name = '${T}'`, the common "does the table exist" check
/// against `sqlite_master`) the name is written as text, with the closing quote doubled, so
/// it can never end the quoting (`TemplateContextCheck` records which quotes: `quotedIn`).
package final class TableNameNode: SQLNode {
    package let location: SourceLocation
    /// The quotes the `${T}` stands in (`.normal` in plain SQL). Set once by the load-time
    /// check, before the node is shared; read-only afterwards.
    nonisolated(unsafe) var quotedIn: SQLLexer.State = .normal

    /// A `${T}` at `location`.
    package init(location: SourceLocation) { self.location = location }

    package func render(into context: inout RenderContext) throws {
        try TableNameNode.check(context.tableName, at: location)
        context.buffer.append(text: try text(for: context.tableName))
    }

    /// What this `${T}` writes for the table `name`: `sqlName(name)` in plain SQL, else the
    /// name with the closing quote of `quotedIn` doubled.
    /// - throws: `DAOError.render` for a name holding `]` inside `[…]` (SQLite has no escape
    ///   there) or a NUL character.
    func text(for name: String) throws -> String {
        guard quotedIn.isQuoted else { return TableNameNode.sqlName(name) }
        guard let quoted = quotedIn.doublingClosingQuote(in: name) else {
            throw DAOError.render("${T}: the table name \(name) holds ], which cannot stand inside [\u{2026}] (SQLite has "
                                  + "no escape there); quote it with \"\u{2026}\" in the template instead", at: location)
        }
        return quoted
    }

    /// Checks that a `${T}` at `location` has a table name to stand for.
    /// - throws: `DAOError.render` when `name` is empty.
    static func check(_ name: String, at location: SourceLocation) throws {
        guard !name.isEmpty else { throw DAOError.render("${T} used but no table name is set", at: location) }
    }

    /// `name` as it appears in SQL.
    package static func sqlName(_ name: String) -> String {
        // An ASCII letter or `_`, then ASCII letters, digits and `_`: the same test as
        // `Character.isLetter`/`isNumber` restricted to ASCII, done on bytes.
        func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
        func isWordByte(_ b: UInt8) -> Bool { isLetter(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_") }
        let plain = name.utf8.first.map { isLetter($0) || $0 == UInt8(ascii: "_") } == true && name.utf8.allSatisfy(isWordByte)
        return plain ? name : Database.quoteIdentifier(name)
    }
}

/// `#{path}` (bound as `?`) or `@{path}` (formatted into the SQL), with `or ""` and `no ""`.
package final class ReferenceNode: SQLNode {
    /// `#` binds, `@` inlines.
    package enum Mode: Sendable, Equatable { case bind, inline }
    /// Which reference.
    package let mode: Mode
    /// The chained access, e.g. `["model", "content"]`.
    package let path: [String]
    /// `or ""`: nil becomes an empty string.
    package let nilAsEmpty: Bool
    /// `no ""`: an inlined string is written raw, without quotes or escaping.
    package let raw: Bool
    package let location: SourceLocation
    /// For a `@{}`: the quotes of the template it stands inside (`'…'`, `"…"`, `` `…` ``,
    /// `[…]`), `.normal` in plain SQL. Set by `TemplateContextCheck` while the config loads,
    /// before the node is reachable from any other thread, and only read after.
    nonisolated(unsafe) var quotedIn: SQLLexer.State = .normal

    /// A `#{}` (`.bind`) or `@{}` (`.inline`) reference to the value at `path`.
    package init(mode: Mode, path: [String], nilAsEmpty: Bool, raw: Bool, location: SourceLocation) {
        self.mode = mode
        self.path = path
        self.nilAsEmpty = nilAsEmpty
        self.raw = raw
        self.location = location
    }

    /// The value this reference stands for in `scope` (`or ""` applied).
    func value(in scope: DAOScope) -> DAOValue {
        let value = scope.lookup(path)
        return value.isNil && nilAsEmpty ? .string("") : value
    }

    /// The value this reference stands for in `scope`, and whether a `<crypt>` rule covers
    /// it (a nil value is never encrypted): what a `#{}` binds. Every way of running a call
    /// binds through this (the renderer, and the static plans that bind without rendering).
    func binding(in scope: DAOScope, cryptRules: Set<DAOCryptRule>) -> (value: DAOValue, encrypted: Bool) {
        binding(of: scope.lookup(path), in: scope, cryptRules: cryptRules)
    }

    /// `binding(in:cryptRules:)` when the value at the path, `found`, is already known (a
    /// batch reads a loop item's member straight from the element: `DAOScope.itemMember`).
    @inline(__always)
    func binding(of found: DAOValue, in scope: DAOScope, cryptRules: Set<DAOCryptRule>) -> (value: DAOValue, encrypted: Bool) {
        let value = found.isNil && nilAsEmpty ? .string("") : found
        return (value, !cryptRules.isEmpty && !value.isNil && scope.isEncrypted(path, by: cryptRules))
    }

    package func render(into context: inout RenderContext) throws {
        if mode == .bind {
            let (value, encrypted) = binding(in: context.scope, cryptRules: context.cryptRules)
            context.buffer.append(bound: value, encrypted: encrypted)
            return
        }
        let value = value(in: context.scope)
        if context.isEncrypted(path) {
            // A crypt property is always bound: ciphertext is never inlined. Inside quotes a
            // `?` would be text, not a parameter.
            guard quotedIn == .normal else {
                throw DAOError.render("@{\(path.joined(separator: "."))} is a <crypt> property inside \(quotedIn.phrase): "
                                      + "its value is bound encrypted, which only #{} in plain SQL can do", at: location)
            }
            context.buffer.append(bound: value, encrypted: !value.isNil)
            return
        }
        if quotedIn != .normal {
            context.buffer.append(inlined: try quotedText(of: value))
            return
        }
        guard let text = ReferenceNode.inline(value, raw: raw) else {
            throw DAOError.render("@{\(path.joined(separator: "."))}: the value holds a NUL character, which SQL text cannot "
                                  + "hold (SQLite would stop reading there); bind it with #{}", at: location)
        }
        context.buffer.append(inlined: text)
    }

    /// How a `@{}` inside the template's quotes writes `value`: its text, with no quotes
    /// added (the template has them: "the underlying layer will not add the quotes again")
    /// and the quote that would end the template's doubled, so no value can end the quoting.
    /// Numbers, bools and dates as `inline` writes them, data as hex digits, collections as
    /// JSON.
    /// - throws: `DAOError.render` for nil (unless `or ""`), a NUL character, and a `]`
    ///   inside `[…]` (SQLite has no way to write one there).
    func quotedText(of value: DAOValue) throws -> String {
        let name = "@{" + path.joined(separator: ".") + "}"
        let text: String
        switch value {
        case .nil:
            throw DAOError.render("\(name) is nil inside \(quotedIn.phrase): write @{\(path.joined(separator: ".")) or \"\"} "
                                  + "for an empty text, or #{} in place of the whole literal", at: location)
        case .string(let s): text = s
        case .array, .dictionary, .model: text = value.jsonText
        default: text = ReferenceNode.inline(value, raw: true) ?? ""
        }
        if text.utf8.contains(0) {
            throw DAOError.render("\(name): the value holds a NUL character, which SQL text cannot hold (SQLite would stop "
                                  + "reading there); bind it with #{}", at: location)
        }
        guard let quoted = quotedIn.doublingClosingQuote(in: text) else {
            throw DAOError.render("\(name): the value holds ], which cannot stand inside [\u{2026}] (SQLite has no escape "
                                  + "there); quote the name with \"\u{2026}\" in the template instead", at: location)
        }
        return quoted
    }

    /// How `@{}` writes a value into SQL, where the template has an expression (a `@{}`
    /// inside a string literal, quoted identifier or comment does not load).
    ///
    /// Strings (and JSON of collections) become one string literal: single-quoted, every
    /// `'` doubled byte by byte (a quote followed by a combining mark is one Swift
    /// `Character`, but SQLite reads bytes); newlines are kept, as a literal may hold them.
    /// `raw` writes the text as is (still refused later if it makes more than one
    /// statement). nil is `NULL`; numbers as SQL numbers (a real as
    /// `DatabaseValue.realLiteral` writes it: an infinity `1e999`, NaN `NULL`); bools as 1/0; data as `X'…'`;
    /// dates as seconds since 1970. nil when a string holds a NUL character: SQLite would
    /// stop reading the SQL there, silently dropping the rest.
    package static func inline(_ value: DAOValue, raw: Bool) -> String? {
        func quoted(_ s: String) -> String? {
            if s.utf8.contains(0) { return nil }
            return raw ? s : Database.quoteLiteral(s)
        }
        switch value {
        case .nil: return "NULL"
        case .bool(let b): return b ? "1" : "0"
        case .integer(let i): return String(i)
        case .double(let d): return DatabaseValue.realLiteral(d)
        case .string(let s): return quoted(s)
        case .data(let d):
            let hex = d.map { String(format: "%02X", $0) }.joined()
            return raw ? hex : "X'" + hex + "'"
        case .date(let d): return d.timeIntervalSince1970.isFinite ? String(d.timeIntervalSince1970) : "NULL"
        case .array, .dictionary, .model: return quoted(value.jsonText)
        }
    }
}
