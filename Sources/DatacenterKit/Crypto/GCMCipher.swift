import COpenSSL
import Foundation
import Synchronization

/// AES-256-GCM with one key: seal and open byte ranges with a nonce and additional
/// authenticated data. The contexts are keyed once (the key schedule is the costly part) and
/// reused under a lock that holds them (`LockedState`), so no call reaches an OpenSSL context (which is
/// not thread-safe) without it. The building block of `AESGCMCrypt` and the encrypted file
/// streams.
final class GCMCipher: Sendable {
    static let nonceSize = 12
    static let tagSize = 16

    /// The OpenSSL contexts (which two threads must not use at once) and the nonce buffer:
    /// they live only inside `contexts`, so they are only reached with its lock held.
    private struct Contexts {
        let encryptor: OpaquePointer?
        let decryptor: OpaquePointer?
        let nonces: NonceSource
    }

    private let contexts: LockedState<Contexts>

    init(key: EncryptionKey) {
        let encryptor = EVP_CIPHER_CTX_new()
        let decryptor = EVP_CIPHER_CTX_new()
        key.bytes.withUnsafeBufferPointer { k in
            if let encryptor { EVP_EncryptInit_ex(encryptor, EVP_aes_256_gcm(), nil, k.baseAddress, nil) }
            if let decryptor { EVP_DecryptInit_ex(decryptor, EVP_aes_256_gcm(), nil, k.baseAddress, nil) }
        }
        contexts = LockedState(Contexts(encryptor: encryptor, decryptor: decryptor, nonces: NonceSource()))
    }

    deinit {
        contexts.withLock { contexts in
            EVP_CIPHER_CTX_free(contexts.encryptor)
            EVP_CIPHER_CTX_free(contexts.decryptor)
        }
    }

    /// No more additional data.
    static var noMoreAAD: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    /// Encrypts `count` bytes at `input` to `output` (same length), writing a fresh random
    /// nonce to `nonce` and the tag to `tag`. The additional data is `aad` followed by
    /// `moreAAD` (two pieces, so callers need not join them). False when OpenSSL failed.
    func seal(_ input: UnsafePointer<UInt8>?, count: Int, aad: UnsafeRawBufferPointer, moreAAD: UnsafeRawBufferPointer = noMoreAAD,
              nonce: UnsafeMutablePointer<UInt8>, output: UnsafeMutablePointer<UInt8>, tag: UnsafeMutablePointer<UInt8>) -> Bool {
        contexts.withLock { contexts in
            guard let ctx = contexts.encryptor else { return false }
            guard contexts.nonces.next(into: nonce) else { return false }
            var len: Int32 = 0
            guard EVP_EncryptInit_ex(ctx, nil, nil, nil, nonce) == 1 else { return false }
            if aad.count > 0 {
                guard EVP_EncryptUpdate(ctx, nil, &len, aad.bindMemory(to: UInt8.self).baseAddress, Int32(aad.count)) == 1 else { return false }
            }
            if moreAAD.count > 0 {
                guard EVP_EncryptUpdate(ctx, nil, &len, moreAAD.bindMemory(to: UInt8.self).baseAddress, Int32(moreAAD.count)) == 1 else { return false }
            }
            if count > 0 {
                guard EVP_EncryptUpdate(ctx, output, &len, input, Int32(count)) == 1 else { return false }
            }
            return EVP_EncryptFinal_ex(ctx, output + count, &len) == 1
                && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagSize), tag) == 1
        }
    }

    /// Decrypts `count` bytes at `input` to `output` and checks the tag; false when the key
    /// is wrong or any byte (data, nonce, tag or additional data) was altered. The additional
    /// data is `aad` followed by `moreAAD`, as for `seal`.
    func open(_ input: UnsafePointer<UInt8>?, count: Int, aad: UnsafeRawBufferPointer, moreAAD: UnsafeRawBufferPointer = noMoreAAD,
              nonce: UnsafePointer<UInt8>, tag: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>?) -> Bool {
        contexts.withLock { contexts in
            guard let ctx = contexts.decryptor else { return false }
            var len: Int32 = 0
            var scratch: UInt8 = 0
            guard EVP_DecryptInit_ex(ctx, nil, nil, nil, nonce) == 1 else { return false }
            if aad.count > 0 {
                guard EVP_DecryptUpdate(ctx, nil, &len, aad.bindMemory(to: UInt8.self).baseAddress, Int32(aad.count)) == 1 else { return false }
            }
            if moreAAD.count > 0 {
                guard EVP_DecryptUpdate(ctx, nil, &len, moreAAD.bindMemory(to: UInt8.self).baseAddress, Int32(moreAAD.count)) == 1 else { return false }
            }
            if count > 0 {
                guard EVP_DecryptUpdate(ctx, output, &len, input, Int32(count)) == 1 else { return false }
            }
            // OpenSSL only reads the tag, despite the mutable pointer it asks for.
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagSize), UnsafeMutableRawPointer(mutating: tag)) == 1 else { return false }
            return EVP_DecryptFinal_ex(ctx, &scratch, &len) == 1
        }
    }
}

/// Random 96-bit nonces from OpenSSL's generator, fetched 256 at a time: one `RAND_bytes`
/// call costs about as much as encrypting a small value, so it is amortized. Every byte is
/// handed out once; a forked child never reuses its parent's buffer. Not `Sendable`: it
/// lives inside its owner's lock (`GCMCipher`), which serializes access.
final class NonceSource {
    private static let batch = 256
    private static var bufferSize: Int { batch * GCMCipher.nonceSize }
    private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: NonceSource.bufferSize)
    /// How many nonces of the buffer are used, and the `ForkGeneration` it was filled in.
    /// Plain memory rather than stored properties: the owner's lock already serializes
    /// access, so the per-access exclusivity checks would be pure cost.
    private let state = UnsafeMutablePointer<(used: Int, filledIn: Int)>.allocate(capacity: 1)

    init() {
        buffer.initialize(repeating: 0, count: Self.bufferSize)
        state.initialize(to: (used: Self.batch, filledIn: -1))
        ForkGeneration.watch()
    }

    deinit {
        buffer.update(repeating: 0, count: Self.bufferSize)
        buffer.deallocate()
        state.deallocate()
    }

    /// Writes the next 12 random bytes at `destination`; false when no randomness was had.
    func next(into destination: UnsafeMutablePointer<UInt8>) -> Bool {
        let generation = ForkGeneration.current
        if state.pointee.used == Self.batch || generation != state.pointee.filledIn {
            guard RAND_bytes(buffer, Int32(Self.bufferSize)) == 1 else { return false }
            state.pointee = (used: 0, filledIn: generation)
        }
        let start = state.pointee.used * GCMCipher.nonceSize
        destination.update(from: buffer + start, count: GCMCipher.nonceSize)
        (buffer + start).update(repeating: 0, count: GCMCipher.nonceSize)
        state.pointee.used += 1
        return true
    }
}

/// How many forks separate this process from the one that loaded the engine: a child's
/// count is its parent's plus one. Buffered randomness filled in another generation belongs
/// to another process and must not be used. Reading it is a memory load, where asking for
/// the process id is a system call on every encryption.
enum ForkGeneration {
    private static let count = Atomic<Int>(0)
    private static let registration: Bool = {
        pthread_atfork(nil, nil) { ForkGeneration.count.add(1, ordering: .relaxed) }
        return true
    }()

    /// The current generation.
    static var current: Int { count.load(ordering: .relaxed) }

    /// Starts counting forks (once per process; later calls do nothing).
    static func watch() { _ = registration }
}
