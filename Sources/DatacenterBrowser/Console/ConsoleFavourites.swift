import DatacenterKit
import Foundation

/// Favourite queries saved by name, as litecli's `\fs`: `\fs NAME QUERY` saves one, `\f NAME`
/// runs it, `\f` lists them, `\fd NAME` deletes one. They are the user's, not a store's:
/// every console (every store) sees the same, kept between sessions in the state folder
/// (`console-favourites.json`, a JSON object NAME → QUERY, 0600, written whole).
struct ConsoleFavourites: Equatable {
    /// The queries by name.
    private(set) var queries: [String: String] = [:]

    /// What a `\f` line asks for.
    enum Command: Equatable {
        /// Answer with these lines (a list, a save, a delete, or why not).
        case answer([String], isError: Bool)
        /// Run this saved query.
        case run(String)
    }

    /// What `line` asks for when it is a `\f`, `\fs` or `\fd` command; nil for any other
    /// line. A save or delete changes the favourites.
    mutating func handle(_ line: String) -> Command? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let words = trimmed.split(maxSplits: 2, whereSeparator: \.isWhitespace).map(String.init)
        guard let command = words.first?.lowercased(), ["\\f", "\\fs", "\\fd"].contains(command) else { return nil }
        let name = words.count > 1 ? words[1] : nil
        switch command {
        case "\\fs":
            guard let name, words.count == 3, !words[2].isEmpty else {
                return .answer(["\\fs NAME QUERY saves a query by name (\\f NAME runs it)"], isError: true)
            }
            guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                return .answer(["a favourite's name is letters, digits, _ and -: \(name)"], isError: true)
            }
            queries[name] = words[2]
            return .answer(["saved \(name): \(words[2])"], isError: false)
        case "\\fd":
            guard let name, words.count == 2 else { return .answer(["\\fd NAME deletes a favourite"], isError: true) }
            guard queries.removeValue(forKey: name) != nil else { return .answer(["no favourite named \(name)"], isError: true) }
            return .answer(["deleted \(name)"], isError: false)
        default:
            guard let name else {
                return .answer(queries.isEmpty ? ["no favourites yet: \\fs NAME QUERY saves one"]
                                   : queries.keys.sorted().map { "\($0): \(queries[$0] ?? "")" }, isError: false)
            }
            guard let query = queries[name] else {
                return .answer(["no favourite named \(name)" + (queries.isEmpty ? "" : " (favourites: \(queries.keys.sorted().joined(separator: ", ")))")],
                               isError: true)
            }
            return .run(query)
        }
    }

    /// The favourites file in `stateFolder`.
    static func file(in stateFolder: URL) -> URL { stateFolder.appendingPathComponent("console-favourites.json") }

    /// The favourites kept in `stateFolder`: none when there is no file yet.
    /// - throws: a description naming the file when it is there but is not a JSON object of
    ///   names and queries (the next save replaces it).
    static func load(from stateFolder: URL) throws -> ConsoleFavourites {
        let url = file(in: stateFolder)
        guard let data = FileManager.default.contents(atPath: url.path) else { return ConsoleFavourites() }
        guard let queries = try? JSONDecoder().decode([String: String].self, from: data) else {
            throw FavouritesFileError(description: "console favourites \(url.path) not used: it is not a JSON object of names and queries")
        }
        return ConsoleFavourites(queries: queries)
    }

    /// Writes the favourites into `stateFolder` (created, 0700), whole or not at all (0600).
    /// - throws: `FileAccessError` naming the folder or the file.
    func save(to stateFolder: URL) throws {
        try PrivateFile.createFolder(atPath: stateFolder.path)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try PrivateFile.write(try encoder.encode(queries), toPath: Self.file(in: stateFolder).path)
    }
}

/// A favourites file that could not be used.
struct FavouritesFileError: Error, CustomStringConvertible {
    let description: String
}
