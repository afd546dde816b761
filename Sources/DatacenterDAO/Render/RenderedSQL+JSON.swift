import DatacenterKit
import Foundation

extension DAOValue {
    /// A value from a JSON-compatible Foundation object (what `JSONSerialization` returns).
    public init(jsonObject: Any) { self = DAOValueDecoding.fromJSON(jsonObject) }

    /// Parses JSON text (`42`, `"x"`, `[1, 2]`, `{"a": null}`): how a command line or a form
    /// passes arguments.
    /// Numbers written as integers are `.integer`, other numbers `.double` (`DAOJSONReader`).
    /// - throws: an error naming the line and column where `text` stops being JSON.
    public init(parsingJSON text: String) throws {
        self = try DAOJSONReader.value(of: text)
    }
}

extension RenderedSQL {
    /// The statement as a JSON-ready value: sql, bindings (as SQL literals), preview,
    /// encryptedBindings, skipped, location.
    public var summary: DAOValue {
        [
            "sql": .string(sql),
            "bindings": .array(bindings.map { .string($0.description) }),
            "preview": .string(preview),
            "encryptedBindings": .array(encryptedBindings.map { .integer(Int64($0)) }),
            "skipped": .bool(skipped),
            "location": location.map { .string($0.description) } ?? .nil,
        ]
    }
}

extension RenderedBody {
    /// The body as a JSON-ready value: `{"statement": …}`, `{"steps": [{"resumable", "statement"}]}`
    /// or `{"try": …, "except": …}`.
    public var summary: DAOValue {
        switch self {
        case .statement(let s): return ["statement": s.summary]
        case .steps(let steps):
            return ["steps": .array(steps.map { ["resumable": .bool($0.resumable), "statement": $0.statement.summary] })]
        case .tryExcept(let a, let b): return ["try": a.summary, "except": b.summary]
        }
    }
}

extension RenderedCall {
    /// The call as a JSON-ready value (`summary.jsonText` prints it).
    public var summary: DAOValue {
        ["method": .string(methodID), "kind": .string(kind.rawValue), "foreach": .bool(isForEach),
         "runs": .array(runs.map(\.summary))]
    }
}

extension DAOMethod {
    /// The method as a JSON-ready value for listings: id, kind, arguments (with `required`),
    /// result, foreach, parallel, location.
    public var summary: DAOValue {
        [
            "id": .string(id),
            "kind": .string(kind.rawValue),
            "arguments": .array(arguments.map { ["name": .string($0.name), "required": .bool($0.isRequired)] }),
            "result": result.map { .string($0.text) } ?? .nil,
            "foreach": forEach.map { .string("\($0.collection).\($0.item)") } ?? .nil,
            "parallel": .bool(isParallel),
            "location": .string(location.description),
        ]
    }
}
