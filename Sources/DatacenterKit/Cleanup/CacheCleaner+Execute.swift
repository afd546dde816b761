import Foundation

extension CacheCleaner {
    /// Runs the tasks off the caller's thread and returns at once (`+[APUserCacheCleaner
    /// execute:]`): `progress` hears each phase, in order, and `completion` the report or the
    /// error, both on `queue` (the reference calls back on the main thread: pass `.main` there).
    ///
    /// `progress` gets what `run` gives: a fraction from 0 to 1 during `preCalculating`,
    /// `cleaning` and `postCalculating`, then the megabytes freed with `done`. Calls arrive one
    /// at a time and in order even on a concurrent `queue`.
    public func execute(dryRun: Bool = false, on queue: DispatchQueue,
                        progress: @escaping @Sendable (CleanPhase, Double) -> Void = { _, _ in },
                        completion: @escaping @Sendable (Result<CleanReport, Error>) -> Void) {
        // A serial queue on top of the caller's: its calls keep their order, and run on
        // `queue` (its specific keys are seen).
        let delivery = DispatchQueue(label: "datacenter.cache-cleaner.delivery", target: queue)
        DispatchQueue.global(qos: .utility).async {
            let result = Result { try self.run(dryRun: dryRun) { phase, value in delivery.async { progress(phase, value) } } }
            delivery.async { completion(result) }
        }
    }
}
