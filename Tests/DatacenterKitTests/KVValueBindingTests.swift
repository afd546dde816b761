import Foundation
import Testing
@testable import DatacenterKit

/// Encrypted KV values are bound to their business, key and encoding: a ciphertext copied to
/// another place is refused there, never shown as that place's value. Values written before
/// binding existed still read, and re-encryption upgrades them.
@Suite struct KVValueBindingTests {
    let folder = TemporaryFolder()
    let key = EncryptionKey.random()
    static let token = "tok-3f9a1c77e2"

    /// Copies the stored value (and its options) of `from` over the row of `to`, as an
    /// attacker with write access to the file would.
    func copyStoredValue(_ store: Store, from: (String, String), to: (String, String)) throws {
        try store.queue.write { db in
            try db.execute("""
                UPDATE datacenter_kv SET value = (SELECT value FROM datacenter_kv WHERE business = ? AND key = ?),
                  options = (SELECT options FROM datacenter_kv WHERE business = ? AND key = ?)
                WHERE business = ? AND key = ?
                """, [.text(from.0), .text(from.1), .text(from.0), .text(from.1), .text(to.0), .text(to.1)])
        }
        store.kv.clearMemoryCache()
    }

    /// Stores the token under session/apiToken and a theme, both encrypted.
    func storeWithTokenAndTheme() throws -> Store {
        let store = try Store(path: folder.file("kv.sqlite"), crypt: KeyRing([key]))
        try store.kv.setString(Self.token, forKey: "apiToken", business: "session", encryption: .default)
        try store.kv.setString("dark", forKey: "theme", business: "settings", encryption: .default)
        return store
    }

    /// Expects reading settings/theme to fail as a misplaced value, never giving the token.
    func expectMisplaced(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let value = try store.kv.string(forKey: "theme", business: "settings")
            Issue.record("a copied ciphertext read as \(value ?? "nil")", sourceLocation: sourceLocation)
        } catch {
            let message = "\(error)"
            #expect(message.contains("settings/theme"), "\(message)", sourceLocation: sourceLocation)
            #expect(message.contains("not for this business/key"), "\(message)", sourceLocation: sourceLocation)
            #expect(!message.contains(Self.token), sourceLocation: sourceLocation)
        }
    }

    @Test func aCiphertextCopiedToAnotherKeyIsRefused() throws {
        let store = try storeWithTokenAndTheme()
        try copyStoredValue(store, from: ("session", "apiToken"), to: ("settings", "theme"))
        expectMisplaced(store)
        // However it is read: the whole business, streaming, Android's preferences.
        #expect(throws: KVError.self) { try store.kv.allValues(business: "settings") }
        #expect(throws: KVError.self) { try store.kv.forEachValue(business: "settings") { _, _ in true } }
        #expect(throws: KVError.self) { try AndroidSharedPreferences(store: store.kv, group: "settings").getString("theme", nil) }
        // The original still reads where it belongs.
        #expect(try store.kv.string(forKey: "apiToken", business: "session") == Self.token)
    }

    @Test func aCiphertextCopiedToAnotherBusinessOrRelabelledIsRefused() throws {
        let store = try storeWithTokenAndTheme()
        try store.kv.setString("x", forKey: "apiToken", business: "settings", encryption: .default)
        try copyStoredValue(store, from: ("session", "apiToken"), to: ("settings", "apiToken"))
        #expect(throws: KVError.self) { try store.kv.string(forKey: "apiToken", business: "settings") }
        // The encoding is bound too: a string relabelled as JSON does not open.
        try store.queue.write { db in try db.execute("UPDATE datacenter_kv SET encoding = 'json' WHERE business = 'session'") }
        store.kv.clearMemoryCache()
        #expect(throws: KVError.self) { try store.kv.value(forKey: "apiToken", business: "session") }
    }

    @Test func aMovedValueIsReportedAsMisplacedAndCountsAsLocked() throws {
        let store = try storeWithTokenAndTheme()
        try copyStoredValue(store, from: ("session", "apiToken"), to: ("settings", "theme"))
        #expect(throws: KVError.cannotDecrypt(business: "settings", key: "theme", reason: .misplaced)) {
            try store.kv.value(forKey: "theme", business: "settings")
        }
        let summary = try #require(try store.kv.businessSummaries().first { $0.business == "settings" })
        #expect(summary.lockedCount == 1)
    }

    @Test func boundValuesHaveTheirOwnFormat() throws {
        let store = try storeWithTokenAndTheme()
        let blob = try #require(try rawKVRow(store, "session", "apiToken")?["value"]?.dataValue)
        #expect(blob.first == AESGCMCrypt.boundFormatTag)
        #expect(AESGCMCrypt.format(of: blob) == 2)
        #expect(blob.count == Self.token.utf8.count + AESGCMCrypt.boundOverhead)
        // Read without its place (as an unbound value), it is refused, not misread.
        #expect(throws: CryptError.self) { try AESGCMCrypt(key: key).decrypt(blob) }
    }

    /// Writes `text` as a format-1 (unbound) value, as versions before binding did.
    func writeUnboundValue(_ store: Store, _ text: String, business: String, key name: String) throws {
        let sealed = try AESGCMCrypt(key: key).encrypt(Data(text.utf8))
        #expect(sealed.first == 0x01)
        try store.queue.write { db in
            try db.execute("INSERT OR REPLACE INTO datacenter_kv(business, key, value, encoding, options, modified) VALUES (?, ?, ?, 'string', 1, 0)",
                           [.text(business), .text(name), .blob(sealed)])
        }
        store.kv.clearMemoryCache()
    }

    @Test func reencryptionUpgradesUnboundValuesSoACopyIsRefused() throws {
        let store = try storeWithTokenAndTheme()
        try writeUnboundValue(store, Self.token, business: "session", key: "apiToken")
        // An old value still reads where it is.
        #expect(try store.kv.string(forKey: "apiToken", business: "session") == Self.token)
        // Upgraded in place, under the same key.
        #expect(try store.kv.reencryptDefaultEncryptedValues(with: KeyRing([key])) == 2)
        let blob = try #require(try rawKVRow(store, "session", "apiToken")?["value"]?.dataValue)
        #expect(blob.first == 0x02, "re-encryption wrote format \(blob.first ?? 0)")
        #expect(try store.kv.string(forKey: "apiToken", business: "session") == Self.token)
        try copyStoredValue(store, from: ("session", "apiToken"), to: ("settings", "theme"))
        expectMisplaced(store)
    }

    @Test func aForgedPlaceCheckStillFailsAuthentication() throws {
        let store = try storeWithTokenAndTheme()
        var blob = try #require(try rawKVRow(store, "session", "apiToken")?["value"]?.dataValue)
        // Replace the stored check with the one of settings/theme.
        let check = CryptContext.kvValue(business: "settings", key: "theme", encoding: .string).check
        blob.replaceSubrange(1..<5, with: [UInt8(check >> 24), UInt8(check >> 16 & 0xFF), UInt8(check >> 8 & 0xFF), UInt8(check & 0xFF)])
        try store.queue.write { db in
            try db.execute("UPDATE datacenter_kv SET value = ? WHERE business = 'settings' AND key = 'theme'", [.blob(blob)])
        }
        store.kv.clearMemoryCache()
        #expect(throws: KVError.cannotDecrypt(business: "settings", key: "theme", reason: .wrongKey(keysTried: 1))) {
            try store.kv.value(forKey: "theme", business: "settings")
        }
    }

    @Test func customCryptsBindWhenTheySupportIt() throws {
        let store = try Store(path: folder.file("kv.sqlite"), crypt: KeyRing([key]))
        let custom = KeyRing([.random()])
        try store.kv.setString(Self.token, forKey: "apiToken", business: "session", encryption: .custom(custom))
        try store.kv.setString("dark", forKey: "theme", business: "settings", encryption: .custom(custom))
        try copyStoredValue(store, from: ("session", "apiToken"), to: ("settings", "theme"))
        #expect(throws: KVError.cannotDecrypt(business: "settings", key: "theme", reason: .misplaced)) {
            try store.kv.string(forKey: "theme", business: "settings", crypt: custom)
        }
        #expect(try store.kv.string(forKey: "apiToken", business: "session", crypt: custom) == Self.token)
    }

    @Test func placesWithSeparatorsDoNotCollide() {
        let a = CryptContext.kvValue(business: "a/b", key: "c", encoding: .string)
        let b = CryptContext.kvValue(business: "a", key: "b/c", encoding: .string)
        let c = CryptContext(parts: ["kv", "a", "bc", "string"])
        let d = CryptContext(parts: ["kv", "ab", "c", "string"])
        #expect(Set([a.bytes, b.bytes, c.bytes, d.bytes]).count == 4)
    }
}
