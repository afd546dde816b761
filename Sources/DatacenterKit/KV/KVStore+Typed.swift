import Foundation

/// The typed accessors of `APSharedPreferences`: each reads the type it names and throws
/// `KVError.typeMismatch` when the stored value has another type. A missing key gives nil,
/// or the default value where one is passed.
extension KVStore {
    // MARK: Numbers and booleans

    /// The integer under `key`, or nil.
    public func integer(forKey key: String, business: String) throws -> Int? {
        try int64(forKey: key, business: business).map { Int(truncatingIfNeeded: $0) }
    }

    /// The integer under `key`, or `defaultValue` when there is none.
    public func integer(forKey key: String, business: String, defaultValue: Int) throws -> Int {
        try integer(forKey: key, business: business) ?? defaultValue
    }

    /// Stores an integer.
    public func setInteger(_ value: Int, forKey key: String, business: String) throws {
        try set(.integer(Int64(value)), forKey: key, business: business)
    }

    /// The `long long` under `key`, or nil.
    public func longLong(forKey key: String, business: String) throws -> Int64? {
        try int64(forKey: key, business: business)
    }

    /// The `long long` under `key`, or `defaultValue`.
    public func longLong(forKey key: String, business: String, defaultValue: Int64) throws -> Int64 {
        try int64(forKey: key, business: business) ?? defaultValue
    }

    /// Stores a `long long`.
    public func setLongLong(_ value: Int64, forKey key: String, business: String) throws {
        try set(.integer(value), forKey: key, business: business)
    }

    /// The boolean under `key`, or nil.
    public func bool(forKey key: String, business: String) throws -> Bool? {
        switch try typed(key, business, .bool) {
        case .bool(let b)?: return b
        default: return nil
        }
    }

    /// The boolean under `key`, or `defaultValue`.
    public func bool(forKey key: String, business: String, defaultValue: Bool) throws -> Bool {
        try bool(forKey: key, business: business) ?? defaultValue
    }

    /// Stores a boolean.
    public func setBool(_ value: Bool, forKey key: String, business: String) throws {
        try set(.bool(value), forKey: key, business: business)
    }

    /// The double under `key` (an integer value reads as a double too), or nil.
    public func double(forKey key: String, business: String) throws -> Double? {
        switch try value(forKey: key, business: business) {
        case nil: return nil
        case .double(let d)?: return d
        case .integer(let v)?: return Double(v)
        case let other?:
            throw KVError.typeMismatch(business: business, key: key, stored: other.encoding, requested: .double)
        }
    }

    /// The double under `key`, or `defaultValue`.
    public func double(forKey key: String, business: String, defaultValue: Double) throws -> Double {
        try double(forKey: key, business: business) ?? defaultValue
    }

    /// Stores a double.
    public func setDouble(_ value: Double, forKey key: String, business: String) throws {
        try set(.double(value), forKey: key, business: business)
    }

    // MARK: Strings and objects

    /// The string under `key`, or nil. Pass `crypt` for a value stored with a custom crypt.
    public func string(forKey key: String, business: String, crypt: (any DataCrypt)? = nil) throws -> String? {
        switch try typed(key, business, .string, crypt: crypt) {
        case .string(let s)?: return s
        default: return nil
        }
    }

    /// Stores a string, optionally encrypted; nil removes the key.
    public func setString(_ value: String?, forKey key: String, business: String,
                          encryption: KVEncryption = .none, options: KVOptions = []) throws {
        guard let value else { try removeValue(forKey: key, business: business); return }
        try set(.string(value), forKey: key, business: business, encryption: encryption, options: options)
    }

    /// The value under `key` decoded by the encoding recorded with it (`objectForKey`).
    public func object(forKey key: String, business: String, crypt: (any DataCrypt)? = nil) throws -> KVValue? {
        try value(forKey: key, business: business, crypt: crypt)
    }

    /// Stores a property-list value (`setObject`); nil removes the key.
    public func setObject(_ value: PropertyListValue?, forKey key: String, business: String,
                          encryption: KVEncryption = .none, options: KVOptions = []) throws {
        guard let value else { try removeValue(forKey: key, business: business); return }
        try set(.plist(value), forKey: key, business: business, encryption: encryption, options: options)
    }

    /// The property-list value under `key`, or nil.
    public func propertyList(forKey key: String, business: String, crypt: (any DataCrypt)? = nil) throws -> PropertyListValue? {
        switch try typed(key, business, .plist, crypt: crypt) {
        case .plist(let p)?: return p
        default: return nil
        }
    }

    /// Archives any `Codable` value as a binary property list (`archiveObject`).
    public func archiveObject<T: Encodable>(_ value: T, forKey key: String, business: String,
                                            encryption: KVEncryption = .none, options: KVOptions = []) throws {
        let data: Data
        do { data = try ArchiveCodec.encode(value) } catch {
            throw KVError.coding(business: business, key: key, reason: String(describing: error))
        }
        try set(.archive(data), forKey: key, business: business, encryption: encryption, options: options)
    }

    /// The archived value under `key` decoded as `type`, or nil.
    public func unarchiveObject<T: Decodable>(_ type: T.Type, forKey key: String, business: String,
                                              crypt: (any DataCrypt)? = nil) throws -> T? {
        guard case .archive(let data)? = try typed(key, business, .archive, crypt: crypt) else { return nil }
        do { return try ArchiveCodec.decode(T.self, from: data) } catch {
            throw KVError.coding(business: business, key: key, reason: String(describing: error))
        }
    }

    /// Stores any `Codable` value as JSON text (`saveJsonObject`).
    public func saveJsonObject<T: Encodable>(_ value: T, forKey key: String, business: String,
                                             encryption: KVEncryption = .none, options: KVOptions = []) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(value) } catch {
            throw KVError.coding(business: business, key: key, reason: String(describing: error))
        }
        try set(.json(data), forKey: key, business: business, encryption: encryption, options: options)
    }

    /// The JSON value under `key` decoded as `type`, or nil.
    public func jsonObject<T: Decodable>(_ type: T.Type, forKey key: String, business: String,
                                         crypt: (any DataCrypt)? = nil) throws -> T? {
        guard case .json(let data)? = try typed(key, business, .json, crypt: crypt) else { return nil }
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw KVError.coding(business: business, key: key, reason: String(describing: error))
        }
    }

    // MARK: Helpers

    private func int64(forKey key: String, business: String) throws -> Int64? {
        switch try typed(key, business, .integer) {
        case .integer(let v)?: return v
        default: return nil
        }
    }

    /// The value under `key` when it has `encoding`; nil when absent; a mismatch otherwise.
    private func typed(_ key: String, _ business: String, _ encoding: KVEncoding,
                       crypt: (any DataCrypt)? = nil) throws -> KVValue? {
        guard let value = try value(forKey: key, business: business, crypt: crypt) else { return nil }
        guard value.encoding == encoding else {
            throw KVError.typeMismatch(business: business, key: key, stored: value.encoding, requested: encoding)
        }
        return value
    }
}
