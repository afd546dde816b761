import DatacenterKit
import DatacenterText
import Foundation

/// A terminal colour: the terminal's own, one of the 16 standard colours, or an RGB value
/// (drawn as the nearest colour the terminal has).
package enum TerminalColor: Equatable, Sendable {
    /// The terminal's own foreground or background.
    case terminalDefault
    /// 0–7 standard, 8–15 bright.
    case standard(Int)
    /// Red, green and blue, 0–255 each (`#rrggbb` in a theme file).
    case rgb(UInt8, UInt8, UInt8)

    static let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    /// A colour as a theme file names it: `default`, `red`, `bright-red`, `#rrggbb`; nil for
    /// anything else.
    init?(name: String) {
        if name == "default" { self = .terminalDefault; return }
        if let i = Self.names.firstIndex(of: name) { self = .standard(i); return }
        if name.hasPrefix("bright-"), let i = Self.names.firstIndex(of: String(name.dropFirst(7))) { self = .standard(i + 8); return }
        // Six hex digits exactly: `UInt32(_:radix:)` alone would also take a sign (`#+abcde`).
        if name.hasPrefix("#"), name.count == 7, name.dropFirst().allSatisfy(\.isHexDigit),
           let v = UInt32(name.dropFirst(), radix: 16) {
            self = .rgb(UInt8(v >> 16), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF))
            return
        }
        return nil
    }

    /// The nearest of the 16 standard colours (nil for the terminal's default).
    package var standardIndex: Int? {
        switch self {
        case .terminalDefault: return nil
        case .standard(let i): return i
        case let .rgb(r, g, b):
            let palette: [(Int, Int, Int)] = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
                                              (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]
            // The squared distance to each palette colour, blue included (the closure's
            // parameters once shadowed `b`, so blue was measured against an index).
            func distance(_ index: Int) -> Int {
                let (pr, pg, pb) = palette[index]
                return (pr - Int(r)) * (pr - Int(r)) + (pg - Int(g)) * (pg - Int(g)) + (pb - Int(b)) * (pb - Int(b))
            }
            return palette.indices.min { distance($0) < distance($1) }
        }
    }
}

/// How one role looks.
package struct CellStyle: Equatable, Sendable {
    /// The text colour.
    package var foreground: TerminalColor = .terminalDefault
    /// The cell colour.
    package var background: TerminalColor = .terminalDefault
    /// Terminal attributes, off unless the theme turns them on.
    package var bold = false, dim = false, underline = false, reverse = false
}

/// A theme file that could not be read, with where.
package struct ThemeError: Error, Equatable, CustomStringConvertible {
    /// The theme file, as given.
    package let file: String
    /// The 1-based line at fault; nil when the file as a whole is at fault (unreadable, not
    /// UTF-8, too big).
    package let line: Int?
    /// What is wrong with that line or file.
    package let message: String

    /// A problem at `line` of `file` (nil: the whole file).
    package init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`, or `file: message` for the whole file.
    package var description: String { line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }
}

/// A browser theme: a style per role, read from `themes/NAME.theme` (format in
/// `themes/README.md`). Roles a file leaves out keep the default theme's style.
package struct Theme: Equatable, Sendable {
    /// The name `--theme` takes and `t` shows: the file name without `.theme`.
    package let name: String
    /// The style of each role the theme sets.
    package let styles: [StyleRole: CellStyle]

    /// The style of `role`.
    package func style(_ role: StyleRole) -> CellStyle { styles[role] ?? Theme.builtIn.styles[role] ?? CellStyle() }

    /// Reads a theme file's text.
    package static func parse(_ text: String, name: String, file: String) throws -> Theme {
        var styles = builtIn.styles
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = Theme.stripComment(String(rawLine))
            guard !line.trimmingHorizontalWhitespace().isEmpty else { continue }
            func fail(_ message: String) -> ThemeError { ThemeError(file: file, line: index + 1, message: message) }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingHorizontalWhitespace() }
            guard parts.count == 2 else { throw fail("expected `role = foreground background [attributes]`") }
            guard let role = StyleRole(rawValue: parts[0]) else {
                throw fail("unknown role '\(parts[0])' (roles: \(StyleRole.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            let words = parts[1].split(whereSeparator: \.isWhitespace).map(String.init)
            guard words.count >= 2 else { throw fail("a style needs a foreground and a background colour") }
            guard let fg = TerminalColor(name: words[0]) else { throw fail("unknown colour '\(words[0])'") }
            guard let bg = TerminalColor(name: words[1]) else { throw fail("unknown colour '\(words[1])'") }
            var style = CellStyle(foreground: fg, background: bg)
            for attribute in words.dropFirst(2) {
                switch attribute {
                case "bold": style.bold = true
                case "dim": style.dim = true
                case "underline": style.underline = true
                case "reverse": style.reverse = true
                default: throw fail("unknown attribute '\(attribute)' (bold, dim, underline, reverse)")
                }
            }
            styles[role] = style
        }
        return Theme(name: name, styles: styles)
    }

    /// A line without its comment: `#` at the start of the line, or after white space and
    /// before white space (so `#rrggbb` colours are not comments).
    static func stripComment(_ line: String) -> String {
        if line.trimmingHorizontalWhitespace().hasPrefix("#") { return "" }
        guard let range = line.range(of: " # ") ?? (line.hasSuffix(" #") ? line.range(of: " #", options: .backwards) : nil) else { return line }
        return String(line[..<range.lowerBound])
    }

    /// Every `*.theme` file of `directory`, sorted with `default` first. A file that cannot be
    /// used is left out and reported in `errors`, with why: unreadable (or not a regular
    /// file), larger than 1 MB, not UTF-8, or a line that does not parse. A directory that does
    /// not exist holds no themes and is no error.
    package static func load(directory: String) -> (themes: [Theme], errors: [ThemeError]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else { return ([], []) }
        let files: [String]
        do { files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".theme") }.sorted() } catch {
            return ([], [ThemeError(file: directory, line: nil, message: "cannot list the folder: \(error.localizedDescription)")])
        }
        var themes: [Theme] = [], errors: [ThemeError] = []
        for file in files {
            let path = directory + "/" + file
            // A regular file only: a FIFO named *.theme must not hang the browser's start.
            let data: Data
            do { data = try RegularFile.contents(atPath: path, limit: 1 << 20) } catch {
                errors.append(ThemeError(file: path, line: nil, message: (error as? FileAccessError)?.reason ?? "\(error)"))
                continue
            }
            guard let text = String(data: data, encoding: .utf8) else {
                errors.append(ThemeError(file: path, line: nil, message: "not UTF-8 text"))
                continue
            }
            do { themes.append(try parse(text, name: String(file.dropLast(6)), file: path)) } catch let error as ThemeError {
                errors.append(error)
            } catch {
                errors.append(ThemeError(file: path, line: nil, message: "\(error)"))
            }
        }
        return (sorted(themes), errors)
    }

    /// The themes compiled into the binary (`BuiltInThemes`, the texts of `themes/`), then
    /// the theme files of `directories` in order: a file overrides the theme of the same name
    /// that came before it, built-in or not. Sorted with `default` first; the problems of
    /// every file are in `errors` (see `load(directory:)`).
    package static func available(directories: [String]) -> (themes: [Theme], errors: [ThemeError]) {
        var byName: [String: Theme] = [:], errors: [ThemeError] = []
        for file in BuiltInThemes.files {
            do { byName[file.name] = try parse(file.text, name: file.name, file: "built-in \(file.name).theme") } catch let error as ThemeError {
                errors.append(error)
            } catch {}
        }
        for directory in directories {
            let (themes, problems) = load(directory: directory)
            for theme in themes { byName[theme.name] = theme }
            errors += problems
        }
        return (sorted(Array(byName.values)), errors)
    }

    /// The theme `name` of `themes`.
    /// - throws: `ThemeChoiceError` when there is none: it lists the names there are, and
    ///   the problem of a file named `name.theme` that could not be used (`errors`).
    package static func named(_ name: String, in themes: [Theme], errors: [ThemeError]) throws -> Theme {
        if let theme = themes.first(where: { $0.name == name }) { return theme }
        let broken = errors.first { ($0.file as NSString).lastPathComponent == name + ".theme" }
        throw ThemeChoiceError(name: name, available: themes.map(\.name), problem: broken)
    }

    /// `themes` with `default` first, then by name.
    private static func sorted(_ themes: [Theme]) -> [Theme] {
        themes.sorted { ($0.name == "default" ? 0 : 1, $0.name) < ($1.name == "default" ? 0 : 1, $1.name) }
    }

    /// The theme used when no theme files are found: the same as `themes/default.theme`.
    package static let builtIn: Theme = {
        func s(_ fg: TerminalColor, _ bg: TerminalColor, bold: Bool = false, dim: Bool = false) -> CellStyle {
            CellStyle(foreground: fg, background: bg, bold: bold, dim: dim)
        }
        return Theme(name: "default", styles: [
            .header: s(.standard(0), .standard(6)), .status: s(.standard(0), .standard(7)),
            .tree: s(.terminalDefault, .terminalDefault), .treeSelected: s(.standard(0), .standard(6), bold: true),
            .grid: s(.terminalDefault, .terminalDefault), .gridHeader: s(.standard(6), .terminalDefault, bold: true),
            .gridSelected: s(.standard(0), .standard(7)), .decrypted: s(.standard(2), .terminalDefault),
            .locked: s(.standard(1), .terminalDefault, bold: true), .null: s(.standard(8), .terminalDefault),
            .blob: s(.standard(5), .terminalDefault), .marker: s(.standard(3), .terminalDefault),
            .staged: s(.standard(3), .terminalDefault, bold: true), .error: s(.standard(7), .standard(1), bold: true),
            .dialog: s(.standard(0), .standard(7)), .changed: s(.standard(0), .standard(3)),
        ])
    }()
}

/// `--theme NAME` names no theme that could be loaded.
package struct ThemeChoiceError: Error, Equatable, CustomStringConvertible {
    /// The name asked for.
    package let name: String
    /// The names of the themes there are.
    package let available: [String]
    /// Why a file `NAME.theme` was left out, if there is one.
    package let problem: ThemeError?

    /// `no theme named 'x' (themes: default, light)`, and the file's problem when it has one.
    package var description: String {
        let list = "themes: " + available.joined(separator: ", ")
        if let problem { return "theme '\(name)' cannot be used: \(problem) (\(list))" }
        return "no theme named '\(name)' (\(list))"
    }
}
