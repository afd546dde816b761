import Foundation

/// Where an encrypted value belongs (for a KV value: its business, key and encoding).
///
/// A crypt that binds values to their place authenticates the context with the value
/// (AES-GCM additional data), so a ciphertext copied to another place no longer opens there:
/// without it, anyone able to write the store could copy an encrypted token into a setting the
/// app shows. The context itself is not stored; the reader gives it again, from where it finds
/// the value.
public struct CryptContext: Sendable, Hashable {
    /// The canonical bytes authenticated with the value: each part as its UTF-8 length (a
    /// big-endian UInt32) then its UTF-8, so no two different lists of parts give the same
    /// bytes (`"a/b", "c"` is not `"a", "b/c"`).
    public let bytes: [UInt8]

    /// A 32-bit check of the context (FNV-1a of `bytes`), stored in the clear in a bound value:
    /// it lets a reader tell "this value belongs elsewhere" from "wrong key" before decrypting.
    /// Not a security measure (the authentication is): forging it only changes the error.
    public let check: UInt32

    /// A context made of `parts`, in order. The first part names the kind of place (`kv`),
    /// so a value bound to one kind of place never opens as another kind.
    public init(parts: [String]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(parts.reduce(0) { $0 + 4 + $1.utf8.count })
        for part in parts { Self.append(part, to: &bytes) }
        self.init(bytes: bytes)
    }

    /// The context of four parts, as `init(parts:)` makes it, without an array of them and
    /// with one allocation, written in place: this runs on every encrypted KV read and write.
    init(_ first: String, _ second: String, _ third: String, _ fourth: String) {
        var (a, b, c, d) = (first, second, third, fourth)
        let count = 16 + a.utf8.count + b.utf8.count + c.utf8.count + d.utf8.count
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var at = Self.write(&a, into: buffer, at: 0)
            at = Self.write(&b, into: buffer, at: at)
            at = Self.write(&c, into: buffer, at: at)
            initialized = Self.write(&d, into: buffer, at: at)
        }
        self.init(bytes: bytes)
    }

    /// Writes `part`'s UTF-8 length (big-endian UInt32) and its UTF-8 at `at` in `buffer`;
    /// returns where it ended.
    private static func write(_ part: inout String, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        part.withUTF8 { utf8 in
            let length = UInt32(truncatingIfNeeded: utf8.count)
            buffer[start] = UInt8(length >> 24)
            buffer[start + 1] = UInt8(length >> 16 & 0xFF)
            buffer[start + 2] = UInt8(length >> 8 & 0xFF)
            buffer[start + 3] = UInt8(length & 0xFF)
            if let source = utf8.baseAddress, !utf8.isEmpty {
                (buffer.baseAddress! + start + 4).update(from: source, count: utf8.count)
            }
            return start + 4 + utf8.count
        }
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
        self.check = bytes.withUnsafeBufferPointer { buffer in
            var hash: UInt32 = 0x811C_9DC5
            for byte in buffer { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
            return hash
        }
    }

    /// Appends `part`'s UTF-8 length (big-endian UInt32) and its UTF-8.
    private static func append(_ part: String, to bytes: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: part.utf8.count)
        bytes.append(UInt8(length >> 24))
        bytes.append(UInt8(length >> 16 & 0xFF))
        bytes.append(UInt8(length >> 8 & 0xFF))
        bytes.append(UInt8(length & 0xFF))
        bytes.append(contentsOf: part.utf8)
    }
}
