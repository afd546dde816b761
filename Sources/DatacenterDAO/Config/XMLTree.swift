import CLibXML2
import DatacenterKit
import Foundation

/// A plain Swift copy of a parsed XML document: elements with ordered attributes, text and
/// source locations. libxml2 is used only to build it (`XMLTree.parse`); everything after
/// works on this value, so no libxml2 pointer outlives the parse.
struct XMLElementNode: Sendable {
    let name: String
    let attributes: [XMLAttribute]
    let children: [XMLContent]
    let location: SourceLocation

    /// The value of attribute `name`, or nil.
    func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
    /// The attribute itself (for its location), or nil.
    func attributeNode(_ name: String) -> XMLAttribute? { attributes.first { $0.name == name } }
    /// The child elements, in order.
    var elements: [XMLElementNode] { children.compactMap { if case .element(let e) = $0 { return e } else { return nil } } }
}

/// One attribute with where its name stands.
struct XMLAttribute: Sendable {
    let name: String
    let value: String
    let location: SourceLocation
}

/// Character data (text or CDATA) with where it starts.
struct XMLText: Sendable {
    let text: String
    /// Where the text starts; `column` is 1 when libxml2 does not say (see `SourceText`).
    let location: SourceLocation
}

/// A child of an element.
enum XMLContent: Sendable {
    case element(XMLElementNode)
    case text(XMLText)
}

/// The lines of a config file, used to find columns that libxml2 does not report.
struct SourceText: Sendable {
    let file: String
    let lines: [String]

    init(file: String, text: String) {
        self.file = file
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The column (1-based, in characters) of the `occurrence`-th match of `needle` on
    /// `line`, or 1 when it is not there.
    func column(of needle: String, line: Int, occurrence: Int = 0, after: Int = 0) -> Int {
        guard line >= 1, line <= lines.count, !needle.isEmpty else { return 1 }
        let text = lines[line - 1]
        var searchStart = text.index(text.startIndex, offsetBy: min(max(after, 0), text.count))
        var seen = 0
        let from = searchStart
        defer { WorkMeter.count(.searchedBytes, text.utf8.distance(from: from, to: searchStart)) }
        while let range = text.range(of: needle, range: searchStart..<text.endIndex) {
            if seen == occurrence {
                searchStart = range.upperBound
                return text.distance(from: text.startIndex, to: range.lowerBound) + 1
            }
            seen += 1
            searchStart = range.upperBound
        }
        searchStart = text.endIndex
        return 1
    }

    /// Where `needle` first appears in the file, or nil.
    func firstLocation(of needle: String) -> SourceLocation? {
        for (index, line) in lines.enumerated() {
            let range = line.range(of: needle)
            WorkMeter.count(.searchedBytes, line.utf8.distance(from: line.startIndex, to: range?.upperBound ?? line.endIndex))
            if let range {
                return SourceLocation(file: file, line: index + 1, column: line.distance(from: line.startIndex, to: range.lowerBound) + 1)
            }
        }
        return nil
    }

    /// Where on a line the last search ended: an index into the line and its 1-based column.
    /// Searching on from it, rather than from the line's start, keeps finding n elements or
    /// attributes on one line O(line length) instead of O(n × line length).
    struct LineCursor {
        let line: Int
        var index: String.Index
        var column: Int
    }

    /// A cursor at the start of `line`, or nil when there is no such line.
    func cursor(atLine line: Int) -> LineCursor? {
        guard line >= 1, line <= lines.count else { return nil }
        return LineCursor(line: line, index: lines[line - 1].startIndex, column: 1)
    }

    /// The column (1-based) of the next match of `needle` on the cursor's line at or after the
    /// cursor, moving the cursor past the match; nil (cursor unmoved) when there is none.
    func column(of needle: String, from cursor: inout LineCursor) -> Int? {
        guard !needle.isEmpty else { return nil }
        let text = lines[cursor.line - 1]
        let range = text.range(of: needle, range: cursor.index..<text.endIndex)
        WorkMeter.count(.searchedBytes, text.utf8.distance(from: cursor.index, to: range?.upperBound ?? text.endIndex))
        guard let range else { return nil }
        let column = cursor.column + text.distance(from: cursor.index, to: range.lowerBound)
        cursor.index = range.upperBound
        cursor.column = column + needle.count
        return column
    }

    /// The location of character `offset` of a text that starts at `start`: lines are
    /// counted exactly; on the text's first line the column is found by searching for
    /// `snippet` (1 when not found).
    func location(in text: String, offset: Int, start: SourceLocation, snippet: String) -> SourceLocation {
        let prefix = text.prefix(offset)
        WorkMeter.count(.searchedBytes, prefix.utf8.count)
        let newlines = prefix.filter { $0 == "\n" }.count
        let line = start.line + newlines
        if newlines > 0, let lastNewline = prefix.lastIndex(of: "\n") {
            let column = prefix.distance(from: lastNewline, to: prefix.endIndex)
            return SourceLocation(file: file, line: line, column: column)
        }
        return SourceLocation(file: file, line: line, column: column(of: snippet, line: line))
    }
}

enum XMLTree {
    /// Parses `data` (the contents of `file`) with libxml2, network access off.
    /// - throws: `DAOConfigError` (`.xmlSyntax`) with libxml2's message, line and column.
    static func parse(_ data: Data, file: String) throws -> (root: XMLElementNode, source: SourceText) {
        let source = SourceText(file: file, text: String(decoding: data, as: UTF8.self))
        try XMLStartTagLimits.check(data, file: file)
        xmlInitParser()
        guard let context = xmlNewParserCtxt() else {
            throw DAOConfigError(.xmlSyntax("libxml2 could not allocate a parser"), at: SourceLocation(file: file, line: 1))
        }
        defer { xmlFreeParserCtxt(context) }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let document: xmlDocPtr? = data.withUnsafeBytes { buffer in
            let base = buffer.baseAddress?.assumingMemoryBound(to: CChar.self)
            return xmlCtxtReadMemory(context, base, Int32(buffer.count), file, nil, options)
        }
        guard let document else {
            let error = context.pointee.lastError
            let message = error.message.map { String(cString: $0) }?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "not well-formed XML"
            var location = SourceLocation(file: file, line: max(1, Int(error.line)), column: max(1, Int(error.int2)))
            // A NUL byte ends libxml2's input early ("Premature end of data"): name it, where it is.
            if let nul = data.firstIndex(of: 0) {
                let before = data[data.startIndex..<nul]
                let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
                let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? data.startIndex
                location = SourceLocation(file: file, line: line, column: String(decoding: data[lineStart..<nul], as: UTF8.self).count + 1)
                throw DAOConfigError(.xmlSyntax("a NUL byte (\\0) in the file: a config is text; remove it"), at: location)
            }
            throw DAOConfigError(.xmlSyntax(XMLTree.inOurWords(message)), at: location)
        }
        defer { xmlFreeDoc(document) }
        try checkDocumentType(document, source: source)
        guard let rootNode = xmlDocGetRootElement(document) else {
            throw DAOConfigError(.xmlSyntax("the document has no root element"), at: SourceLocation(file: file, line: 1))
        }
        var cursors: [String: SourceText.LineCursor] = [:]
        let root = try convert(rootNode, document: document, source: source, cursors: &cursors)
        return (root, source)
    }

    /// libxml2's message in the config's terms: its limits are named as what they limit,
    /// not as the parser options that would lift them (which a config cannot set).
    static func inOurWords(_ message: String) -> String {
        if message.hasPrefix("Excessive depth in document") {
            let depth = message.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }.first
            return "elements nested more than \(depth.map(String.init) ?? "256") levels deep: the most a config may nest"
        }
        if message.contains("XML_PARSE_HUGE") || message.contains("Huge input lookup") {
            return "a text, name or attribute too long for the XML parser (its limit is 10,000,000 bytes in one piece)"
        }
        return message
    }

    /// Refuses a `<!DOCTYPE>` that declares entities (general or parameter, internal or
    /// external) or names an external DTD. Entities are never substituted (so nothing is
    /// fetched and nothing expands exponentially), which means a reference to one would
    /// silently vanish from the SQL: `where id = #{id} &guard;` would run without its guard.
    /// A plain `<!DOCTYPE module>` is harmless and allowed.
    private static func checkDocumentType(_ document: xmlDocPtr, source: SourceText) throws {
        for dtd in [document.pointee.intSubset, document.pointee.extSubset] {
            guard let dtd else { continue }
            if dtd.pointee.entities != nil || dtd.pointee.pentities != nil {
                throw DAOConfigError(.unsupportedXML("<!ENTITY> declarations are not supported: entities are never expanded, "
                                                     + "so their text would not reach the SQL; use <const> or <sql> fragments with ${name}"),
                                     at: source.firstLocation(of: "<!ENTITY") ?? source.firstLocation(of: "<!DOCTYPE")
                                        ?? SourceLocation(file: source.file, line: 1))
            }
            if dtd.pointee.ExternalID != nil || dtd.pointee.SystemID != nil {
                throw DAOConfigError(.unsupportedXML("a <!DOCTYPE> naming an external DTD is not supported: it is never read"),
                                     at: source.firstLocation(of: "<!DOCTYPE") ?? SourceLocation(file: source.file, line: 1))
            }
        }
    }

    private static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }

    /// Copies one element and its subtree. `cursors` holds, per line and element name, where
    /// the last `<name` on that line was found, so the n-th `<if` on a line gets the n-th
    /// column and a line of many elements is searched once, not once per element.
    ///
    /// Text and CDATA are kept as text; XML comments are dropped (they are for people). A
    /// reference to an entity or a processing instruction is an error: its text would
    /// otherwise be dropped without a word.
    private static func convert(_ node: xmlNodePtr, document: xmlDocPtr, source: SourceText,
                                cursors: inout [String: SourceText.LineCursor]) throws -> XMLElementNode {
        let name = string(node.pointee.name)
        let line = Int(xmlGetLineNo(node))
        let key = "\(line)<\(name)"
        var column = 1
        var attributeCursor: SourceText.LineCursor?
        if var cursor = cursors[key] ?? source.cursor(atLine: line) {
            if let found = source.column(of: "<" + name, from: &cursor) {
                column = found
                attributeCursor = cursor
            }
            cursors[key] = cursor
        }
        let location = SourceLocation(file: source.file, line: max(line, 1), column: column)

        var attributes: [XMLAttribute] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            let attributeName = string(current.pointee.name)
            var value = ""
            if let raw = xmlNodeListGetString(document, current.pointee.children, 1) {
                value = String(cString: raw)
                dc_xml_free(raw)
            }
            // Attributes come in source order: each is searched for after the previous one.
            var attributeColumn = column
            if var cursor = attributeCursor, let found = source.column(of: attributeName, from: &cursor) {
                attributeColumn = found
                attributeCursor = cursor
            }
            attributes.append(XMLAttribute(name: attributeName, value: value,
                                           location: SourceLocation(file: source.file, line: location.line, column: attributeColumn)))
            attribute = current.pointee.next
        }

        var children: [XMLContent] = []
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                children.append(.element(try convert(current, document: document, source: source, cursors: &cursors)))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                let text = string(current.pointee.content)
                // libxml2 numbers a text node by the line where the text ends.
                let endLine = Int(xmlGetLineNo(current))
                let textLine = max(1, endLine - text.reduce(0) { $1 == "\n" ? $0 + 1 : $0 })
                let merged = XMLText(text: text, location: SourceLocation(file: source.file, line: textLine))
                if case .text(let previous)? = children.last {
                    children[children.count - 1] = .text(XMLText(text: previous.text + text, location: previous.location))
                } else {
                    children.append(.text(merged))
                }
            case XML_COMMENT_NODE:
                break
            case XML_ENTITY_REF_NODE:
                let name = string(current.pointee.name)
                throw DAOConfigError(.unsupportedXML("entity reference &\(name.prefix(40)); is not supported: only &lt; &gt; &amp; "
                                                     + "&apos; &quot; and character references are"),
                                     at: source.firstLocation(of: "&\(name);") ?? location)
            case XML_PI_NODE:
                let name = string(current.pointee.name)
                throw DAOConfigError(.unsupportedXML("processing instruction <?\(name.prefix(40))…?> inside <\(node.pointee.name.map { String(cString: $0) } ?? "")>"
                                                     + " is not supported: its text would not reach the SQL"),
                                     at: source.firstLocation(of: "<?\(name)") ?? location)
            default:
                throw DAOConfigError(.unsupportedXML("unsupported XML content (node type \(current.pointee.type.rawValue)) inside <\(name)>"),
                                     at: location)
            }
            child = current.pointee.next
        }
        return XMLElementNode(name: name, attributes: attributes, children: children, location: location)
    }
}
