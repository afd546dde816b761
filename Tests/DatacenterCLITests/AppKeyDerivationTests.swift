import ArgumentParser
import DatacenterKit
import Testing
@testable import datacenter

/// The key derived from `--app-key` costs 100,000 PBKDF2 rounds (tens of milliseconds): a
/// command derives it once, however many places use it.
@Suite struct AppKeyDerivationTests {
    @Test func browseDerivesTheAppKeyOnce() throws {
        let options = try GlobalOptions.parse(["--app-key", "the app's key"])
        let meter = WorkMeter()
        let (ring, appKey) = try WorkMeter.$current.withValue(meter) { try options.keys() }
        #expect(meter[.appKeyDerivations] == 1, "\(meter.all)")
        let derived = try #require(appKey)
        #expect(derived == EncryptionKey.derived(fromAppKey: "the app's key"))
        #expect(ring.keys.last == derived, "the derived key is tried after the others")
    }

    @Test func keyRingDerivesTheAppKeyOnce() throws {
        for extra in [[], ["--key", String(repeating: "ab", count: 32)]] {
            let options = try GlobalOptions.parse(["--app-key", "the app's key"] + extra)
            let meter = WorkMeter()
            let ring = try WorkMeter.$current.withValue(meter) { try options.keyRing() }
            #expect(meter[.appKeyDerivations] == 1, "\(extra): \(meter.all)")
            #expect(ring.keys.count == 1 + extra.count / 2)
        }
    }
}
