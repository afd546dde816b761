import DatacenterKit
import Foundation

/// Removes a scratch folder the command made for itself (a benchmark's files, tens of
/// megabytes in the temporary folder) when the command is stopped by `SIGINT` (Ctrl-C) or
/// `SIGTERM`, then lets the signal end the process as it would have. A folder tree cannot be
/// removed from a signal handler, so the signals are taken on a dispatch queue for as long as
/// the cleanup is armed; `disarm` gives them back to the handlers they had (`PartialFiles`).
///
/// The benchmark fails as soon as its folder goes; `disarm` (on its way out) waits for a
/// cleanup under way, so the process dies of the signal, never of that failure.
final class ScratchFolderCleanup: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private var previous: [(Int32, sigaction)] = []
    /// Held by a cleanup under way until the signal ends the process, and by `disarm`.
    private let lock = NSLock()
    private var disarmed = false

    /// Arms the cleanup of `path`.
    init(path: String) {
        for signalNumber in [SIGINT, SIGTERM] {
            // A signal the process was started ignoring (a background job's SIGINT) stays so.
            var old = sigaction()
            guard !PartialFiles.isIgnored(signalNumber), sigaction(signalNumber, nil, &old) == 0 else { continue }
            previous.append((signalNumber, old))
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in stop(removing: path, signal: signalNumber) }
            source.resume()
            sources.append(source)
        }
    }

    /// Removes `path`, then ends the process with `signalNumber`, holding the lock so that
    /// `disarm` cannot let the command exit first. A signal taken after `disarm` goes to
    /// the handler it had.
    private func stop(removing path: String, signal signalNumber: Int32) {
        lock.lock()
        guard !disarmed else {
            lock.unlock()
            kill(getpid(), signalNumber)
            return
        }
        try? FileTree.remove(atPath: path)
        Self.pauseForTests()
        signal(signalNumber, SIG_DFL)
        kill(getpid(), signalNumber)   // to the process: this queue's thread blocks signals
        while true { pause() }         // the signal ends the process; the lock is never given back
    }

    /// In a debug build, `DATACENTER_TEST_CLEANUP_PAUSE_MS=N` waits N milliseconds between
    /// the removal and the signal, so a test can widen the moment in which the benchmark
    /// fails on its missing folder and must not exit of it. Release builds never wait.
    private static func pauseForTests() {
        #if DEBUG
        if let text = ProcessEnvironment.value("DATACENTER_TEST_CLEANUP_PAUSE_MS"), let milliseconds = UInt32(text) {
            usleep(milliseconds * 1000)
        }
        #endif
    }

    /// Stops watching: the signals go back to the handlers they had before.
    func disarm() {
        lock.lock()
        defer { lock.unlock() }
        disarmed = true
        for source in sources { source.cancel() }
        for (signalNumber, var old) in previous { sigaction(signalNumber, &old, nil) }
        previous = []
    }
}
