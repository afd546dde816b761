import COpenSSL
import Foundation

/// A 256-bit key for the default crypt.
///
/// Written as 64 hex digits, as base64 of 32 bytes, or as `@path` to a file holding either
/// form (or the 32 raw bytes). Its `description` shows a fingerprint, never the key.
public struct EncryptionKey: Sendable, Hashable {
    /// The 32 key bytes.
    public let bytes: [UInt8]

    /// Wraps 32 raw bytes.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == 32 else {
            throw CryptError.invalidKey("a key is 32 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Reads a key written as 64 hex digits, base64 of 32 bytes, or `@path`.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("@") {
            let path = String(trimmed.dropFirst())
            let data: Data
            do { data = try RegularFile.contents(atPath: path, limit: 4096) } catch let error as FileAccessError {
                throw CryptError.invalidKey("cannot read key file \(path): \(error.reason)")
            }
            if data.count == 32, String(data: data, encoding: .utf8).map({ (try? EncryptionKey(parsingLiteral: $0)) == nil }) ?? true {
                try self.init(bytes: [UInt8](data))
                return
            }
            guard let content = String(data: data, encoding: .utf8) else {
                throw CryptError.invalidKey("key file \(path) holds neither 32 bytes nor a hex or base64 key")
            }
            do { try self.init(parsingLiteral: content.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
                throw CryptError.invalidKey("key file \(path): expected 64 hex digits or base64 of 32 bytes")
            }
            return
        }
        try self.init(parsingLiteral: trimmed)
    }

    private init(parsingLiteral text: String) throws {
        if text.count == 64, let bytes = EncryptionKey.hexBytes(text) {
            try self.init(bytes: bytes)
        } else if let data = Data(base64Encoded: text), data.count == 32 {
            try self.init(bytes: [UInt8](data))
        } else {
            throw CryptError.invalidKey("expected 64 hex digits, base64 of 32 bytes, or @path to a key file")
        }
    }

    /// Derives a key from an app key string, as the original product derives its default key
    /// from the app key: PBKDF2-HMAC-SHA256 over the string, salt `datacenter.default-key.v1`,
    /// 100,000 iterations. Use your own random key where you can.
    public static func derived(fromAppKey appKey: String) -> EncryptionKey {
        WorkMeter.count(.appKeyDerivations)   // tens of milliseconds each: callers derive once
        var out = [UInt8](repeating: 0, count: 32)
        let salt = Array("datacenter.default-key.v1".utf8)
        let password = Array(appKey.utf8)
        _ = password.withUnsafeBufferPointer { p in
            PKCS5_PBKDF2_HMAC(p.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                              Int32(p.count), salt, Int32(salt.count), 100_000, EVP_sha256(), 32, &out)
        }
        // 32 bytes by construction.
        return try! EncryptionKey(bytes: out)
    }

    /// A new random key.
    public static func random() -> EncryptionKey {
        var out = [UInt8](repeating: 0, count: 32)
        RAND_bytes(&out, 32)
        return try! EncryptionKey(bytes: out)
    }

    /// The key as 64 lowercase hex digits.
    public var hexString: String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The first 8 hex digits of the key's SHA-256: names a key without revealing it.
    public var fingerprint: String {
        var digest = [UInt8](repeating: 0, count: 32)
        SHA256(bytes, bytes.count, &digest)
        return digest.prefix(4).map { String(format: "%02x", $0) }.joined()
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let h = high { bytes.append(h << 4 | v); high = nil } else { high = v }
        }
        return high == nil ? bytes : nil
    }
}

extension EncryptionKey: CustomStringConvertible {
    public var description: String { "key \(fingerprint)" }
}

extension WorkMeter.Counter {
    /// Keys derived from an app key (`EncryptionKey.derived(fromAppKey:)`, 100,000 PBKDF2
    /// rounds each).
    package static let appKeyDerivations = Self("app key derivations")
}
