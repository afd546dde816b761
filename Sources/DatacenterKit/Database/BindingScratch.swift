/// Memory a write binds its texts and blobs from, so SQLite reads them in place instead of
/// copying each one into memory of its own (one allocation and one free per value, under
/// SQLite's allocator lock): used by `Statement.bind(_:toParameter:scratch:)`.
///
/// The values of one row go one after another; `startRow()` reuses the memory for the next
/// row once the statement has run. A value that does not fit is bound the copying way.
///
/// The contract its users (DAO batches, KV writes, disk-cache batches) keep: every parameter
/// bound from the scratch is bound again before the statement runs again. The scratch
/// itself clears the bindings of every statement it lent memory to before that memory is
/// freed, so no statement is ever left pointing at it, whatever its user forgets or throws.
package struct BindingScratch: ~Copyable {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    var used = 0
    /// The statements bound from this memory, cleared when it goes (almost always one).
    private var borrowers: [Statement] = []

    /// Scratch memory of `capacity` bytes.
    package init(capacity: Int = 4096) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit {
        for statement in borrowers { statement.clearBindings() }
        base.deallocate()
    }

    /// Makes the whole memory available for the next row's values (the statement has run
    /// with the previous row's).
    package mutating func startRow() { used = 0 }

    /// A copy of `bytes` in the memory left for `statement` to read in place, or nil when
    /// they are empty or do not fit.
    @inline(__always) mutating func keep(_ bytes: UnsafeRawBufferPointer, for statement: Statement) -> UnsafeRawBufferPointer? {
        guard let source = bytes.baseAddress, !bytes.isEmpty, capacity - used >= bytes.count else { return nil }
        if borrowers.last !== statement, !borrowers.contains(where: { $0 === statement }) { borrowers.append(statement) }
        let destination = base + used
        destination.copyMemory(from: source, byteCount: bytes.count)
        used += bytes.count
        return UnsafeRawBufferPointer(start: destination, count: bytes.count)
    }
}
