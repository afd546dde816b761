import COpenSSL
import Foundation

/// The encrypted-file format (Android's `ZSecurityFileOutputStream`, ours): a header, then
/// chunks of `nonce (12) | ciphertext | tag (16)`. Every chunk but the last holds exactly the
/// chunk size; the last holds less (possibly nothing), which marks the end. Each chunk is
/// authenticated together with the header, its index and whether it is the last, so a
/// truncated, reordered, duplicated or altered file is refused. A large file never sits whole
/// in memory.
///
/// The header of version 2 (what is written) is 28 bytes: `DCEF`, version 2, three zero
/// bytes, the chunk size (big-endian UInt32), and a 16-byte random file id. The id, being in
/// every chunk's additional data, binds the chunks to their file: a chunk spliced in from
/// another file under the same key fails. Version 1 (12 bytes, no file id) is still read;
/// its chunks are not bound to the file, so readers report its version for tools to warn.
public enum EncryptedFile {
    /// The first four bytes of every encrypted file.
    public static let magic: [UInt8] = Array("DCEF".utf8)
    /// The version written: 2, chunks bound to a random file id.
    public static let currentVersion = 2
    /// The header size of each version read.
    static func headerSize(version: Int) -> Int? {
        switch version {
        case 1: return 12
        case 2: return 12 + fileIdSize
        default: return nil
        }
    }
    /// The size of the random file id of a version 2 header.
    static let fileIdSize = 16
    /// The bytes every header starts with: magic, version, zeros, chunk size.
    static let fixedHeaderSize = 12
    static let chunkOverhead = GCMCipher.nonceSize + GCMCipher.tagSize
    /// The default plaintext bytes per chunk.
    public static let defaultChunkSize = 64 * 1024
    /// The largest chunk size written or read (16 MiB): a damaged header cannot make a
    /// reader allocate gigabytes.
    public static let maximumChunkSize = 1 << 24

    /// True when the file at `path` starts with the encrypted-file header.
    public static func isEncrypted(atPath path: String) -> Bool {
        guard let handle = try? RegularFile.openForReading(path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)).map { [UInt8]($0) == magic } ?? false
    }

    /// Encrypts the file at `input` into `output` under `key`, streaming.
    public static func encrypt(from input: String, to output: String, key: EncryptionKey,
                               chunkSize: Int = defaultChunkSize) throws {
        let source = try openInput(input)
        defer { try? source.close() }
        try writeAtomically(to: output) { sink in
            let writer = try EncryptedFileWriter(handle: sink, path: output, key: key, chunkSize: chunkSize)
            while let data = try source.read(upToCount: chunkSize), !data.isEmpty { try writer.write(data) }
            try writer.finish()
        }
    }

    /// Decrypts the file at `input` into `output`, streaming. `output` appears only once the
    /// whole file has been authenticated: a tampered or truncated input leaves nothing behind.
    /// Returns the input's format version (1: chunks not bound to the file; worth
    /// re-encrypting).
    @discardableResult
    public static func decrypt(from input: String, to output: String, keys: KeyRing) throws -> Int {
        let reader = try EncryptedFileReader(path: input, keys: keys)
        try writeAtomically(to: output) { sink in
            while let chunk = try reader.readChunk() { try sink.write(contentsOf: chunk) }
        }
        return reader.formatVersion
    }

    /// Opens `input` for reading: a regular file only (a FIFO or device would block or never
    /// end), refused with `EncryptedFileError.io` naming the path and the reason.
    static func openInput(_ input: String) throws -> FileHandle {
        do { return try RegularFile.openForReading(input) } catch let error as FileAccessError {
            throw EncryptedFileError.io(input, error.reason)
        }
    }

    /// Runs `body` on a private partial file beside `output` (`0600`, removed on `SIGINT` and
    /// `SIGTERM`, and by a later run after a kill: `PrivateFile.writeAtomically`), then
    /// renames it into place; removes it when `body` throws. An `output` that is a folder,
    /// FIFO or device is refused.
    static func writeAtomically(to output: String, _ body: (FileHandle) throws -> Void) throws {
        do { try PrivateFile.writeAtomically(to: output, body) } catch let error as FileAccessError {
            throw EncryptedFileError.io(error.path, error.reason)
        }
    }

    /// A new header of `version` (1 only for tests of old files): version 2 gets a fresh
    /// random file id.
    static func header(chunkSize: Int, version: Int = currentVersion) throws -> [UInt8] {
        let size = UInt32(chunkSize)
        var header = magic + [UInt8(version), 0, 0, 0] + [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        if version >= 2 {
            var id = [UInt8](repeating: 0, count: fileIdSize)
            guard RAND_bytes(&id, Int32(fileIdSize)) == 1 else { throw CryptError.cipherFailure("no randomness for a file id") }
            header += id
        }
        return header
    }

    /// The additional data of chunk `index`: the header, the index (big-endian), and 1 for
    /// the last chunk.
    static func additionalData(header: [UInt8], index: UInt64, isLast: Bool) -> [UInt8] {
        header + (0..<8).map { UInt8(index >> (56 - 8 * UInt64($0)) & 0xFF) } + [isLast ? 1 : 0]
    }
}

/// Writes an encrypted file chunk by chunk (`ZSecurityFileOutputStream`).
public final class EncryptedFileWriter {
    private let path: String
    private let handle: FileHandle
    /// True when the writer opened the file itself, and so closes it at `finish()`.
    private let ownsHandle: Bool
    private let cipher: GCMCipher
    private let chunkSize: Int
    private let header: [UInt8]
    /// The pending partial chunk; never a slice of the caller's data, never as long as a chunk.
    private var buffer = Data()
    private var index: UInt64 = 0
    private var finished = false

    /// Creates (or truncates) the file at `path`, `0600` when it is created, and writes its
    /// header (the current version).
    public convenience init(path: String, key: EncryptionKey, chunkSize: Int = EncryptedFile.defaultChunkSize) throws {
        try self.init(path: path, key: key, chunkSize: chunkSize, version: EncryptedFile.currentVersion)
    }

    /// Writes a file of format `version` at `path`: 1 only to make old files in tests.
    convenience init(path: String, key: EncryptionKey, chunkSize: Int, version: Int) throws {
        guard chunkSize > 0, chunkSize <= EncryptedFile.maximumChunkSize else { throw EncryptedFileError.io(path, "chunk size must be 1 B to 16 MiB") }
        try RegularFile.refuseIfNotRegular(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, PrivateFile.fileMode)
        guard fd >= 0 else { throw EncryptedFileError.io(path, "cannot create: " + FileAccessError.describe(errno: errno)) }
        try self.init(handle: FileHandle(fileDescriptor: fd, closeOnDealloc: true), path: path, key: key,
                      chunkSize: chunkSize, version: version, ownsHandle: true)
    }

    /// Writes into `handle`, an empty file opened for writing by the caller (who closes it):
    /// for files created privately and atomically (`PrivateFile.writeAtomically`). `path`
    /// names the file in errors.
    public convenience init(handle: FileHandle, path: String, key: EncryptionKey,
                            chunkSize: Int = EncryptedFile.defaultChunkSize) throws {
        try self.init(handle: handle, path: path, key: key, chunkSize: chunkSize,
                      version: EncryptedFile.currentVersion, ownsHandle: false)
    }

    private init(handle: FileHandle, path: String, key: EncryptionKey, chunkSize: Int, version: Int, ownsHandle: Bool) throws {
        guard chunkSize > 0, chunkSize <= EncryptedFile.maximumChunkSize else { throw EncryptedFileError.io(path, "chunk size must be 1 B to 16 MiB") }
        self.path = path
        self.handle = handle
        self.ownsHandle = ownsHandle
        self.cipher = GCMCipher(key: key)
        self.chunkSize = chunkSize
        do {
            self.header = try EncryptedFile.header(chunkSize: chunkSize, version: version)
            try handle.write(contentsOf: Data(header))
        } catch {
            if ownsHandle { try? handle.close() }
            throw error
        }
    }

    deinit { if ownsHandle { try? handle.close() } }

    /// Appends `data`; full chunks are encrypted and written at once. At most one partial
    /// chunk (fewer than the chunk size's bytes) is kept between calls, whatever the sizes
    /// of the writes: full chunks are encrypted straight from `data`.
    public func write(_ data: Data) throws {
        guard !finished else { throw EncryptedFileError.io(path, "write after finish") }
        var rest = data[...]
        if !buffer.isEmpty {
            // Complete the pending chunk first.
            let taken = rest.prefix(chunkSize - buffer.count)
            buffer.append(taken)
            rest = rest.dropFirst(taken.count)
            guard buffer.count == chunkSize else { return }
            try writeChunk(buffer, isLast: false)
            buffer.removeAll(keepingCapacity: true)
        }
        while rest.count >= chunkSize {
            try writeChunk(rest.prefix(chunkSize), isLast: false)
            rest = rest.dropFirst(chunkSize)
        }
        // A fresh buffer: appending to a slice of an older one would keep (and grow) the
        // older one's storage, which is how a whole input once ended up in memory.
        if !rest.isEmpty { buffer.append(rest) }
    }

    /// The plaintext bytes written but not yet encrypted: always fewer than the chunk size
    /// (they form the start of the next chunk, or the last chunk at `finish()`).
    public var pendingByteCount: Int { buffer.count }

    /// Writes the last chunk and closes the file. A file not finished is refused when read.
    public func finish() throws {
        guard !finished else { return }
        try writeChunk(buffer, isLast: true)
        buffer = Data()
        finished = true
        try handle.synchronize()
        if ownsHandle { try handle.close() }
    }

    private func writeChunk(_ plain: Data, isLast: Bool) throws {
        let aad = EncryptedFile.additionalData(header: header, index: index, isLast: isLast)
        var out = Data(count: plain.count + EncryptedFile.chunkOverhead)
        let ok = out.withUnsafeMutableBytes { (o: UnsafeMutableRawBufferPointer) -> Bool in
            let base = o.bindMemory(to: UInt8.self).baseAddress!
            let body = base + GCMCipher.nonceSize
            return plain.withUnsafeBytes { p in
                aad.withUnsafeBytes { a in
                    cipher.seal(p.bindMemory(to: UInt8.self).baseAddress, count: plain.count, aad: a,
                                nonce: base, output: body, tag: body + plain.count)
                }
            }
        }
        guard ok else { throw EncryptedFileError.io(path, "encryption failed") }
        try handle.write(contentsOf: out)
        index += 1
    }
}

/// Reads an encrypted file chunk by chunk, authenticating each (`ZSecurityFileInputStream`).
public final class EncryptedFileReader {
    private let path: String
    private let handle: FileHandle
    private let header: [UInt8]
    private let chunkSize: Int
    private let keys: KeyRing
    private var cipher: GCMCipher?
    private var index: UInt64 = 0
    private var done = false
    /// The file's format version: 2 binds every chunk to the file; 1 (older files) does not,
    /// so a chunk of another version 1 file under the same key could be spliced in unnoticed.
    public let formatVersion: Int

    /// Opens the file and reads its header.
    public init(path: String, keys: KeyRing) throws {
        let handle = try EncryptedFile.openInput(path)
        var head = [UInt8]((try? handle.read(upToCount: EncryptedFile.fixedHeaderSize)) ?? Data())
        guard head.count == EncryptedFile.fixedHeaderSize, Array(head.prefix(4)) == EncryptedFile.magic else {
            try? handle.close()
            throw EncryptedFileError.notEncrypted(path)
        }
        guard let headerSize = EncryptedFile.headerSize(version: Int(head[4])) else {
            try? handle.close()
            throw EncryptedFileError.unsupportedVersion(path, Int(head[4]))
        }
        if headerSize > head.count {
            let rest = [UInt8]((try? handle.read(upToCount: headerSize - head.count)) ?? Data())
            head += rest
            guard head.count == headerSize else {
                try? handle.close()
                throw EncryptedFileError.truncated(path)
            }
        }
        self.formatVersion = Int(head[4])
        self.path = path
        self.handle = handle
        self.header = head
        self.chunkSize = Int(head[8]) << 24 | Int(head[9]) << 16 | Int(head[10]) << 8 | Int(head[11])
        self.keys = keys
        guard chunkSize > 0, chunkSize <= EncryptedFile.maximumChunkSize else { throw EncryptedFileError.notEncrypted(path) }
    }

    deinit { try? handle.close() }

    /// The next chunk of plaintext, authenticated; nil after the last one.
    /// - throws: `EncryptedFileError.truncated`, `.tampered`, or `.wrongKey`.
    public func readChunk() throws -> Data? {
        guard !done else { return nil }
        let full = chunkSize + EncryptedFile.chunkOverhead
        let raw: Data
        do { raw = try handle.read(upToCount: full) ?? Data() } catch {
            throw EncryptedFileError.io(path, FileAccessError.wrapping(error, path: path, doing: "read it").reason)
        }
        guard raw.count >= EncryptedFile.chunkOverhead else { throw EncryptedFileError.truncated(path) }
        let isLast = raw.count < full
        let plain = try open(raw, isLast: isLast)
        if isLast {
            // Anything after the last chunk means the file was tampered with.
            if let extra = try? handle.read(upToCount: 1), !extra.isEmpty { throw EncryptedFileError.tampered(path, chunk: index) }
            done = true
        }
        index += 1
        return plain
    }

    /// The whole plaintext (for small files).
    public func readAll() throws -> Data {
        var all = Data()
        while let chunk = try readChunk() { all.append(chunk) }
        return all
    }

    private func open(_ raw: Data, isLast: Bool) throws -> Data {
        let aad = EncryptedFile.additionalData(header: header, index: index, isLast: isLast)
        let bodyCount = raw.count - EncryptedFile.chunkOverhead
        let candidates: [GCMCipher] = cipher.map { [$0] } ?? keys.keys.map(GCMCipher.init(key:))
        guard !candidates.isEmpty else { throw CryptError.noKey }
        for candidate in candidates {
            var plain = Data(count: bodyCount)
            let ok = raw.withUnsafeBytes { (r: UnsafeRawBufferPointer) -> Bool in
                let base = r.bindMemory(to: UInt8.self).baseAddress!
                return plain.withUnsafeMutableBytes { p in
                    aad.withUnsafeBytes { a in
                        candidate.open(base + GCMCipher.nonceSize, count: bodyCount, aad: a, nonce: base,
                                       tag: base + GCMCipher.nonceSize + bodyCount, output: p.bindMemory(to: UInt8.self).baseAddress)
                    }
                }
            }
            if ok {
                cipher = candidate
                return plain
            }
        }
        // No key opens the first chunk: a wrong key (or a damaged start, which GCM cannot tell apart).
        if cipher == nil { throw EncryptedFileError.wrongKey(path, keysTried: keys.keys.count) }
        // With the key known, a chunk that fails was altered — or cut short if it is the last.
        throw isLast ? EncryptedFileError.truncated(path) : EncryptedFileError.tampered(path, chunk: index)
    }
}
