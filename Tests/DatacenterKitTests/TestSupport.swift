import Foundation
import Testing
@testable import DatacenterKit

/// A fresh, empty folder for one test, removed when the value is released.
final class TemporaryFolder: @unchecked Sendable {
    let path: String

    init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        path = NSTemporaryDirectory() + "datacenter-tests/" + safe + "-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the folder.
    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

@Test func temporaryFolderIsEmptyAndRemoved() throws {
    var folderPath = ""
    do {
        let folder = TemporaryFolder()
        folderPath = folder.path
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
    #expect(!FileManager.default.fileExists(atPath: folderPath))
}
