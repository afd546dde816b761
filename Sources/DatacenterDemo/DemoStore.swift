import DatacenterDAO
import DatacenterKit
import Foundation

/// Builds the demo root: a data center with a common store, two users and a version
/// storage, holding every kind of value the engine stores, so a new user sees every feature.
///
/// Encrypted values use `DemoStore.key` (documented in `docs/CLI.md`); one value uses a
/// custom key that is deliberately not published, so tools show it as locked.
package enum DemoStore {
    /// The demo's default key, as 64 hex digits: pass it with `--key` to decrypt demo values.
    /// The bytes of "d3m0", then 28 bytes 0x5a. Spelt out: every command's help names it, and
    /// formatting it with `String(format:)` cost each start-up about 0.3 ms.
    package static let keyHex = "64336d30" + String(repeating: "5a", count: 28)

    /// The demo's default key.
    package static var key: EncryptionKey { try! EncryptionKey(parsing: keyHex) }

    /// The key of the vault's value, not published, so tools show that value as locked. Its
    /// bytes are a sentence of 32 characters: it was once derived from an app key string,
    /// which spent 100,000 PBKDF2 rounds on every demo built for a key nobody is given.
    package static var unpublishedKey: EncryptionKey { try! EncryptionKey(bytes: Array("demo vault: a key not published.".utf8)) }

    /// The demo's database passphrase (`datacenter demo --encrypt-db`): every SQLite file of
    /// an encrypted demo root is encrypted with it in SQLCipher 4's format. Published, like
    /// `keyHex`, so the demo can be opened with `--db-key`: it protects nothing.
    package static let databasePassphrase = "datacenter-demo-db"

    /// The database keys of an encrypted demo root: `databasePassphrase`, in SQLCipher 4's
    /// format first (what new files get), then 3's.
    package static var databaseKeys: DatabaseKeyList {
        // A constant, non-empty passphrase: the only thing this initializer refuses is an empty one.
        try! DatabaseKeyList(sqlcipherKeys: [databasePassphrase])
    }

    /// The app version the demo's version storage belongs to.
    package static let appVersion = "1.0.0"

    /// The users of the demo; the first is the current one.
    package static let users = ["alice", "bob@example.com"]

    /// A sample `Codable` model stored with `archiveObject` and `saveJsonObject`.
    package struct LastLogin: Codable, Sendable, Equatable {
        /// The device signed in from.
        package var device: String
        /// When.
        package var at: Date
        /// How many tries it took.
        package var attempts: Int
    }

    /// Builds the demo under `rootPath`, which must not exist yet (or be empty).
    /// - parameter databaseKeys: with keys (`DemoStore.databaseKeys` for the published
    ///   demo), every SQLite file of the root is encrypted; empty, they are plain.
    package static func build(at rootPath: String, databaseKeys: DatabaseKeyList = .empty) throws {
        let center = try DataCenter(rootPath: rootPath, crypt: KeyRing([key]), appVersion: appVersion, databaseKeys: databaseKeys)
        let common = try center.commonPreferences
        let day = Date(timeIntervalSince1970: 1_767_225_600) // 2026-01-01
        try common.batch {
            try common.setString("dark", forKey: "theme", business: "settings")
            try common.setInteger(14, forKey: "fontSize", business: "settings")
            try common.setDouble(0.75, forKey: "volume", business: "settings")
            try common.setBool(true, forKey: "notifications", business: "settings")
            try common.setLongLong(12_345_678_901, forKey: "installId", business: "settings")
            try common.setString("Line one\nLine two\twith a tab", forKey: "motd", business: "settings")
            try common.setObject(.dictionary([
                "name": .string("Demo App"),
                "tags": .array([.string("sample"), .string("日本語"), .string("emoji 😀")]),
                "released": .date(day),
                "icon": .data(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])),
                "build": .integer(42),
                "beta": .bool(false),
            ]), forKey: "about", business: "app")
            try common.setObject(.array([.integer(1), .real(2.5), .string("three")]), forKey: "list", business: "app")
            try common.setString("sk_live_51Hdemo-secret-token", forKey: "apiToken", business: "session", encryption: .default)
            try common.saveJsonObject(["user": "alice", "scope": "read write"], forKey: "grant", business: "session", encryption: .default)
            try common.archiveObject(LastLogin(device: "Pixel 9", at: day, attempts: 1), forKey: "lastLogin", business: "session")
            try common.setString("4711", forKey: "pin", business: "vault",
                                 encryption: .custom(AESGCMCrypt(key: unpublishedKey)))
            for i in 1...5 {
                try common.saveJsonObject(["id": "\(i)", "title": "Post number \(i)"], forKey: "post-\(i)",
                                          business: "feed-cache", options: .purgeable)
            }
        }
        try center.commonStore().queue.write { db in
            try db.executeScript("""
                CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, created REAL);
                INSERT INTO notes(title, body, created) VALUES
                  ('Welcome', 'This table is not managed by the engine: any SQLite table shows up.', 1767225600),
                  ('Quotes', 'It''s quoted; "double" too', 1767312000),
                  ('Unicode', 'héllo wörld – 日本語 – 😀', 1767398400);
                """)
        }

        try center.setCurrentUserId(users[1])
        let bob = try center.preferences(forUser: users[1])
        try bob.setString("light", forKey: "theme", business: "settings")
        try bob.setString("bob's private note", forKey: "note", business: "secrets", encryption: .default)

        try center.setCurrentUserId(users[0])
        let alice = try center.preferences(forUser: users[0])
        try alice.batch {
            try alice.setString("See you at 10", forKey: "draft:42", business: "chat")
            try alice.setInteger(3, forKey: "unread", business: "chat")
            try alice.saveJsonObject(["muted": ["bob@example.com"], "pinned": ["team"]], forKey: "prefs", business: "chat")
            try alice.setString("+1 555 0100", forKey: "phone", business: "profile", encryption: .default)
            try alice.setObject(.dictionary(["lat": .real(52.52), "lon": .real(13.405)]), forKey: "home",
                                business: "profile", encryption: .default)
        }

        try buildCaches(center, day: day)
        try buildPurgeableFolder(center)

        let version = center.currentVersionStorage
        try version.commonPreferences.setBool(true, forKey: "onboardingShown")
        try version.commonPreferences.setString("What's new in 1.0.0", forKey: "releaseNotesSeen")
    }

    /// Two disk caches in the common store (one encrypted) and one that follows the user.
    private static func buildCaches(_ center: DataCenter, day: Date) throws {
        let thumbnails = try LRUDiskCache(name: "thumbnails", capacity: 100, dataCenter: center)
        for i in 1...6 {
            var bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            bytes.append(contentsOf: (0..<(40 * i)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ i) })
            try thumbnails.setData(bytes, forKey: "avatar-\(i).png")
        }
        try thumbnails.set(["width": 64, "height": 64], forKey: "avatar-size")
        try thumbnails.setData(Data("expires in a month".utf8), forKey: "banner.txt", expiresAt: Date().addingTimeInterval(30 * 86_400))
        try thumbnails.flush()

        let tokens = try LRUDiskCache(name: "tokens", capacity: 20, encrypted: true, dataCenter: center)
        try tokens.set(LastLogin(device: "Pixel 9", at: day, attempts: 3), forKey: "last-login")
        try tokens.set("refresh-7f3a9c", forKey: "refresh-token")
        try tokens.flush()

        let chats = try LRUDiskCache(name: "recentChats", capacity: 50, userDependent: true, dataCenter: center)
        try chats.set(["with": "bob@example.com", "preview": "See you at 10"], forKey: "chat-1")
        try chats.set(["with": "team", "preview": "Release on Friday 🚀"], forKey: "chat-2")
        try chats.flush()
    }

    /// A purgeable folder (7 days, 1 MB cap) holding files of various ages.
    private static func buildPurgeableFolder(_ center: DataCenter) throws {
        let folder = try PurgeablePaths(root: center.rootPath).register("Caches/images", type: .oneWeek, maximumMegabytes: 1)
        let now = Date()
        for (name, days, size) in [("fresh.jpg", 1, 20_000), ("recent.jpg", 5, 30_000), ("old.jpg", 10, 40_000), ("ancient.jpg", 40, 50_000)] {
            let path = folder + "/" + name
            try PrivateFile.write(Data(repeating: UInt8(days), count: size), toPath: path)
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-Double(days) * 86_400)], ofItemAtPath: path)
        }
    }
}
