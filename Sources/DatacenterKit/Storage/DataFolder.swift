import Foundation

/// Where the engine and the command line keep data when no path is given, as the XDG base
/// directory specification places user data: `$XDG_DATA_HOME/datacenter`, else
/// `$HOME/.local/share/datacenter`. The passwd entry's home is used only when `$HOME` names
/// no absolute path, so a user (or a test) who sets `HOME` gets that home everywhere, as the
/// browser's state folder (`$XDG_STATE_HOME`) already did.
public enum DataFolder {
    /// `datacenter`'s data folder for `environment`.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/datacenter" }
        return home(environment: environment) + "/.local/share/datacenter"
    }

    /// `$HOME` when it names an absolute path, else the passwd entry's home.
    public static func home(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        return FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// The default of a folder under the data folder (`Preferences`, `demo`), and the
    /// folder used before `$HOME` and `$XDG_DATA_HOME` were followed (under the passwd
    /// entry's home) when the new one is missing and the old one exists: data there must
    /// not seem to vanish. `usesOldLocation` tells the caller to say so.
    public static func resolve(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                               passwdHome: String = FileManager.default.homeDirectoryForCurrentUser.path)
        -> (path: String, usesOldLocation: Bool, newPath: String) {
        let new = path(environment: environment) + "/" + name
        let old = passwdHome + "/.local/share/datacenter/" + name
        let fm = FileManager.default
        if old != new, !fm.fileExists(atPath: new), fm.fileExists(atPath: old) { return (old, true, new) }
        return (new, false, new)
    }
}
