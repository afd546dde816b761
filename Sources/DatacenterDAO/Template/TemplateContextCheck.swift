/// Load-time check that every value a template writes stands where SQL expects one.
///
/// A `#{}` becomes a `?` parameter and `<format>` writes `key = ?` pairs: each is only
/// meaningful in plain SQL. Inside a string literal or a quoted identifier a `?` would be
/// text, not a parameter, so each of them there is a load error naming its location. A
/// `${T}` writes the table's name: inside quotes as text with the closing quote doubled
/// (`TableNameNode.quotedIn`, recorded here). A `@{}` in plain SQL inlines its value as a whole literal;
/// inside the template's quotes (`'…'`, `"…"`, `` `…` ``, `[…]`), as the references allow,
/// it writes the value's text with the closing quote doubled (`ReferenceNode.quotedText`),
/// and the check records which quotes it stands in (`ReferenceNode.quotedIn`). Inside a
/// comment any reference is a load error: a newline in a value would end a `--` comment
/// and let the value write SQL.
///
/// The template's text is lexed in order across node boundaries (`SQLLexer`). A dynamic
/// element (`<if>`, each `<when>`/`<otherwise>`, `<foreach>` with its `open`, `separator`
/// and `close`, `<where>`/`<set>`/`<trim>` with its prefix, `<format>`'s `prefix` and
/// `join`) starts in the state at its start and must end in that same state: whether it
/// renders or not, or how often, the text after it is then read the same way. A quote or
/// comment opened inside an element and closed outside it (or the reverse) is a load error
/// at the element.
///
/// A `--` comment inside an element that trims its text (`<where>`, `<set>`, `<trim>`,
/// `<foreach>`, and whatever they hold) is a load error too: trimming can remove the newline
/// that ends it, and the comment would then swallow the SQL after the element. `/* */`
/// comments are fine there.
enum TemplateContextCheck {
    /// Checks one statement's template (a method body, a step, a `try` or `except` part),
    /// which starts in plain SQL.
    /// - throws: `DAOConfigError` (`.valueInQuotedText`, `.unbalancedText`).
    static func check(_ node: any SQLNode) throws {
        var lexer = SQLLexer()
        try walk(node, &lexer)
    }

    private static func walk(_ node: any SQLNode, _ lexer: inout SQLLexer) throws {
        switch node {
        case let text as TextNode:
            lexer.scan(text.text)
        case let sequence as SequenceNode:
            for child in sequence.children { try walk(child, &lexer) }
        case let reference as ReferenceNode:
            let marker = reference.mode == .bind ? "#" : "@"
            if reference.mode == .inline, lexer.state.isQuoted {
                reference.quotedIn = lexer.state
            } else {
                try requirePlainSQL(lexer, what: marker + "{" + reference.path.joined(separator: ".") + "}", at: reference.location)
            }
            lexer.wroteValue()
        case let table as TableNameNode:
            // Inside quotes the name is written as text, its closing quote doubled.
            if lexer.state.isQuoted {
                table.quotedIn = lexer.state
            } else {
                try requirePlainSQL(lexer, what: "${T}", at: table.location)
            }
            lexer.wroteValue()
        case let format as FormatNode:
            try requirePlainSQL(lexer, what: "<format>", at: format.location)
            try requireNeutral(format.prefix, from: lexer, element: "format", part: "prefix", at: format.location)
            try requireNeutral(format.join, from: lexer, element: "format", part: "join", at: format.location)
            lexer.wroteValue()
        case let condition as IfNode:
            try requireBalanced(condition.body, from: &lexer, element: "if", at: condition.location)
        case let choose as ChooseNode:
            for branch in choose.branches {
                try requireBalanced(branch.body, from: &lexer, element: "when", at: branch.condition.location)
            }
            if let otherwise = choose.otherwise {
                try requireBalanced(otherwise, from: &lexer, element: "otherwise", at: otherwise.location)
            }
        case let loop as ForEachNode:
            // open, then the body once per element with the separator between, then close:
            // the body and the separator leave the state after `open` as they found it, and
            // open and close together leave the state as it was (nothing renders for none).
            var opened = lexer
            opened.scan(loop.open)
            try requireBalanced(loop.body, from: &opened, element: "foreach", at: loop.location, trimmed: true)
            try requireNeutral(loop.separator, from: opened, element: "foreach", part: "separator", at: loop.location)
            var closed = opened
            closed.scan(loop.close)
            if closed != lexer {
                throw DAOConfigError(.unbalancedText(element: "foreach", part: "open and close", state: closed.state.phrase), at: loop.location)
            }
            lexer = closed
        case let trim as TrimNode:
            try requireNeutral(trim.prefix, from: lexer, element: "trim", part: "prefix", at: trim.location)
            // `<where>` and `<set>` are trims with these prefixes (`TrimNode.makeWhere`, `makeSet`).
            let element = trim.prefix == "WHERE" ? "where" : trim.prefix == "SET" ? "set" : "trim"
            try requireBalanced(trim.body, from: &lexer, element: element, at: trim.location, trimmed: true)
        default:
            // A node kind this check does not know: nothing can be said about the text after
            // it, so it is refused rather than guessed (every kind the parser builds is above).
            throw DAOConfigError(.unbalancedText(element: "\(type(of: node))", part: "body", state: "an unknown state"), at: node.location)
        }
    }

    private static func requirePlainSQL(_ lexer: SQLLexer, what: String, at location: SourceLocation) throws {
        guard lexer.state != .normal else { return }
        throw DAOConfigError(.valueInQuotedText(what, context: lexer.state.phrase), at: location)
    }

    /// Walks `body` from `lexer`, which it must leave in the same state; `lexer` then counts
    /// the body's comments too (an enclosing trimmed element checks them).
    private static func requireBalanced(_ body: any SQLNode, from lexer: inout SQLLexer, element: String, at location: SourceLocation,
                                        trimmed: Bool = false) throws {
        var inner = lexer
        try walk(body, &inner)
        if trimmed, inner.lineComments > lexer.lineComments {
            throw DAOConfigError(.lineCommentInTrimmedText(element: element), at: location)
        }
        if inner != lexer {
            throw DAOConfigError(.unbalancedText(element: element, part: "body", state: phrase(inner, from: lexer)), at: location)
        }
        lexer = inner
    }

    private static func requireNeutral(_ text: String, from lexer: SQLLexer, element: String, part: String,
                                       at location: SourceLocation) throws {
        guard !text.isEmpty else { return }
        var inner = lexer
        inner.scan(text)
        if inner != lexer {
            throw DAOConfigError(.unbalancedText(element: element, part: part, state: phrase(inner, from: lexer)), at: location)
        }
    }

    /// What differs between the state an element ends in and the one it started in.
    private static func phrase(_ end: SQLLexer, from start: SQLLexer) -> String {
        if end.state != start.state { return end.state.phrase }
        return "the middle of a token (a lone - or / or *)"
    }
}
