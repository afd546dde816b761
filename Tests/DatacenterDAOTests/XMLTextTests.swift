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

// MARK: Files that are not configs

/// The loader itself refuses what is not a regular file, so no caller (an app, the tool, the
/// browser) can hang on a FIFO put where a config was expected.
@Test func aFIFOAtAConfigPathIsRefusedByTheLoaderAtOnce() throws {
    let folder = TemporaryFolder()
    let fifo = folder.file("config.xml")
    #expect(mkfifo(fifo, 0o600) == 0)
    let watchdog = Watchdog(limit: 5)
    defer { watchdog.finish() }
    watchdog.start("DAOConfig(contentsOfFile:) on a FIFO")
    #expect { try DAOConfig(contentsOfFile: fifo) } throws: { error in
        guard let error = error as? DAOConfigError, case .unreadable(let why) = error.kind else { return false }
        return why.contains("not a regular file") && error.location.file == fifo
    }
    let findings = DAOLinter.lint(file: fifo)
    #expect(findings.count == 1 && findings[0].description.contains("not a regular file"), "\(findings)")
    watchdog.stop()
}
