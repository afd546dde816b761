import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

// The text a `oneStatement` plan keeps per shape (`RenderedTextCache`) against rendering
// without it: the same calls, with arguments that take different branches of `<if>`,
// `<choose>`, `<where>`/`<set>`, `foreach` of every length (nil, empty, iterations that
// render text only) and crypt-covered bindings, must render exactly alike, errors
// included, and the cache must never hand out the text of another shape. Templates whose
// text their branches do not determine (`@{}`, `<format>`, `onVoid`) get no cache.

/// Dynamic methods of every kind of node; one cache per method is shared by all its calls.
private let dynamicXML = """
    <module name="Shapes" tableName="items" version="1.0">
      <crypt class="Row" property="secret"/>
      <select id="search" arguments="name, tags, unread, limit, order" result="[{}]">
        select id, name from ${T}
        <where>
          <if true="name != nil">and name = #{name}</if>
          <if true="tags.count > 0">and tag in <foreach item="t" collection="tags" open="(" separator="," close=")">#{t}</foreach></if>
          <if true="unread">and read = 0</if>
        </where>
        order by <choose><when true="order == 'name'">name</when><when true="order != nil">id desc</when><otherwise>id</otherwise></choose>
        <choose><when true="limit > 0">limit #{limit}</when><otherwise>limit 100</otherwise></choose>
      </select>
      <select id="nested" arguments="groups, flag" result="[{}]">
        select * from ${T}
        <where>
          <foreach item="g" collection="groups" open="(" separator=" or " close=")">
            <trim prefix="" prefixOverrides="and |or "><if true="g.count > 0">and g in <foreach item="x" collection="g" open="(" separator="," close=")">#{x}</foreach></if>
            <if true="flag">or flagged = 1</if></trim>
          </foreach>
          <if true="flag != nil">and #{flag} is not null</if>
        </where>
      </select>
      <update id="touch" arguments="m, stamp">
        update ${T} <set><if true="stamp != nil">stamp = #{stamp},</if><if true="m.secret != nil">secret = #{m.secret},</if></set>
        where id = #{m.id}
      </update>
      <select id="collide" arguments="a, b, c">
        select 1 <foreach item="x" collection="a" open=", " separator=", ">x</foreach>
        <if true="b">, 2 <if true="c">, 3</if></if>
      </select>
      <select id="shadow" arguments="x, list, pairs">
        select #{x}, #{$x} <foreach item="x" collection="list" open=", " separator=", ">#{x} + #{$x}
        <if true="x == 'j'">, 9</if>
        <foreach item="p" collection="pairs" separator=" ">, #{p} - #{x} - #{$x}</foreach></foreach>, #{x}
        <if true="x == 'j'">, 8</if><if true="pairs.count > 1">, #{pairs.count}</if>
      </select>
      <update id="formatted" arguments="pairs">update ${T} <format prefix="set" pairs="pairs" join=","/> where 1</update>
      <update id="flags" arguments="id, read, starred">
        update ${T}
        <set onVoid="quit">
          <if true="read != nil">read = #{read},</if>
          <if true="starred != nil">starred = #{starred},</if>
        </set>
        where id = #{id}
      </update>
      <update id="secret" arguments="m">
        update ${T} set secret = #{m.secret} <where onVoid="quit"><if true="m.id != nil">id = #{m.id}</if></where>
      </update>
      <select id="lists" arguments="lists, ids">
        select 1 <foreach item="l" collection="lists" separator=" or "><foreach item="l" collection="l" open="(" separator="," close=")">#{l}</foreach><if true="l.count > 1"> and many</if></foreach>
        <foreach item="i" collection="ids" open=" in (" separator="," close=")" reverse="true">#{$i}</foreach>
      </select>
      <select id="inlined" arguments="a, b">select @{a} as x <if true="b != nil">, @{b} as y, #{b} as z</if></select>
    </module>
    """

/// What a rendering gave, comparable: the statements (SQL, bindings, encryption, preview,
/// location) or the error.
private func rendering(_ body: () throws -> RenderedCall) -> String {
    do {
        let call = try body()
        return call.statements.map { "\($0.sql) | \($0.bindings) | \($0.encryptedBindings) | \($0.preview) | \($0.skipped) | \(String(describing: $0.location))" }
            .joined(separator: "\n")
    } catch {
        return "error: \(error)"
    }
}

/// Where a string's bytes are stored (for a string of more than 15 bytes: smaller ones are
/// held inline, and each access sees a copy).
private func storage(of text: String) -> UnsafeRawPointer? {
    text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
}

/// The method `id` of the shapes config and a text cache of its template.
private func cachedMethod(_ id: String, arity: Int) throws -> (DAOMethod, RenderedTextCache) {
    let method = try DAOConfig(xml: dynamicXML, file: "shapes.xml").method(id, arity: arity)
    guard case .sql(let template) = method.body, let cache = RenderedTextCache(template: template, arguments: method.arguments) else {
        throw DAOError.resultMapping("\(id) has no text cache")
    }
    return (method, cache)
}

/// `arguments` rendered with `cache` and without it, alike.
private func expectCachedRendersAsWritten(_ method: DAOMethod, _ arguments: [DAOValue], cache: RenderedTextCache,
                                          sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let written = rendering { try Renderer.render(method, arguments: arguments, tableName: "items") }
    let cached = rendering {
        try Renderer.render(method, arguments: arguments, globals: [:], tableName: "items", cryptRules: [], textCache: cache)
    }
    #expect(cached == written, "\(arguments)", sourceLocation: sourceLocation)
}

@Suite struct RenderedTextCacheTests {
    /// Random calls of every method, each rendered with its method's cache and without one.
    @Test(arguments: [UInt64(41), 42, 43])
    func cachedTextRendersAsWritingIt(seed: UInt64) throws {
        let config = try DAOConfig(xml: dynamicXML, file: "shapes.xml")
        var caches: [String: RenderedTextCache] = [:]
        var rng = SplitMix64(seed: seed)
        func scalar() -> DAOValue {
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: return .nil
            case 1: return .integer(Int64.random(in: -2...3, using: &rng))
            case 2: return .bool(Bool.random(using: &rng))
            case 3: return .double(0.5)
            case 4: return ["name", "id desc", "x'y"].randomElement(using: &rng)!
            default: return .string(["a", "b", "", "it's"].randomElement(using: &rng)!)
            }
        }
        func argument() -> DAOValue {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: return .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in scalar() })
            case 1:
                let fields: [String: DAOValue] = ["id": scalar(), "secret": scalar()]
                return Bool.random(using: &rng) ? .model("Row", fields) : .dictionary(fields)
            default: return scalar()
            }
        }
        var hits = 0
        for _ in 0..<1000 {
            let method = config.methods.randomElement(using: &rng)!
            var arguments = method.arguments.map { _ in argument() }
            if Int.random(in: 0..<25, using: &rng) == 0 { arguments.append(nil) } // a wrong argument count
            guard case .sql(let template) = method.body else { continue }
            let cache = caches[method.id] ?? RenderedTextCache(template: template, arguments: method.arguments)
            caches[method.id] = cache
            let table = ["items", "others"].randomElement(using: &rng)!
            let written = rendering {
                try Renderer.render(method, arguments: arguments, tableName: table, cryptRules: config.cryptRules)
            }
            func renderCached() throws -> RenderedCall {
                try Renderer.render(method, arguments: arguments, globals: [:], tableName: table, cryptRules: config.cryptRules,
                                    textCache: cache)
            }
            #expect(rendering(renderCached) == written, "seed \(seed): \(method.id) \(arguments)")
            // The same call again is a hit: the very text kept, not a copy.
            if cache != nil, let first = try? renderCached().statements.first, !first.skipped, first.sql.utf8.count > 15,
               let again = try? renderCached().statements.first {
                #expect(storage(of: first.sql) == storage(of: again.sql), "seed \(seed): \(first.sql)")
                hits += 1
            }
        }
        #expect(hits > 100) // the cache was used, not only filled
    }

    /// Alternating shapes past the cache's size, then back: old shapes are dropped and
    /// written again, never confused with one another.
    @Test func shapesBeyondTheLimitAreWrittenAgain() throws {
        let (method, cache) = try cachedMethod("search", arity: 5)
        let tagLists: [DAOValue] = (0..<(RenderedTextCache.limit * 2)).map { n in .array((0..<n).map { .integer(Int64($0)) }) }
        for round in 0..<3 {
            for tags in tagLists + tagLists.reversed() {
                expectCachedRendersAsWritten(method, [round == 1 ? nil : "n", tags, true, .integer(Int64(round)), "name"], cache: cache)
            }
        }
        #expect(cache.keptCount == RenderedTextCache.limit)
    }

    /// A nil collection and a one-element one, each followed by nested branches, give
    /// decision sequences of the same length: they must still be told apart (a nil
    /// collection records its decision as an empty one does).
    @Test func aNilCollectionIsADecision() throws {
        let (method, cache) = try cachedMethod("collide", arity: 3)
        let calls: [[DAOValue]] = [[nil, true, false], [[7], false, false], [[], true, false], [nil, true, true], [[7], true, false]]
        for arguments in calls + calls { expectCachedRendersAsWritten(method, arguments, cache: cache) }
    }

    /// A `#{}` of an argument or of the innermost loop item is bound by position: an item
    /// shadows the argument of its name inside its loop (and `$x` is `x`), an outer item is
    /// looked up, and past the loop the name is the argument again.
    @Test func bindingsByPositionFollowShadowing() throws {
        let (method, cache) = try cachedMethod("shadow", arity: 3)
        let kinds = cache.program.instructions.compactMap { instruction -> String? in
            switch instruction {
            case .bind: return "lookup"
            case .bindItem: return "item"
            case .bindArgument(_, let argument): return "argument \(argument)"
            default: return nil
            }
        }
        #expect(kinds == ["argument 0", "argument 0", "item", "item", "item", "lookup", "lookup", "argument 0", "argument 2"])
        for _ in 0..<2 { // written, then from the cache
            let statement = try Renderer.render(method, arguments: ["a", ["i", "j"], ["p"]], globals: [:], tableName: "items",
                                                cryptRules: [], textCache: cache).statements[0]
            #expect(statement.bindings == ["a", "a", "i", "i", "p", "i", "i", "j", "j", "p", "j", "j", "a"].map(DatabaseValue.text))
            // The item `x` is 'j' in the second iteration only; past the loop `x` is the argument.
            #expect(statement.sql.components(separatedBy: ", 9").count == 2 && !statement.sql.contains(", 8"), "\(statement.sql)")
        }
        let pastTheLoop = try Renderer.render(method, arguments: ["j", [], ["p", "q"]], globals: [:], tableName: "items",
                                              cryptRules: [], textCache: cache).statements[0]
        #expect(pastTheLoop.sql.contains(", 8") && pastTheLoop.bindings == ["j", "j", "j", .integer(2)])
        expectCachedRendersAsWritten(method, ["a", ["i", "j"], ["p", "q"]], cache: cache)
        expectCachedRendersAsWritten(method, [nil, [], nil], cache: cache)
    }

    /// A loop whose body is one `#{}` of its item binds each element as it is, the item not
    /// put in the scope: the bindings writing the text gives, an inner item shadowing the
    /// outer one of its name inside its loop only, `$i` as `i`, `reverse` honoured.
    @Test func aLoopOfItsItemAloneBindsItsElements() throws {
        let (method, cache) = try cachedMethod("lists", arity: 2)
        let itemLoops = cache.program.instructions.filter { if case .forEachItem = $0 { true } else { false } }
        #expect(itemLoops.count == 2) // the inner loop over `l` and the loop over `ids`
        let arguments: [DAOValue] = [[["a", "b"], ["c"]], [1, nil, "three"]]
        for _ in 0..<2 { // written, then from the cache
            let statement = try Renderer.render(method, arguments: arguments, globals: [:], tableName: "items", cryptRules: [],
                                                textCache: cache).statements[0]
            #expect(statement.bindings == [.text("a"), .text("b"), .text("c"), .text("three"), .null, .integer(1)])
            // After the inner loop `l` is the outer item again: the first group has two elements.
            #expect(statement.sql.components(separatedBy: "and many").count == 2, "\(statement.sql)")
        }
        // The last two bind as many values in loops of other lengths: the lengths are decisions.
        for calls in [arguments, [nil, []], [[[], ["x"]], nil], [["x"], [2]], [[["x"], "y"], [2]],
                      [[["a", "b"]], [1]], [[["a", "b", "c"]], []]] as [[DAOValue]] {
            expectCachedRendersAsWritten(method, calls, cache: cache)
        }
    }

    /// Only templates whose text their branches determine get a cache: not one with an
    /// `@{}`, a `<format>` or an `onVoid` trim.
    @Test func templatesWithTextOfTheirArgumentsGetNoCache() throws {
        let config = try DAOConfig(xml: dynamicXML, file: "shapes.xml")
        var cached: [String] = []
        for method in config.methods {
            guard case .sql(let template) = method.body else { continue }
            if RenderedTextCache(template: template, arguments: method.arguments) != nil { cached.append(method.id) }
        }
        #expect(cached.sorted() == ["collide", "lists", "nested", "search", "shadow", "touch"])
    }
}
