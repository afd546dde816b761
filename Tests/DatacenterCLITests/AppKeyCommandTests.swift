import Foundation
import Testing
@testable import DatacenterKit

/// The default value key derived from the app key (`--app-key`, `$DATACENTER_APP_KEY`), as the
/// original derives its default key when the app gives none of its own.
@Suite struct AppKeyCommandTests {
    @Test func aValueWrittenWithTheAppKeyReadsWithItAndOnlyWithIt() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        let set = try CLI.run(["kv", "set", "s", "token", "app-secret", "--encrypt", "--app-key", "my-app", "--root", root])
        #expect(set.status == 0, "\(set.stderr)")
        // It is the key the engine derives: the engine reads it back with that key alone.
        let center = try DataCenter(rootPath: root, crypt: KeyRing([EncryptionKey.derived(fromAppKey: "my-app")]), readOnly: true)
        #expect(try center.commonPreferences.string(forKey: "token", business: "s") == "app-secret")

        let withFlag = try CLI.run(["kv", "get", "s", "token", "--app-key", "my-app", "--root", root])
        #expect(withFlag.stdout == "app-secret\n", "\(withFlag.stderr)")
        let fromEnv = try CLI.run(["kv", "get", "s", "token", "--root", root], environment: ["DATACENTER_APP_KEY": "my-app"])
        #expect(fromEnv.stdout == "app-secret\n", "\(fromEnv.stderr)")
        let otherApp = try CLI.run(["kv", "get", "s", "token", "--app-key", "other-app", "--root", root])
        #expect(otherApp.status == 1)
        #expect(otherApp.stderr.contains("wrong key"))
        #expect(otherApp.stdout.isEmpty)
    }

    @Test func explicitKeysComeFirstAndTheAppKeyIsTriedLast() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "s", "old", "by-app-key", "--encrypt", "--app-key", "my-app", "--root", root])
        let set = try CLI.run(["kv", "set", "s", "new", "by-own-key", "--encrypt", "--key", TestKeys.first, "--app-key", "my-app", "--root", root])
        #expect(set.status == 0, "\(set.stderr)")
        // The new value went under --key (the newest), and the app key still opens the old one.
        let own = try CLI.run(["kv", "get", "s", "new", "--key", TestKeys.first, "--root", root])
        #expect(own.stdout == "by-own-key\n")
        let both = try CLI.run(["kv", "get", "s", "old", "--key", TestKeys.first, "--app-key", "my-app", "--root", root])
        #expect(both.stdout == "by-app-key\n")
    }
}
