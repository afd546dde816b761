import Foundation

/// Whether, and how often, opening a data center purges its purgeable folders by itself.
///
/// The reference checks the folders "each time the app starts, in the background". A library
/// opened by every command of a command-line tool must not delete files unasked, so here it
/// is off unless asked for: `.every(0)` is the reference's "at every start", `.every(86_400)`
/// at most once a day. The time of the last check is kept in the root
/// (`purge-check.json`), so opens within the interval, in this process or the next, do not
/// purge again. Only expiry and size caps apply: `manual` folders are emptied only by the
/// cache cleaner.
public struct PurgeCheck: Sendable {
    /// The least time between two checks, or nil when the check is off.
    public let interval: TimeInterval?
    /// The time now (a parameter so tests can move it).
    let clock: @Sendable () -> Date
    /// Told the outcome of the check, on a background queue.
    let completion: (@Sendable (PurgeCheckOutcome) -> Void)?

    /// No check: folders are purged only when asked (`PurgeablePaths.purge`, `datacenter purge run`).
    public static let off = PurgeCheck(interval: nil, clock: { Date() }, completion: nil)

    /// A check in the background at each open, when at least `interval` seconds have passed
    /// since the last one. `completion`, when given, hears the outcome (also when the check
    /// did not purge); `clock` gives the time now.
    public static func every(_ interval: TimeInterval, clock: @escaping @Sendable () -> Date = { Date() },
                             completion: (@Sendable (PurgeCheckOutcome) -> Void)? = nil) -> PurgeCheck {
        PurgeCheck(interval: max(0, interval), clock: clock, completion: completion)
    }
}

/// What the purge check of an open did.
public enum PurgeCheckOutcome: Sendable {
    /// The folders were purged (the report may be empty).
    case purged(PurgeReport)
    /// The last check, at that time, is too recent: nothing was done.
    case notDue(lastCheck: Date)
    /// The data center is open read-only: it never purges.
    case readOnly
    /// The check failed (an unreadable registry or state file, a file that could not be
    /// deleted); the time was recorded all the same, so it is not retried at every open.
    case failed(any Error)
}

extension DataCenter {
    /// The file keeping the time of the last purge check.
    var purgeCheckStatePath: String { rootPath + "/purge-check.json" }

    /// Serializes deciding whether a check is due within the process, so that two opens of
    /// one root at the same moment purge once.
    private static let purgeCheckClaim = NSLock()

    /// Starts `check` in the background; the open that calls it does not wait.
    func startPurgeCheck(_ check: PurgeCheck) {
        guard let interval = check.interval else { return }
        if isReadOnly {
            if let completion = check.completion { DispatchQueue.global(qos: .utility).async { completion(.readOnly) } }
            return
        }
        let root = rootPath
        let statePath = purgeCheckStatePath
        DispatchQueue.global(qos: .background).async {
            let outcome = DataCenter.runPurgeCheck(root: root, statePath: statePath, interval: interval, now: check.clock())
            check.completion?(outcome)
        }
    }

    private static func runPurgeCheck(root: String, statePath: String, interval: TimeInterval, now: Date) -> PurgeCheckOutcome {
        struct State: Codable { var lastCheck: Date }
        let due: Result<Date?, any Error> = purgeCheckClaim.withLock {
            Result {
                if let data = try RegularFile.contentsIfPresent(atPath: statePath, limit: 1 << 16),
                   let last = try? JSONDecoder().decode(State.self, from: data).lastCheck,
                   last <= now, now.timeIntervalSince(last) < interval {
                    return last   // not due; a time in the future (a clock set back) is due
                }
                // Claimed before purging, so an open meanwhile finds it recent.
                try PrivateFile.write(try JSONEncoder().encode(State(lastCheck: now)), toPath: statePath)
                return nil
            }
        }
        switch due {
        case .failure(let error): return .failed(error)
        case .success(let last?): return .notDue(lastCheck: last)
        case .success(nil):
            do { return .purged(try PurgeablePaths(root: root).purge(now: now)) } catch { return .failed(error) }
        }
    }
}
