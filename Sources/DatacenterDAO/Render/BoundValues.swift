import DatacenterKit

/// A statement's bound values as rendering collects them (`#{}` references, in placeholder
/// order), with the positions of those a `<crypt>` rule covers: what `RenderedSQL` carries
/// as `bindings` and `encryptedBindings`. One type for every way a statement is rendered
/// (the render buffer, static statements, the decision pass).
struct BoundValues {
    /// The values, as SQLite binds them.
    private(set) var values: [DatabaseValue] = []
    /// The positions in `values` of those the executor encrypts before binding.
    private(set) var encrypted: [Int] = []

    /// Room for `capacity` values.
    init(capacity: Int) { values.reserveCapacity(capacity) }

    /// Appends `value`, marked for encryption when `encrypted`.
    mutating func append(_ value: DAOValue, encrypted isEncrypted: Bool) {
        if isEncrypted { encrypted.append(values.count) }
        values.append(value.databaseValue)
    }
}
