import DatacenterKit
import Foundation

/// One finding of `DAOLinter`: an error (the config does not load) or a warning (it loads, but
/// something in it is likely a mistake).
public struct DAOLintDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// How serious a finding is.
    public enum Severity: String, Sendable, Equatable {
        /// The config does not load.
        case error
        /// The config loads; the finding is probably a mistake.
        case warning
    }

    /// Error or warning.
    public let severity: Severity
    /// What is wrong, without the location.
    public let message: String
    /// Where.
    public let location: SourceLocation

    /// A finding at `location`.
    public init(_ severity: Severity, _ message: String, at location: SourceLocation) {
        self.severity = severity
        self.message = message
        self.location = location
    }

    /// `file:line:column: warning: message`, the shape compilers use.
    public var description: String { "\(location): \(severity.rawValue): \(message)" }
}

/// Checks DAO configs beyond what loading checks (`datacenter dao lint`).
///
/// A config that does not load gives one error (the `DAOConfigError`). A config that loads
/// gives warnings for:
/// - `@{}` references (the value is written into the SQL text instead of being bound);
/// - method arguments that nothing in the method reads;
/// - references to names that are neither an argument nor a foreach item (they read the
///   DAO object's global arguments, else nil);
/// - a `${name}` inside a method where `name` is one of its arguments: when a const or
///   fragment has that name, `${}` splices it at load time (`#{name}` was probably meant);
///   else it reads the argument, bound as `#{name}` is, and `#{name}` is the usual spelling;
/// - a `${name}` splicing a const or fragment inside quotes whose value holds the quote that
///   ends them (consts are spliced verbatim: the quoting would end inside the value);
/// - a `result` naming a model type that is not registered (not in `registeredModels`, and
///   not the class of a `<map>` or `<crypt>` of the config): rows come back as dictionaries.
///
/// For example:
/// ```swift
/// for finding in DAOLinter.lint(file: "messages.xml") { print(finding) }
/// // messages.xml:12:40: warning: @{name} writes the value into the SQL text; prefer #{name}, which binds it
/// ```
public enum DAOLinter {
    /// Lints the config file at `path`.
    public static func lint(file path: String, registeredModels: Set<String> = []) -> [DAOLintDiagnostic] {
        do {
            return lint(data: try DAOConfig.read(path), file: path, registeredModels: registeredModels)
        } catch {
            return [DAOLintDiagnostic(.error, error.message, at: error.location)]
        }
    }

    /// Lints a config held in memory; `file` names it in the findings.
    public static func lint(xml: String, file: String = "<memory>", registeredModels: Set<String> = []) -> [DAOLintDiagnostic] {
        lint(data: Data(xml.utf8), file: file, registeredModels: registeredModels)
    }

    static func lint(data: Data, file: String, registeredModels: Set<String>) -> [DAOLintDiagnostic] {
        let config: DAOConfig
        do {
            config = try ConfigParser.parse(data, file: file)
        } catch let error as DAOConfigError {
            return [DAOLintDiagnostic(.error, error.message, at: error.location)]
        } catch {
            return [DAOLintDiagnostic(.error, "\(error)", at: SourceLocation(file: file, line: 1))]
        }
        var findings = warnings(for: config, registeredModels: registeredModels)
        if let tree = try? XMLTree.parse(data, file: file) {
            findings += splicedArgumentWarnings(tree.root, source: tree.source, config: config)
            findings += quoteEndingConstWarnings(tree.root, source: tree.source, config: config)
        }
        return sorted(findings)
    }

    /// The warnings for a loaded config (without the `${name}` check, which needs the source).
    public static func warnings(for config: DAOConfig, registeredModels: Set<String> = []) -> [DAOLintDiagnostic] {
        var findings: [DAOLintDiagnostic] = []
        let knownModels = registeredModels.union(config.maps.values.map(\.className)).union(config.cryptRules.map(\.className))
        for method in config.methods {
            var names = Set(method.arguments.map(\.name))
            if let forEach = method.forEach { names.insert(forEach.item) }
            let id = Excerpt.of(method.id)
            var walker = ReferenceWalker(context: "method '\(id)'", known: names)
            if let forEach = method.forEach { walker.used.insert(forEach.collection) }
            walker.walk(method.body)
            findings += walker.findings
            for argument in method.arguments where !walker.used.contains(argument.name) {
                findings.append(DAOLintDiagnostic(.warning, "argument '\(Excerpt.of(argument.name))' of method '\(id)' is never used",
                                                  at: method.location))
            }
            if case .model(let name)? = method.result?.element, !knownModels.contains(name) {
                findings.append(DAOLintDiagnostic(
                    .warning,
                    "result type '\(Excerpt.of(name))' of method '\(id)' is not registered: rows come back as dictionaries "
                        + "(register it with models.register, or declare it with --model \(Excerpt.of(name)))",
                    at: method.location))
            }
        }
        for upgrade in config.upgrades {
            var walker = ReferenceWalker(context: "upgrade to \(upgrade.toVersion)", known: [])
            walker.walk(upgrade.body)
            findings += walker.findings
        }
        return sorted(findings)
    }

    private static func sorted(_ findings: [DAOLintDiagnostic]) -> [DAOLintDiagnostic] {
        findings.enumerated().sorted { a, b in
            let (l, r) = (a.element.location, b.element.location)
            if l.line != r.line { return l.line < r.line }
            if l.column != r.column { return l.column < r.column }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// `${name}` in a method's text where `name` is an argument of that method.
    private static func splicedArgumentWarnings(_ root: XMLElementNode, source: SourceText, config: DAOConfig) -> [DAOLintDiagnostic] {
        var findings: [DAOLintDiagnostic] = []
        // Keyed by location, so n methods cost O(n), not a search each (the first one wins).
        let methodsByLocation = Dictionary(config.methods.map { ($0.location, $0) }, uniquingKeysWith: { first, _ in first })
        for element in root.elements where DAOMethodKind(rawValue: element.name) != nil {
            guard let method = methodsByLocation[element.location] else { continue }
            var names = Set(method.arguments.map(\.name))
            if let forEach = method.forEach { names.insert(forEach.item) }
            scanTexts(element) { text in
                var rest = Substring(text.text)
                while let open = rest.range(of: "${"), let close = rest[open.upperBound...].firstIndex(of: "}") {
                    let name = rest[open.upperBound..<close].trimmingCharacters(in: .whitespaces)
                    let first = name.split(separator: ".").first.map(String.init) ?? name
                    if name != "T", name != "t", names.contains(first) {
                        let snippet = String(rest[open.lowerBound...close])
                        let offset = text.text.distance(from: text.text.startIndex, to: open.lowerBound)
                        let message: String
                        if config.consts[name] != nil || config.fragments[name] != nil {
                            let kind = config.consts[name] != nil ? "const" : "sql fragment"
                            message = "${\(name)} splices the \(kind) '\(name)' at load time, not the argument '\(name)' of method '\(Excerpt.of(method.id))' (did you mean #{\(name)}?)"
                        } else {
                            message = "${\(name)} reads the argument '\(first)' of method '\(Excerpt.of(method.id))', bound as #{\(name)} is; #{\(name)} is the usual spelling"
                        }
                        findings.append(DAOLintDiagnostic(
                            .warning, message,
                            at: source.location(in: text.text, offset: offset, start: text.location, snippet: snippet)))
                    }
                    rest = rest[rest.index(after: close)...]
                }
            }
        }
        return findings
    }

    /// `${name}` splicing a const (or fragment) inside quotes when its value holds the quote
    /// that ends them: consts are spliced verbatim, so the quoting ends inside the value.
    private static func quoteEndingConstWarnings(_ root: XMLElementNode, source: SourceText, config: DAOConfig) -> [DAOLintDiagnostic] {
        var findings: [DAOLintDiagnostic] = []
        for element in root.elements where DAOMethodKind(rawValue: element.name) != nil {
            // The method's text in document order, as the lexer would read it rendered.
            var lexer = SQLLexer()
            scanTexts(element) { text in
                var rest = Substring(text.text)
                while let open = rest.range(of: "${"), let close = rest[open.upperBound...].firstIndex(of: "}") {
                    lexer.scan(String(rest[..<open.lowerBound]))
                    let name = rest[open.upperBound..<close].trimmingCharacters(in: .whitespaces)
                    let spliced = config.consts[name] ?? config.fragments[name]
                    if let spliced, lexer.state.isQuoted, lexer.state.doublingClosingQuote(in: spliced) != spliced {
                        let kind = config.consts[name] != nil ? "const" : "sql fragment"
                        let snippet = String(rest[open.lowerBound...close])
                        let offset = text.text.distance(from: text.text.startIndex, to: open.lowerBound)
                        findings.append(DAOLintDiagnostic(
                            .warning,
                            "${\(name)} splices the \(kind) '\(name)' verbatim inside \(lexer.state.phrase), and its value holds "
                                + "the quote that ends it: the quoting ends inside the value (write that quote doubled in the "
                                + "\(kind), or splice it outside the quotes)",
                            at: source.location(in: text.text, offset: offset, start: text.location, snippet: snippet)))
                    }
                    lexer.scan(spliced ?? String(rest[open.lowerBound...close]))
                    rest = rest[rest.index(after: close)...]
                }
                lexer.scan(String(rest))
            }
        }
        return findings
    }

    private static func scanTexts(_ element: XMLElementNode, _ body: (XMLText) -> Void) {
        for child in element.children {
            switch child {
            case .text(let t): body(t)
            case .element(let e): scanTexts(e, body)
            }
        }
    }
}

extension DAOMethod {
    /// The arguments the method puts into its SQL as one value (`#{name}` or `@{name}`, the
    /// whole argument, not a field of it): an array or a dictionary given to one is bound as
    /// its JSON text, which a form or a command line can warn of.
    public var argumentsUsedWhole: Set<String> {
        var walker = ReferenceWalker(context: "method", known: Set(arguments.map(\.name)))
        walker.walk(body)
        return walker.usedWhole.intersection(arguments.map(\.name))
    }
}

/// Walks a method's node tree: which names it reads, `@{}` uses, and names it does not know.
private struct ReferenceWalker {
    let context: String
    /// Arguments and foreach items in scope.
    var known: Set<String>
    /// First components of every name read.
    var used: Set<String> = []
    /// Names put into the SQL whole by `#{name}` or `@{name}` (not a field of them, not a
    /// foreach item): one value each.
    var usedWhole: Set<String> = []
    /// The foreach items in scope.
    private var items: Set<String> = []
    var findings: [DAOLintDiagnostic] = []
    /// Unknown names already reported (once per name).
    private var reported: Set<String> = []

    init(context: String, known: Set<String>) {
        self.context = context
        self.known = known
    }

    mutating func walk(_ body: DAOMethodBody) {
        switch body {
        case .sql(let node): walk(node)
        case .steps(let steps): for step in steps { walk(step.body) }
        case .tryExcept(let attempt, let fallback):
            walk(attempt)
            walk(fallback)
        }
    }

    private mutating func read(_ name: String?, at location: SourceLocation) {
        guard let name else { return }
        used.insert(name)
        if !known.contains(name), reported.insert(name).inserted {
            findings.append(DAOLintDiagnostic(
                .warning, "'\(Excerpt.of(name))' is not an argument of \(context): it reads a global argument, else nil", at: location))
        }
    }

    private mutating func read(_ condition: DAOCondition) {
        for name in condition.expression.referencedNames.sorted() { read(name, at: condition.location) }
    }

    mutating func walk(_ node: any SQLNode) {
        switch node {
        case let n as SequenceNode:
            for child in n.children { walk(child) }
        case let n as ReferenceNode:
            read(n.path.first, at: n.location)
            if n.path.count == 1, let name = n.path.first, !items.contains(name) { usedWhole.insert(name) }
            if n.mode == .inline {
                let path = Excerpt.of(n.path.joined(separator: "."))
                let message = n.quotedIn.isQuoted
                    ? "@{\(path)} inside \(n.quotedIn.phrase) writes the value's text into it (its quotes doubled); "
                        + "prefer #{\(path)} in place of the whole quoted text, which binds it"
                    : "@{\(path)} writes the value into the SQL text; prefer #{\(path)}, which binds it"
                findings.append(DAOLintDiagnostic(.warning, message, at: n.location))
            }
        case let n as IfNode:
            read(n.condition)
            walk(n.body)
        case let n as ChooseNode:
            for branch in n.branches {
                read(branch.condition)
                walk(branch.body)
            }
            if let otherwise = n.otherwise { walk(otherwise) }
        case let n as ForEachNode:
            read(n.collection.first, at: n.location)
            let wasKnown = known.contains(n.item), wasItem = items.contains(n.item)
            known.insert(n.item)
            items.insert(n.item)
            walk(n.body)
            if !wasKnown { known.remove(n.item) }
            if !wasItem { items.remove(n.item) }
        case let n as TrimNode:
            walk(n.body)
        case let n as FormatNode:
            read(n.pairs.first, at: n.location)
        default:
            break // text and ${T}
        }
    }
}
