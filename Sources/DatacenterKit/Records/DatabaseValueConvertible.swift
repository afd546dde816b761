import Foundation

/// A Swift value that has one SQLite value: what `SQL` interpolation binds.
///
/// Integers are INTEGER, floating point REAL, strings TEXT, `Data` BLOB, `Bool` the integer 0
/// or 1, and `Date` REAL seconds since 1970 (as records store dates).
public protocol DatabaseValueConvertible {
    /// The value as SQLite stores it.
    var databaseValue: DatabaseValue { get }
}

extension DatabaseValue: DatabaseValueConvertible {
    /// The value itself.
    public var databaseValue: DatabaseValue { self }
}

extension Int: DatabaseValueConvertible {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Int64: DatabaseValueConvertible {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { .integer(self) }
}

extension Int32: DatabaseValueConvertible {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Double: DatabaseValueConvertible {
    /// A REAL.
    public var databaseValue: DatabaseValue { .real(self) }
}

extension String: DatabaseValueConvertible {
    /// TEXT.
    public var databaseValue: DatabaseValue { .text(self) }
}

extension Substring: DatabaseValueConvertible {
    /// TEXT.
    public var databaseValue: DatabaseValue { .text(String(self)) }
}

extension Data: DatabaseValueConvertible {
    /// A BLOB.
    public var databaseValue: DatabaseValue { .blob(self) }
}

extension Bool: DatabaseValueConvertible {
    /// The INTEGER 1 or 0.
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
}

extension Date: DatabaseValueConvertible {
    /// A REAL: seconds since 1970-01-01 UTC.
    public var databaseValue: DatabaseValue { .real(timeIntervalSince1970) }
}
