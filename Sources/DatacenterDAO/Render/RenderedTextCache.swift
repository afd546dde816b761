import DatacenterKit

/// The SQL text of the last few shapes one dynamic template rendered, so that a call taking
/// the same branches as an earlier one writes no text at all: it only runs the template's
/// decision pass (`DecisionProgram`) for its decisions and bound values, then takes the text.
///
/// **Why the decisions determine the text.** A template's text is made of its literal text,
/// the table name, and `?` for each bound value; `<if>`, `<choose>` and `<foreach>` decide
/// which parts appear (the branch taken, the number of elements), and `<where>`, `<set>`,
/// `<trim>` and foreach iterations rework that text alone. So the table name and the
/// sequence of decisions give the text, the placeholders' places included. Three things
/// break that, and a template holding one gets no cache (`init(template:)` is nil): an
/// `@{}` value (its text is the argument's), a `<format>` (its keys are), and a trim with
/// `onVoid` (the decision pass writes no text, so it cannot tell whether the body was blank
/// and the rest of the template would be skipped).
///
/// The bindings are always the call's own values, from the decision pass. Every hit is
/// checked to bind as many values as the kept text has placeholders; the equivalence tests
/// (`RenderedTextCacheTests`) hold cached renderings to writing the text each time.
///
/// A hit hands out the same `String` every time, so the statement cache, which compares
/// with the last SQL asked for first, finds it by identity instead of comparing the bytes.
///
/// Kept with the plan of a method (`DAOCallPlan.oneStatement`), shared by every DAO object
/// of its config and every thread; a lock guards the entries.
final class RenderedTextCache: Sendable {
    /// One shape and its text.
    struct Entry: Sendable {
        var tableName: String
        var decisions: [Int32]
        var sql: String
        var marks: PreviewMarks
    }

    /// How many shapes are kept: a method is usually called with a few combinations of its
    /// branches; past this the least recently used is dropped.
    static let limit = 8

    private let entries = LockedState<[Entry]>([])

    /// The template's decision pass.
    let program: DecisionProgram

    /// A cache for `template` of a method taking `arguments`, or nil when it needs none (a
    /// static statement's SQL is made once per table: `StaticStatementPlan`) or its text is
    /// not a function of its decisions (it holds an `@{}`, a `<format>` or an `onVoid` trim:
    /// `DecisionProgram` compiles none).
    init?(template: any SQLNode, arguments: [DAOArgumentSpec]) {
        guard (template as? SequenceNode)?.staticPlan == nil,
              let program = DecisionProgram(template: template, arguments: arguments) else { return nil }
        self.program = program
    }

    /// How many shapes are kept now (for tests and diagnostics).
    var keptCount: Int { entries.withLock { $0.count } }

    /// The text kept for the shape of `decisions` on `tableName`, if any.
    func text(tableName: String, decisions: [Int32]) -> (String, PreviewMarks)? {
        entries.withLock { entries in
            for index in entries.indices where entries[index].decisions == decisions && entries[index].tableName == tableName {
                if index > 0 { entries.swapAt(index, 0) }
                return (entries[0].sql, entries[0].marks)
            }
            return nil
        }
    }

    /// Keeps `sql` and `marks` as the text of the shape of `decisions` on `tableName`.
    func remember(_ sql: String, marks: PreviewMarks, tableName: String, decisions: [Int32]) {
        let entry = Entry(tableName: tableName, decisions: decisions, sql: sql, marks: marks)
        entries.withLock { entries in
            if entries.count >= RenderedTextCache.limit { entries.removeLast() }
            entries.insert(entry, at: 0)
        }
    }
}
