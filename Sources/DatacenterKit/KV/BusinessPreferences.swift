/// A key-value store bound to one business, so calls need only the key
/// (`APBusinessPreferences`; also what an `APPreferencesAccessor` hands out).
///
/// Custom storages use the business `BusinessPreferences.customStorageBusiness`.
///
/// Each method is the `KVStore` method of the same name with `business` filled in, and
/// documented there.
public struct BusinessPreferences: Sendable {
    /// The underlying store.
    public let store: KVStore
    /// The business every call uses.
    public let business: String

    /// The business under which a custom storage keeps its values.
    public static let customStorageBusiness = "default"

    /// `store` seen through `business`.
    /// 
    /// Every method below is the `KVStore` method of the same name with `business` filled in.
    public init(store: KVStore, business: String) {
        self.store = store
        self.business = business
    }

    public func integer(forKey key: String) throws -> Int? { try store.integer(forKey: key, business: business) }
    public func integer(forKey key: String, defaultValue: Int) throws -> Int { try store.integer(forKey: key, business: business, defaultValue: defaultValue) }
    public func setInteger(_ value: Int, forKey key: String) throws { try store.setInteger(value, forKey: key, business: business) }
    public func longLong(forKey key: String) throws -> Int64? { try store.longLong(forKey: key, business: business) }
    public func setLongLong(_ value: Int64, forKey key: String) throws { try store.setLongLong(value, forKey: key, business: business) }
    public func bool(forKey key: String) throws -> Bool? { try store.bool(forKey: key, business: business) }
    public func bool(forKey key: String, defaultValue: Bool) throws -> Bool { try store.bool(forKey: key, business: business, defaultValue: defaultValue) }
    public func setBool(_ value: Bool, forKey key: String) throws { try store.setBool(value, forKey: key, business: business) }
    public func double(forKey key: String) throws -> Double? { try store.double(forKey: key, business: business) }
    public func double(forKey key: String, defaultValue: Double) throws -> Double { try store.double(forKey: key, business: business, defaultValue: defaultValue) }
    public func setDouble(_ value: Double, forKey key: String) throws { try store.setDouble(value, forKey: key, business: business) }
    public func string(forKey key: String, crypt: (any DataCrypt)? = nil) throws -> String? { try store.string(forKey: key, business: business, crypt: crypt) }
    public func setString(_ value: String?, forKey key: String, encryption: KVEncryption = .none, options: KVOptions = []) throws {
        try store.setString(value, forKey: key, business: business, encryption: encryption, options: options)
    }
    public func object(forKey key: String, crypt: (any DataCrypt)? = nil) throws -> KVValue? { try store.object(forKey: key, business: business, crypt: crypt) }
    public func setObject(_ value: PropertyListValue?, forKey key: String, encryption: KVEncryption = .none, options: KVOptions = []) throws {
        try store.setObject(value, forKey: key, business: business, encryption: encryption, options: options)
    }
    public func archiveObject<T: Encodable>(_ value: T, forKey key: String, encryption: KVEncryption = .none, options: KVOptions = []) throws {
        try store.archiveObject(value, forKey: key, business: business, encryption: encryption, options: options)
    }
    public func unarchiveObject<T: Decodable>(_ type: T.Type, forKey key: String, crypt: (any DataCrypt)? = nil) throws -> T? {
        try store.unarchiveObject(type, forKey: key, business: business, crypt: crypt)
    }
    public func saveJsonObject<T: Encodable>(_ value: T, forKey key: String, encryption: KVEncryption = .none, options: KVOptions = []) throws {
        try store.saveJsonObject(value, forKey: key, business: business, encryption: encryption, options: options)
    }
    public func jsonObject<T: Decodable>(_ type: T.Type, forKey key: String, crypt: (any DataCrypt)? = nil) throws -> T? {
        try store.jsonObject(type, forKey: key, business: business, crypt: crypt)
    }
    @discardableResult
    public func removeValue(forKey key: String) throws -> Bool { try store.removeValue(forKey: key, business: business) }
    @discardableResult
    public func removeValues(like pattern: String) throws -> Int { try store.removeValues(like: pattern, business: business) }
    public func containsValue(forKey key: String) throws -> Bool { try store.containsValue(forKey: key, business: business) }
    public func allKeys() throws -> [String] { try store.allKeys(business: business) }
}
