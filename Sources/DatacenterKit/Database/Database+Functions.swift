import CSQLite
import Foundation

/// Scalar SQL functions written in Swift, registered on one connection.
///
/// For example:
/// ```swift
/// try db.createFunction("shout", argumentCount: 1, deterministic: true) { arguments in
///     guard case .text(let text) = arguments[0] else { return .null }
///     return .text(text.uppercased())
/// }
/// try db.scalar("SELECT shout('hi')")   // .text("HI")
/// ```
///
/// See <https://sqlite.org/c3ref/create_function.html>.
extension Database {
    /// Registers (or replaces) the scalar function `name` taking `argumentCount` arguments
    /// (-1: any number) on this connection, for every statement prepared on it from now on.
    ///
    /// `body` runs on the thread that steps the statement, once per call, with the arguments
    /// as values; what it returns is the call's result. A throw makes the statement fail with
    /// `SQLITE_ERROR` and the error's description as message (so the description must not
    /// hold a secret). The connection keeps `body` until the function is replaced or the
    /// connection closes.
    ///
    /// - parameter deterministic: true when the same arguments always give the same result,
    ///   which lets SQLite use the function in indexes and factor calls out of loops.
    /// - throws: `DatabaseError` when SQLite refuses the registration (a bad name or count,
    ///   or a statement of this connection running).
    package func createFunction(_ name: String, argumentCount: Int32, deterministic: Bool = false,
                                _ body: @escaping ([DatabaseValue]) throws -> DatabaseValue) throws {
        try checkOpen()
        let box = Unmanaged.passRetained(FunctionBody(body)).toOpaque()
        let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
        let rc = sqlite3_create_function_v2(handle, name, argumentCount, flags, box, { context, count, arguments in
            guard let context, let user = sqlite3_user_data(context) else { return }
            let function = Unmanaged<FunctionBody>.fromOpaque(user).takeUnretainedValue()
            var values: [DatabaseValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<Int(count) { values.append(Database.value(of: arguments?[index])) }
            do {
                Database.setResult(try function.body(values), in: context)
            } catch {
                sqlite3_result_error(context, "\(error)", -1)
            }
        }, nil, nil, { user in
            // SQLite calls this when the function is replaced, or the connection closes,
            // and also when registering failed: the box is released exactly once.
            if let user { Unmanaged<FunctionBody>.fromOpaque(user).release() }
        })
        guard rc == SQLITE_OK else { throw DatabaseError.from(handle, code: rc, path: path) }
    }

    /// A function's Swift body, handed to SQLite as the function's user data.
    private final class FunctionBody {
        let body: ([DatabaseValue]) throws -> DatabaseValue
        init(_ body: @escaping ([DatabaseValue]) throws -> DatabaseValue) { self.body = body }
    }

    /// An argument as a value (NULL when SQLite gives none).
    private static func value(of argument: OpaquePointer?) -> DatabaseValue { ColumnValue(handle: argument).value }

    /// Sets the result of a function call; SQLite copies text and blobs.
    private static func setResult(_ value: DatabaseValue, in context: OpaquePointer) {
        switch value {
        case .null: sqlite3_result_null(context)
        case .integer(let v): sqlite3_result_int64(context, v)
        case .real(let d): sqlite3_result_double(context, d)
        case .text(var text):
            text.withUTF8 { bytes in
                let start = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(bitPattern: 1)!
                sqlite3_result_text(context, start.assumingMemoryBound(to: CChar.self), Int32(bytes.count), dc_sqlite_transient())
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                let start = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
                sqlite3_result_blob(context, start, Int32(bytes.count), dc_sqlite_transient())
            }
        }
    }
}
