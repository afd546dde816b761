import CPageCipher

/// Keeps secrets out of core dumps: once a key, a passphrase or a key file is loaded, the
/// process is made not dumpable (`PR_SET_DUMPABLE` 0, which also keeps other processes of the
/// user from reading its memory through ptrace or /proc) and its core size limit is set to 0.
/// A crash stays diagnosable without a core: the Swift runtime prints a backtrace on stderr.
package enum SecretGuard {
    private static let engaged = LockedState(false)

    /// Engages the guard (once; later calls do nothing). Call it before the first secret is
    /// read into memory.
    package static func engage() {
        let first = engaged.withLock { (done: inout Bool) -> Bool in
            defer { done = true }
            return !done
        }
        if first { _ = dc_protect_secrets() }
    }

    /// True when the process may not be dumped and writes no core (for tests and diagnostics).
    package static var isEngaged: Bool { dc_process_is_dumpable() == 0 && dc_core_size_limit() == 0 }
}
