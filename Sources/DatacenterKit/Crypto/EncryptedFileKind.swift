import Foundation

/// What a file holds, judged from its start: lets a tool that prints files decrypted when
/// they are encrypted (`datacenter file cat`) print plain files as they are without ever
/// printing a damaged encrypted file's ciphertext as if it were plaintext.
public enum EncryptedFileKind: Sendable, Equatable {
    /// Starts with the encrypted-file magic: read it with `EncryptedFileReader` (which still
    /// checks the rest of the header).
    case encrypted
    /// Text: its first 64 KiB are UTF-8 without a NUL byte (an empty file counts). No
    /// encrypted file, even with its magic damaged, looks like this: its header holds zero
    /// bytes and its chunks are random bytes.
    case text
    /// Neither: binary data, or an encrypted file whose magic is damaged. `resemblesHeader`
    /// is true when the start still looks like an encrypted-file header (two of the four magic
    /// bytes in place, or the version and zero bytes after them).
    case unrecognized(resemblesHeader: Bool)

    /// How many bytes are looked at.
    static let sampleSize = 64 * 1024

    /// The kind of the file at `path`.
    /// - throws: `EncryptedFileError.io` when it cannot be read.
    public static func of(path: String) throws -> EncryptedFileKind {
        let handle = try EncryptedFile.openInput(path)
        defer { try? handle.close() }
        let sample: Data
        do { sample = try handle.read(upToCount: sampleSize) ?? Data() } catch {
            throw EncryptedFileError.io(path, error.localizedDescription)
        }
        return of(sample: [UInt8](sample), isWhole: sample.count < sampleSize)
    }

    /// The kind of a file starting with `sample`; `isWhole` when the sample is the whole file
    /// (else a multi-byte character cut at its end is not held against it).
    static func of(sample: [UInt8], isWhole: Bool) -> EncryptedFileKind {
        if sample.count >= 4, Array(sample.prefix(4)) == EncryptedFile.magic { return .encrypted }
        if isText(sample, isWhole: isWhole) { return .text }
        let magicInPlace = zip(sample.prefix(4), EncryptedFile.magic).filter { $0 == $1 }.count
        let versionAndZeros = sample.count >= 8 && (1...2).contains(sample[4]) && sample[5...7].allSatisfy { $0 == 0 }
        return .unrecognized(resemblesHeader: magicInPlace >= 2 || versionAndZeros)
    }

    private static func isText(_ sample: [UInt8], isWhole: Bool) -> Bool {
        guard !sample.contains(0) else { return false }
        if String(validating: sample, as: UTF8.self) != nil { return true }
        guard !isWhole else { return false }
        // A character cut by the sample's end: drop up to three trailing bytes of it.
        return (1...3).contains { cut in
            sample.count > cut && String(validating: sample.dropLast(cut), as: UTF8.self) != nil
        }
    }
}
