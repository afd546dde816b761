import Foundation
import Testing
@testable import DatacenterBrowser

/// Themes built into the binary, users' theme files over them, and every problem with a
/// theme file shown to the user.
@Suite struct ThemeLoadingTests {
    /// The checkout's `themes/` folder.
    static let shippedDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../themes").standardizedFileURL.path

    @Test func builtInThemesAreTheShippedFilesWordForWord() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.shippedDirectory).filter { $0.hasSuffix(".theme") }.sorted()
        #expect(BuiltInThemes.files.map(\.name).sorted() == files.map { String($0.dropLast(6)) })
        for file in files {
            let text = try String(contentsOfFile: Self.shippedDirectory + "/" + file, encoding: .utf8)
            let builtIn = BuiltInThemes.files.first { $0.name + ".theme" == file }?.text
            #expect(builtIn == text, "themes/\(file) differs from its copy in BuiltInThemes.swift")
        }
    }

    @Test func shippedThemesNeedNoFolder() throws {
        let (themes, errors) = Theme.available(directories: [])
        #expect(errors.isEmpty)
        #expect(themes.map(\.name) == ["default", "high-contrast", "light"])
        #expect(themes.first == Theme(name: "default", styles: Theme.builtIn.styles))
        let light = try #require(themes.first { $0.name == "light" })
        #expect(light.style(.header) == CellStyle(foreground: .standard(7), background: .standard(4)))
    }

    @Test func aUserThemeOverridesTheBuiltInOfItsNameAndAddsItsOwn() throws {
        let folder = TemporaryFolder()
        let directory = folder.file("themes")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "header = red green\n".write(toFile: directory + "/light.theme", atomically: true, encoding: .utf8)
        try "header = yellow black\n".write(toFile: directory + "/mine.theme", atomically: true, encoding: .utf8)
        let (themes, errors) = Theme.available(directories: [directory])
        #expect(errors.isEmpty)
        #expect(themes.map(\.name) == ["default", "high-contrast", "light", "mine"])
        #expect(themes.first { $0.name == "light" }?.style(.header) == CellStyle(foreground: .standard(1), background: .standard(2)))
        #expect(themes.first { $0.name == "mine" }?.style(.header) == CellStyle(foreground: .standard(3), background: .standard(0)))
    }

    @Test func everyFileThatCannotBeUsedIsReportedWithWhy() throws {
        let folder = TemporaryFolder()
        let directory = folder.file("themes")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data([0x68, 0x65, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: directory + "/binary.theme"))
        try "# fine\nheader = black purple\n".write(toFile: directory + "/colour.theme", atomically: true, encoding: .utf8)
        #expect(mkfifo(directory + "/pipe.theme", 0o600) == 0)
        try FileManager.default.createDirectory(atPath: directory + "/folder.theme", withIntermediateDirectories: true)
        try "header = black cyan\n".write(toFile: directory + "/good.theme", atomically: true, encoding: .utf8)

        let (themes, errors) = Theme.load(directory: directory)
        #expect(themes.map(\.name) == ["good"])
        let byFile = Dictionary(uniqueKeysWithValues: errors.map { (($0.file as NSString).lastPathComponent, $0) })
        #expect(Set(byFile.keys) == ["binary.theme", "colour.theme", "pipe.theme", "folder.theme"])
        #expect(byFile["binary.theme"]?.description == directory + "/binary.theme: not UTF-8 text")
        #expect(byFile["colour.theme"]?.description == directory + "/colour.theme:2: unknown colour 'purple'")
        #expect(byFile["pipe.theme"]?.line == nil)
        #expect(byFile["pipe.theme"]?.message.contains("FIFO") == true)
        #expect(byFile["folder.theme"]?.line == nil)
        #expect(byFile["folder.theme"]?.message.isEmpty == false)
    }

    @Test func aMissingFolderHoldsNoThemesAndIsNoError() {
        let (themes, errors) = Theme.load(directory: "/nonexistent/themes")
        #expect(themes.isEmpty)
        #expect(errors.isEmpty)
    }

    @Test func themeProblemsShowInTheStatusLineAndTheHelp() throws {
        let folder = TemporaryFolder()
        let problems = [ThemeError(file: "/home/u/themes/a.theme", line: 3, message: "unknown colour 'purple'"),
                        ThemeError(file: "/home/u/themes/b.theme", line: nil, message: "not UTF-8 text")]
        let b = Browser(catalog: try BrowserCatalog(path: try makeDemo(folder), keys: .empty), width: 120, height: 40,
                        themes: Theme.available(directories: []).themes, themeErrors: problems)
        let status = try #require(b.render().lines().last)
        #expect(status.contains("theme file skipped: /home/u/themes/a.theme:3: unknown colour 'purple' (and 1 more: H lists them)"))
        b.press(.character("?"))
        let help = b.screenText
        #expect(help.contains("Theme files skipped:"))
        #expect(help.contains("/home/u/themes/a.theme:3: unknown colour 'purple'"))
        #expect(help.contains("/home/u/themes/b.theme: not UTF-8 text"))
    }

    @Test func noProblemMeansNoMessage() throws {
        let folder = TemporaryFolder()
        let b = Browser(catalog: try BrowserCatalog(path: try makeDemo(folder), keys: .empty), width: 120, height: 40)
        #expect(b.render().lines().last?.contains("theme file") == false)
        b.press(.character("?"))
        #expect(!b.screenText.contains("Theme files skipped"))
    }

    @Test func aThemeNameThatIsNotThereListsTheThemesThereAre() throws {
        let (themes, _) = Theme.available(directories: [])
        #expect(try Theme.named("light", in: themes, errors: []).name == "light")
        #expect(throws: ThemeChoiceError(name: "nope", available: ["default", "high-contrast", "light"], problem: nil)) {
            try Theme.named("nope", in: themes, errors: [])
        }
        let broken = ThemeError(file: "/t/mine.theme", line: 2, message: "unknown colour 'purple'")
        do {
            _ = try Theme.named("mine", in: themes, errors: [broken])
            Issue.record("a broken theme was chosen")
        } catch {
            #expect("\(error)" == "theme 'mine' cannot be used: /t/mine.theme:2: unknown colour 'purple' (themes: default, high-contrast, light)")
        }
    }
}
