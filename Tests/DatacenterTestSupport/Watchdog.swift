import Foundation

/// Aborts the process, naming the case, when one case runs longer than `limit` seconds: a
/// hang is a bug the suite must report rather than wait on for ever (fuzz runs).
public final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var current: (name: String, started: Date)?
    private var finished = false

    /// How much longer a case may take in a sanitizer run (`make sanitize` sets
    /// `TSAN_OPTIONS` or `ASAN_OPTIONS`), several times slower than a plain one.
    static let sanitizerScale: TimeInterval = {
        let environment = ProcessInfo.processInfo.environment
        return environment["TSAN_OPTIONS"] != nil || environment["ASAN_OPTIONS"] != nil ? 12 : 1
    }()

    /// Starts watching; cases are timed between `start` and `stop`, and one that runs over
    /// `limit` seconds (times `sanitizerScale`) aborts the run.
    public init(limit: TimeInterval) {
        let limit = limit * Watchdog.sanitizerScale
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.25)
                let (done, overdue) = lock.withLock {
                    (finished, current.flatMap { Date().timeIntervalSince($0.started) > limit ? $0.name : nil })
                }
                if done { return }
                if let overdue {
                    FileHandle.standardError.write(Data("watchdog: \(overdue) ran over \(limit) s\n".utf8))
                    abort()
                }
            }
        }
    }

    /// A case named `name` starts now.
    public func start(_ name: String) { lock.withLock { current = (name, Date()) } }
    /// The case ended.
    public func stop() { lock.withLock { current = nil } }
    /// Stops watching (the watching thread ends).
    public func finish() { lock.withLock { finished = true; current = nil } }
}
