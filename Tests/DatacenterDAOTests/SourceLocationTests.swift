import Testing
@testable import DatacenterDAO

@Test func sourceLocationPrintsLikeACompiler() {
    #expect(SourceLocation(file: "demo.xml", line: 12, column: 5).description == "demo.xml:12:5")
}
