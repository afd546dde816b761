import DatacenterKit

/// Why a DAO call failed. Messages name methods, arguments and config locations, never the
/// values of arguments (they may be secrets); names a caller gave are quoted as a short
/// excerpt (`Excerpt`).
public enum DAOError: Error, Sendable, CustomStringConvertible {
    /// No method of that name.
    case unknownMethod(String, suggestion: String?)
    /// The method exists, but not with that many arguments.
    case wrongArgumentCount(method: String, given: Int, accepted: [Int])
    /// A `$` argument was nil; nothing ran.
    case nilArgument(method: String, argument: String)
    /// Rendering failed at a config location (bad collection, missing table name, …).
    case render(String, at: SourceLocation)
    /// An expression failed while evaluating (a type error).
    case expression(ExpressionError, at: SourceLocation)
    /// SQLite failed; the error names the SQL.
    case database(DatabaseError)
    /// Encryption or decryption of a crypt column failed.
    case crypt(String)
    /// The table's stored version is newer than the config's; nothing was dropped.
    case downgrade(table: String, stored: String, config: String)
    /// An upgrade block failed; the table stays at `reached`.
    case upgradeFailed(table: String, toVersion: String, reached: String, underlying: String)
    /// A call needs a table name and none is set (the module's `tableName` is empty).
    case noTableName
    /// A result could not be mapped (a model type that does not decode from the row).
    case resultMapping(String)
    /// The regular expression given to `deleteTables(matching:)` does not compile.
    case badPattern(String)
    /// A rendered statement held more than one SQL statement (text after its first statement
    /// other than whitespace, comments and `;`, or a NUL character), so it was refused before
    /// it ran: one rendered statement is one SQL statement (several run as `<step>`s). Names
    /// the method (nil for an upgrade block) and where its body is; never the SQL, which may
    /// hold inlined values.
    case moreThanOneStatement(method: String?, at: SourceLocation?)
    /// A user-dependent DAO (`daoWithPath:userDependent:YES`) was used while no user is
    /// signed in: nothing ran and nothing was written. Names the config's module and what
    /// was asked (a method id, or an operation such as `deleteTable`).
    case noCurrentUser(module: String, operation: String)

    public var description: String {
        switch self {
        case .unknownMethod(let name, let s):
            return "unknown method '\(Excerpt.of(name))'" + (s.map { " (did you mean '\(Excerpt.of($0))'?)" } ?? "")
        case .wrongArgumentCount(let m, let given, let accepted):
            return "method '\(Excerpt.of(m))' takes \(accepted.map(String.init).joined(separator: " or ")) argument(s), \(given) given"
        case .nilArgument(let m, let a): return "method '\(Excerpt.of(m))': argument '$\(Excerpt.of(a))' must not be nil"
        case .render(let message, let at): return "\(at): error: \(message)"
        case .expression(let e, let at): return "\(at): error: \(e)"
        case .database(let e): return e.description
        case .crypt(let m): return "crypt column: \(m)"
        case .downgrade(let t, let stored, let config):
            return "table '\(t)' is at version \(stored), newer than the config's \(config); nothing was changed"
        case .upgradeFailed(let t, let to, let reached, let why):
            return "upgrading table '\(t)' to \(to) failed (it stays at \(reached)): \(why)"
        case .noTableName: return "no table name: the module's tableName is empty and none was set"
        case .resultMapping(let m): return "cannot map the result: \(m)"
        case .badPattern(let m): return "bad regular expression: \(m)"
        case .noCurrentUser(let module, let operation):
            return "DAO '\(Excerpt.of(module))': cannot run '\(Excerpt.of(operation))' with no current user "
                + "(it is user-dependent); nothing was written"
        case .moreThanOneStatement(let method, let at):
            let prefix = at.map { "\($0): error: " } ?? ""
            let subject = method.map { "method '\($0)'" } ?? "a rendered body"
            return prefix + subject + " rendered more than one SQL statement (text after the first one), refused "
                + "before running it: a body is one statement; several run as <step> elements"
        }
    }
}
