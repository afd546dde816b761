/// Counts work in units that grow with an algorithm rather than with the machine: bytes a
/// search walks, pairs a duplicate check compares, times a value is laid out.
///
/// Tests use it to pin how work grows (linear, not quadratic; once, not once per key)
/// without timing anything: a bound on seconds fails at random on a busy machine, a bound on
/// counted work holds on any. Nothing is counted unless a meter is installed for the current
/// task with `WorkMeter.$current.withValue(_:)`, and a meter sees only the work of the task
/// (or thread) that installed it, so tests running in parallel do not mix their counts.
package final class WorkMeter: Sendable {
    /// The meter counting for the current task, if any.
    @TaskLocal package static var current: WorkMeter?

    /// A kind of work; each module names its own (`extension WorkMeter.Counter`).
    package struct Counter: Hashable, Sendable, CustomStringConvertible {
        /// The counter's name, as shown in a failed expectation.
        package let name: String
        /// A counter called `name`.
        package init(_ name: String) { self.name = name }
        package var description: String { name }
    }

    private let counts = LockedState<[Counter: Int]>([:])

    /// An empty meter.
    package init() {}

    /// The amount counted under `counter` so far.
    package subscript(counter: Counter) -> Int { counts.withLock { $0[counter, default: 0] } }

    /// Every counter with its amount.
    package var all: [Counter: Int] { counts.withLock { $0 } }

    /// Adds `amount` (computed only when a meter is installed) to `counter` of the installed
    /// meter; a no-op otherwise.
    package static func count(_ counter: Counter, _ amount: @autoclosure () -> Int = 1) {
        guard let meter = current else { return }
        let amount = amount()
        meter.counts.withLock { $0[counter, default: 0] += amount }
    }

    /// Runs `body` with a new meter installed and returns what it counted.
    package static func measure(_ body: () throws -> Void) rethrows -> WorkMeter {
        let meter = WorkMeter()
        try $current.withValue(meter) { try body() }
        return meter
    }
}
