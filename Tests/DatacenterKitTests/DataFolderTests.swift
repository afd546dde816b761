import Foundation
import Testing
@testable import DatacenterKit

/// Where data goes when no path is given: the XDG data folder, else `$HOME`'s, and a folder
/// kept under the passwd entry's home by earlier versions is still found.
@Suite struct DataFolderTests {
    @Test func theDataFolderFollowsXDGDataHomeThenHome() {
        #expect(DataFolder.path(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/h"]) == "/x/data/datacenter")
        #expect(DataFolder.path(environment: ["HOME": "/h"]) == "/h/.local/share/datacenter")
        // A relative XDG_DATA_HOME is ignored, as the specification says.
        #expect(DataFolder.path(environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]) == "/h/.local/share/datacenter")
        #expect(DataFolder.home(environment: ["HOME": "/h"]) == "/h")
    }

    @Test func aRootKeptUnderThePasswdHomeIsFoundUntilTheNewFolderHasOne() throws {
        let folder = TemporaryFolder()
        let passwdHome = folder.file("passwd-home"), home = folder.file("home")
        let environment = ["HOME": home]
        // Nothing anywhere: the new place.
        var resolved = DataFolder.resolve("Preferences", environment: environment, passwdHome: passwdHome)
        #expect(resolved.path == home + "/.local/share/datacenter/Preferences" && !resolved.usesOldLocation)
        // Only the old place holds one: that one, and the caller is told.
        try FileManager.default.createDirectory(atPath: passwdHome + "/.local/share/datacenter/Preferences", withIntermediateDirectories: true)
        resolved = DataFolder.resolve("Preferences", environment: environment, passwdHome: passwdHome)
        #expect(resolved.path == passwdHome + "/.local/share/datacenter/Preferences" && resolved.usesOldLocation)
        #expect(resolved.newPath == home + "/.local/share/datacenter/Preferences")
        // Once the new place has one, it wins.
        try FileManager.default.createDirectory(atPath: home + "/.local/share/datacenter/Preferences", withIntermediateDirectories: true)
        resolved = DataFolder.resolve("Preferences", environment: environment, passwdHome: passwdHome)
        #expect(resolved.path == home + "/.local/share/datacenter/Preferences" && !resolved.usesOldLocation)
    }
}
