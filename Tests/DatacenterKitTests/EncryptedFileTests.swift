import Foundation
import Testing
@testable import DatacenterKit

/// `EncryptedFile`, `EncryptedFileWriter` and `EncryptedFileReader`.
@Suite struct EncryptedFileTests {
    static let header = 28   // version 2: 12 fixed bytes and the 16-byte file id
    static let overhead = 28   // nonce + tag per chunk

    let folder = TemporaryFolder()
    let key = EncryptionKey.random()

    /// Writes `plain` to a file, encrypts it with `chunkSize`, and returns the encrypted path.
    func encrypted(_ plain: Data, chunkSize: Int, name: String = "file") throws -> String {
        let input = folder.file(name + ".plain")
        let output = folder.file(name + ".enc")
        #expect(FileManager.default.createFile(atPath: input, contents: plain))
        try EncryptedFile.encrypt(from: input, to: output, key: key, chunkSize: chunkSize)
        return output
    }

    /// Decrypts `path` with `keys` into a fresh output path; returns the plaintext.
    func decrypt(_ path: String, keys: KeyRing? = nil) throws -> Data {
        let output = path + ".out"
        try EncryptedFile.decrypt(from: path, to: output, keys: keys ?? KeyRing([key]))
        return fileBytes(output)
    }

    /// Replaces the file's bytes by `change(bytes)`.
    func edit(_ path: String, _ change: (inout Data) -> Void) {
        var bytes = fileBytes(path)
        change(&bytes)
        #expect(FileManager.default.createFile(atPath: path, contents: bytes))
    }

    /// Expects decrypting `path` to throw `expected` (or any `EncryptedFileError` when nil) and to
    /// leave neither the output nor a partial file behind.
    func expectRefused(_ path: String, _ expected: EncryptedFileError?, sourceLocation: SourceLocation = #_sourceLocation) {
        let output = path + ".out"
        do {
            try EncryptedFile.decrypt(from: path, to: output, keys: KeyRing([key]))
            Issue.record("a damaged file decrypted", sourceLocation: sourceLocation)
        } catch let error as EncryptedFileError {
            if let expected { #expect(error == expected, sourceLocation: sourceLocation) }
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
        #expect(!FileManager.default.fileExists(atPath: output), "output left behind", sourceLocation: sourceLocation)
        let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.contains(".partial") }
        #expect(leftovers.isEmpty, "partial files left: \(leftovers)", sourceLocation: sourceLocation)
    }

    // MARK: Round trips and layout

    @Test func anEmptyFileIsAHeaderAndOneEmptyChunk() throws {
        let path = try encrypted(Data(), chunkSize: 16)
        #expect(fileBytes(path).count == Self.header + Self.overhead)
        #expect(Array(fileBytes(path).prefix(4)) == Array("DCEF".utf8))
        #expect(EncryptedFile.isEncrypted(atPath: path))
        #expect(try decrypt(path) == Data())
        let output = path + ".out"
        #expect(FileManager.default.fileExists(atPath: output), "an empty plaintext still gives an output file")
    }

    @Test func exactlyOneChunk() throws {
        let plain = Data((0..<16).map { UInt8($0) })
        let path = try encrypted(plain, chunkSize: 16)
        // A full chunk, then the empty last chunk that marks the end.
        #expect(fileBytes(path).count == Self.header + (16 + Self.overhead) + Self.overhead)
        #expect(try decrypt(path) == plain)
        let shorter = try encrypted(plain.prefix(15), chunkSize: 16, name: "shorter")
        #expect(fileBytes(shorter).count == Self.header + 15 + Self.overhead)
        #expect(try decrypt(shorter) == plain.prefix(15))
    }

    @Test(arguments: [1, 7, 64, 1000])
    func manyChunksWithASmallChunkSize(chunkSize: Int) throws {
        var rng = SplitMix64(seed: UInt64(chunkSize))
        let plain = rng.bytes(3_333)
        let path = try encrypted(plain, chunkSize: chunkSize)
        let chunks = plain.count / chunkSize + 1
        #expect(fileBytes(path).count == Self.header + plain.count + chunks * Self.overhead)
        #expect(try decrypt(path) == plain)
        // The chunk reader gives chunkSize bytes at a time, then the rest.
        let reader = try EncryptedFileReader(path: path, keys: KeyRing([key]))
        var sizes: [Int] = []
        while let chunk = try reader.readChunk() { sizes.append(chunk.count) }
        #expect(sizes.count == chunks)
        #expect(sizes.dropLast().allSatisfy { $0 == chunkSize })
        #expect(sizes.last == plain.count % chunkSize)
        #expect(try reader.readChunk() == nil)
    }

    @Test func aMegabyteRoundTripsAndHoldsNoPlaintext() throws {
        var rng = SplitMix64(seed: 7)
        var plain = rng.bytes(1 << 20)
        let marker = Data("PLAINTEXT-MARKER-PLAINTEXT-MARKER".utf8)
        plain.replaceSubrange(5000..<(5000 + marker.count), with: marker)
        let path = try encrypted(plain, chunkSize: EncryptedFile.defaultChunkSize)
        #expect(fileBytes(path).range(of: marker) == nil)
        #expect(try decrypt(path) == plain)
        // Two encryptions of the same file differ (fresh nonces).
        let again = try encrypted(plain, chunkSize: EncryptedFile.defaultChunkSize, name: "again")
        #expect(fileBytes(again) != fileBytes(path))
    }

    @Test func theWriterTakesWritesOfAnySize() throws {
        var rng = SplitMix64(seed: 3)
        let plain = rng.bytes(1000)
        let path = folder.file("w.enc")
        let writer = try EncryptedFileWriter(path: path, key: key, chunkSize: 64)
        var offset = 0
        for size in [0, 1, 63, 64, 65, 200, 607] {
            try writer.write(plain.subdata(in: offset..<(offset + size)))
            offset += size
        }
        #expect(offset == plain.count)
        try writer.finish()
        try writer.finish()   // a second finish does nothing
        #expect(throws: EncryptedFileError.self) { try writer.write(Data([1])) }
        let reader = try EncryptedFileReader(path: path, keys: KeyRing([key]))
        #expect(try reader.readAll() == plain)
        #expect(throws: EncryptedFileError.self) { try EncryptedFileWriter(path: folder.file("bad"), key: key, chunkSize: 0) }
    }

    @Test func writesOfAnySizeKeepLessThanAChunkAndChunkAsOneEncryptDoes() throws {
        var rng = SplitMix64(seed: 11)
        let chunkSize = 100
        let plain = rng.bytes(chunkSize * 37 + 42)
        let path = folder.file("pieces.enc")
        let writer = try EncryptedFileWriter(path: path, key: key, chunkSize: chunkSize)
        var offset = 0
        var step = 0
        while offset < plain.count {
            // Sizes below, at and well above the chunk size, as `write` may be given them.
            let size = min(plain.count - offset, [1, 99, 100, 101, 333, 0, 1000][step % 7])
            try writer.write(plain.subdata(in: offset..<(offset + size)))
            offset += size
            step += 1
            #expect(writer.pendingByteCount == offset % chunkSize, "only the partial chunk is held")
        }
        try writer.finish()
        // The same layout as encrypting the file in one go: 37 full chunks, then 42 bytes.
        let whole = try encrypted(plain, chunkSize: chunkSize, name: "whole")
        #expect(fileBytes(path).count == fileBytes(whole).count)
        // The same header but for the random file id.
        #expect(fileBytes(path).prefix(12) == fileBytes(whole).prefix(12))
        for file in [path, whole] {
            let reader = try EncryptedFileReader(path: file, keys: KeyRing([key]))
            var sizes: [Int] = []
            var decrypted = Data()
            while let chunk = try reader.readChunk() {
                sizes.append(chunk.count)
                decrypted.append(chunk)
            }
            #expect(sizes == Array(repeating: chunkSize, count: 37) + [42])
            #expect(decrypted == plain)
        }
        #expect(try decrypt(path) == plain)
    }

    @Test func anUnfinishedFileIsRefusedAsTruncated() throws {
        let path = folder.file("unfinished.enc")
        do {
            let writer = try EncryptedFileWriter(path: path, key: key, chunkSize: 8)
            try writer.write(Data(count: 24))   // three full chunks, no last chunk
        }
        expectRefused(path, .truncated(path))
    }

    @Test func isEncryptedLooksAtTheHeader() throws {
        let plain = folder.file("plain.txt")
        #expect(FileManager.default.createFile(atPath: plain, contents: Data("DCE".utf8)))
        #expect(!EncryptedFile.isEncrypted(atPath: plain))
        #expect(!EncryptedFile.isEncrypted(atPath: folder.file("missing")))
        #expect(throws: EncryptedFileError.notEncrypted(plain)) { try EncryptedFileReader(path: plain, keys: KeyRing([key])) }
        #expect(throws: EncryptedFileError.self) { try EncryptedFile.decrypt(from: folder.file("missing"), to: folder.file("o"), keys: KeyRing([key])) }
        #expect(throws: EncryptedFileError.self) {
            try EncryptedFile.encrypt(from: folder.file("missing"), to: folder.file("o"), key: key)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("o")))
    }

    // MARK: Keys

    @Test func aWrongKeyIsRefused() throws {
        let path = try encrypted(Data("secret".utf8), chunkSize: 4)
        let other = KeyRing([EncryptionKey.random(), EncryptionKey.random()])
        #expect(throws: EncryptedFileError.wrongKey(path, keysTried: 2)) { try decrypt(path, keys: other) }
        #expect(!FileManager.default.fileExists(atPath: path + ".out"))
        #expect(throws: CryptError.noKey) { try decrypt(path, keys: .empty) }
    }

    @Test func keyRotationReadsFilesWrittenUnderAnOlderKey() throws {
        let plain = Data(repeating: 0x42, count: 100)
        let path = try encrypted(plain, chunkSize: 32)
        let newer = EncryptionKey.random()
        #expect(try decrypt(path, keys: KeyRing([newer, key])) == plain)
        #expect(throws: EncryptedFileError.wrongKey(path, keysTried: 1)) { try decrypt(path, keys: KeyRing([newer])) }
        // Re-encrypting under the new key: the old key alone no longer opens it.
        let rotated = folder.file("rotated.enc")
        try EncryptedFile.encrypt(from: path + ".out", to: rotated, key: newer, chunkSize: 32)
        #expect(try decrypt(rotated, keys: KeyRing([newer])) == plain)
        #expect(throws: EncryptedFileError.self) { try decrypt(rotated, keys: KeyRing([key])) }
    }

    // MARK: Tampering

    /// 100 bytes in chunks of 16: six full chunks of 44 bytes and a last one of 4 + 28.
    func sixChunkFile(_ name: String = "t") throws -> (path: String, plain: Data) {
        var rng = SplitMix64(seed: 11)
        let plain = rng.bytes(100)
        return (try encrypted(plain, chunkSize: 16, name: name), plain)
    }
    static let fullChunk = 16 + overhead
    static func chunkStart(_ i: Int) -> Int { header + i * fullChunk }

    @Test func flippingAHeaderByteIsRefused() throws {
        for (offset, expectation) in [(0, "notEncrypted"), (4, "version"), (6, "aad"), (11, "size"), (12, "aad"), (27, "aad")] {
            let (path, _) = try sixChunkFile("h\(offset)")
            edit(path) { $0[offset] ^= 0x01 }
            switch expectation {
            case "notEncrypted": expectRefused(path, .notEncrypted(path))
            case "version": expectRefused(path, .unsupportedVersion(path, 3))
            case "aad": expectRefused(path, .wrongKey(path, keysTried: 1))
            default: expectRefused(path, nil)
            }
        }
    }

    @Test func flippingAByteInAnyChunkIsRefused() throws {
        let size = try fileBytes(sixChunkFile("size").path).count
        // Every byte of the first chunk, and bytes spread over the others (nonce, body, tag).
        var offsets = Array(Self.chunkStart(0)..<Self.chunkStart(1))
        offsets += stride(from: Self.chunkStart(1), to: size, by: 5).map { $0 }
        offsets.append(size - 1)
        for offset in offsets {
            let (path, _) = try sixChunkFile("b\(offset)")
            edit(path) { $0[offset] ^= 0x80 }
            let chunk = UInt64((offset - Self.header) / Self.fullChunk)
            let expected: EncryptedFileError = chunk == 0 ? .wrongKey(path, keysTried: 1)
                : chunk == 6 ? .truncated(path) : .tampered(path, chunk: chunk)
            expectRefused(path, expected)
        }
    }

    @Test func truncationIsRefused() throws {
        let (probe, _) = try sixChunkFile("probe")
        let size = fileBytes(probe).count
        // At each chunk boundary after the first chunk, and in the middle of chunks.
        let cuts = (1...6).map(Self.chunkStart) + [Self.chunkStart(2) + 20, Self.chunkStart(5) + 1, size - 1]
        for cut in cuts {
            let (path, _) = try sixChunkFile("c\(cut)")
            edit(path) { $0 = $0.prefix(cut) }
            expectRefused(path, .truncated(path))
        }
        // Cut inside the first chunk: nothing opens, which reads as a wrong key.
        let (early, _) = try sixChunkFile("early")
        edit(early) { $0 = $0.prefix(Self.header + 10) }
        expectRefused(early, nil)
        let (bare, _) = try sixChunkFile("bare")
        edit(bare) { $0 = $0.prefix(Self.header) }
        expectRefused(bare, .truncated(bare))
    }

    @Test func swappingChunksIsRefused() throws {
        func swap(_ a: Int, _ b: Int) throws -> String {
            let (path, _) = try sixChunkFile("s\(a)\(b)")
            edit(path) { bytes in
                let first = bytes.subdata(in: Self.chunkStart(a)..<Self.chunkStart(a + 1))
                let second = bytes.subdata(in: Self.chunkStart(b)..<Self.chunkStart(b + 1))
                bytes.replaceSubrange(Self.chunkStart(b)..<Self.chunkStart(b + 1), with: first)
                bytes.replaceSubrange(Self.chunkStart(a)..<Self.chunkStart(a + 1), with: second)
            }
            return path
        }
        let middle = try swap(2, 4)
        expectRefused(middle, .tampered(middle, chunk: 2))
        let first = try swap(0, 1)
        expectRefused(first, .wrongKey(first, keysTried: 1))
        // Moving the last chunk forward: its "last" flag no longer matches its place.
        let (moved, _) = try sixChunkFile("moved")
        edit(moved) { bytes in
            let last = bytes.suffix(4 + Self.overhead)
            bytes = bytes.prefix(Self.chunkStart(1)) + last + bytes.subdata(in: Self.chunkStart(1)..<Self.chunkStart(6))
        }
        expectRefused(moved, nil)
    }

    @Test func appendedGarbageIsRefused() throws {
        for extra in [1, 27, 28, 44, 45, 500] {
            let (path, _) = try sixChunkFile("g\(extra)")
            edit(path) { $0.append(Data(repeating: 0x5A, count: extra)) }
            expectRefused(path, nil)
        }
        // After an exact multiple of the chunk size, too.
        let path = try encrypted(Data(count: 32), chunkSize: 16, name: "exact")
        edit(path) { $0.append(0) }
        expectRefused(path, nil)
        // A copy of the last chunk appended.
        let (dup, _) = try sixChunkFile("dup")
        edit(dup) { bytes in bytes.append(bytes.suffix(4 + Self.overhead)) }
        expectRefused(dup, nil)
    }

    @Test func aFailedDecryptLeavesAnExistingOutputAlone() throws {
        let (path, _) = try sixChunkFile()
        edit(path) { $0[Self.chunkStart(3) + 20] ^= 1 }
        let output = path + ".out"
        #expect(FileManager.default.createFile(atPath: output, contents: Data("previous".utf8)))
        #expect(throws: EncryptedFileError.tampered(path, chunk: 3)) {
            try EncryptedFile.decrypt(from: path, to: output, keys: KeyRing([key]))
        }
        #expect(fileBytes(output) == Data("previous".utf8))
    }

    // MARK: Chunks bound to their file (version 2)

    /// Writes `plain` as a version 1 file (no file id), as versions before 2 did.
    func encryptedVersion1(_ plain: Data, chunkSize: Int, name: String) throws -> String {
        let path = folder.file(name + ".enc")
        let writer = try EncryptedFileWriter(path: path, key: key, chunkSize: chunkSize, version: 1)
        try writer.write(plain)
        try writer.finish()
        return path
    }

    /// The header size of the file at `path`, holding `plain` in chunks of `chunkSize`.
    func headerSize(_ path: String, plain: Data, chunkSize: Int) -> Int {
        fileBytes(path).count - plain.count - (plain.count / chunkSize + 1) * Self.overhead
    }

    @Test func aChunkSplicedFromAnotherFileUnderTheSameKeyIsRefused() throws {
        var rng = SplitMix64(seed: 21)
        let plainA = rng.bytes(100), plainB = rng.bytes(100)
        let b = try encrypted(plainB, chunkSize: 16, name: "b")
        for chunk in [1, 3, 6] {
            let a = try encrypted(plainA, chunkSize: 16, name: "a\(chunk)")
            let header = headerSize(a, plain: plainA, chunkSize: 16)
            let range = (header + chunk * Self.fullChunk)..<min(fileBytes(a).count, header + (chunk + 1) * Self.fullChunk)
            edit(a) { $0.replaceSubrange(range, with: fileBytes(b).subdata(in: range)) }
            expectRefused(a, chunk == 6 ? .truncated(a) : .tampered(a, chunk: UInt64(chunk)))
        }
        // The first chunk (with the other file's header kept): nothing opens.
        let a = try encrypted(plainA, chunkSize: 16, name: "a0")
        let header = headerSize(a, plain: plainA, chunkSize: 16)
        edit(a) { $0.replaceSubrange(header..<(header + Self.fullChunk), with: fileBytes(b).subdata(in: header..<(header + Self.fullChunk))) }
        expectRefused(a, .wrongKey(a, keysTried: 1))
        // The other file's header with this file's chunks: the file id differs.
        let c = try encrypted(plainA, chunkSize: 16, name: "c")
        edit(c) { $0.replaceSubrange(0..<header, with: fileBytes(b).prefix(header)) }
        expectRefused(c, .wrongKey(c, keysTried: 1))
    }

    @Test func duplicatedChunksAreRefused() throws {
        let (replaced, _) = try sixChunkFile("dup-replace")
        edit(replaced) { bytes in
            bytes.replaceSubrange(Self.chunkStart(2)..<Self.chunkStart(3), with: bytes.subdata(in: Self.chunkStart(1)..<Self.chunkStart(2)))
        }
        expectRefused(replaced, .tampered(replaced, chunk: 2))
        let (inserted, _) = try sixChunkFile("dup-insert")
        edit(inserted) { bytes in bytes.insert(contentsOf: bytes.subdata(in: Self.chunkStart(3)..<Self.chunkStart(4)), at: Self.chunkStart(4)) }
        expectRefused(inserted, .tampered(inserted, chunk: 4))
    }

    @Test func version2HeadersHoldARandomFileId() throws {
        let plain = Data("same".utf8)
        let a = try encrypted(plain, chunkSize: 16, name: "id-a"), b = try encrypted(plain, chunkSize: 16, name: "id-b")
        #expect(fileBytes(a)[4] == 2)
        #expect(fileBytes(a).prefix(12) == fileBytes(b).prefix(12))
        #expect(fileBytes(a).subdata(in: 12..<28) != fileBytes(b).subdata(in: 12..<28))
        let reader = try EncryptedFileReader(path: a, keys: KeyRing([key]))
        #expect(reader.formatVersion == 2)
        #expect(try reader.readAll() == plain)
        #expect(try EncryptedFile.decrypt(from: a, to: a + ".out", keys: KeyRing([key])) == 2)
    }

    @Test func version1FilesStillReadAndSayTheirVersion() throws {
        var rng = SplitMix64(seed: 5)
        let plain = rng.bytes(100)
        let path = try encryptedVersion1(plain, chunkSize: 16, name: "v1")
        #expect(fileBytes(path)[4] == 1)
        #expect(fileBytes(path).count == 12 + plain.count + 7 * Self.overhead)
        let reader = try EncryptedFileReader(path: path, keys: KeyRing([key]))
        #expect(reader.formatVersion == 1)
        #expect(try reader.readAll() == plain)
        #expect(try EncryptedFile.decrypt(from: path, to: path + ".plain", keys: KeyRing([key])) == 1)
        #expect(fileBytes(path + ".plain") == plain)
        // Its chunks are still bound to their index and end.
        edit(path) { bytes in
            let chunk = 16 + Self.overhead
            bytes.replaceSubrange((12 + 2 * chunk)..<(12 + 3 * chunk), with: bytes.subdata(in: (12 + chunk)..<(12 + 2 * chunk)))
        }
        expectRefused(path, .tampered(path, chunk: 2))
    }

    @Test func aTruncatedVersion2HeaderIsRefused() throws {
        for cut in [12, 13, 27] {
            let path = try encrypted(Data("x".utf8), chunkSize: 16, name: "cut\(cut)")
            edit(path) { $0 = $0.prefix(cut) }
            expectRefused(path, .truncated(path))
        }
        let path = try encrypted(Data("x".utf8), chunkSize: 16, name: "v9")
        edit(path) { $0[4] = 9 }
        expectRefused(path, .unsupportedVersion(path, 9))
    }

    // MARK: What a file is

    @Test func fileKindsTellTextFromDamagedEncryptedFiles() throws {
        func kind(_ bytes: Data, _ name: String) throws -> EncryptedFileKind {
            let path = folder.file(name)
            #expect(FileManager.default.createFile(atPath: path, contents: bytes))
            return try EncryptedFileKind.of(path: path)
        }
        let sealed = fileBytes(try encrypted(Data("secret".utf8), chunkSize: 16, name: "kind"))
        #expect(try kind(sealed, "sealed") == .encrypted)
        #expect(try kind(Data("plain text, héllo\n".utf8), "text") == .text)
        #expect(try kind(Data(), "empty") == .text)
        #expect(try kind(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]), "png") == .unrecognized(resemblesHeader: false))
        for offset in 0..<4 {
            var damaged = sealed
            damaged[offset] ^= 0x20
            #expect(try kind(damaged, "damaged\(offset)") == .unrecognized(resemblesHeader: true))
        }
        var wholeMagic = sealed
        wholeMagic.replaceSubrange(0..<4, with: Data("ABCD".utf8))
        #expect(try kind(wholeMagic, "magicless") == .unrecognized(resemblesHeader: true))
        // Long text cut inside a character by the sample's end is still text.
        let long = String(repeating: "é", count: EncryptedFileKind.sampleSize)
        #expect(try kind(Data(("a" + long).utf8), "long") == .text)
        #expect(throws: EncryptedFileError.self) { try EncryptedFileKind.of(path: folder.file("missing")) }
    }
}
