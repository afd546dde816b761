import ArgumentParser
import DatacenterKit
import Foundation

/// Options every command takes: which root, and which keys.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data-center root folder.",
                                            discussion: "Default: $DATACENTER_ROOT, else ~/.local/share/datacenter/Preferences.",
                                            valueName: "path"))
    var root: String?

    @Option(name: .long, help: ArgumentHelp("A 32-byte key: 64 hex digits, base64, or @file. Repeat for older keys, newest first.",
                                            discussion: "$DATACENTER_KEY is tried after the keys given here.",
                                            valueName: "key"))
    var key: [String] = []

    @Option(name: .long, help: ArgumentHelp("The app's key string: the default value key is derived from it, as the original does when the app gives no key of its own.",
                                            discussion: "$DATACENTER_APP_KEY when not given. The derived key is tried after every --key and $DATACENTER_KEY.",
                                            valueName: "string"))
    var appKey: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for another connection's lock before failing.",
                                            discussion: "Default 5. A long write elsewhere (an import, a rekey, a big dao call) holds the lock; raise this to wait it out.",
                                            valueName: "seconds"))
    var busyTimeout: Double = 5

    func validate() throws {
        guard busyTimeout >= 0, busyTimeout.isFinite else { throw ValidationError("--busy-timeout takes 0 or more seconds") }
    }

    /// The root folder to use.
    var rootPath: String { root.map(expandTilde) ?? DataCenter.defaultRootPath }

    /// The keys from `--key`, then `DATACENTER_KEY`, then the one derived from the app key
    /// (`--app-key`, `DATACENTER_APP_KEY`), newest first.
    func keyRing() throws -> KeyRing {
        var texts = key
        if let env = ProcessInfo.processInfo.environment["DATACENTER_KEY"], !env.isEmpty { texts.append(env) }
        let ring: KeyRing
        do { ring = try KeyRing(parsing: texts) } catch let error as CryptError {
            throw CLIError("\(error)")
        }
        guard let derived = appKeyDerivedKey else { return ring }
        return KeyRing(ring.keys + [derived])
    }

    /// The default value key derived from the app key, when one is given.
    var appKeyDerivedKey: EncryptionKey? {
        let text = appKey ?? ProcessInfo.processInfo.environment["DATACENTER_APP_KEY"]
        guard let text, !text.isEmpty else { return nil }
        return EncryptionKey.derived(fromAppKey: text)
    }

    /// Opens the root; read-only roots must exist.
    func openDataCenter(readOnly: Bool = false) throws -> DataCenter {
        try DataCenter(rootPath: rootPath, crypt: keyRing(), readOnly: readOnly, busyTimeout: busyTimeout)
    }
}

/// Expands a leading `~/` to the home folder.
func expandTilde(_ path: String) -> String {
    path.hasPrefix("~/") ? FileManager.default.homeDirectoryForCurrentUser.path + String(path.dropFirst(1)) : path
}

/// Selects the store a KV command works on: the common store, or a user's.
struct StoreSelection: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Work on this user's store instead of the common store.", valueName: "id"))
    var user: String?

    func store(in center: DataCenter) throws -> KVStore {
        if let user {
            guard center.isReadOnly == false || center.users().contains(user) else {
                throw CLIError("no user \(user) under \(center.rootPath)")
            }
            return try center.preferences(forUser: user)
        }
        return try center.commonPreferences
    }
}
