import DatacenterKit

/// The work that loading and linting a config counts on an installed `WorkMeter`, so tests
/// can pin it to grow linearly with the config's size.
extension WorkMeter.Counter {
    /// UTF-8 bytes walked by searches of the source text for columns and locations.
    static let searchedBytes = Self("searched bytes")
    /// UTF-8 bytes appended while splicing `${name}` references.
    static let splicedBytes = Self("spliced bytes")
    /// Method identities (id and arity) compared by the duplicate check.
    static let methodComparisons = Self("method comparisons")
    /// Cells of the edit-distance tables computed for "did you mean" suggestions.
    static let distanceCells = Self("distance cells")
}
