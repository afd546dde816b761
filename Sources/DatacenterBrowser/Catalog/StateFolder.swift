import Foundation

/// Where the browser keeps what it remembers between sessions (the console's history per
/// file, the recent files): `$XDG_STATE_HOME/datacenter`, else `~/.local/state/datacenter`,
/// as the XDG base directory specification places state that is not worth backing up.
///
/// The browser is handed the folder (`Browser.stateFolder`); tests hand it a temporary one,
/// or none, and then nothing is remembered.
package enum StateFolder {
    /// The folder for `environment`; nil when neither `XDG_STATE_HOME` nor `HOME` names an
    /// absolute path (nothing is remembered then).
    package static func url(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("datacenter")
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/datacenter")
    }
}
