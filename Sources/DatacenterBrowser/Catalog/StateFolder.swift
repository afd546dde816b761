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

    /// The name (without extension) of what the state folder keeps for the store file at
    /// `storePath`: its file name, then a digest of its full path, so that two
    /// `common.sqlite` of different roots keep their own (`NAME-HASH`).
    package static func fileName(forStore storePath: String) -> String {
        let absolute = URL(fileURLWithPath: storePath).standardizedFileURL.path
        let name = (absolute as NSString).lastPathComponent.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }
        return String(name.prefix(64)) + "-" + String(fnv1a(absolute), radix: 16)
    }

    /// True when `a` and `b` name the same file once made absolute and standardized, as
    /// `fileName(forStore:)` names what is kept for it.
    package static func sameFile(_ a: String, _ b: String) -> Bool {
        URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
    }

    /// FNV-1a over the text's bytes: the same digest in every run (Swift's `Hasher` is
    /// seeded anew per process).
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
