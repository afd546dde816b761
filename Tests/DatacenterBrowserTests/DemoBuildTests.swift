import DatacenterDemo
import DatacenterKit
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
}
