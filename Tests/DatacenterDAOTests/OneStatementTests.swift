import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

// MARK: One statement per rendered body

@Test func rawValueStackingAStatementIsRefusedNamingTheMethod() throws {
    let (dao, queue) = try daoWithVictim("""
        <select id="filtered" arguments="filter" result="[{}]">select name from ${T} where @{filter no ""}</select>
        """)
    #expect(try dao.call("filtered", ["owner = 'ann'"]).value == [["name": "a"]])
    for payload: DAOValue in ["1; drop table victim; --", "1; drop table victim", "1;\ndrop table victim"] {
        do {
            _ = try dao.call("filtered", [payload])
            Issue.record("a stacked statement ran: \(payload)")
        } catch {
            let text = "\(error)"
            #expect(text.contains("method 'filtered'"), "\(text)")
            #expect(text.contains("ctx.xml:2:"), "\(text)")
            #expect(text.contains("more than one SQL statement"), "\(text)")
        }
        #expect(try victimExists(queue))
    }
}

@Test func oneStatementIsCheckedOnEveryPath() throws {
    let (dao, queue) = try daoWithVictim("""
        <update id="write" arguments="v">update ${T} set name = name where @{v no ""}</update>
        <select id="one" arguments="v" result="string">select name from ${T} where @{v no ""}</select>
        <select id="pool" arguments="v" result="[{}]" parallel="true">select name from ${T} where @{v no ""}</select>
        <update id="steps" arguments="v"><step>update ${T} set name = 'z'</step><step>select @{v no ""}</step></update>
        <update id="batch" arguments="list" foreach="list.v">update ${T} set name = name where id = @{v no ""}</update>
        <update id="static">delete from ${T}; drop table victim</update>
        """)
    let payload: DAOValue = "1; drop table victim"
    let calls: [(String, [DAOValue])] = [("write", [payload]), ("one", [payload]), ("pool", [payload]), ("steps", [payload]),
                                         ("batch", [[1, payload]]), ("static", [])]
    for (id, arguments) in calls {
        #expect(throws: (any Error).self, "\(id)") { try dao.call(id, arguments) }
        #expect(try victimExists(queue), "\(id)")
    }
    // The failed steps call rolled back its first step; the static delete never ran.
    #expect(try dao.executeQuery(sql: "select name from items order by id") == [["name": "a"], ["name": "b"]])
}

@Test func trailingCommentsAndSemicolonsAreOneStatement() throws {
    let (dao, _) = try daoWithVictim("""
        <select id="a" result="long long">select count(*) from ${T}; -- the count
        </select>
        <select id="b" result="long long">select count(*) from ${T} /* c */ ;; /* d */</select>
        <select id="c" arguments="n" result="string">select @{n} -- a name; not; a statement
        </select>
        """)
    #expect(try dao.call("a").value == 2)
    #expect(try dao.call("b").value == 2)
    #expect(try dao.call("c", ["x;y"]).value == "x;y")
}
