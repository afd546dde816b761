import DatacenterKit
import Foundation

/// Removes a scratch folder the command made for itself (a benchmark's files, tens of
/// megabytes in the temporary folder) when the command is stopped by `SIGINT` (Ctrl-C) or
/// `SIGTERM`, then lets the signal end the process as it would have.
///
/// A folder tree cannot be removed from a signal handler, so the handler only writes the
/// signal's number into a pipe, and a thread of its own waits on the pipe and does the
/// removal. The handler is in place when `init` returns: a signal is never lost in a window
/// where it would be ignored (a dispatch signal source, registered later on another thread,
/// left one, in which a benchmark ran on to its end). `disarm` gives the signals back to the
/// handlers they had (`PartialFiles`).
///
/// The benchmark fails as soon as its folder goes; `disarm` (on its way out) waits for a
/// cleanup under way, so the process dies of the signal, never of that failure.
final class ScratchFolderCleanup: @unchecked Sendable {
    /// The pipe's write end, for the handler (which can reach no instance): -1 when disarmed.
    nonisolated(unsafe) private static var wakeDescriptor: Int32 = -1
    private let writeEnd: Int32
    private var previous: [(Int32, sigaction)] = []
    /// Held by a cleanup under way until the signal ends the process, and by `disarm`.
    private let lock = NSLock()
    private var disarmed = false

    /// Arms the cleanup of `path`.
    init(path: String) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            writeEnd = -1
            return   // no pipe (out of descriptors): no cleanup, the folder is left as before
        }
        let readEnd = ends[0]
        writeEnd = ends[1]
        Self.wakeDescriptor = writeEnd
        for signalNumber in [SIGINT, SIGTERM] {
            // A signal the process was started ignoring (a background job's SIGINT) stays so.
            var old = sigaction()
            guard !PartialFiles.isIgnored(signalNumber), sigaction(signalNumber, nil, &old) == 0 else { continue }
            previous.append((signalNumber, old))
            signal(signalNumber) { received in
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(ScratchFolderCleanup.wakeDescriptor, &byte, 1)
            }
        }
        let thread = Thread { [self] in
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) == -1, errno == EINTR {}
            close(readEnd)
            if byte != 0 { stop(removing: path, signal: Int32(byte)) }
        }
        thread.start()
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
        // The benchmark runs on while the folder goes, and the engine makes a store's folder
        // when it is missing: the folder is first moved aside and a file put in its place, so
        // the benchmark fails instead of making it again. The file goes last, just before
        // the signal; what was moved aside is removed, or, if this process dies first, by
        // the next write into that folder (`PartialFiles.removeStale`).
        // The benchmark may make the folder again between the move and the file: move that
        // aside too, and try again.
        var asides: [String] = []
        var blocked = false
        for _ in 0..<64 {
            if Self.block(path) {
                blocked = true
                break
            }
            let aside = PartialFiles.partialPath(for: path)
            if rename(path, aside) == 0 { asides.append(aside) } else if errno != ENOENT { break }
        }
        for aside in asides { try? FileTree.remove(atPath: aside) }
        if !blocked { try? FileTree.remove(atPath: path) }
        Self.pauseForTests()
        if blocked { unlink(path) }
        signal(signalNumber, SIG_DFL)
        kill(getpid(), signalNumber)
        while true { pause() }         // the signal ends the process; the lock is never given back
    }

    /// Puts an empty private file at `path`, where nothing is now; false if something got
    /// there first.
    private static func block(_ path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        close(fd)
        return true
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

    /// Stops watching: the signals go back to the handlers they had before, and the
    /// waiting thread ends.
    func disarm() {
        lock.lock()
        defer { lock.unlock() }
        guard !disarmed, writeEnd >= 0 else { return }
        disarmed = true
        for (signalNumber, var old) in previous { sigaction(signalNumber, &old, nil) }
        previous = []
        Self.wakeDescriptor = -1
        var zero: UInt8 = 0
        _ = write(writeEnd, &zero, 1)
        close(writeEnd)
    }
}
