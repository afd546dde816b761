#if canImport(Glibc)
import Glibc
#endif
import DatacenterTestSupport
import Foundation
import Testing
@testable import DatacenterKit

/// `FileTree.remove`: `rm -rf` for folders that other threads and programs are changing.
@Suite struct FileTreeTests {
    let folder = TemporaryFolder()

    @Test func removesAFolderWithEverythingInIt() throws {
        let root = folder.file("tree")
        try FileManager.default.createDirectory(atPath: root + "/a/b/c", withIntermediateDirectories: true)
        for name in ["x", "a/y", "a/b/z", "a/b/c/w"] {
            #expect(FileManager.default.createFile(atPath: root + "/" + name, contents: Data([1])))
        }
        // A name that is not UTF-8 (Latin-1 "é"): removed by its bytes.
        let latin1 = root + "/a/caf"
        var bytes = Array(latin1.utf8)
        bytes.append(0xE9)
        bytes.append(0)
        let raw = bytes.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o600) }
        #expect(raw >= 0)
        close(raw)
        // A link to a file outside: the link goes, the file stays.
        let outside = folder.file("kept")
        #expect(FileManager.default.createFile(atPath: outside, contents: Data([2])))
        try FileManager.default.createSymbolicLink(atPath: root + "/a/link", withDestinationPath: outside)
        try FileTree.remove(atPath: root)
        #expect(!FileManager.default.fileExists(atPath: root))
        #expect(FileManager.default.fileExists(atPath: outside), "a symbolic link is removed, not what it points to")
    }

    @Test func nothingThereIsNotAnError() throws {
        try FileTree.remove(atPath: folder.file("never-made"))
        #expect(FileManager.default.createFile(atPath: folder.file("file"), contents: Data([1])))
        try FileTree.remove(atPath: folder.file("file"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("file")))
    }

    /// Entries deleted by another thread while the folder is emptied, as a store closing on
    /// a background queue deletes its -wal and -shm files: `FileManager.removeItem` fails
    /// this every time ("The file doesn't exist") and leaves the folder behind.
    @Test func entriesVanishingMeanwhileAreNotErrors() throws {
        for trial in 0..<5 {
            let root = folder.file("race\(trial)")
            try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
            let count = 800
            for i in 0..<count { #expect(FileManager.default.createFile(atPath: root + "/sub/f\(i)", contents: Data([1]))) }
            let other = Thread { for i in stride(from: count - 1, through: 0, by: -1) { unlink(root + "/sub/f\(i)") } }
            other.start()
            try FileTree.remove(atPath: root)
            #expect(!FileManager.default.fileExists(atPath: root), "trial \(trial)")
            while !other.isFinished { usleep(1_000) }
        }
    }

    /// Entries created by another thread while the folder is emptied (an app writing its
    /// cache): emptied again until it stays empty.
    @Test func entriesAppearingMeanwhileAreRemovedToo() throws {
        let root = folder.file("growing")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for i in 0..<1_000 { #expect(FileManager.default.createFile(atPath: root + "/old\(i)", contents: Data([1]))) }
        // The folder may be gone before the writer is done: its creations are best effort.
        let other = Thread { for i in 0..<200 { _ = FileManager.default.createFile(atPath: root + "/new\(i)", contents: Data([1])) } }
        other.start()
        var removed = true
        do {
            try FileTree.remove(atPath: root)
        } catch let error as FileAccessError {
            // Only if the writer outran every pass: then it says so, naming the folder.
            removed = false
            #expect(error.path == root && error.reason.contains("entries keep appearing"))
        }
        while !other.isFinished { usleep(1_000) }
        // Once removed, the folder stays gone: the writer cannot create files in it.
        if removed { #expect(!FileManager.default.fileExists(atPath: root)) }
    }
}
