import DatacenterDemo
import DatacenterKit
import Foundation
import Testing
@testable import DatacenterBrowser

/// A cache's grid: pages in key order both ways, and its cells.
@Suite struct CacheSourceTests {
    @Test func aCachePagesBackwardsInKeyOrderAndShowsExpiryInISO8601() throws {
        let folder = TemporaryFolder()
        let root = try makeDemo(folder)
        let catalog = try BrowserCatalog(path: root, keys: KeyRing([DemoStore.key]))
        let store = try catalog.store(at: root + "/common.sqlite")
        let info = try CacheCatalog.cache(named: "thumbnails", in: store)
        let source = try CacheSource(store: store, info: info)
        let last = try source.lastPage(limit: 3)
        #expect(last.map { $0.key.first?.stringValue } == ["avatar-6.png", "avatar-size", "banner.txt"])
        let before = try source.page(before: last[1], limit: 2)
        #expect(before.map { $0.key.first?.stringValue } == ["avatar-5.png", "avatar-6.png"])
        #expect(try source.page(before: before[0], limit: 100).count == 4)
        let expires = try #require(try CacheCatalog.entry("banner.txt", of: info, in: store)?.expires)
        #expect(last[2].cells[1].text == ISO8601DateFormatter().string(from: expires))
        #expect(last[1].cells[1].text == "never")
    }
}
