import DatacenterKit
import Foundation

/// A value as a grid sorted in memory (`InMemoryOrder`) orders it: what SQLite would hold
/// if the value were stored in the clear, or a value no key opens.
package enum SortValue: Sendable, Equatable {
    /// SQL NULL.
    case null
    /// A value no key opens: it is never ordered by its ciphertext, only placed after the
    /// NULLs and before every value that opened (ascending; reversed when descending).
    case locked
    /// A value in the clear (decrypted, or stored so).
    case value(DatabaseValue)

    /// The value decrypted by `crypt` as a grid shows it (`ValueFormatter.encryptedCell`):
    /// a BLOB that opens becomes its UTF-8 text, or its bytes when they are not UTF-8; a BLOB
    /// that does not open is `.locked`; a value that is not a BLOB is shown, so ordered, as
    /// stored.
    package static func decrypted(_ stored: DatabaseValue, crypt: any DataCrypt) -> SortValue {
        guard case .blob(let ciphertext) = stored else { return stored == .null ? .null : .value(stored) }
        guard let plain = try? crypt.decrypt(ciphertext) else { return .locked }
        return .value(String(data: plain, encoding: .utf8).map(DatabaseValue.text) ?? .blob(plain))
    }

    /// `.null` for a value SQLite holds as NULL (NULL itself, a NaN), else the value.
    private var normalized: SortValue {
        switch self {
        case .value(.null): return .null
        case .value(.real(let d)) where d.isNaN: return .null
        default: return self
        }
    }

    /// Negative when `self` comes before `other` ascending, 0 when they tie, positive after:
    /// NULL, then locked values, then values as SQLite orders them (`SQLiteOrder`).
    package func order(_ other: SortValue) -> Int {
        switch (normalized, other.normalized) {
        case (.null, .null), (.locked, .locked): return 0
        case (_, .null), (.value, .locked): return 1
        case (.null, _), (.locked, .value): return -1
        case let (.value(a), .value(b)): return SQLiteOrder.compare(a, b)
        }
    }
}

/// SQLite's order of values under the BINARY collation, as `ORDER BY` gives it: NULL, then
/// numbers (integers and reals compared by value), then text (by its UTF-8 bytes), then
/// BLOBs (by their bytes).
package enum SQLiteOrder {
    /// Negative when `a` comes before `b`, 0 when they tie, positive after.
    package static func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        if ra == 0 { return 0 }
        switch (a, b) {
        case let (.integer(x), .integer(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case let (.real(x), .real(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case let (.integer(x), .real(y)): return -compare(real: y, integer: x)
        case let (.real(x), .integer(y)): return compare(real: x, integer: y)
        case let (.text(x), .text(y)): return bytes(x, y)
        case let (.blob(x), .blob(y)): return bytes(x, y)
        default: return 0
        }
    }

    /// NULL 0, numbers 1, text 2, BLOB 3: SQLite's order of storage classes. A NaN ranks
    /// with NULL, as SQLite stores it.
    private static func rank(_ value: DatabaseValue) -> Int {
        switch value {
        case .null: return 0
        case .real(let d) where d.isNaN: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob: return 3
        }
    }

    /// A real against an integer exactly, as SQLite compares them (no rounding of the
    /// integer to a double when the double is integral and in range).
    private static func compare(real x: Double, integer y: Int64) -> Int {
        if x < -9.223372036854775808e18 { return -1 }
        if x >= 9.223372036854775808e18 { return 1 }
        let whole = Int64(x.rounded(.down))
        if whole != y { return whole < y ? -1 : 1 }
        return x > Double(whole) ? 1 : 0
    }

    /// Byte-wise order of two texts' UTF-8 (SQLite's BINARY collation), the shorter first
    /// when one starts the other: `memcmp` over the bytes in place when the strings are
    /// contiguous (native strings are), as a sort of 200,000 values compares millions of times.
    private static func bytes(_ x: String, _ y: String) -> Int {
        var x = x, y = y
        return x.withUTF8 { a in y.withUTF8 { b in memoryOrder(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) } }
    }

    /// Byte-wise order of two blobs, the shorter first when one starts the other.
    private static func bytes(_ x: Data, _ y: Data) -> Int {
        x.withUnsafeBytes { a in y.withUnsafeBytes { b in memoryOrder(a, b) } }
    }

    /// `memcmp` of the common length, then the shorter first.
    static func memoryOrder(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let p = a.baseAddress, let q = b.baseAddress {
            let order = memcmp(p, q, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}

/// The rows of a grid put in order in memory, for a sort SQLite cannot do: by an encrypted
/// column (SQLite holds only its ciphertext) or by a value a KV or cache grid decodes in
/// Swift. Every matching row's key and sort value are read once, sorted here, and the grid
/// then pages by position in the ordered list of keys, each page's rows read by key.
///
/// Only the keys are kept, never the rows. At the bound (`rowBound` rows of AES-GCM text,
/// measured on a 2-core machine), decrypting took 0.9 s (debug build; the work is mostly
/// OpenSSL's) and sorting 0.3 s in a release build (1.6 s in a debug build); the build
/// peaks at about 50 MB above the browser's own memory and the order then keeps about 40 MB
/// (keys and their positions). Esc, or another sort asked for, stops the reading.
/// That stays a short wait in the background (the sort runs in `BrowserCommand.openGrid`,
/// on a reader of the store's pool, so the grid shown keeps paging meanwhile) and a small
/// share of memory; ten times as many rows would not. Above the bound, the sort is refused
/// (`checkBound`) and the message says how many rows there are: a filter (`f`) that keeps
/// fewer lets the sort run.
///
/// The order is total and matches SQLite's for values in the clear: ascending puts NULLs
/// first, then locked values (no key opens them), then values as `SQLiteOrder` orders them,
/// ties by key; descending is exactly the reverse, as `ORDER BY c DESC, key DESC` is. The
/// order is a snapshot: reading the grid again (after a write, `r`) builds it again.
package struct InMemoryOrder: Sendable {
    /// The most rows a grid is sorted in memory: above it, the sort is refused.
    package static let rowBound = 200_000

    /// The keys in the grid's order.
    package let keys: [[DatabaseValue]]
    /// Where each key stands in `keys`.
    private let positions: [[DatabaseValue]: Int]

    /// The keys of `entries`, which come in key order (SQLite's, `ORDER BY` the key),
    /// ordered by their values ascending unless `descending`; ties keep key order (reversed
    /// when descending, as `ORDER BY c DESC, key DESC` does).
    ///
    /// The values are first laid out with no reference in them (`Packed`: the class, the
    /// number, and where the bytes of a text or blob start in one buffer), so a comparison
    /// is a few loads and a `memcmp`, and positions are sorted rather than the entries:
    /// 200,000 texts sort in 0.3 s in a release build (keys and their positions included),
    /// against 1.3 s comparing the values themselves (`sortsLikeAPlainSortOfTheValues` pins it to the simple way).
    package init(entries: [(key: [DatabaseValue], value: SortValue)], descending: Bool) {
        var packed: [Packed] = []
        packed.reserveCapacity(entries.count)
        var bytes: [UInt8] = []
        for entry in entries { packed.append(Packed(entry.value, bytes: &bytes)) }
        var order = Array(entries.indices)
        bytes.withUnsafeBufferPointer { arena in
            packed.withUnsafeBufferPointer { p in
                let base = UnsafeRawPointer(arena.baseAddress)
                order.sort { i, j in
                    let c = p[i].order(p[j], base: base)
                    return c != 0 ? c < 0 : i < j
                }
            }
        }
        if descending { order.reverse() }
        keys = order.map { entries[$0].key }
        var positions: [[DatabaseValue]: Int] = [:]
        positions.reserveCapacity(keys.count)
        for (index, key) in keys.enumerated() { positions[key] = index }
        self.positions = positions
    }

    /// A sort value with no reference in it: its class (NULL, locked, number, text, blob),
    /// the number, or where its bytes are in the buffer they were copied to.
    private struct Packed {
        /// 0 NULL, 1 locked, 2 number, 3 text, 4 blob.
        let rank: UInt8
        /// True when the number is an integer (`integer`), else a real (`real`).
        let isInteger: Bool
        /// The number when it is an integer.
        let integer: Int64
        /// The number when it is a real.
        let real: Double
        /// Where the bytes of a text (UTF-8) or blob start in the buffer.
        let offset: Int
        /// How many bytes the text or blob has.
        let count: Int

        /// `value` packed, its bytes appended to `bytes`.
        init(_ value: SortValue, bytes: inout [UInt8]) {
            var (rank, isInteger, integer, real, offset, count): (UInt8, Bool, Int64, Double, Int, Int) = (0, false, 0, 0, bytes.count, 0)
            switch value {
            case .null: rank = 0
            case .locked: rank = 1
            case .value(.null): rank = 0
            case .value(.integer(let v)): (rank, isInteger, integer) = (2, true, v)
            case .value(.real(let d)): (rank, real) = d.isNaN ? (0, 0) : (2, d)
            case .value(.text(let t)): rank = 3; bytes.append(contentsOf: t.utf8); count = bytes.count - offset
            case .value(.blob(let d)): rank = 4; bytes.append(contentsOf: d); count = bytes.count - offset
            }
            (self.rank, self.isInteger, self.integer, self.real, self.offset, self.count) = (rank, isInteger, integer, real, offset, count)
        }

        /// The order of two packed values, as `SortValue.order` gives it for theirs.
        func order(_ other: Packed, base: UnsafeRawPointer?) -> Int {
            if rank != other.rank { return rank < other.rank ? -1 : 1 }
            switch rank {
            case 2:
                return SQLiteOrder.compare(isInteger ? .integer(integer) : .real(real),
                                           other.isInteger ? .integer(other.integer) : .real(other.real))
            case 3, 4:
                guard let base else { return count == other.count ? 0 : (count < other.count ? -1 : 1) }
                return SQLiteOrder.memoryOrder(UnsafeRawBufferPointer(start: base + offset, count: count),
                                               UnsafeRawBufferPointer(start: base + other.offset, count: other.count))
            default: return 0
            }
        }
    }

    /// Refuses to sort `count` rows of `name` by `column` in memory when they are more than
    /// `rowBound`; `why` says why SQLite cannot sort them itself.
    /// - throws: `TableViewError` giving the count and the bound.
    package static func checkBound(count: Int, name: String, column: String, why: String) throws {
        guard count > rowBound else { return }
        throw TableViewError("\(column) \(why), so sorting by it reads every row into memory, which is done up to "
                             + "\(rowBound.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))) rows: "
                             + "\(name) has \(count.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US"))))"
                             + " (filter it with f to keep fewer)")
    }

    /// The error a sort stopped by its `CancellationFlag` throws.
    package static let cancelled = TableViewError("the sort was cancelled: the grid stays as it was")

    /// How many rows are ordered.
    package var count: Int { keys.count }

    /// The rows of the first keys, `limit` rows at most, read by `fetch` (which returns the
    /// rows of the keys it is given that still exist, in any order).
    package func firstPage(limit: Int, fetch: ([[DatabaseValue]]) throws -> [GridRow]) throws -> [GridRow] {
        try rows(from: 0, forward: true, limit: limit, fetch: fetch)
    }

    /// The rows of the last keys, in order.
    package func lastPage(limit: Int, fetch: ([[DatabaseValue]]) throws -> [GridRow]) throws -> [GridRow] {
        try rows(from: keys.count - 1, forward: false, limit: limit, fetch: fetch)
    }

    /// The rows after `row`; none when its key is not in the order.
    package func page(after row: GridRow, limit: Int, fetch: ([[DatabaseValue]]) throws -> [GridRow]) throws -> [GridRow] {
        guard let index = positions[row.key] else { return [] }
        return try rows(from: index + 1, forward: true, limit: limit, fetch: fetch)
    }

    /// The rows before `row`, in order; none when its key is not in the order.
    package func page(before row: GridRow, limit: Int, fetch: ([[DatabaseValue]]) throws -> [GridRow]) throws -> [GridRow] {
        guard let index = positions[row.key] else { return [] }
        return try rows(from: index - 1, forward: false, limit: limit, fetch: fetch)
    }

    /// `limit` rows from position `start` on (`forward`) or back from it, returned in the
    /// grid's order. A key whose row is gone (deleted since the order was built) is skipped
    /// and the next one read instead, so a short page still means the end of the rows.
    private func rows(from start: Int, forward: Bool, limit: Int, fetch: ([[DatabaseValue]]) throws -> [GridRow]) throws -> [GridRow] {
        var found: [GridRow] = []
        var next = start
        while found.count < limit, keys.indices.contains(next) {
            let wanted = limit - found.count
            let range = forward ? next..<min(keys.count, next + wanted) : max(0, next - wanted + 1)..<(next + 1)
            let chunk = Array(keys[range])
            var byKey: [[DatabaseValue]: GridRow] = [:]
            for row in try fetch(chunk) { byKey[row.key] = row }
            let ordered = chunk.compactMap { byKey[$0] }
            found = forward ? found + ordered : ordered + found
            next = forward ? range.upperBound : range.lowerBound - 1
        }
        return found
    }
}
