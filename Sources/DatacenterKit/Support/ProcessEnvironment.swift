#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One environment variable of the process, read alone.
///
/// `ProcessInfo.processInfo.environment` builds a dictionary of every variable at each use
/// (17 µs with twenty variables, more in a developer's shell), and a command reads half a
/// dozen of them (`$DATACENTER_KEY`, `$DATACENTER_DB_KEY`, …) before it starts.
public enum ProcessEnvironment {
    /// The value of the variable `name`, nil when it is not set.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
