import DatacenterBrowser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// The scenarios a benchmark run measures: all of them, or the ones named with `--scenario`
/// (to profile or re-measure one scenario without waiting for the others).
///
/// A scenario that is left out is not measured; what a chosen scenario needs (the rows a
/// read scenario reads) is still set up, untimed.
package struct BenchmarkSelection: Sendable, Equatable {
    /// Every scenario.
    package static let all = BenchmarkSelection()
    private let names: Set<String>?

    /// The scenarios named; none named means all.
    package init(_ names: [String] = []) { self.names = names.isEmpty ? nil : Set(names) }

    /// True when `scenario` is to be measured.
    package func includes(_ scenario: String) -> Bool { names?.contains(scenario) ?? true }

    /// True when any of `scenarios` is to be measured.
    package func includesAny(_ scenarios: String...) -> Bool { scenarios.contains(where: includes) }

    /// The names given that are not among `known`, for an error that lists what exists.
    package func unknown(among known: [String]) -> [String] { (names ?? []).filter { !known.contains($0) }.sorted() }
}
