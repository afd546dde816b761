/// One lexical token of an expression, with its 1-based character position.
struct ExpressionToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case integer(Int64)
        case double(Double)
        case string(String)
        /// A name with its chained members: `model.read` is `["model", "read"]`.
        case path([String])
        case nilLiteral, trueLiteral, falseLiteral
        /// `( ) + - * / \ % > < >= <= == !=` and the word operators `and or xor not`
        /// (lowercased).
        case op(String)
        case end
    }
    let kind: Kind
    let position: Int
}

/// Splits an expression into tokens.
///
/// Word operators and the literals `nil`, `true`, `false` are matched in any case; strings are
/// single-quoted and `\'` is a quote inside them (no other escapes, as the reference says).
struct ExpressionTokenizer {
    let text: String

    func tokens() throws -> [ExpressionToken] {
        let chars = Array(text)
        var result: [ExpressionToken] = []
        var i = 0
        func fail(_ message: String, at index: Int) -> ExpressionError {
            ExpressionError(expression: text, position: index + 1, message: message)
        }
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace { i += 1; continue }
            let start = i
            if c.isNumber && c.isASCII {
                var j = i
                while j < chars.count, chars[j].isASCII, chars[j].isNumber { j += 1 }
                var isDouble = false
                if j + 1 < chars.count, chars[j] == ".", chars[j + 1].isASCII, chars[j + 1].isNumber {
                    isDouble = true
                    j += 1
                    while j < chars.count, chars[j].isASCII, chars[j].isNumber { j += 1 }
                }
                let literal = String(chars[i..<j])
                if isDouble {
                    guard let d = Double(literal) else { throw fail("bad number \(Excerpt.of(literal))", at: start) }
                    result.append(.init(kind: .double(d), position: start + 1))
                } else {
                    guard let n = Int64(literal) else { throw fail("integer \(Excerpt.of(literal)) is too large", at: start) }
                    result.append(.init(kind: .integer(n), position: start + 1))
                }
                i = j
                continue
            }
            if c == "'" {
                var j = i + 1
                var value = ""
                var closed = false
                while j < chars.count {
                    if chars[j] == "\\", j + 1 < chars.count, chars[j + 1] == "'" { value.append("'"); j += 2; continue }
                    if chars[j] == "'" { closed = true; j += 1; break }
                    value.append(chars[j]); j += 1
                }
                guard closed else { throw fail("unterminated string", at: start) }
                result.append(.init(kind: .string(value), position: start + 1))
                i = j
                continue
            }
            if c.isLetter || c == "_" || c == "$" {
                var parts: [String] = []
                var j = i
                while true {
                    let partStart = j
                    while j < chars.count, chars[j].isLetter || chars[j].isNumber || chars[j] == "_" || chars[j] == "$" { j += 1 }
                    guard j > partStart else { throw fail("expected a name after '.'", at: j) }
                    parts.append(String(chars[partStart..<j]))
                    if j < chars.count, chars[j] == "." { j += 1; continue }
                    break
                }
                i = j
                if parts.count == 1 {
                    switch parts[0].lowercased() {
                    case "and", "or", "xor", "not":
                        result.append(.init(kind: .op(parts[0].lowercased()), position: start + 1)); continue
                    case "nil": result.append(.init(kind: .nilLiteral, position: start + 1)); continue
                    case "true": result.append(.init(kind: .trueLiteral, position: start + 1)); continue
                    case "false": result.append(.init(kind: .falseLiteral, position: start + 1)); continue
                    default: break
                    }
                }
                result.append(.init(kind: .path(parts), position: start + 1))
                continue
            }
            let two = i + 1 < chars.count ? String(chars[i...i + 1]) : ""
            if [">=", "<=", "==", "!="].contains(two) {
                result.append(.init(kind: .op(two), position: start + 1))
                i += 2
                continue
            }
            if c == "!" && i + 2 < chars.count && chars[i + 1] == " " && chars[i + 2] == "=" {
                // "! =" appears in the reference; read it as !=.
                result.append(.init(kind: .op("!="), position: start + 1))
                i += 3
                continue
            }
            if "()+-*/\\%><".contains(c) {
                result.append(.init(kind: .op(String(c)), position: start + 1))
                i += 1
                continue
            }
            if c == "=" { throw fail("'=' is not an operator; use '=='", at: start) }
            throw fail("unexpected character '\(Excerpt.escaped(c))'", at: start)
        }
        result.append(.init(kind: .end, position: chars.count + 1))
        return result
    }
}
