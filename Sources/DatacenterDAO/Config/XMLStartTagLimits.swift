import DatacenterKit
import Foundation

extension WorkMeter.Counter {
    /// Bytes the start-tag check reads before libxml2 parses a config.
    static let startTagBytes = WorkMeter.Counter("startTagBytes")
}

/// The bounds on start tags (`DAOLimits.attributesPerElement`, `DAOLimits.attributeLength`),
/// checked on the raw bytes before libxml2 parses them: libxml2 2.9 compares each attribute
/// of an element with every one before it (40,000 attributes took seconds, 80,000 ten), and
/// reports an over-long attribute as "Extra content at the end of the document". One linear
/// pass finds the first element over a bound and names it in our words.
///
/// The pass reads only what it needs: tags, their attributes and quoted values, comments,
/// CDATA sections, processing instructions and `<!DOCTYPE>`. At anything it does not
/// understand it stops and leaves the file to libxml2, which reports malformed XML as before.
enum XMLStartTagLimits {
    /// Throws the first bound a start tag of `data` (the contents of `file`) exceeds.
    static func check(_ data: Data, file: String) throws {
        let bytes = [UInt8](data)
        var scanner = Scanner(bytes: bytes)
        defer { WorkMeter.count(.startTagBytes, scanner.index) }
        while let tag = scanner.nextStartTag() {
            var count = 0
            while let value = scanner.nextAttribute() {
                count += 1
                if count > DAOLimits.attributesPerElement {
                    throw DAOConfigError(.tooManyAttributes(element: tag.name, limit: DAOLimits.attributesPerElement),
                                         at: location(of: tag.start, in: bytes, file: file))
                }
                if value.length > DAOLimits.attributeLength {
                    throw DAOConfigError(.attributeTooLong(value.name, element: tag.name, limit: DAOLimits.attributeLength),
                                         at: location(of: value.start, in: bytes, file: file))
                }
            }
            guard scanner.endOfTag() else { return }
        }
    }

    /// The line and column (in characters) of byte `offset`.
    private static func location(of offset: Int, in bytes: [UInt8], file: String) -> SourceLocation {
        let before = bytes[..<offset]
        let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1
        return SourceLocation(file: file, line: line, column: column)
    }

    /// A cursor over the bytes that knows just enough XML to find start tags.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// Skips to the next start tag, past its name; nil at the end (or at what it cannot read).
        mutating func nextStartTag() -> (name: String, start: Int)? {
            while let open = find(UInt8(ascii: "<")) {
                index = open + 1
                if starts(with: "!--") { guard skip(past: "-->") else { return nil }; continue }
                if starts(with: "![CDATA[") { guard skip(past: "]]>") else { return nil }; continue }
                if starts(with: "?") { guard skip(past: "?>") else { return nil }; continue }
                if starts(with: "!") { guard skipDeclaration() else { return nil }; continue }
                if starts(with: "/") { guard skip(past: ">") else { return nil }; continue }
                let nameStart = index
                while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/") {
                    index += 1
                }
                guard index > nameStart else { return nil }
                let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
                return (name, open)
            }
            return nil
        }

        /// Reads the next `name = "value"` of the tag; nil at its end (`>` or `/>`) or at
        /// what it cannot read.
        mutating func nextAttribute() -> (name: String, start: Int, length: Int)? {
            skipSpace()
            guard index < bytes.count, bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/") else { return nil }
            let nameStart = index
            while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ">") {
                index += 1
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { return nil }
            let quote = bytes[index]
            guard let close = find(quote, from: index + 1) else { return nil }
            let length = close - index - 1
            index = close + 1
            return (name, nameStart, length)
        }

        /// True when the tag ends here (`>` or `/>`), moving past it.
        mutating func endOfTag() -> Bool {
            skipSpace()
            if starts(with: "/>") { index += 2; return true }
            if starts(with: ">") { index += 1; return true }
            return false
        }

        /// Skips `<!DOCTYPE …>` (with an internal subset in brackets, quoted strings in it).
        private mutating func skipDeclaration() -> Bool {
            var depth = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    guard let close = find(byte, from: index) else { return false }
                    index = close + 1
                case UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: ">") where depth <= 0: return true
                default: break
                }
            }
            return false
        }

        private func find(_ byte: UInt8, from start: Int? = nil) -> Int? {
            var at = start ?? index
            while at < bytes.count {
                if bytes[at] == byte { return at }
                at += 1
            }
            return nil
        }

        private func starts(with text: String) -> Bool {
            let pattern = text.utf8
            guard index + pattern.count <= bytes.count else { return false }
            return zip(bytes[index...], pattern).allSatisfy { $0 == $1 }
        }

        private mutating func skip(past text: String) -> Bool {
            let count = text.utf8.count
            while index + count <= bytes.count {
                if starts(with: text) { index += count; return true }
                index += 1
            }
            return false
        }

        private mutating func skipSpace() { while index < bytes.count, isSpace(bytes[index]) { index += 1 } }

        private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    }
}
