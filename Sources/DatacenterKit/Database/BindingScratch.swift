/// Memory a batch binds its rows' texts from, so SQLite reads them in place instead of
/// copying each one into memory of its own (one allocation and one free per text, under
/// SQLite's allocator lock): the fast path of `Statement.bind(text:toParameter:scratch:)`.
///
/// The texts of one row go one after another; `startRow()` reuses the memory for the next
/// row once the statement has run. A text that does not fit is bound the copying way.
///
/// The contract, which the one user (the DAO engine's batch) keeps: every parameter bound
/// from the scratch is bound again before the statement runs again, and the statement's
/// bindings are cleared (`Statement.clearBindings()`) before the scratch goes away.
public struct BindingScratch: ~Copyable {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    var used = 0

    /// Scratch memory of `capacity` bytes.
    public init(capacity: Int = 4096) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    /// Makes the whole memory available for the next row's texts (the statement has run
    /// with the previous row's).
    public mutating func startRow() { used = 0 }
}
