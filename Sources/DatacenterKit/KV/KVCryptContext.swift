extension CryptContext {
    /// The place of a KV value: `kv`, its business, its key and its encoding. An encrypted
    /// value is bound to it, so its ciphertext copied under another business or key (or
    /// relabelled as another type) no longer decrypts.
    public static func kvValue(business: String, key: String, encoding: KVEncoding) -> CryptContext {
        CryptContext("kv", business, key, encoding.rawValue)
    }
}
