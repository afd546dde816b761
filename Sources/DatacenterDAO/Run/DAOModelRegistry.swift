import DatacenterKit
import Synchronization

/// Model types a `result="AType"` (or a map's `result`) can produce, by name.
///
/// A result naming an unregistered type still works: rows come back as dictionaries
/// (`.model(typeName, fields)` values). Thread-safe: the decoders are behind a mutex.
///
/// For example: `registry.register(MessageModel.self)` makes `result="[MessageModel]"`
/// return `MessageModel` instances in `DAOCallResult.objects`.
public final class DAOModelRegistry: Sendable {
    /// Decodes a `.model` value into an instance of a registered type.
    typealias Decoder = @Sendable (DAOValue) throws -> any Sendable

    private let decoders = LockedState<[String: Decoder]>([:])
    /// How many names were registered: while none is, a result's type is looked up without
    /// taking the lock or hashing its name (most models are never registered).
    private let registrations = Atomic<Int>(0)

    /// An empty registry.
    public init() {}

    /// Registers `type` under `name` (default: its type name).
    public func register<T: Decodable & Sendable>(_ type: T.Type, as name: String? = nil) {
        let key = name ?? String(describing: type)
        decoders.withLock { $0[key] = { value in try value.decode(T.self) } }
        registrations.add(1, ordering: .releasing)
    }

    /// True when `name` is registered.
    public func contains(_ name: String) -> Bool {
        decoders.withLock { $0[name] != nil }
    }

    /// Decodes `value` as the type registered under `name`, or nil when none is.
    /// - throws: `DAOError.resultMapping` when the row does not decode.
    public func decode(_ value: DAOValue, as name: String) throws -> (any Sendable)? {
        guard let decoder = decoder(named: name) else { return nil }
        return try Self.decode(value, as: name, with: decoder)
    }

    /// The decoder registered under `name` (looked up once for all the rows of a call).
    func decoder(named name: String) -> Decoder? {
        guard registrations.load(ordering: .acquiring) > 0 else { return nil }
        return decoders.withLock { $0[name] }
    }

    /// `value` decoded by `decoder`, the type registered under `name`.
    /// - throws: `DAOError.resultMapping` when the row does not decode.
    static func decode(_ value: DAOValue, as name: String, with decoder: Decoder) throws -> any Sendable {
        do {
            return try decoder(value)
        } catch {
            throw DAOError.resultMapping("a row does not decode as \(name): \(error)")
        }
    }
}
