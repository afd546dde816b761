import DatacenterKit
import Foundation
import Testing
@testable import DatacenterDAO

// MARK: XML that would drop text

@Test func entityDeclarationsAndReferencesAreLoadErrors() throws {
    let guarded = """
        <?xml version="1.0"?>
        <!DOCTYPE module [
          <!ENTITY owner_guard "and owner = #{owner}">
        ]>
        <module name="m" tableName="items">
          <delete id="remove" arguments="id, owner">delete from ${T} where id = #{id} &owner_guard;</delete>
        </module>
        """
    #expect(throws: DAOConfigError.self) { _ = try DAOConfig(xml: guarded, file: "ent.xml") }
    do {
        _ = try DAOConfig(xml: guarded, file: "ent.xml")
    } catch let error as DAOConfigError {
        #expect(error.location.line == 3, "\(error)")
        #expect(error.description.contains("ENTITY"), "\(error)")
    }
    let lint = DAOLinter.lint(xml: guarded, file: "ent.xml")
    #expect(lint.contains { $0.severity == .error }, "\(lint)")

    let external = """
        <!DOCTYPE module SYSTEM "module.dtd">
        <module name="m" tableName="items"><select id="a">select 1 &guard;</select></module>
        """
    #expect(throws: DAOConfigError.self) { _ = try DAOConfig(xml: external, file: "ext.xml") }
    let parameter = """
        <!DOCTYPE module [ <!ENTITY % p "x"> ]>
        <module name="m" tableName="items"><select id="a">select 1</select></module>
        """
    #expect(throws: DAOConfigError.self) { _ = try DAOConfig(xml: parameter, file: "par.xml") }

    // A plain DOCTYPE, predefined entities, character references and CDATA keep their text.
    let plain = """
        <!DOCTYPE module>
        <module name="m" tableName="items"><select id="a" result="string">select 'a&lt;b&#62;' || <![CDATA['<c>']]></select></module>
        """
    let config = try DAOConfig(xml: plain, file: "plain.xml")
    #expect(try config.render("a", arguments: []).statements.first?.sql == "select 'a<b>' || '<c>'")
}

@Test func aProcessingInstructionInsideSQLIsALoadError() throws {
    let xml = """
        <module name="m" tableName="items">
          <delete id="remove" arguments="id, owner">delete from ${T} where id = #{id} <?guard and owner = #{owner}?></delete>
        </module>
        """
    #expect(throws: DAOConfigError.self) { _ = try DAOConfig(xml: xml, file: "pi.xml") }
    // XML comments are for people: dropping them drops nothing of the SQL.
    let commented = try DAOConfig(xml: """
        <module name="m" tableName="items"><select id="a">select 1 <!-- why --> + 1</select></module>
        """, file: "c.xml")
    #expect(try commented.render("a", arguments: []).statements.first?.sql == "select 1 + 1")
}
