import Foundation

/// Turns typed text into DAO argument values: strict JSON plus three markers. The one parser
/// behind `datacenter dao call|render --args/--global` and the browser's DAO form, so a value
/// means the same wherever it is typed.
///
/// Besides plain JSON (`42`, `true`, `"ann"`, `[1, 2]`, `{"a": null}`):
/// - `{"$blob": "<base64>"}` is data;
/// - `{"$date": "<ISO 8601>"}` is a date;
/// - an object with a `"$model": "Type"` key is a model of that type, its other keys its
///   properties, so a `<crypt class="Type">` rule applies to it (a plain object never is one).
///
/// Markers are read at any depth (a list of models). Text that is not JSON is refused, never
/// taken as a string: `flase` is an error, not a truthy string.
///
/// For example:
/// ```swift
/// let m = try DAOArgumentParser.value(#"{"$model": "MessageModel", "content": "hi"}"#)
/// // .model("MessageModel", ["content": .string("hi")])
/// ```
public enum DAOArgumentParser {
    /// One argument's text (a form field).
    /// - throws: `DAOArgumentError` (`.empty` for blank text, `.notJSON`, a bad marker).
    public static func value(_ text: String) throws(DAOArgumentError) -> DAOValue {
        try json(text)
    }

    /// A JSON array of arguments, one per method argument in order (`--args`).
    /// - throws: `DAOArgumentError`; `.notAnArray` when the JSON is not an array.
    public static func arguments(_ text: String) throws(DAOArgumentError) -> [DAOValue] {
        guard case .array(let elements) = try json(text) else { throw .notAnArray }
        return elements
    }

    /// A JSON object of global arguments, name → value (`--global`).
    /// - throws: `DAOArgumentError`; `.notAnObject` when the JSON is not an object.
    public static func globals(_ text: String) throws(DAOArgumentError) -> [String: DAOValue] {
        guard case .dictionary(let fields) = try json(text) else { throw .notAnObject }
        return fields
    }

    /// What a JSON object whose values are resolved stands for: data for `{"$blob": …}`, a
    /// date for `{"$date": …}`, a model for an object with `"$model"`, else a dictionary.
    /// `path` names the object in errors.
    private static func object(_ fields: [String: DAOValue], path: () -> String) throws(DAOArgumentError) -> DAOValue {
        if fields.count == 1, let text = fields["$blob"] {
            guard let base64 = text.stringValue, let data = Data(base64Encoded: base64) else { throw .badBlob(path: path()) }
            return .data(data)
        }
        if fields.count == 1, let text = fields["$date"] {
            guard let iso = text.stringValue, let date = ISO8601DateFormatter().date(from: iso) else { throw .badDate(path: path()) }
            return .date(date)
        }
        guard let type = fields["$model"] else { return .dictionary(fields) }
        guard let name = type.stringValue, !name.isEmpty else { throw .badModelType(path: path()) }
        var properties = fields
        properties["$model"] = nil
        return .model(name, properties)
    }

    /// Strict JSON (any value at the top, not only arrays and objects), markers resolved as
    /// each object is read (`DAOJSONReader`: no intermediate tree).
    private static func json(_ text: String) throws(DAOArgumentError) -> DAOValue {
        guard text.utf8.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else { throw .empty }
        do {
            return try DAOJSONReader.value(of: text, object: object)
        } catch let error as DAOArgumentError {
            throw error
        } catch {
            throw .notJSON(reason: hint(for: text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "\(error)")
        }
    }

    /// A hint for the usual slips: a bare word (a misspelt `true`, a string without quotes),
    /// an unclosed string, array or object. One pass that tracks strings and nesting.
    private static func hint(for text: String) -> String? {
        if text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }) {
            return "a bare word: strings need double quotes; booleans are true and false, nil is null"
        }
        var inString = false, escaped = false
        var open: [Character] = []
        for c in text {
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            switch c {
            case "\"": inString = true
            case "[", "{": open.append(c)
            case "]", "}":
                guard let last = open.popLast(), (last == "[") == (c == "]") else { return "a \(c) closes nothing open" }
            default: break
            }
        }
        if inString { return "a string is not closed (a \" is missing)" }
        if let last = open.last { return last == "[" ? "an array is not closed (a ] is missing)" : "an object is not closed (a } is missing)" }
        return nil
    }

}
