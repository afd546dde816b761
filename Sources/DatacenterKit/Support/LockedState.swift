#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State that can only be reached with its lock held: the shape of `Mutex<State>`
/// (`withLock { state in … }`), over a pthread mutex.
///
/// Not the standard library's `Mutex`: on Linux its contended path hands the lock over
/// inside the kernel (a priority-inheritance futex), where ThreadSanitizer cannot see it, so
/// every contended use is reported as a data race and real races drown among them. A pthread
/// mutex is one ThreadSanitizer knows; uncontended it costs the same (two atomic operations).
/// Contended, the mutex spins a little before it sleeps (glibc's adaptive mutex): the bodies
/// are short (a cache hit holds the lock for tens of nanoseconds), and a thread that sleeps
/// and is woken for each hand-over spends far longer in the kernel than the holder takes to
/// let go: four threads on one memory cache did about a third of one thread's hits per
/// second on a two-core machine, and about half with the spin (`lru-mem-get-4threads`).
/// Not recursive: a body must not take the same lock again. Not for an empty `State` (a lock
/// guarding no variables is a plain lock): ThreadSanitizer places a zero-sized state at the
/// mutex field's address and reports reading that field as a race with the body.
///
/// `@unchecked Sendable` whatever `State` is, as `Mutex` is: the state is only reached
/// inside `withLock`, and what a body returns is the caller's, to keep to its thread.
@usableFromInline
package final class LockedState<State>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Unchecked: every access is inside `withLock`, which the mutex makes exclusive (a
    // nested `withLock` on one thread deadlocks before it could overlap an access).
    @usableFromInline @exclusivity(unchecked) var state: State

    /// Holds `state` behind a new lock.
    @inlinable package init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        initializeSpinningMutex(mutex)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the state to itself, the lock held, and returns what it returns.
    @inlinable package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}

/// Initializes `mutex` as `LockedState`'s lock: adaptive (it spins briefly before sleeping
/// when contended) where glibc offers it, a default mutex elsewhere.
@usableFromInline
func initializeSpinningMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    var attributes = spinningMutexAttributes()
    pthread_mutex_init(mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
}

/// The attributes `initializeSpinningMutex` gives the mutex (the caller destroys them):
/// glibc's adaptive type, which spins a little before it sleeps; the default elsewhere.
func spinningMutexAttributes() -> pthread_mutexattr_t {
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    #if canImport(Glibc)
    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
    #endif
    return attributes
}
