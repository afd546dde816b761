import DatacenterDemo
import DatacenterKit
import Foundation
import Testing

/// What building the demo costs and holds: every test of the browser starts from a demo.
@Suite struct DemoBuildTests {
    /// The vault's value is locked under a key that is not published, and building it derives
    /// no key from an app key string (100,000 PBKDF2 rounds, once for each demo built, a few
    /// seconds of every test run).
    @Test func theVaultIsLockedUnderItsOwnKeyAndNothingIsDerived() throws {
        let folder = TemporaryFolder()
        let root = folder.file("demo")
        let meter = WorkMeter()
        try WorkMeter.$current.withValue(meter) { try DemoStore.build(at: root) }
        #expect(meter[.appKeyDerivations] == 0, "\(meter.all)")

        let common = try DataCenter(rootPath: root, crypt: KeyRing([DemoStore.key])).commonStore()
        #expect(throws: KVError.needsCustomCrypt(business: "vault", key: "pin")) {
            try common.kv.string(forKey: "pin", business: "vault")
        }
        #expect(throws: KVError.self) { try common.kv.string(forKey: "pin", business: "vault", crypt: KeyRing([DemoStore.key])) }
        let vault = AESGCMCrypt(key: DemoStore.unpublishedKey)
        #expect(try common.kv.string(forKey: "pin", business: "vault", crypt: vault) == "4711")
    }

    /// Every file the demo writes is private to its owner, as every file the tool creates:
    /// the sample images of its purgeable folder were once 0644.
    @Test func everyFileAndFolderOfTheDemoIsPrivate() throws {
        let folder = TemporaryFolder()
        let root = folder.file("demo")
        try DemoStore.build(at: root)
        let walker = try #require(FileManager.default.enumerator(atPath: root))
        var checked = 0
        for case let relative as String in walker {
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + relative)
            let mode = try #require(attributes[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "\(relative) is \(String(mode, radix: 8))")
            checked += 1
        }
        #expect(checked > 10, "the demo holds its stores, images and caches")
    }
}
