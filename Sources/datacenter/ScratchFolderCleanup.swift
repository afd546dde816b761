import DatacenterKit
import Foundation

/// Removes a scratch folder the command made for itself (a benchmark's files, tens of
/// megabytes in the temporary folder) when the command is stopped by `SIGINT` (Ctrl-C) or
/// `SIGTERM`, then lets the signal end the process as it would have. A folder tree cannot be
/// removed from a signal handler, so the signals are taken on a dispatch queue for as long as
/// the cleanup is armed; `disarm` gives them back to the handlers they had (`PartialFiles`).
final class ScratchFolderCleanup: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]
    private var previous: [(Int32, sigaction)] = []

    /// Arms the cleanup of `path`.
    init(path: String) {
        var saved: [(Int32, sigaction)] = []
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            // A signal the process was started ignoring (a background job's SIGINT) stays so.
            var old = sigaction()
            guard !PartialFiles.isIgnored(signalNumber), sigaction(signalNumber, nil, &old) == 0 else { continue }
            saved.append((signalNumber, old))
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                try? FileTree.remove(atPath: path)
                signal(signalNumber, SIG_DFL)
                kill(getpid(), signalNumber)   // to the process: this queue's thread blocks signals
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
        self.previous = saved
    }

    /// Stops watching: the signals go back to the handlers they had before.
    func disarm() {
        for source in sources { source.cancel() }
        for (signalNumber, var old) in previous { sigaction(signalNumber, &old, nil) }
        previous = []
    }
}
