import Logging

/// The engine's log switch (`APDataCenterLogSwitch`): off by default, so the engine writes
/// nothing until the app turns it on.
///
/// When on, a handful of events go to `logger` (swift-log): a root opened, the version
/// storage emptied on an app upgrade, the current user switched, signed out or signed in
/// again, a named storage opened, the default data center configured, a reset, and the
/// kind of an error that stopped one of these. Each line carries the root's path as
/// `root` metadata.
///
/// Never logged: values, keys of any kind (key-value keys, business names, value and
/// database encryption keys) and user ids — a user id is often a phone number or an email
/// address. An error is logged by its kind only (`StorageError.invalidUserId`), never its
/// description, which may quote a key or a value.
///
/// For example:
/// ```swift
/// DatacenterLog.logger = Logger(label: "com.example.app.datacenter")
/// DatacenterLog.isOn = true
/// ```
public enum DatacenterLog {
    /// What the switch and the logger are: reached only with the lock held.
    private struct Setting {
        var isOn = false
        var logger: Logger?
    }

    private static let setting = LockedState(Setting())

    /// The switch: true to log the engine's events, false (the default) for silence.
    public static var isOn: Bool {
        get { setting.withLock { $0.isOn } }
        set { setting.withLock { $0.isOn = newValue } }
    }

    /// Where the events go when the switch is on. Unless set, a logger labelled `datacenter`
    /// made on first use by the app's `LoggingSystem` (standard error when the app has not
    /// bootstrapped one). Its level filters as usual: events are `info`, failures `error`.
    public static var logger: Logger {
        get { setting.withLock { setting in Self.currentLogger(&setting) } }
        set { setting.withLock { $0.logger = newValue } }
    }

    /// Turns logging on or off: the reference's `APDataCenterLogSwitch(BOOL on)`.
    public static func setSwitch(_ on: Bool) { isOn = on }

    /// The logger when the switch is on, else nil.
    private static var activeLogger: Logger? {
        setting.withLock { setting in setting.isOn ? currentLogger(&setting) : nil }
    }

    private static func currentLogger(_ setting: inout Setting) -> Logger {
        if let logger = setting.logger { return logger }
        let logger = Logger(label: "datacenter")
        setting.logger = logger
        return logger
    }

    /// Logs an event of the root at `root` when the switch is on; `message` and `metadata`
    /// are built only then. Callers pass no value, key or user id.
    static func event(_ message: @autoclosure () -> Logger.Message, root: String,
                      metadata: @autoclosure () -> Logger.Metadata = [:]) {
        guard let logger = activeLogger else { return }
        var all = metadata()
        all["root"] = .string(root)
        logger.info(message(), metadata: all)
    }

    /// Logs that `what` failed with `error`, by the error's kind only, when the switch is on.
    static func failure(_ what: @autoclosure () -> String, error: any Error, root: String) {
        guard let logger = activeLogger else { return }
        logger.error("\(what()) failed", metadata: ["root": .string(root), "error": .string(kind(of: error))])
    }

    /// An error's type and, for an enum, its case (`StorageError.invalidUserId`): never its
    /// payload or description, which may hold a key or a value.
    static func kind(of error: any Error) -> String {
        let type = String(describing: Swift.type(of: error))
        let mirror = Mirror(reflecting: error)
        if mirror.displayStyle == .enum, let label = mirror.children.first?.label {
            return type + "." + label
        }
        return type
    }
}
