import DatacenterKit
import Foundation

/// A fresh, empty folder for one test, removed when the value is released. Shared by every
/// test target.
public final class TemporaryFolder: @unchecked Sendable {
    /// The folder.
    public let path: String

    /// A folder named after the test (`#function`) and a unique suffix.
    public init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        path = NSTemporaryDirectory() + "datacenter-tests/" + safe + "-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    // `FileTree`: a store closing on a background queue may delete its -wal and -shm files
    // while the folder is removed, which stops `FileManager.removeItem` half-way.
    deinit { try? FileTree.remove(atPath: path) }
}
