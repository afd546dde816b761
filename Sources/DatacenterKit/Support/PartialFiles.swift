#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The partial files being written by this process (`PrivateFile.writeAtomically`), so that
/// none is left behind: on `SIGINT` or `SIGTERM` (once `removeOnTerminationSignals()` is
/// installed) each is unlinked before the process dies of the signal; after a `SIGKILL`,
/// which no process can handle, the next write into the same folder (and the next opening
/// of a root) removes the partial files whose process is gone (`removeStale(inFolder:)`).
///
/// A partial file is named `.<name>.dc-partial-<pid>-<random>` beside its target and
/// created `0600`, so what a killed writer leaves is never readable by others and is
/// recognisably its own.
public enum PartialFiles {
    /// The marker in every partial file's name.
    static let marker = ".dc-partial-"
    private static let capacity = 64
    /// The registered paths as C strings, read by the signal handler: a fixed array of
    /// pointers, so the handler only loads pointers and calls `unlink` (async-signal-safe).
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let slots = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
        return slots
    }()
    /// Serializes the writers of `slots`. The signal handler reads them without it (a handler
    /// cannot take a lock); it only ever sees a slot empty or holding a whole pointer. A plain
    /// lock: what it guards is C memory the handler must reach, not Swift state to enclose.
    private static let lock = NSLock()

    /// The name of a fresh partial file (or folder) for `target`, in `target`'s folder.
    package static func partialPath(for target: String) -> String {
        let folder = PrivateFile.folder(of: target)
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let partial = "." + PrivateFile.name(of: target) + marker + "\(getpid())-" + random
        return folder == "/" ? "/" + partial : folder + "/" + partial
    }

    /// Remembers `path` for removal on a termination signal; returns its slot (nil when
    /// every slot is taken: the file is then only cleaned by a later run).
    package static func register(_ path: String) -> Int? {
        lock.withLock {
            for index in 0..<capacity where slots[index] == nil {
                slots[index] = strdup(path)
                return index
            }
            return nil
        }
    }

    /// Forgets the path in `slot` (it was renamed into place or removed).
    package static func unregister(_ slot: Int?) {
        guard let slot else { return }
        lock.withLock {
            let pointer = slots[slot]
            slots[slot] = nil
            free(pointer)
        }
    }

    /// Installs handlers for `SIGINT` and `SIGTERM` that unlink every registered partial file,
    /// then let the signal take its default course (the process dies of it, as it would
    /// have). A signal the process was started ignoring (a background job's `SIGINT`) stays
    /// ignored; one it inherited blocked is unblocked on the calling thread, so it is
    /// delivered. For command-line tools; an app keeps its own signal handling.
    public static func removeOnTerminationSignals() {
        _ = slots
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signalNumber in [SIGINT, SIGTERM] {
            if isIgnored(signalNumber) { continue }
            sigaddset(&unblocked, signalNumber)
            signal(signalNumber) { received in
                for index in 0..<PartialFiles.capacity {
                    if let path = PartialFiles.slots[index] { unlink(path) }
                }
                signal(received, SIG_DFL)
                raise(received)
            }
        }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    /// True when the process ignores `signalNumber` (`SIG_IGN`), as a background job started
    /// by a shell ignores `SIGINT`: a handler installed for it must leave it so.
    package static func isIgnored(_ signalNumber: Int32) -> Bool {
        var current = sigaction()
        return sigaction(signalNumber, nil, &current) == 0
            && unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == 1   // SIG_IGN
    }

    /// Removes, in `folder`, the partial files (and partial folders, with what they hold)
    /// left by processes that no longer run (killed with `SIGKILL`, or by a power cut).
    /// Those of running processes are left alone.
    /// Returns how many were removed.
    @discardableResult
    public static func removeStale(inFolder folder: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(".") {
            guard let range = name.range(of: marker, options: .backwards) else { continue }
            let rest = name[range.upperBound...]
            guard let pid = rest.split(separator: "-").first.flatMap({ pid_t($0) }), pid > 0 else { continue }
            guard pid != getpid(), kill(pid, 0) == -1, errno == ESRCH else { continue }
            let path = folder + "/" + name
            var status = stat()
            // A partial folder (a snapshot being written) goes whole; a link is only unlinked.
            if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                if (try? FileManager.default.removeItem(atPath: path)) != nil { removed += 1 }
            } else if unlink(path) == 0 {
                removed += 1
            }
        }
        return removed
    }
}
