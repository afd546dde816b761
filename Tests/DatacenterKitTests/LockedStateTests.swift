import Foundation
import Testing
@testable import DatacenterKit

/// `LockedState`: its state reached under its lock only, and a lock that spins before it
/// sleeps when contended.
@Suite struct LockedStateTests {
    /// Contended, the lock spins a little before the waiting thread sleeps (glibc's adaptive
    /// mutex), which keeps four threads on one memory cache at half or more of one thread's
    /// pace (`lru-mem-get-4threads`); a default mutex sleeps at once.
    @Test func theLockSpinsBeforeItSleeps() {
        // Read through pthread's own API (never the mutex's private fields).
        var attributes = spinningMutexAttributes()
        defer { pthread_mutexattr_destroy(&attributes) }
        var type: Int32 = -1
        #expect(pthread_mutexattr_gettype(&attributes, &type) == 0)
        #if canImport(Glibc)
        #expect(type == Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        #expect(LockedState(0).withLock { $0 } == 0)
    }

    /// Four threads incrementing under the lock lose no increment: the spinning lock still
    /// excludes.
    @Test func contendedIncrementsAreNeverLost() {
        let counter = LockedState(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<50_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 200_000)
    }
}
