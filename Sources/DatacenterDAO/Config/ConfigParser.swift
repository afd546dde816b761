import DatacenterKit
import Foundation

/// Turns a config file into a `DAOConfig`: libxml2 reads the XML (`XMLTree`), then one pass
/// checks every element and attribute, splices `${}` consts and fragments, expands `%{}`,
/// compiles expressions and builds the node tree. Every error names `file:line:column`.
struct ConfigParser {
    let source: SourceText
    var file: String { source.file }
    /// Where references were last found on each source line (see `ReferenceLocator`).
    private let lineCursors: SourceLineCursors
    /// Const and fragment texts with every `${name}` but `${T}` spliced in.
    private(set) var definitions: [String: String] = [:]

    static let rootElements = ["const", "sql", "map", "crypt", "upgrade", "select", "insert", "update", "delete"]
    static let contentElements = ["if", "choose", "foreach", "where", "set", "trim", "format"]

    static func parse(_ data: Data, file: String) throws -> DAOConfig {
        let (root, source) = try XMLTree.parse(data, file: file)
        var parser = ConfigParser(source: source, lineCursors: SourceLineCursors(source: source))
        return try parser.build(root)
    }

    // MARK: Module

    private mutating func build(_ root: XMLElementNode) throws -> DAOConfig {
        guard root.name == "module" else { throw DAOConfigError(.notAModule(found: root.name), at: root.location) }
        let module = try moduleInfo(root)

        var rawConsts: [String: (String, SourceLocation)] = [:]
        var rawFragments: [String: (String, SourceLocation)] = [:]
        var firstDefinition: [String: SourceLocation] = [:]
        for child in root.children {
            switch child {
            case .text(let t):
                guard t.text.allSatisfy(\.isWhitespace) else {
                    throw DAOConfigError(.misplacedElement("text", context: "directly inside <module>"), at: locate(t))
                }
            case .element(let e):
                guard Self.rootElements.contains(e.name) else {
                    let context = ["when", "otherwise", "step", "try", "except", "result"] + Self.contentElements
                    if context.contains(e.name) {
                        throw DAOConfigError(.misplacedElement(e.name, context: "directly inside <module>"), at: e.location)
                    }
                    throw DAOConfigError(.unknownElement(e.name, suggestion: DidYouMean.suggest(e.name, among: Self.rootElements + ["module"])),
                                         at: e.location)
                }
                if e.name == "const" {
                    for attribute in e.attributes {
                        try checkDefinitionName(attribute.name, at: attribute.location)
                        if let first = firstDefinition[attribute.name] {
                            throw DAOConfigError(.duplicateDefinition(attribute.name, kind: "const or sql", first: first), at: attribute.location)
                        }
                        firstDefinition[attribute.name] = attribute.location
                        rawConsts[attribute.name] = (attribute.value, attribute.location)
                    }
                    try checkNoChildren(e)
                } else if e.name == "sql" {
                    try checkAttributes(e, allowed: ["id"])
                    let id = try require(e, "id")
                    try checkDefinitionName(id, at: e.attributeNode("id")?.location ?? e.location)
                    if let first = firstDefinition[id] {
                        throw DAOConfigError(.duplicateDefinition(id, kind: "const or sql", first: first), at: e.location)
                    }
                    firstDefinition[id] = e.location
                    var text = ""
                    var start = e.location
                    for part in e.children {
                        switch part {
                        case .text(let t):
                            if text.isEmpty { start = t.location }
                            text += t.text
                        case .element(let inner):
                            throw DAOConfigError(.misplacedElement(inner.name, context: "inside <sql>: a fragment holds text only"), at: inner.location)
                        }
                    }
                    rawFragments[id] = (text, start)
                }
            }
        }
        try resolveDefinitions(consts: rawConsts, fragments: rawFragments)

        var maps: [String: DAOMap] = [:]
        var crypts = Set<DAOCryptRule>()
        var upgrades: [DAOUpgrade] = []
        var methods: [DAOMethod] = []
        var firstMethod: [DAOMethodKey: SourceLocation] = [:]
        for element in root.elements {
            switch element.name {
            case "map":
                let map = try parseMap(element)
                if let first = maps[map.id] {
                    throw DAOConfigError(.duplicateDefinition(map.id, kind: "map", first: first.location), at: element.location)
                }
                maps[map.id] = map
            case "crypt":
                try checkAttributes(element, allowed: ["class", "property"])
                crypts.insert(DAOCryptRule(className: try require(element, "class"), property: try require(element, "property")))
                try checkNoChildren(element)
            case "upgrade":
                try checkAttributes(element, allowed: ["toVersion"])
                let text = try require(element, "toVersion")
                guard let version = DAOVersion(text) else {
                    throw DAOConfigError(.invalidAttribute("toVersion", element: "upgrade", value: text, expected: "a version such as 1.2"),
                                         at: element.attributeNode("toVersion")?.location ?? element.location)
                }
                if let first = upgrades.first(where: { $0.toVersion == version }) {
                    throw DAOConfigError(.duplicateDefinition(text, kind: "upgrade toVersion", first: first.location), at: element.location)
                }
                upgrades.append(DAOUpgrade(toVersion: version, body: try parseBody(element.children, names: [], in: element),
                                           location: element.location))
            case "select", "insert", "update", "delete":
                let method = try parseMethod(element)
                let key = DAOMethodKey(id: method.id, arity: method.arity)
                if let first = firstMethod[key] {
                    throw DAOConfigError(.duplicateMethod(method.id, arity: method.arity, first: first), at: method.location)
                }
                firstMethod[key] = method.location
                methods.append(method)
            default:
                break
            }
        }
        for method in methods {
            if case .map(let id) = method.result?.element, maps[id] == nil {
                throw DAOConfigError(.unknownMap(id, suggestion: DidYouMean.suggest(id, among: maps.keys)), at: method.location)
            }
        }
        if let initializer = module.initializer, firstMethod[DAOMethodKey(id: initializer, arity: 0)] == nil {
            throw DAOConfigError(.unknownInitializer(initializer, suggestion: DidYouMean.suggest(initializer, among: methods.map(\.id))),
                                 at: root.attributeNode("initializer")?.location ?? root.location)
        }
        return DAOConfig(path: file, module: module, consts: rawConsts.mapValues(\.0), fragments: rawFragments.mapValues(\.0),
                         maps: maps, cryptRules: crypts, upgrades: upgrades.sorted { $0.toVersion < $1.toVersion },
                         methods: methods)
    }

    private func moduleInfo(_ root: XMLElementNode) throws -> DAOModuleInfo {
        func version(_ name: String) throws -> DAOVersion? {
            guard let text = root.attribute(name), !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            guard let v = DAOVersion(text) else {
                throw DAOConfigError(.invalidAttribute(name, element: "module", value: text, expected: "a version such as 1.2"),
                                     at: root.attributeNode(name)?.location ?? root.location)
            }
            return v
        }
        let initializer = root.attribute("initializer")?.trimmingCharacters(in: .whitespaces)
        return DAOModuleInfo(name: root.attribute("name") ?? "",
                             initializer: initializer?.isEmpty == false ? initializer : nil,
                             tableName: root.attribute("tableName")?.trimmingCharacters(in: .whitespaces) ?? "",
                             version: try version("version"),
                             resetOnUpgrade: try boolAttribute(root, "resetOnUpgrade") ?? false,
                             upgradeMinVersion: try version("upgradeMinVersion"))
    }

    private func checkDefinitionName(_ name: String, at location: SourceLocation) throws {
        if name == "T" || name == "t" {
            throw DAOConfigError(.invalidAttribute(name, element: "const", value: name, expected: "a name other than T or t (reserved for the table)"),
                                 at: location)
        }
    }

    // MARK: Consts and fragments

    /// Splices every `${name}` inside consts and fragments, detecting cycles.
    ///
    /// Each definition is expanded once and memoized with its depth (0 without references,
    /// else one more than its deepest reference), so a chain of n consts costs O(n) splices.
    /// A definition deeper than `DAOLimits.spliceDepth`, or one whose expansion is larger than
    /// `DAOLimits.splicedSize` bytes, is an error located at that definition.
    private mutating func resolveDefinitions(consts: [String: (String, SourceLocation)],
                                             fragments: [String: (String, SourceLocation)]) throws {
        var raw: [String: (String, SourceLocation)] = consts
        for (k, v) in fragments { raw[k] = v }
        var done: [String: (text: String, depth: Int)] = [:]
        var stack: [String] = [] // the definitions being expanded, outermost first
        var onStack: Set<String> = []
        let limit = DAOLimits.spliceDepth
        func resolve(_ name: String) throws -> (text: String, depth: Int) {
            if let resolved = done[name] { return resolved }
            guard let (text, location) = raw[name] else { return ("", 0) }
            // Past the limit the outermost definition is already too deep: stop before the
            // recursion (one level per definition) goes any deeper.
            if stack.count > limit, let outermost = stack.first, let (_, at) = raw[outermost] {
                throw DAOConfigError(.spliceTooDeep(outermost, limit: limit), at: at)
            }
            stack.append(name)
            onStack.insert(name)
            defer {
                stack.removeLast()
                onStack.remove(name)
            }
            var depth = 0
            let spliced = try splice(text, start: location, names: [], owner: name) { inner, at in
                guard raw[inner] != nil else { return nil }
                if onStack.contains(inner), let index = stack.firstIndex(of: inner) {
                    throw DAOConfigError(.referenceCycle(Array(stack[index...]) + [inner]), at: at())
                }
                let resolved = try resolve(inner)
                depth = max(depth, resolved.depth + 1)
                return resolved.text
            }
            guard depth <= limit else { throw DAOConfigError(.spliceTooDeep(name, limit: limit), at: location) }
            done[name] = (spliced, depth)
            return (spliced, depth)
        }
        for name in raw.keys.sorted() { _ = try resolve(name) }
        definitions = done.mapValues(\.text)
    }

    /// Replaces `${name}` in `text`; `${T}`/`${t}` stay (normalised to `${T}`).
    /// `lookup` returns the replacement or nil for an unknown name; it gets the reference's
    /// location as a function, computed only for an error (it searches the line).
    /// `owner` names the const or fragment being expanded (empty for a statement text): a
    /// result over `DAOLimits.splicedSize` bytes is an error naming it, at `start`.
    private func splice(_ text: String, start: SourceLocation, names: Set<String>, owner: String,
                        lookup: (String, () -> SourceLocation) throws -> String?) throws -> String {
        guard text.contains("${") else { return text }
        var result = ""
        var rest = Substring(text)
        func append(_ piece: some StringProtocol) throws {
            guard result.utf8.count + piece.utf8.count <= DAOLimits.splicedSize else {
                throw DAOConfigError(.splicedTooLarge(owner, limit: DAOLimits.splicedSize), at: start)
            }
            result += piece
            WorkMeter.count(.splicedBytes, piece.utf8.count)
        }
        while let open = rest.range(of: "${") {
            try append(rest[..<open.lowerBound])
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                let offset = text.distance(from: text.startIndex, to: open.lowerBound)
                throw DAOConfigError(.badReference("${", reason: "no closing }"),
                                     at: source.location(in: text, offset: offset, start: start, snippet: "${"))
            }
            let name = rest[open.upperBound..<close].trimmingCharacters(in: .whitespaces)
            let at = { [source] in
                source.location(in: text, offset: text.distance(from: text.startIndex, to: open.lowerBound), start: start,
                                snippet: String(rest[open.lowerBound...close]))
            }
            if name == "T" || name == "t" {
                try append("${T}")
            } else if let replacement = try lookup(name, at) {
                try append(replacement)
            } else {
                // Arguments are among the candidates: `${name}` reads one (`compileText`).
                let suggestion = DidYouMean.suggest(name, among: Array(definitions.keys) + ["T"] + names.sorted()).map { "${\($0)}" }
                throw DAOConfigError(.unknownName(name, suggestion: suggestion), at: at())
            }
            rest = rest[rest.index(after: close)...]
        }
        try append(rest)
        return result
    }

    // MARK: Maps

    private func parseMap(_ element: XMLElementNode) throws -> DAOMap {
        try checkAttributes(element, allowed: ["id", "result"])
        let id = try require(element, "id")
        let className = try require(element, "result")
        var columns: [String: String] = [:]
        for child in element.children {
            switch child {
            case .text(let t):
                guard t.text.allSatisfy(\.isWhitespace) else {
                    throw DAOConfigError(.misplacedElement("text", context: "inside <map>"), at: locate(t))
                }
            case .element(let e):
                guard e.name == "result" else {
                    throw DAOConfigError(.unknownElement(e.name, suggestion: "result"), at: e.location)
                }
                try checkAttributes(e, allowed: ["property", "column"])
                columns[try require(e, "property")] = try require(e, "column")
            }
        }
        return DAOMap(id: id, className: className, columnsByProperty: columns, location: element.location)
    }

    // MARK: Methods

    private func parseMethod(_ element: XMLElementNode) throws -> DAOMethod {
        let kind = DAOMethodKind(rawValue: element.name) ?? .update
        try checkAttributes(element, allowed: kind == .select ? ["id", "arguments", "result", "foreach", "parallel"]
                                                              : ["id", "arguments", "foreach", "result"])
        let id = try require(element, "id")
        var arguments: [DAOArgumentSpec] = []
        if let list = element.attribute("arguments") {
            let at = element.attributeNode("arguments")?.location ?? element.location
            for piece in list.split(separator: ",") {
                var name = piece.trimmingCharacters(in: .whitespaces)
                var required = false
                if name.hasPrefix("$") {
                    required = true
                    name = String(name.dropFirst()).trimmingCharacters(in: .whitespaces)
                }
                guard Self.isIdentifier(name) else {
                    throw DAOConfigError(.invalidAttribute("arguments", element: element.name, value: list,
                                                           expected: "comma-separated names, each optionally starting with $"), at: at)
                }
                if arguments.contains(where: { $0.name == name }) {
                    throw DAOConfigError(.duplicateName(name, reason: "two arguments of method '\(Excerpt.of(id))' have it"), at: at)
                }
                arguments.append(DAOArgumentSpec(name: name, isRequired: required))
            }
        }
        var result: DAOResultType?
        if let text = element.attribute("result") {
            let at = element.attributeNode("result")?.location ?? element.location
            guard kind == .select else {
                throw DAOConfigError(.invalidAttribute("result", element: element.name, value: text,
                                                       expected: "no result: only <select> returns rows"), at: at)
            }
            guard let parsed = DAOResultType(text) else {
                throw DAOConfigError(.invalidAttribute("result", element: element.name, value: text,
                                                       expected: "int, long long, bool, double, string, binary, {}, AType or :AMap, optionally in [ ]"),
                                     at: at)
            }
            result = parsed
        }
        var forEach: DAOForEachSpec?
        var names = Set(arguments.map(\.name))
        if let text = element.attribute("foreach") {
            let at = element.attributeNode("foreach")?.location ?? element.location
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, Self.isIdentifier(parts[0]), Self.isIdentifier(parts[1]) else {
                throw DAOConfigError(.invalidAttribute("foreach", element: element.name, value: text, expected: "collection.item"), at: at)
            }
            guard names.contains(parts[0]) else {
                throw DAOConfigError(.invalidAttribute("foreach", element: element.name, value: text,
                                                       expected: "a collection that is one of the arguments (\(arguments.map(\.name).joined(separator: ", ")))"),
                                     at: at)
            }
            guard !names.contains(parts[1]) else {
                throw DAOConfigError(.duplicateName(parts[1], reason: "the foreach item may not repeat an argument name"), at: at)
            }
            forEach = DAOForEachSpec(collection: parts[0], item: parts[1])
            names.insert(parts[1])
        }
        let parallel = try boolAttribute(element, "parallel") ?? false
        let body = try parseBody(element.children, names: names, in: element)
        return DAOMethod(kind: kind, id: id, arguments: arguments, result: result, forEach: forEach, isParallel: parallel,
                         body: body, location: element.location)
    }

    /// A method or upgrade body: steps, try/except, or SQL content.
    private func parseBody(_ children: [XMLContent], names: Set<String>, in parent: XMLElementNode) throws -> DAOMethodBody {
        let elements = children.compactMap { if case .element(let e) = $0 { return e } else { return nil } }
        if let tryElement = elements.first(where: { $0.name == "try" }) {
            for child in children {
                switch child {
                case .element(let e) where e.name != "try" || e.location != tryElement.location:
                    throw DAOConfigError(.badTry("<try> must be the only content of <\(parent.name)>"), at: e.location)
                case .text(let t) where !t.text.allSatisfy(\.isWhitespace):
                    throw DAOConfigError(.badTry("<try> must be the only content of <\(parent.name)>"), at: locate(t))
                default: break
                }
            }
            try checkAttributes(tryElement, allowed: [])
            guard let exceptIndex = tryElement.children.firstIndex(where: { if case .element(let e) = $0 { return e.name == "except" } else { return false } }),
                  case .element(let exceptElement) = tryElement.children[exceptIndex] else {
                throw DAOConfigError(.badTry("missing <except>"), at: tryElement.location)
            }
            for child in tryElement.children[(exceptIndex + 1)...] {
                switch child {
                case .element(let e): throw DAOConfigError(.badTry("<except> must come last in <try>"), at: e.location)
                case .text(let t) where !t.text.allSatisfy(\.isWhitespace):
                    throw DAOConfigError(.badTry("text after <except>"), at: locate(t))
                default: break
                }
            }
            try checkAttributes(exceptElement, allowed: [])
            let attempt = try parseBody(Array(tryElement.children[..<exceptIndex]), names: names, in: tryElement)
            let fallback = try parseBody(exceptElement.children, names: names, in: exceptElement)
            return .tryExcept(attempt: attempt, fallback: fallback)
        }
        if elements.contains(where: { $0.name == "step" }) {
            var steps: [DAOStep] = []
            for child in children {
                switch child {
                case .text(let t):
                    guard t.text.allSatisfy(\.isWhitespace) else { throw DAOConfigError(.stepMixedWithText, at: locate(t)) }
                case .element(let e):
                    guard e.name == "step" else { throw DAOConfigError(.stepMixedWithText, at: e.location) }
                    try checkAttributes(e, allowed: ["resumable"])
                    let resumable = try boolAttribute(e, "resumable") ?? false
                    let body = try parseContent(e.children, names: names, in: e, inStep: true)
                    try TemplateContextCheck.check(body)
                    steps.append(DAOStep(resumable: resumable, body: body, location: e.location))
                }
            }
            return .steps(steps)
        }
        let body = try parseContent(children, names: names, in: parent, inStep: false)
        try TemplateContextCheck.check(body)
        return .sql(body)
    }

    /// SQL content: text with references, and the dynamic elements.
    private func parseContent(_ children: [XMLContent], names: Set<String>, in parent: XMLElementNode,
                              inStep: Bool) throws -> any SQLNode {
        var nodes: [any SQLNode] = []
        for child in children {
            switch child {
            case .text(let t):
                nodes += try compileText(t, names: names)
            case .element(let e):
                nodes.append(try parseElement(e, names: names, inStep: inStep))
            }
        }
        if nodes.count == 1, let only = nodes.first { return only }
        return SequenceNode(nodes, location: parent.location)
    }

    private func parseElement(_ e: XMLElementNode, names: Set<String>, inStep: Bool) throws -> any SQLNode {
        func body(_ extraNames: Set<String> = []) throws -> any SQLNode {
            try parseContent(e.children, names: names.union(extraNames), in: e, inStep: inStep)
        }
        switch e.name {
        case "if":
            try checkAttributes(e, allowed: ["true", "false"])
            return IfNode(condition: try condition(e), body: try body(), location: e.location)
        case "choose":
            try checkAttributes(e, allowed: [])
            var branches: [(condition: DAOCondition, body: any SQLNode)] = []
            var otherwise: (any SQLNode)?
            for child in e.children {
                switch child {
                case .text(let t):
                    guard t.text.allSatisfy(\.isWhitespace) else {
                        throw DAOConfigError(.misplacedElement("text", context: "inside <choose>: only <when> and <otherwise>"), at: locate(t))
                    }
                case .element(let branch):
                    if otherwise != nil {
                        throw DAOConfigError(.misplacedElement(branch.name, context: "after <otherwise>"), at: branch.location)
                    }
                    switch branch.name {
                    case "when":
                        try checkAttributes(branch, allowed: ["true", "false"])
                        branches.append((try condition(branch), try parseContent(branch.children, names: names, in: branch, inStep: inStep)))
                    case "otherwise":
                        try checkAttributes(branch, allowed: [])
                        otherwise = try parseContent(branch.children, names: names, in: branch, inStep: inStep)
                    default:
                        throw DAOConfigError(.unknownElement(branch.name, suggestion: DidYouMean.suggest(branch.name, among: ["when", "otherwise"])),
                                             at: branch.location)
                    }
                }
            }
            return ChooseNode(branches: branches, otherwise: otherwise, location: e.location)
        case "foreach":
            try checkAttributes(e, allowed: ["item", "collection", "open", "separator", "close", "reverse"])
            let item = try require(e, "item")
            let collection = try require(e, "collection")
            guard Self.isIdentifier(item) else {
                throw DAOConfigError(.invalidAttribute("item", element: "foreach", value: item, expected: "a name"),
                                     at: e.attributeNode("item")?.location ?? e.location)
            }
            let path = try referencePath(collection, at: e.attributeNode("collection")?.location ?? e.location)
            return ForEachNode(item: item, collection: path, open: e.attribute("open") ?? "", separator: e.attribute("separator") ?? "",
                               close: e.attribute("close") ?? "", reverse: try boolAttribute(e, "reverse") ?? false,
                               body: try body([item]), location: e.location)
        case "where":
            try checkAttributes(e, allowed: ["onVoid"])
            return TrimNode.makeWhere(onVoid: try onVoid(e), body: try body(), location: e.location)
        case "set":
            try checkAttributes(e, allowed: ["onVoid"])
            return TrimNode.makeSet(onVoid: try onVoid(e), body: try body(), location: e.location)
        case "trim":
            try checkAttributes(e, allowed: ["prefix", "prefixOverrides", "suffixOverrides", "onVoid"])
            return TrimNode(prefix: e.attribute("prefix")?.trimmingCharacters(in: .whitespaces) ?? "",
                            prefixOverrides: TrimNode.parseOverrides(e.attribute("prefixOverrides")),
                            suffixOverrides: TrimNode.parseOverrides(e.attribute("suffixOverrides")),
                            onVoid: try onVoid(e), body: try body(), location: e.location)
        case "format":
            try checkAttributes(e, allowed: ["prefix", "pairs", "join"])
            try checkNoChildren(e)
            let pairs = try referencePath(try require(e, "pairs"), at: e.attributeNode("pairs")?.location ?? e.location)
            return FormatNode(prefix: e.attribute("prefix")?.trimmingCharacters(in: .whitespaces) ?? "", pairs: pairs,
                              join: e.attribute("join") ?? ",", location: e.location)
        case "step":
            throw DAOConfigError(inStep ? .nestedStep : .stepMixedWithText, at: e.location)
        case "try", "except":
            throw DAOConfigError(.badTry("<\(e.name)> must be the only content of a method"), at: e.location)
        case "when", "otherwise":
            throw DAOConfigError(.misplacedElement(e.name, context: "outside <choose>"), at: e.location)
        default:
            if Self.rootElements.contains(e.name) || e.name == "module" {
                throw DAOConfigError(.misplacedElement(e.name, context: "inside a method"), at: e.location)
            }
            throw DAOConfigError(.unknownElement(e.name, suggestion: DidYouMean.suggest(e.name, among: Self.contentElements + ["when", "otherwise", "step", "try", "except"])),
                                 at: e.location)
        }
    }

    private func condition(_ e: XMLElementNode) throws -> DAOCondition {
        let t = e.attributeNode("true"), f = e.attributeNode("false")
        guard let attribute = t ?? f, (t == nil) != (f == nil) else {
            if t != nil {
                throw DAOConfigError(.invalidAttribute("true", element: e.name, value: t?.value ?? "", expected: "either true= or false=, not both"),
                                     at: e.location)
            }
            throw DAOConfigError(.missingAttribute("true", element: e.name), at: e.location)
        }
        do {
            return DAOCondition(expression: try Expression(compiling: attribute.value), expected: t != nil, location: attribute.location)
        } catch let error as ExpressionError {
            throw DAOConfigError(.badExpression(error), at: attribute.location)
        }
    }

    private func onVoid(_ e: XMLElementNode) throws -> TrimNode.OnVoid? {
        guard let text = e.attribute("onVoid") else { return nil }
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "quit": return .quit
        case "ignoreafter": return .ignoreAfter
        default:
            throw DAOConfigError(.invalidAttribute("onVoid", element: e.name, value: text, expected: "quit or ignoreAfter"),
                                 at: e.attributeNode("onVoid")?.location ?? e.location)
        }
    }

    // MARK: Text and references

    /// Splices `${}`, expands `%{}`, and splits text into text, table and reference nodes.
    ///
    /// A `${name}` that names no const or fragment but an argument or foreach item of the
    /// method (`${content}`, `${model.msgId}`, as the references' own examples write them)
    /// reads that argument: it is bound, as `#{name}` is (`dao lint` names the usual
    /// spelling). A const or fragment of the same name wins, as it always has.
    private func compileText(_ t: XMLText, names: Set<String>) throws -> [any SQLNode] {
        let spliced = try splice(t.text, start: t.location, names: names, owner: "") { name, _ in
            if let definition = definitions[name] { return definition }
            guard let first = name.split(separator: ".", omittingEmptySubsequences: false).first, names.contains(String(first)),
                  name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ Self.isIdentifier(String($0)) }) else { return nil }
            return "#{" + name + "}"
        }
        let expanded = try expandTemplates(spliced, original: t)
        var nodes: [any SQLNode] = []
        var rest = Substring(expanded)
        var literal = ""
        // Walked in order when the text is the source's own; spliced text is searched for.
        var locator = expanded == t.text ? ReferenceLocator(text: expanded, start: t.location, cursors: lineCursors) : nil
        func flush() {
            if !literal.isEmpty { nodes.append(TextNode(literal, location: t.location)); literal = "" }
        }
        while let index = rest.firstIndex(where: { $0 == "#" || $0 == "@" || $0 == "$" }) {
            literal += rest[..<index]
            let marker = rest[index]
            let afterMarker = rest.index(after: index)
            guard afterMarker < rest.endIndex, rest[afterMarker] == "{" else {
                literal.append(marker)
                rest = rest[afterMarker...]
                continue
            }
            guard let close = rest[afterMarker...].firstIndex(of: "}") else {
                throw DAOConfigError(.badReference("\(marker){", reason: "no closing }"), at: locate(String(rest[index...].prefix(12)), in: t))
            }
            let whole = String(rest[index...close])
            let inner = String(rest[rest.index(after: afterMarker)..<close])
            let at = locator?.location(of: whole, at: index) ?? locate(whole, in: t)
            flush()
            if marker == "$" {
                nodes.append(TableNameNode(location: at)) // only ${T} survives splicing
            } else {
                nodes.append(try reference(inner, whole: whole, mode: marker == "#" ? .bind : .inline, at: at))
            }
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        flush()
        return nodes
    }

    /// Parses the inside of `#{…}`/`@{…}`: a chained name, then `or ""` and/or `no ""`.
    private func reference(_ inner: String, whole: String, mode: ReferenceNode.Mode, at: SourceLocation) throws -> ReferenceNode {
        var words = inner.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { throw DAOConfigError(.badReference(whole, reason: "no name inside the braces"), at: at) }
        let path = try referencePath(words.removeFirst(), at: at, whole: whole)
        var nilAsEmpty = false, raw = false
        while !words.isEmpty {
            let keyword = words.removeFirst().lowercased()
            guard keyword == "or" || keyword == "no", let quotes = words.first, quotes == "\"\"" || quotes == "''" else {
                throw DAOConfigError(.badReference(whole, reason: "expected `or \"\"` or `no \"\"` after the name"), at: at)
            }
            words.removeFirst()
            if keyword == "or" { nilAsEmpty = true } else { raw = true }
        }
        if raw && mode == .bind {
            throw DAOConfigError(.badReference(whole, reason: "`no \"\"` applies to @{} only: #{} values are bound, never quoted"), at: at)
        }
        return ReferenceNode(mode: mode, path: path, nilAsEmpty: nilAsEmpty, raw: raw, location: at)
    }

    private func referencePath(_ text: String, at: SourceLocation, whole: String? = nil) throws -> [String] {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.first?.hasPrefix("$") == true { parts[0].removeFirst() }
        guard !parts.isEmpty, parts.allSatisfy(Self.isIdentifier) else {
            throw DAOConfigError(.badReference(whole ?? text, reason: "'\(text)' is not a name or a chain of names (a.b.c)"), at: at)
        }
        return parts
    }

    /// Expands each `%{'TEMPLATE', a, b}` into `TEMPLATE` with `*` replaced by each name,
    /// joined with `, `.
    private func expandTemplates(_ text: String, original: XMLText) throws -> String {
        guard text.contains("%{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "%{") {
            result += rest[..<open.lowerBound]
            let at = locate(String(rest[open.lowerBound...].prefix(20)), in: original)
            var i = open.upperBound
            func skipSpaces() { while i < rest.endIndex, rest[i].isWhitespace { i = rest.index(after: i) } }
            skipSpaces()
            guard i < rest.endIndex, rest[i] == "'" else {
                throw DAOConfigError(.badReference("%{", reason: "expected a quoted template first, as in %{'#{m.*}', a, b}"), at: at)
            }
            i = rest.index(after: i)
            var template = ""
            var closed = false
            while i < rest.endIndex {
                let c = rest[i]
                let next = rest.index(after: i)
                if c == "\\", next < rest.endIndex, rest[next] == "'" { template.append("'"); i = rest.index(after: next); continue }
                if c == "'" { closed = true; i = next; break }
                template.append(c)
                i = next
            }
            guard closed else { throw DAOConfigError(.badReference("%{", reason: "unterminated template string"), at: at) }
            guard let close = rest[i...].firstIndex(of: "}") else {
                throw DAOConfigError(.badReference("%{", reason: "no closing }"), at: at)
            }
            let listText = rest[i..<close].trimmingCharacters(in: .whitespacesAndNewlines)
            guard listText.hasPrefix(",") else {
                throw DAOConfigError(.badReference("%{'\(template)'}", reason: "expected a comma and the names to expand"), at: at)
            }
            let names = listText.dropFirst().split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            guard !names.isEmpty, names.allSatisfy(Self.isIdentifier) else {
                throw DAOConfigError(.badReference("%{'\(template)', \(listText.dropFirst())}", reason: "expected comma-separated names"), at: at)
            }
            let stars = template.utf8.count { $0 == UInt8(ascii: "*") }
            let expandedSize = names.reduce(0) { $0 + template.utf8.count + stars * ($1.utf8.count - 1) + 2 }
            guard result.utf8.count + expandedSize <= DAOLimits.splicedSize else {
                throw DAOConfigError(.splicedTooLarge("", limit: DAOLimits.splicedSize), at: at)
            }
            result += names.map { template.replacingOccurrences(of: "*", with: $0) }.joined(separator: ", ")
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }

    // MARK: Helpers

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.first, first.isLetter || first == "_" else { return false }
        return s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    /// Where `snippet` stands inside a text node (its line exact, its column searched).
    private func locate(_ snippet: String, in t: XMLText) -> SourceLocation {
        guard let range = t.text.range(of: snippet) else { return t.location }
        return source.location(in: t.text, offset: t.text.distance(from: t.text.startIndex, to: range.lowerBound),
                               start: t.location, snippet: snippet)
    }

    /// Where the first non-blank character of a text node stands.
    private func locate(_ t: XMLText) -> SourceLocation {
        guard let first = t.text.firstIndex(where: { !$0.isWhitespace }) else { return t.location }
        let snippet = String(t.text[first...].prefix { !$0.isNewline }.prefix(20))
        return source.location(in: t.text, offset: t.text.distance(from: t.text.startIndex, to: first), start: t.location, snippet: snippet)
    }

    private func checkAttributes(_ e: XMLElementNode, allowed: [String]) throws {
        for attribute in e.attributes where !allowed.contains(attribute.name) {
            throw DAOConfigError(.unknownAttribute(attribute.name, element: e.name, suggestion: DidYouMean.suggest(attribute.name, among: allowed)),
                                 at: attribute.location)
        }
    }

    private func checkNoChildren(_ e: XMLElementNode) throws {
        for child in e.children {
            switch child {
            case .element(let inner):
                throw DAOConfigError(.misplacedElement(inner.name, context: "inside <\(e.name)>"), at: inner.location)
            case .text(let t) where !t.text.allSatisfy(\.isWhitespace):
                throw DAOConfigError(.misplacedElement("text", context: "inside <\(e.name)>"), at: locate(t))
            default: break
            }
        }
    }

    private func require(_ e: XMLElementNode, _ name: String) throws -> String {
        guard let value = e.attribute(name), !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw DAOConfigError(.missingAttribute(name, element: e.name), at: e.location)
        }
        return value.trimmingCharacters(in: .whitespaces)
    }

    private func boolAttribute(_ e: XMLElementNode, _ name: String) throws -> Bool? {
        guard let text = e.attribute(name) else { return nil }
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0", "": return false
        default:
            throw DAOConfigError(.invalidAttribute(name, element: e.name, value: text, expected: "true/YES or false/NO"),
                                 at: e.attributeNode(name)?.location ?? e.location)
        }
    }
}

/// A method's identity for the duplicate check: its id and argument count. Hashed, so that
/// loading n methods stays O(n) (a list search made 100,000 methods take half a minute).
private struct DAOMethodKey: Hashable {
    let id: String
    let arity: Int

    static func == (a: DAOMethodKey, b: DAOMethodKey) -> Bool {
        WorkMeter.count(.methodComparisons)
        return a.id == b.id && a.arity == b.arity
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(arity)
    }
}
