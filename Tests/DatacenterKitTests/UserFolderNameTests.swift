import Foundation
import Testing
@testable import DatacenterKit

/// `UserFolderName`: any user id becomes a safe folder name and back.
@Suite struct UserFolderNameTests {
    static let ids = [
        "alice", "bob@example.com", "../../etc", "..", ".", "/", ".hidden", "a/b", "日本", "%41", "%",
        "with space", "tab\there", "new\nline", "back\\slash", "UPPER-lower_09.x", "a.", "~root", "\u{0}", "é",
        "emoji 🙂", String(repeating: "a", count: 240),
    ]

    @Test(arguments: ids)
    func idsRoundTripAndAreSafe(_ id: String) throws {
        let name = try UserFolderName.encode(id)
        #expect(UserFolderName.decode(name) == id)
        #expect(!name.contains("/"))
        #expect(!name.contains("\\"))
        #expect(!name.hasPrefix("."))
        #expect(name != "." && name != "..")
        #expect(!name.isEmpty)
        #expect(name.utf8.count <= UserFolderName.maximumLength)
        #expect(name.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F })
    }

    @Test(arguments: ids)
    func theStorePathStaysInsideTheRoot(_ id: String) throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let center = try DataCenter(rootPath: root)
        let path = try center.storePath(forUser: id)
        let standardized = URL(fileURLWithPath: path).standardized.path
        let usersFolder = URL(fileURLWithPath: root + "/users").standardized.path
        #expect(standardized.hasPrefix(usersFolder + "/"), "\(id.debugDescription) → \(standardized)")
        #expect(URL(fileURLWithPath: standardized).deletingLastPathComponent().deletingLastPathComponent().path == usersFolder)
        // Opening the store really creates it there, and the id is listed back.
        _ = try center.preferences(forUser: id)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(center.users() == [id])
    }

    @Test func differentIdsGiveDifferentFolders() throws {
        var seen: [String: String] = [:]
        for id in Self.ids {
            let name = try UserFolderName.encode(id)
            #expect(seen[name] == nil, "\(id.debugDescription) and \(seen[name]?.debugDescription ?? "") share \(name)")
            seen[name] = id
        }
    }

    @Test func knownEncodings() throws {
        #expect(try UserFolderName.encode("alice") == "alice")
        #expect(try UserFolderName.encode("../../etc") == "%2E.%2F..%2Fetc")
        #expect(try UserFolderName.encode(".hidden") == "%2Ehidden")
        #expect(try UserFolderName.encode("%41") == "%2541")
        #expect(try UserFolderName.encode("日") == "%E6%97%A5")
    }

    @Test func emptyAndOverlongIdsAreRefused() {
        #expect(throws: StorageError.self) { try UserFolderName.encode("") }
        #expect(throws: StorageError.self) { try UserFolderName.encode(String(repeating: "x", count: 1000)) }
        // Short in characters, long once escaped.
        #expect(throws: StorageError.self) { try UserFolderName.encode(String(repeating: "/", count: 100)) }
        #expect(throws: StorageError.self) { try UserFolderName.encode(String(repeating: "a", count: 241)) }
    }

    @Test(arguments: ["", "%", "%4", "%zz", "%2e", ".hidden", "a/b", "%2E%2E", "%FF", "ab%2d", "%41"])
    func namesEncodeDoesNotMakeDoNotDecode(_ name: String) {
        #expect(UserFolderName.decode(name) == nil, "\(name) decoded")
    }

    @Test func seededRandomIdsRoundTrip() throws {
        let seed: UInt64 = 0x1D5_F01D
        var rng = SplitMix64(seed: seed)
        let alphabet = Array("aZ09-_.%/\\ :日本é🙂\u{0}\t")
        for round in 0..<500 {
            let length = Int.random(in: 1...40, using: &rng)
            let id = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
            let name = try UserFolderName.encode(id)
            #expect(UserFolderName.decode(name) == id, "seed \(seed), round \(round), id \(id.debugDescription)")
            #expect(!name.contains("/") && !name.hasPrefix("."), "seed \(seed), round \(round), id \(id.debugDescription)")
        }
    }
}
