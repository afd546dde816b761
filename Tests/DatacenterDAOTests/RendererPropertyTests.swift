import Foundation
import Testing
@_exported import DatacenterTestSupport
@testable import DatacenterDAO

/// `?` placeholders outside quoted literals.
func placeholderCount(_ sql: String) -> Int {
    var quote: Character?
    var count = 0
    for c in sql {
        if let q = quote { if c == q { quote = nil }; continue }
        if c == "'" || c == "\"" { quote = c } else if c == "?" { count += 1 }
    }
    return count
}

private let connectors = ["AND ", "and ", "OR ", "or ", "And\n", "", "  AND  "]

private func randomValue(_ rng: inout SplitMix64) -> DAOValue {
    switch Int.random(in: 0..<6, using: &rng) {
    case 0: return .nil
    case 1: return .integer(Int64.random(in: -5...5, using: &rng))
    case 2: return .string(["a", "it's", "x'; DROP TABLE t; --", "?", "AND "].randomElement(using: &rng) ?? "a")
    case 3: return .array((0..<Int.random(in: 0...3, using: &rng)).map { .integer(Int64($0)) })
    case 4: return .bool(Bool.random(using: &rng))
    default: return .double(1.5)
    }
}

/// Builds a random method: a `where` of conditional clauses with random connectors, using
/// `#{}`, `@{}`, foreach and format, and renders it with random arguments.
private func randomCase(seed: UInt64) throws -> (sql: RenderedSQL, xml: String) {
    var rng = SplitMix64(seed: seed)
    let argumentCount = Int.random(in: 1...4, using: &rng)
    let names = (0..<argumentCount).map { "a\($0)" }
    var clauses = ""
    for _ in 0..<Int.random(in: 0...5, using: &rng) {
        let name = names.randomElement(using: &rng) ?? "a0"
        let connector = connectors.randomElement(using: &rng) ?? ""
        let reference = Bool.random(using: &rng) ? "#{\(name)}" : "@{\(name)}"
        let clause: String
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: clause = "\(connector)c_\(name) = \(reference)"
        case 1: clause = "\(connector)c_\(name) in <foreach item=\"i\" collection=\"\(name)\" open=\"(\" separator=\",\" close=\")\">#{i}</foreach>"
        case 2: clause = "\(connector)(x = #{\(name) or \"\"} or y = 1)"
        default: clause = "\(connector)z = @{\(name)}"
        }
        let test = ["\(name) != nil", "\(name) == nil", "\(name)", "not \(name)"].randomElement(using: &rng) ?? "1"
        clauses += "<if true=\"\(test)\">\(clause)</if>\n"
    }
    let format = Bool.random(using: &rng) ? "<format prefix=\", extra:\" pairs=\"d\" join=\",\"/>" : ""
    let xml = """
        <module name="p" tableName="t">
        <select id="m" arguments="\(names.joined(separator: ", ")), d">
          select * from ${T} \(format) <where>
        \(clauses)
          </where> limit 1
        </select>
        </module>
        """
    let config = try DAOConfig(xml: xml, file: "prop.xml")
    var args = names.map { _ in randomValue(&rng) }
    for i in args.indices where Bool.random(using: &rng) {
        if case .array = args[i] {} else if Bool.random(using: &rng) { args[i] = [1, 2] }
    }
    args.append(Bool.random(using: &rng) ? ["k1": 1, "k0": "v"] : [:])
    // foreach over a non-array is an error by design: use arrays where a foreach reads.
    let call = try config.render("m", arguments: args.enumerated().map { index, value in
        if index < names.count, xml.contains("collection=\"\(names[index])\""), value.elements == nil, !value.isNil { return [value] }
        return value
    })
    guard case .statement(let sql)? = call.runs.first else { throw DAOError.noTableName }
    return (sql, xml)
}

@Test func whereNeverStartsWithAndOrAndPlaceholdersMatchBindings() throws {
    let base = UInt64(Date().timeIntervalSince1970)
    let pattern = try NSRegularExpression(pattern: #"\bWHERE\s+(AND|OR)\b"#, options: [.caseInsensitive])
    for offset in 0..<400 {
        let seed = base &+ UInt64(offset)
        let (sql, xml) = try randomCase(seed: seed)
        let text = sql.sql
        let range = NSRange(text.startIndex..., in: text)
        #expect(pattern.firstMatch(in: text, range: range) == nil, "seed \(seed): \(text)\n\(xml)")
        #expect(!text.uppercased().contains("WHERE LIMIT"), "seed \(seed): \(text)")
        #expect(placeholderCount(text) == sql.bindings.count, "seed \(seed): \(text) with \(sql.bindings.count) binding(s)")
        #expect(!text.contains("  "), "seed \(seed): whitespace not collapsed in \(text)")
    }
}

@Test func placeholderCounterIgnoresQuotedQuestionMarks() {
    #expect(placeholderCount("a = ? and b = '?' and c = \"?\" and d = ?") == 2)
}

/// A foreach whose body is one `#{}` reference is written without a region per iteration;
/// it must render exactly as the general loop does (the same body behind an `<if>` that
/// always holds takes the general path), whatever the elements, open, separator and close.
@Test func aForEachOfOneBoundValueRendersAsTheGeneralLoop() throws {
    let base = UInt64(Date().timeIntervalSince1970)
    let shapes = [("(", ",", ")"), ("", ", ", ""), (" (", " OR ", ") "), ("", "", "")]
    for offset in 0..<200 {
        let seed = base &+ UInt64(offset)
        var rng = SplitMix64(seed: seed)
        let (open, separator, close) = shapes.randomElement(using: &rng) ?? ("(", ",", ")")
        let reverse = Bool.random(using: &rng)
        let padding = ["", " ", "\n    "].randomElement(using: &rng) ?? ""
        let attributes = "item=\"i\" collection=\"list\" open=\"\(open)\" separator=\"\(separator)\" close=\"\(close)\" reverse=\"\(reverse)\""
        let xml = """
            <module name="p" tableName="t">
            <select id="fast" arguments="list, tail">select * from ${T} where a in <foreach \(attributes)>\(padding)#{i or ""}\(padding)</foreach> and b = #{tail}</select>
            <select id="general" arguments="list, tail">select * from ${T} where a in <foreach \(attributes)>\(padding)<if true="true">#{i or ""}</if>\(padding)</foreach> and b = #{tail}</select>
            </module>
            """
        let config = try DAOConfig(xml: xml, file: "foreach.xml")
        let list: DAOValue = Bool.random(using: &rng) && offset % 7 == 0
            ? .nil
            : .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng) })
        let arguments: [DAOValue] = [list, "t"]
        let fast = try config.render("fast", arguments: arguments).statements
        let general = try config.render("general", arguments: arguments).statements
        #expect(fast.map(\.sql) == general.map(\.sql), "seed \(seed): \(xml)")
        #expect(fast.map(\.bindings) == general.map(\.bindings), "seed \(seed)")
        #expect(fast.map(\.preview) == general.map(\.preview), "seed \(seed)")
    }
}
