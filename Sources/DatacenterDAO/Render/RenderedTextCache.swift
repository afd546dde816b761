import Foundation
import DatacenterKit

/// The SQL text of the last few shapes one dynamic template rendered, so a call that takes
/// the same branches as an earlier one skips writing its SQL again (`RenderBuffer.finish`).
///
/// What `finish` writes (the SQL and the marks of its placeholders and inlined values) is a
/// function of the buffer's pieces alone: each text and inlined piece's bytes, in order, and
/// where the bound values stand; the bound values themselves only become bindings. So an
/// entry is keyed by exactly that sequence, compared byte for byte, and a hit gives the very
/// text the writer would write. The bindings are always taken from the call's own values.
///
/// A hit also hands out the same `String` every time, so the statement cache, which compares
/// with the last SQL asked for first, finds it by identity instead of comparing the bytes.
///
/// Kept with the plan of a method (`DAOCallPlan.oneStatement`), shared by every DAO object
/// of its config and every thread; a lock guards the entries.
final class RenderedTextCache: Sendable {
    /// One shape and its text.
    struct Entry: Sendable {
        /// Per piece: `kind` (0 text, 1 bound, 2 inlined) and its byte count.
        var shape: [(kind: UInt8, count: Int)]
        /// The bytes of the text and inlined pieces, one after the other.
        var bytes: [UInt8]
        var sql: String
        var marks: PreviewMarks
    }

    /// How many shapes are kept: a method is usually called with a few combinations of its
    /// branches; past this the least recently used is dropped.
    static let limit = 4

    private let entries = LockedState<[Entry]>([])

    init() {}

    /// How many shapes are kept now (for tests and diagnostics).
    var keptCount: Int { entries.withLock { $0.count } }

    /// The text written for `pieces` over `store`, when a call of this shape was kept.
    func text(for pieces: [RenderBuffer.Piece], in store: UnsafeBufferPointer<UInt8>) -> (String, PreviewMarks)? {
        entries.withLock { entries in
            for index in entries.indices where RenderedTextCache.matches(entries[index], pieces, store) {
                if index > 0 { entries.swapAt(index, 0) }
                return (entries[0].sql, entries[0].marks)
            }
            return nil
        }
    }

    /// Keeps `sql` and `marks` as the text written for `pieces` over `store`.
    func remember(_ sql: String, marks: PreviewMarks, for pieces: [RenderBuffer.Piece], in store: UnsafeBufferPointer<UInt8>) {
        var entry = Entry(shape: [], bytes: [], sql: sql, marks: marks)
        entry.shape.reserveCapacity(pieces.count)
        for piece in pieces {
            switch piece {
            case .text(let range):
                entry.shape.append((0, range.count))
                entry.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: store[range]))
            case .bound:
                entry.shape.append((1, 0))
            case .inlined(let range):
                entry.shape.append((2, range.count))
                entry.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: store[range]))
            }
        }
        entries.withLock { entries in
            if entries.count >= RenderedTextCache.limit { entries.removeLast() }
            entries.insert(entry, at: 0)
        }
    }

    /// True when `pieces` over `store` are the shape `entry` was kept for.
    private static func matches(_ entry: Entry, _ pieces: [RenderBuffer.Piece], _ store: UnsafeBufferPointer<UInt8>) -> Bool {
        guard entry.shape.count == pieces.count else { return false }
        return entry.bytes.withUnsafeBufferPointer { kept in
            var offset = 0
            for (index, piece) in pieces.enumerated() {
                let shape = entry.shape[index]
                let range: Range<Int>
                switch piece {
                case .text(let r):
                    guard shape.kind == 0 else { return false }
                    range = r
                case .bound:
                    guard shape.kind == 1 else { return false }
                    continue
                case .inlined(let r):
                    guard shape.kind == 2 else { return false }
                    range = r
                }
                guard shape.count == range.count else { return false }
                if range.count > 0,
                   memcmp(kept.baseAddress! + offset, store.baseAddress! + range.lowerBound, range.count) != 0 { return false }
                offset += range.count
            }
            return true
        }
    }
}
