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

    /// A context made of `parts`, in order. The first part names the kind of place (`kv`),
    /// so a value bound to one kind of place never opens as another kind.
    public init(parts: [String]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(parts.reduce(0) { $0 + 4 + $1.utf8.count })
        for part in parts {
            let count = UInt32(truncatingIfNeeded: part.utf8.count)
            bytes += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
            bytes += part.utf8
        }
        self.bytes = bytes
    }

    /// A 32-bit check of the context (FNV-1a of `bytes`), stored in the clear in a bound value:
    /// it lets a reader tell "this value belongs elsewhere" from "wrong key" before decrypting.
    /// Not a security measure (the authentication is): forging it only changes the error.
    public var check: UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return hash
    }
}
