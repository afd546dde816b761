import Foundation
import Testing
@testable import DatacenterKit

/// The shared data center (`DataCenter.default`, `[APDataCenter defaultDataCenter]`):
/// configured once, an error before, never swapped for another root. The slot's rules are
/// tested on slots of their own; one test touches the process's default.
@Suite struct DefaultDataCenterTests {
    @Test func anUnconfiguredSlotIsAnError() {
        #expect(throws: DefaultDataCenterError.notConfigured) { try DefaultDataCenterSlot().center() }
    }

    @Test func theSameRootReturnsTheFirstCenterAndAnotherRootIsRefused() throws {
        let folder = TemporaryFolder()
        let slot = DefaultDataCenterSlot()
        let opens = Locked(0)
        func open(_ path: String) -> () throws -> DataCenter {
            { opens.withLock { $0 += 1 }; return try DataCenter(rootPath: path) }
        }
        let first = try slot.configure(rootPath: folder.file("root"), open: open(folder.file("root")))
        #expect(try slot.center() === first)
        // Another spelling of the same folder.
        let same = try slot.configure(rootPath: folder.file("root/../root/."), open: open(folder.file("root")))
        #expect(same === first)
        #expect(opens.current == 1, "the same root is not opened twice")
        #expect(throws: DefaultDataCenterError.configuredWithAnotherRoot(current: folder.file("root"),
                                                                         requested: folder.file("other"))) {
            try slot.configure(rootPath: folder.file("other"), open: open(folder.file("other")))
        }
        #expect(try slot.center() === first, "the shared data center is not swapped")
        #expect(opens.current == 1)
    }

    @Test func aFailedConfigurationLeavesTheSlotUnconfigured() throws {
        let folder = TemporaryFolder()
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: folder.file("file")))
        let slot = DefaultDataCenterSlot()
        #expect(throws: StorageError.rootNotAFolder(folder.file("file"))) {
            try slot.configure(rootPath: folder.file("file")) { try DataCenter(rootPath: folder.file("file")) }
        }
        #expect(throws: DefaultDataCenterError.notConfigured) { try slot.center() }
        let center = try slot.configure(rootPath: folder.file("root")) { try DataCenter(rootPath: folder.file("root")) }
        #expect(try slot.center() === center)
    }

    @Test func concurrentConfigurationsOpenTheRootOnce() throws {
        let folder = TemporaryFolder()
        let slot = DefaultDataCenterSlot()
        let opens = Locked(0)
        let centers = Locked<[ObjectIdentifier]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let center = try? slot.configure(rootPath: folder.file("root")) {
                opens.withLock { $0 += 1 }
                return try DataCenter(rootPath: folder.file("root"))
            }
            if let center { centers.withLock { $0.append(ObjectIdentifier(center)) } }
        }
        #expect(opens.current == 1)
        #expect(centers.current.count == 8)
        #expect(Set(centers.current).count == 1)
    }

    /// The one test of the process's default: configured, shared, not reconfigurable
    /// elsewhere.
    @Test func theProcessDefaultIsConfiguredOnceThenShared() throws {
        let folder = TemporaryFolder()
        let center = try DataCenter.configureDefault(rootPath: folder.file("default-root"))
        #expect(try DataCenter.default === center)
        #expect(try DataCenter.configureDefault(rootPath: folder.file("default-root")) === center)
        #expect(throws: DefaultDataCenterError.self) { try DataCenter.configureDefault(rootPath: folder.file("elsewhere")) }
        try DataCenter.default.commonPreferences.setString("v", forKey: "k", business: "b")
        #expect(try center.commonPreferences.string(forKey: "k", business: "b") == "v")
    }
}
