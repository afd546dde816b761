import Foundation

/// Tells whether an encrypted database's `-wal` holds frames that SQLCipher wrote and did
/// not checkpoint: frames this engine's reader cannot see.
///
/// SQLite checksums each WAL frame over the page as it hands it to the file layer. SQLCipher
/// encrypts before that, so its checksums cover ciphertext; the page cipher here encrypts
/// below SQLite, so its checksums cover plaintext. Reading a SQLCipher WAL, SQLite therefore
/// finds the first frame's checksum wrong and ends the log there: the transactions in it
/// would be silently missing from what is read. Checking the first frame's checksum over the
/// bytes on disk tells such a WAL apart (a WAL of ours fails that check, a SQLCipher one
/// passes it), so that a conversion can refuse instead of losing them.
enum ForeignWALFrames {
    /// True when the `-wal` beside `databasePath` starts with a frame of the current log
    /// (its salts are the header's) whose checksum holds over its ciphertext.
    static func present(databasePath: String, pageSize: Int) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: databasePath + "-wal") else { return false }
        defer { try? handle.close() }
        let frameSize = 24 + pageSize
        guard let bytes = try? handle.read(upToCount: 32 + frameSize), bytes.count == 32 + frameSize else { return false }
        let wal = [UInt8](bytes)
        let magic = bigEndian32(wal, 0)
        guard magic == 0x377f0682 || magic == 0x377f0683 else { return false }
        let bigEndianWords = magic & 1 == 1
        guard Int(bigEndian32(wal, 8)) == pageSize else { return false }
        // The header's own checksum, then the first frame's, chained from it.
        var sum = checksum(wal[0..<24], bigEndianWords: bigEndianWords, from: (0, 0))
        guard sum == (bigEndian32(wal, 24), bigEndian32(wal, 28)) else { return false }
        let frame = 32
        guard wal[frame + 8..<frame + 16].elementsEqual(wal[16..<24]), bigEndian32(wal, frame) != 0 else { return false }
        sum = checksum(wal[frame..<frame + 8], bigEndianWords: bigEndianWords, from: sum)
        sum = checksum(wal[frame + 24..<frame + frameSize], bigEndianWords: bigEndianWords, from: sum)
        return sum == (bigEndian32(wal, frame + 16), bigEndian32(wal, frame + 20))
    }

    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// SQLite's WAL checksum (walChecksumBytes) over `bytes`, a multiple of 8 long.
    private static func checksum(_ bytes: ArraySlice<UInt8>, bigEndianWords: Bool, from start: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s1, s2) = start
        var index = bytes.startIndex
        func word(_ at: Int) -> UInt32 {
            let b = (UInt32(bytes[at]), UInt32(bytes[at + 1]), UInt32(bytes[at + 2]), UInt32(bytes[at + 3]))
            return bigEndianWords ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0
        }
        while index + 8 <= bytes.endIndex {
            s1 = s1 &+ word(index) &+ s2
            s2 = s2 &+ word(index + 4) &+ s1
            index += 8
        }
        return (s1, s2)
    }
}
