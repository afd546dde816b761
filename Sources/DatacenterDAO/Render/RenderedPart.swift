/// One statement of a rendered call with the part of the method it comes from: how a
/// preview labels what will run (`datacenter dao render`, the browser's DAO panel).
public struct RenderedPart: Sendable, Equatable {
    /// `statement`, `step`, `resumable step`, `try`, `except`, or for steps inside a try
    /// part `try step`, `except resumable step`, ….
    public let label: String
    /// The method-level foreach element's index, else 0.
    public let run: Int
    /// The statement.
    public let statement: RenderedSQL

    /// The label with the foreach element when the call has a method-level foreach:
    /// `step, element 2`.
    public func heading(inForEach isForEach: Bool) -> String {
        label + (isForEach ? ", element \(run)" : "")
    }
}

extension RenderedCall {
    /// Every statement of every run in run order, each with its part (both branches of a try
    /// are listed: which one runs is known only when the try part runs).
    public var parts: [RenderedPart] {
        var parts: [RenderedPart] = []
        func add(_ body: RenderedBody, run: Int, branch: String?) {
            switch body {
            case .statement(let statement):
                parts.append(RenderedPart(label: branch ?? "statement", run: run, statement: statement))
            case .steps(let steps):
                for step in steps {
                    let part = step.resumable ? "resumable step" : "step"
                    parts.append(RenderedPart(label: branch.map { "\($0) \(part)" } ?? part, run: run, statement: step.statement))
                }
            case .tryExcept(let attempt, let fallback):
                add(attempt, run: run, branch: "try")
                add(fallback, run: run, branch: "except")
            }
        }
        for (index, run) in runs.enumerated() { add(run, run: index, branch: nil) }
        return parts
    }

    /// True when the call is exactly one statement (no method-level foreach, steps or try):
    /// a preview then needs no labels.
    public var isSingleStatement: Bool { soleStatement != nil }
}
