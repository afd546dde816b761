/// What `datacenter.json` records about a root whose SQLite files are encrypted: that they
/// are, and in which SQLCipher format (`"databaseEncryption": {"format": "sqlcipher4"}`).
///
/// Never a key, nor anything derived from one: the record only lets a tool say "this root
/// needs its database key" before trying a file, and lets new files be created in the
/// format the others are in.
struct RootDatabaseEncryption: Codable, Equatable, Sendable {
    /// The SQLCipher format of every encrypted file of the root.
    var format: DatabaseCipherFormat

    init(format: DatabaseCipherFormat) {
        self.format = format
    }

    private enum CodingKeys: String, CodingKey { case format }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .format)
        guard let format = RootDatabaseEncryption.format(named: name) else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: container,
                                                   debugDescription: "unknown database encryption format \(name)")
        }
        self.format = format
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(RootDatabaseEncryption.name(of: format), forKey: .format)
    }

    /// The name a format has in `datacenter.json`: `sqlcipher4`, `sqlcipher3`.
    static func name(of format: DatabaseCipherFormat) -> String { "sqlcipher\(format.rawValue)" }

    /// The format named `name` in `datacenter.json`, or nil for a name this engine does not know.
    static func format(named name: String) -> DatabaseCipherFormat? {
        DatabaseCipherFormat.allCases.first { self.name(of: $0) == name }
    }
}
