import Foundation

/// Reads JSON text (RFC 8259, strict) straight into `DAOValue`s: the one JSON reader behind
/// typed DAO arguments (`DAOArgumentParser`, `dao call --args`) and `DAOValue(parsingJSON:)`.
///
/// Why not `JSONSerialization`: it builds a Foundation object tree first, whose dictionaries
/// are allocated far larger than their entries, and converting it makes a second tree. A
/// 200,000-element `--args` array of small objects peaked at 690 MB that way; read here, each
/// value is built once, at its final size. It also says where the text is wrong (line and
/// column) without quoting it: typed values may be secrets.
///
/// Numbers written as integers (no fraction, no exponent) that fit in 64 bits are
/// `.integer`; any other number is `.double`. A key given twice keeps its last value.
/// Nesting deeper than `maximumDepth` is refused, so no input can exhaust the stack.
struct DAOJSONReader {
    /// How deep arrays and objects may nest.
    static let maximumDepth = 512

    /// Why the text is not JSON, and where.
    struct SyntaxError: Error, CustomStringConvertible {
        let line: Int
        let column: Int
        let problem: String
        var description: String { "line \(line), column \(column): \(problem)" }
    }

    /// What the reader builds for an object, given its fields and where it is (for errors):
    /// `DAOArgumentParser` turns marker objects into what they stand for here.
    typealias ObjectBuilder = (_ fields: [String: DAOValue], _ path: () -> String) throws(DAOArgumentError) -> DAOValue

    /// The value of `text`, which must hold one JSON value and nothing else but whitespace.
    /// - throws: `SyntaxError`; what `object` throws.
    static func value(of text: String, object: ObjectBuilder? = nil) throws -> DAOValue {
        var text = text
        return try text.withUTF8 { bytes in
            var reader = Parser(bytes: bytes, object: object)
            return try reader.document()
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        let object: ObjectBuilder?
        var offset = 0
        /// Where the value being read sits: keys and indices, for marker errors.
        var path: [PathComponent] = []

        enum PathComponent {
            case index(Int)
            case key(String)
        }

        init(bytes: UnsafeBufferPointer<UInt8>, object: ObjectBuilder?) {
            self.bytes = bytes
            self.object = object
        }

        mutating func document() throws -> DAOValue {
            skipWhitespace()
            guard offset < bytes.count else { throw error("no JSON value") }
            let value = try readValue()
            skipWhitespace()
            guard offset == bytes.count else { throw error("unexpected text after the JSON value") }
            return value
        }

        private mutating func readValue() throws -> DAOValue {
            guard offset < bytes.count else { throw error("the text ends where a value is expected") }
            switch bytes[offset] {
            case UInt8(ascii: "{"): return try readObject()
            case UInt8(ascii: "["): return try readArray()
            case UInt8(ascii: "\""): return .string(try readString())
            case UInt8(ascii: "t"): try readLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try readLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try readLiteral("null"); return .nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
            default: throw error("unexpected character where a value is expected")
            }
        }

        private mutating func readArray() throws -> DAOValue {
            try enter()
            offset += 1
            var elements: [DAOValue] = []
            skipWhitespace()
            if !peek(UInt8(ascii: "]")) {
                while true {
                    skipWhitespace()
                    path[path.count - 1] = .index(elements.count)
                    elements.append(try readValue())
                    skipWhitespace()
                    if peek(UInt8(ascii: ",")) { offset += 1; continue }
                    if peek(UInt8(ascii: "]")) { break }
                    throw error(offset < bytes.count ? "expected ',' or ']' after an array element" : "an array is not closed (a ] is missing)")
                }
            }
            offset += 1
            path.removeLast()
            return .array(elements)
        }

        private mutating func readObject() throws -> DAOValue {
            try enter()
            offset += 1
            var fields: [String: DAOValue] = [:]
            skipWhitespace()
            if !peek(UInt8(ascii: "}")) {
                while true {
                    skipWhitespace()
                    guard peek(UInt8(ascii: "\"")) else {
                        throw error(offset < bytes.count ? "expected a key in double quotes" : "an object is not closed (a } is missing)")
                    }
                    let key = try readString()
                    skipWhitespace()
                    guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after a key") }
                    offset += 1
                    skipWhitespace()
                    path[path.count - 1] = .key(key)
                    fields[key] = try readValue()
                    skipWhitespace()
                    if peek(UInt8(ascii: ",")) { offset += 1; continue }
                    if peek(UInt8(ascii: "}")) { break }
                    throw error(offset < bytes.count ? "expected ',' or '}' after a value" : "an object is not closed (a } is missing)")
                }
            }
            offset += 1
            path.removeLast()
            guard let object else { return .dictionary(fields) }
            // Where this object is: its place in the array or object around it.
            let here = path
            return try object(fields) { Parser.describe(here) }
        }

        /// Opens an array or object one level deeper.
        private mutating func enter() throws {
            guard path.count < DAOJSONReader.maximumDepth else {
                throw error("arrays and objects nest deeper than \(DAOJSONReader.maximumDepth) levels")
            }
            path.append(.index(0))
        }

        private mutating func readString() throws -> String {
            offset += 1
            let start = offset
            // Most strings have no escape: their bytes are the string.
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    defer { offset += 1 }
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw error("a control character inside a string (write it as an escape, such as \\n)") }
                offset += 1
            }
            // A string with escapes: its bytes, the escapes replaced by what they stand for.
            var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<offset]))
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    offset += 1
                    return String(decoding: utf8, as: UTF8.self)
                }
                if byte < 0x20 { throw error("a control character inside a string (write it as an escape, such as \\n)") }
                guard byte == UInt8(ascii: "\\") else { utf8.append(byte); offset += 1; continue }
                offset += 1
                guard offset < bytes.count else { break }
                let escaped = bytes[offset]
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8.append(contentsOf: String(Character(try readUnicodeEscape())).utf8)
                default:
                    offset -= 2
                    throw error("an unknown escape in a string (known: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
                }
            }
            throw error("a string is not closed (a \" is missing)")
        }

        /// The character of `\uXXXX` (its `\u` read), a surrogate pair read whole.
        private mutating func readUnicodeEscape() throws -> Unicode.Scalar {
            let first = try readHex4()
            if (0xD800..<0xDC00).contains(first) {
                guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                    throw error("a \\u escape of a lone surrogate (a high surrogate needs a low one after it)")
                }
                offset += 2
                let second = try readHex4()
                guard (0xDC00..<0xE000).contains(second) else {
                    throw error("a \\u escape of a lone surrogate (a high surrogate needs a low one after it)")
                }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("a \\u escape of a lone low surrogate") }
            return scalar
        }

        private mutating func readHex4() throws -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard offset < bytes.count, let digit = Parser.hexDigit(bytes[offset]) else {
                    throw error("a \\u escape needs four hexadecimal digits")
                }
                value = value << 4 | digit
                offset += 1
            }
            return value
        }

        private static func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }

        private mutating func readNumber() throws -> DAOValue {
            let start = offset
            var isInteger = true
            if peek(UInt8(ascii: "-")) { offset += 1 }
            if peek(UInt8(ascii: "0")) {
                offset += 1
                if digitsAhead() > 0 { throw error("a number with a leading zero") }
            } else {
                try digits(after: "a '-'")
            }
            if peek(UInt8(ascii: ".")) {
                offset += 1
                isInteger = false
                try digits(after: "a decimal point")
            }
            if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
                offset += 1
                isInteger = false
                if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { offset += 1 }
                try digits(after: "an exponent")
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return .integer(integer) }
            guard let double = Double(text), double.isFinite else {
                offset = start
                throw error("a number too large for a double")
            }
            return .double(double)
        }

        /// Reads at least one digit (else an error naming what they follow); how many.
        @discardableResult
        private mutating func digits(after what: String) throws -> Int {
            let count = digitsAhead()
            guard count > 0 else { throw error("digits must follow \(what)") }
            offset += count
            return count
        }

        private func digitsAhead() -> Int {
            var end = offset
            while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
            return end - offset
        }

        private mutating func readLiteral(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
            guard offset + count <= bytes.count, bytes[offset..<offset + count].elementsEqual(expected) else {
                throw error("an unknown word (strings need double quotes; the words are true, false and null)")
            }
            offset += count
        }

        private func peek(_ byte: UInt8) -> Bool { offset < bytes.count && bytes[offset] == byte }

        private mutating func skipWhitespace() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x09, 0x0A, 0x0D: offset += 1
                default: return
                }
            }
        }

        /// An error at the current offset: its line and column (in characters), counted now.
        private func error(_ problem: String) -> SyntaxError {
            var line = 1, column = 1
            for byte in bytes[..<min(offset, bytes.count)] {
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return SyntaxError(line: line, column: column, problem: problem)
        }

        /// A path as errors name it: `[0].m.time`.
        static func describe(_ path: [PathComponent]) -> String {
            var text = ""
            for component in path {
                switch component {
                case .index(let index): text += "[\(index)]"
                case .key(let key): text += text.isEmpty ? key : "." + key
                }
            }
            return text
        }
    }
}
