import DatacenterKit
import Foundation

/// `.import ?--csv|--jsonl? FILE TABLE` in the console: the rows of a CSV or JSON Lines file
/// staged for TABLE of the console's store, as one edit the review shows (`w`) and the commit
/// writes (`c`), in the store's transaction (`TableImport`): nothing is written at the
/// command, the console's own SQL stays read-only, and `--read-only` refuses it.
enum ConsoleImport {
    /// The usage line.
    static let usage = ".import ?--csv|--jsonl? FILE TABLE"

    /// The edit `.import` stages, from the words after it, for the store at `storePath`; or
    /// why it cannot (its answer in the console).
    static func staged(_ arguments: [String], storePath: String, catalog: BrowserCatalog) -> Result<StagedEdit, ConsoleImportRefusal> {
        guard catalog.allowsWrites else { return .failure(.init("--read-only: .import stages nothing")) }
        var words = arguments
        var format: TableImport.Format?
        if let flag = words.first, flag == "--csv" || flag == "--jsonl" {
            format = flag == "--csv" ? .csv : .jsonl
            words.removeFirst()
        }
        guard words.count == 2 else { return .failure(.init(".import takes a file and a table: \(usage)")) }
        let path = NSString(string: words[0]).expandingTildeInPath, table = words[1]
        let lowered = path.lowercased()
        guard let chosen = format ?? (lowered.hasSuffix(".csv") ? .csv : lowered.hasSuffix(".jsonl") || lowered.hasSuffix(".ndjson") ? .jsonl : nil) else {
            return .failure(.init("cannot tell the format of \(path): name it .csv or .jsonl, or say --csv or --jsonl"))
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
            return .failure(.init("no file at \(path)"))
        }
        let kind = chosen == .csv ? "CSV" : "JSON Lines"
        return .success(StagedEdit(storePath: storePath, action: .importRows(file: path, format: chosen, table: table),
                                   preview: "IMPORT the rows of \(path) (\(kind)) INTO \(Database.quoteIdentifier(table))", target: table))
    }
}

/// Why `.import` staged nothing, in words.
struct ConsoleImportRefusal: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
