/// Why text typed for a DAO argument (`dao call --args`, a browser form field) is not a value.
///
/// Messages say what is wrong and where (`$m.time`, `[1]`), never the typed value itself: it
/// may be a secret the user meant to encrypt.
public enum DAOArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing was typed; a value (or `null`) is needed.
    case empty
    /// The text is not JSON; `reason` is the parser's (`Unexpected character 'f' at 1:1`) or
    /// a hint for a common slip (a bare word, a missing quote).
    case notJSON(reason: String)
    /// A list of arguments that is not a JSON array.
    case notAnArray
    /// Global arguments that are not a JSON object.
    case notAnObject
    /// `{"$blob": …}` whose value is not a base64 string; `path` is where it is.
    case badBlob(path: String)
    /// `{"$date": …}` whose value is not an ISO 8601 date; `path` is where it is.
    case badDate(path: String)
    /// `{"$model": …}` whose type name is not a non-empty string; `path` is where it is.
    case badModelType(path: String)

    public var description: String {
        switch self {
        case .empty: return "empty: type a JSON value (strings in double quotes)"
        case .notJSON(let reason): return "not JSON: \(reason)"
        case .notAnArray: return "not a JSON array, such as [1, \"ann\"]"
        case .notAnObject: return "not a JSON object, such as {\"userId\": 7}"
        case .badBlob(let path): return "{\"$blob\": …} needs a base64 string" + DAOArgumentError.at(path)
        case .badDate(let path):
            return "{\"$date\": …} needs an ISO 8601 date such as 2026-01-01T00:00:00Z" + DAOArgumentError.at(path)
        case .badModelType(let path): return "\"$model\" needs a type name" + DAOArgumentError.at(path)
        }
    }

    private static func at(_ path: String) -> String { path.isEmpty ? "" : " (at \(path))" }
}
