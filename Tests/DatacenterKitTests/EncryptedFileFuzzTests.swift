import Foundation
import Testing
@testable import DatacenterKit

/// Mutated encrypted files (bit flips, truncation, chunks spliced in from another file under
/// the same key, damaged headers, duplicated or dropped ranges) read back as the right
/// plaintext or fail with an error naming the file; never a crash, a hang, or other bytes
/// passed off as the file's plaintext. Seeded and printed: `FUZZ_CASES` and `FUZZ_SEED` set
/// the run (`make fuzz` runs a long one).
@Suite struct EncryptedFileFuzzTests {
    static let cases = testCount("FUZZ_CASES", default: 300)
    static let seed = testSeed("FUZZ_SEED", default: 0xF11E)

    let folder = TemporaryFolder()
    let key = EncryptionKey.random()

    /// Writes `plain` as an encrypted file of format `version`; returns its bytes.
    func sealed(_ plain: Data, chunkSize: Int, version: Int, name: String) throws -> Data {
        let path = folder.file(name)
        let writer = try EncryptedFileWriter(path: path, key: key, chunkSize: chunkSize, version: version)
        try writer.write(plain)
        try writer.finish()
        return fileBytes(path)
    }

    @Test func mutatedFilesReadRightOrFailNamingTheFile() throws {
        var random = SplitMix64(seed: Self.seed)
        let watchdog = Watchdog(limit: 5)
        defer { watchdog.finish() }
        for index in 0..<Self.cases {
            let label = "seed \(Self.seed) case \(index)"
            watchdog.start(label)
            defer { watchdog.stop() }
            let version = 1 + random.below(2)
            let chunkSize = [1, 7, 16, 64][random.below(4)]
            let plain = random.bytes(random.below(300)), donorPlain = random.bytes(plain.count)
            let original = try sealed(plain, chunkSize: chunkSize, version: version, name: "o\(index)")
            let donor = try sealed(donorPlain, chunkSize: chunkSize, version: version, name: "d\(index)")
            var bytes = original
            for _ in 0..<(1 + random.below(4)) {
                guard !bytes.isEmpty else { break }
                let at = random.below(bytes.count)
                let length = 1 + random.below(2 * chunkSize + 40)
                switch random.below(8) {
                case 0: bytes[at] ^= UInt8(1 << random.below(8))
                case 1: bytes = bytes.prefix(at)
                case 2:
                    // Header damage: any of its bytes set to anything.
                    let spot = random.below(min(bytes.count, 28))
                    bytes[spot] = UInt8(random.below(256))
                case 3: bytes.removeSubrange(at..<min(bytes.count, at + length))
                case 4: bytes.insert(contentsOf: bytes.subdata(in: at..<min(bytes.count, at + length)), at: random.below(bytes.count))
                case 5: bytes.append(random.bytes(1 + random.below(60)))
                default:
                    // Splicing from a file under the same key, at the same offset. Version 1
                    // chunks are not bound to their file (the reason for version 2), so a
                    // version 1 file only gets its own bytes moved around.
                    let source = version >= 2 ? donor : bytes
                    let end = min(bytes.count, source.count, at + length)
                    let from = version >= 2 ? at : random.below(max(1, source.count - (end - at)))
                    if end > at, from + (end - at) <= source.count {
                        bytes.replaceSubrange(at..<end, with: source.subdata(in: from..<(from + end - at)))
                    }
                }
            }
            let path = folder.file("m\(index)")
            #expect(FileManager.default.createFile(atPath: path, contents: bytes))
            do {
                let reader = try EncryptedFileReader(path: path, keys: KeyRing([key]))
                let read = try reader.readAll()
                // Success: the file is intact, or has become the donor file whole.
                let expected = bytes == donor ? donorPlain : plain
                #expect(read == expected, "\(label): v\(version) chunk \(chunkSize): a mutated file read as other bytes")
                #expect(bytes == original || bytes == donor, "\(label): a changed file read without an error")
            } catch let error as EncryptedFileError {
                #expect("\(error)".contains(path), "\(label): \(error) does not name the file")
            } catch {
                Issue.record("\(label): unexpected error \(error)")
            }
        }
    }
}
