import DatacenterKit

/// The SQL functions the browser adds to every connection it reads through (the stores'
/// and the console's): `datacenter_decrypt(x)` (`CryptSQL`) and `regexp`, which SQLite's
/// `REGEXP` operator calls (`SQLRegexp`), so a filter and the console can use both.
enum BrowserSQLFunctions {
    /// Adds the functions to `db`, decrypting with `crypt`.
    static func register(on db: Database, crypt: any DataCrypt) throws {
        try CryptSQL.register(on: db, crypt: crypt)
        try SQLRegexp.register(on: db)
    }
}
