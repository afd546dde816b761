import Foundation

/// The keys of a re-encryption: the current keys values are read with, and the one key they
/// are rewritten under; it tells, for each stored value, whether it must move or is already
/// where a rekey would put it.
///
/// A value that opens with the new key, in the format it should have, is "already done": a
/// rerun after a crash (or a second run) skips it instead of failing on it or encrypting it
/// twice. Any other value must open with one of the current keys, and is rewritten under the
/// new one in its kind's format: bound to its place where the format binds it (KV values,
/// format 2), unbound otherwise (format 1: DAO crypt columns, disk caches, file services).
///
/// Not thread-safe: it remembers which key opened the last value and tries that one first
/// (a store is normally all old or all new key), so use one per thread.
public final class RekeyCrypt {
    /// What to do with one stored value.
    public enum Outcome: Equatable {
        /// Rewrite it as these bytes (under the new key).
        case moved(Data)
        /// Leave it: it is under the new key, in the right format, already.
        case alreadyDone
    }

    /// The keys values are encrypted with now, newest first.
    public let current: KeyRing
    /// The key values are rewritten under.
    public let new: EncryptionKey
    private let newCrypt: AESGCMCrypt
    /// The new key's crypt, then each current key's, as tried.
    private let crypts: [AESGCMCrypt]
    /// The index in `crypts` of the key that opened the last value.
    private var lastHit = 0

    /// A re-encryption from the keys of `current` to `new`.
    public init(current: KeyRing, new: EncryptionKey) {
        self.current = current
        self.new = new
        self.newCrypt = AESGCMCrypt(key: new)
        self.crypts = [newCrypt] + current.keys.filter { $0 != new }.map(AESGCMCrypt.init)
    }

    /// An unbound value (format 1): `.alreadyDone` when the new key opens it, else its
    /// plaintext re-encrypted under the new key, unbound.
    /// - throws: `CryptError.wrongKey` when no key opens it, `.malformed` when it is not an
    ///   unbound encrypted value (a bound one is never read without its place).
    public func reencryptUnbound(_ ciphertext: Data) throws -> Outcome {
        switch AESGCMCrypt.format(of: ciphertext) {
        case 1: break
        case 2: throw CryptError.malformed("a value bound to a place (format 2) where an unbound one (format 1) belongs")
        default: throw CryptError.malformed("\(ciphertext.count) bytes that are not an encrypted value")
        }
        let (plain, index) = try open { try $0.decrypt(ciphertext) }
        if index == 0 { return .alreadyDone }
        return .moved(try newCrypt.encrypt(plain))
    }

    /// A value bound to `context` (a KV value): `.alreadyDone` when the new key opens it and
    /// it is bound (format 2); otherwise its plaintext re-encrypted under the new key, bound to
    /// `context` (an unbound value of before binding is so upgraded, even under the same key).
    /// - throws: `CryptError.misplaced` when it is bound to another place, `.wrongKey` when no
    ///   key opens it.
    public func reencryptBound(_ ciphertext: Data, context: CryptContext) throws -> Outcome {
        let (plain, index) = try open { try $0.decrypt(ciphertext, boundTo: context) }
        if index == 0, AESGCMCrypt.format(of: ciphertext) == 2 { return .alreadyDone }
        return .moved(try plain.withUnsafeBytes { try newCrypt.encrypt(bytes: $0, boundTo: context) })
    }

    /// Opens a value with the key that opened the last one, then with the others in order;
    /// returns the plaintext and the index of the key (0: the new key).
    private func open(_ body: (AESGCMCrypt) throws -> Data) throws -> (Data, Int) {
        // lastHit first, then the others in order (no array of indices: this runs per value).
        for step in -1..<crypts.count where step != lastHit {
            let index = step < 0 ? lastHit : step
            do {
                let plain = try body(crypts[index])
                lastHit = index
                return (plain, index)
            } catch CryptError.wrongKey {
                continue
            }
        }
        throw CryptError.wrongKey(keysTried: crypts.count)
    }
}
