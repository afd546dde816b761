import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// `W`: rows by the cursor's column, columns by another's values, an aggregate in each
/// cell, computed by SQLite; Enter on a cell filters the grid to its rows.
@Suite struct PivotTests {
    /// A table of sales: region, product, amount.
    private func sales(_ folder: TemporaryFolder, products: Int = 3) throws -> Browser {
        let path = folder.file("sales.db")
        let db = try Database(path: path)
        try db.execute("create table sales (id integer primary key, region text, product text, amount integer)")
        try db.inTransaction {
            var id = 1
            for region in ["north", "south"] {
                for product in 1...products {
                    for _ in 0..<(product % 3 + 1) {
                        try db.execute("insert into sales values (?, ?, ?, ?)",
                                       [.integer(Int64(id)), .text(region), .text("p\(product)"), .integer(Int64(product * 10))])
                        id += 1
                    }
                }
            }
            try db.execute("insert into sales values (?, NULL, 'p1', 5)", [.integer(Int64(id))])
        }
        let b = try browser(path, keys: .empty, width: 140, height: 30)
        b.openNodeAndLoad(named: "sales")
        b.press(.right)                                   // region
        return b
    }

    private func pivot(_ b: Browser, _ text: String) {
        b.press(.character("W"))
        type(text, into: b)
        b.press(.enter)
        b.runCommands()
    }

    @Test func rowsByOneColumnColumnsByAnothersValuesCellsAnAggregate() throws {
        let folder = TemporaryFolder()
        let b = try sales(folder)
        pivot(b, "product, sum(amount)")
        let grid = try #require(b.grid)
        #expect(grid.source.columns == ["region", "'p1'", "'p2'", "'p3'"])
        #expect(grid.rows.map { $0.cells.map(\.text) } == [
            ["NULL", "5", "NULL", "NULL"],
            ["north", "20", "60", "30"],
            ["south", "20", "60", "30"],
        ])
        // The same numbers as SQLite's own GROUP BY.
        let path = try #require(grid.node.storePath)
        let direct = try Database(path: path).query("select region, product, sum(amount) from sales group by 1, 2 order by 1, 2")
        #expect(direct.first { $0.values[0] == .text("north") && $0.values[1] == .text("p2") }?.values[2] == .integer(60))
        // Enter on a cell: the grid of its rows; Backspace back to the pivot.
        b.press(.down, .right, .right, .enter)
        b.runCommands()
        #expect(b.grid?.source.view.filter == "\"region\" IS 'north' AND \"product\" IS 'p2'")
        #expect(b.grid?.rows.count == 3)
        #expect(b.grid?.rows.allSatisfy { $0.cells[2].text == "p2" && $0.cells[1].text == "north" } == true)
    }

    /// A pivot's rows cannot be edited: its hints leave out the editing keys a table's offer.
    @Test func aPivotsHintsLeaveOutTheEditingKeys() throws {
        let folder = TemporaryFolder()
        let b = try sales(folder)
        #expect(b.statusHints.contains("e edit") && b.statusHints.contains("x delete"))
        pivot(b, "product")
        #expect(b.grid?.source.columns == ["region", "'p1'", "'p2'", "'p3'"])
        #expect(!b.statusHints.contains { ["e edit", "x delete", "o insert"].contains($0) }, "\(b.statusHints)")
        #expect(b.statusHints.contains("/ ? search"))
    }

    @Test func countIsTheDefaultAndABadAggregateOrColumnIsRefused() throws {
        let folder = TemporaryFolder()
        let b = try sales(folder)
        pivot(b, "nosuch")
        #expect(b.message?.text.hasPrefix("no column named nosuch") == true)
        pivot(b, "product, amount")
        #expect(b.message?.text == "amount is not an aggregate of one argument (count(*), sum(x), avg(x), min(x), max(x))")
        pivot(b, "product")
        #expect(b.grid?.rows.last?.cells.map(\.text) == ["south", "2", "3", "1"])
    }

    @Test func moreThan200ValuesAreCutIntoOneColumnNamedSo() throws {
        let folder = TemporaryFolder()
        let b = try sales(folder, products: 205)
        pivot(b, "product")
        let columns = try #require(b.grid?.source.columns)
        #expect(columns.count == 1 + PivotTable.columnLimit + 1)
        #expect(columns.last == "(5 more values, cut)")
        // Every row is counted: the cut column holds the rest.
        let counted = b.grid?.rows.first { $0.cells[0].text == "north" }?.cells.dropFirst().compactMap { Int($0.text) }.reduce(0, +)
        let rows = try Database(path: try #require(b.grid?.node.storePath)).scalar("select count(*) from sales where region = 'north'")
        #expect(counted.map(Int64.init) == rows?.int64Value)
    }

    @Test func aCryptColumnIsPivotedByItsDecryptedValues() throws {
        let folder = TemporaryFolder()
        let b = try browser(try makeDemo(folder), width: 160, height: 30)
        b.openNodeAndLoad(named: "messages")
        b.press(.right)                                   // conversation
        b.press(.character("W"))
        type("content", into: b)
        b.press(.enter)
        b.runCommands()
        let columns = try #require(b.grid?.source.columns)
        #expect(columns.contains("'Lunch tomorrow?'"), "\(columns)")
    }
}
