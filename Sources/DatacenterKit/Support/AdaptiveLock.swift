import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A mutual-exclusion lock for very short critical sections (a cache hit): it spins on an
/// atomic flag, yielding the processor between attempts, instead of sleeping in the kernel.
/// Sleeping and waking costs far more than the work it guards; with more threads than cores
/// a spinner that yields lets the holder finish. Not recursive.
///
/// A non-copyable value, so it lives inside the object it guards (one cache line with the
/// data, no separate allocation).
struct AdaptiveLock: ~Copyable {
    private let locked = Atomic<Bool>(false)

    init() {}

    @inline(__always) func lock() {
        var spins = 0
        while true {
            if !locked.load(ordering: .relaxed),
               locked.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged { return }
            // A holder on the other core is usually done within a few hundred cycles; past
            // that it is probably not running, so give it the processor.
            spins += 1
            if spins < 100 { continue }
            spins = 0
            sched_yield()
        }
    }

    @inline(__always) func unlock() { locked.store(false, ordering: .releasing) }

    @inline(__always) func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
