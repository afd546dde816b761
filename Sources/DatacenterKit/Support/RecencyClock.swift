import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Per-thread state for structures that let threads record uses without writing memory
/// another thread writes (`LRUMemoryCache`'s gets): a small number naming the thread, and
/// a clock stamping the thread's uses.
///
/// The clock is a Lamport clock: a use is stamped one past the larger of the thread's last
/// stamp and a stamp the structure publishes (the last it applied). So one thread's uses
/// are stamped in the order it made them, and uses made after the structure applied others
/// are stamped after those; uses made at the same time on different threads are concurrent,
/// and any order between them is as right as another.
enum RecencyClock {
    /// One thread's state, on a cache line of its own so threads never share one.
    struct ThreadState {
        /// Numbers threads from 0 in the order they first asked.
        let index: Int
        fileprivate(set) var last: UInt64
    }

    private static let nextIndex = Atomic<Int>(0)

    /// Where each thread keeps its state (freed when the thread ends).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { free($0) }
        precondition(rc == 0, "pthread_key_create failed (\(rc))")
        return key
    }()

    /// The calling thread's state.
    @inline(__always) static func current() -> UnsafeMutablePointer<ThreadState> {
        if let kept = pthread_getspecific(key) { return kept.assumingMemoryBound(to: ThreadState.self) }
        return makeCurrent()
    }

    private static func makeCurrent() -> UnsafeMutablePointer<ThreadState> {
        var raw: UnsafeMutableRawPointer?
        guard posix_memalign(&raw, 64, 64) == 0, let raw else { fatalError("out of memory") }
        let state = raw.bindMemory(to: ThreadState.self, capacity: 1)
        state.initialize(to: ThreadState(index: nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue, last: 0))
        pthread_setspecific(key, raw)
        return state
    }

    /// A stamp for a use by the thread of `state`: greater than the thread's earlier stamps
    /// and than `published`.
    @inline(__always) static func tick(_ state: UnsafeMutablePointer<ThreadState>, after published: UInt64) -> UInt64 {
        let stamp = max(state.pointee.last, published) &+ 1
        state.pointee.last = stamp
        return stamp
    }
}
