import Foundation

/// Model types a `result="AType"` (or a map's `result`) can produce, by name.
///
/// A result naming an unregistered type still works: rows come back as dictionaries
/// (`.model(typeName, fields)` values). Thread-safe.
///
/// For example: `registry.register(MessageModel.self)` makes `result="[MessageModel]"`
/// return `MessageModel` instances in `DAOCallResult.objects`.
public final class DAOModelRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var decoders: [String: @Sendable (DAOValue) throws -> any Sendable] = [:]

    public init() {}

    /// Registers `type` under `name` (default: its type name).
    public func register<T: Decodable & Sendable>(_ type: T.Type, as name: String? = nil) {
        let key = name ?? String(describing: type)
        lock.lock(); defer { lock.unlock() }
        decoders[key] = { value in try value.decode(T.self) }
    }

    /// True when `name` is registered.
    public func contains(_ name: String) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return decoders[name] != nil
    }

    /// Decodes `value` as the type registered under `name`, or nil when none is.
    /// - throws: `DAOError.resultMapping` when the row does not decode.
    public func decode(_ value: DAOValue, as name: String) throws -> (any Sendable)? {
        lock.lock()
        let decoder = decoders[name]
        lock.unlock()
        guard let decoder else { return nil }
        do {
            return try decoder(value)
        } catch {
            throw DAOError.resultMapping("a row does not decode as \(name): \(error)")
        }
    }
}
