/*
 * PBKDF2-HMAC (RFC 8018) for the page cipher's key derivation: the AES key from a
 * passphrase (kdf_iter iterations, SQLCipher 4's 256,000 by default) and the HMAC key (2).
 *
 * OpenSSL 3's PKCS5_PBKDF2_HMAC rebuilds its HMAC context through the provider layer on
 * every iteration; here the inner and outer padded-key states are hashed once and each
 * iteration copies them (a plain struct copy) and hashes one block each. Same output (a test
 * checks it against PKCS5_PBKDF2_HMAC for every digest, lengths and counts); it bought 30%
 * of the derivation's time (96 ms against 138 ms for 256,000 iterations of SHA-512 here),
 * which is what opening an encrypted file costs.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "KeyDerivation.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <string.h>

/* One digest's low-level hash, behind one shape. */
typedef struct Hash {
    int block;  /* input block size */
    int length; /* digest size */
    void (*init)(void *ctx);
    void (*update)(void *ctx, const void *data, size_t len);
    void (*final)(unsigned char *out, void *ctx);
} Hash;

static void sha1_init(void *c) { SHA1_Init(c); }
static void sha1_update(void *c, const void *d, size_t n) { SHA1_Update(c, d, n); }
static void sha1_final(unsigned char *o, void *c) { SHA1_Final(o, c); }
static void sha256_init(void *c) { SHA256_Init(c); }
static void sha256_update(void *c, const void *d, size_t n) { SHA256_Update(c, d, n); }
static void sha256_final(unsigned char *o, void *c) { SHA256_Final(o, c); }
static void sha512_init(void *c) { SHA512_Init(c); }
static void sha512_update(void *c, const void *d, size_t n) { SHA512_Update(c, d, n); }
static void sha512_final(unsigned char *o, void *c) { SHA512_Final(o, c); }

static int hash_for(int algorithm, Hash *h) {
    switch (algorithm) {
    case DC_CIPHER_SHA1: *h = (Hash){64, 20, sha1_init, sha1_update, sha1_final}; return 1;
    case DC_CIPHER_SHA256: *h = (Hash){64, 32, sha256_init, sha256_update, sha256_final}; return 1;
    case DC_CIPHER_SHA512: *h = (Hash){128, 64, sha512_init, sha512_update, sha512_final}; return 1;
    default: return 0;
    }
}

/* Large enough for SHA_CTX, SHA256_CTX and SHA512_CTX, aligned for any of them. */
typedef union HashState {
    SHA_CTX sha1;
    SHA256_CTX sha256;
    SHA512_CTX sha512;
} HashState;

int dc_pbkdf2(int algorithm, const unsigned char *secret, size_t secret_len, const unsigned char *salt, size_t salt_len,
              int iterations, unsigned char *out, size_t out_len) {
    Hash h;
    if (!hash_for(algorithm, &h) || iterations < 1) return 0;
    unsigned char key[128] = {0}, pad[128], u[64], t[64], counter[4];
    HashState inner, outer, work;
    if (secret_len > (size_t)h.block) {
        h.init(&work);
        h.update(&work, secret, secret_len);
        h.final(key, &work);
    } else if (secret_len > 0) {
        memcpy(key, secret, secret_len);
    }
    for (int i = 0; i < h.block; i++) pad[i] = key[i] ^ 0x36;
    h.init(&inner);
    h.update(&inner, pad, (size_t)h.block);
    for (int i = 0; i < h.block; i++) pad[i] = key[i] ^ 0x5c;
    h.init(&outer);
    h.update(&outer, pad, (size_t)h.block);

    for (unsigned int block = 1; out_len > 0; block++) {
        counter[0] = (unsigned char)(block >> 24);
        counter[1] = (unsigned char)(block >> 16);
        counter[2] = (unsigned char)(block >> 8);
        counter[3] = (unsigned char)block;
        work = inner;
        h.update(&work, salt, salt_len);
        h.update(&work, counter, 4);
        h.final(u, &work);
        work = outer;
        h.update(&work, u, (size_t)h.length);
        h.final(u, &work);
        memcpy(t, u, (size_t)h.length);
        for (int i = 1; i < iterations; i++) {
            work = inner;
            h.update(&work, u, (size_t)h.length);
            h.final(u, &work);
            work = outer;
            h.update(&work, u, (size_t)h.length);
            h.final(u, &work);
            for (int j = 0; j < h.length; j++) t[j] ^= u[j];
        }
        size_t n = out_len < (size_t)h.length ? out_len : (size_t)h.length;
        memcpy(out, t, n);
        out += n;
        out_len -= n;
    }
    OPENSSL_cleanse(key, sizeof key);
    OPENSSL_cleanse(pad, sizeof pad);
    OPENSSL_cleanse(u, sizeof u);
    OPENSSL_cleanse(t, sizeof t);
    OPENSSL_cleanse(&inner, sizeof inner);
    OPENSSL_cleanse(&outer, sizeof outer);
    OPENSSL_cleanse(&work, sizeof work);
    return 1;
}

int dc_cipher_pbkdf2(int algorithm, const void *secret, int secret_len, const void *salt, int salt_len,
                     int iterations, void *out, int out_len) {
    if (secret_len < 0 || salt_len < 0 || out_len < 1) return 0;
    return dc_pbkdf2(algorithm, secret, (size_t)secret_len, salt, (size_t)salt_len, iterations, out, (size_t)out_len);
}

int dc_cipher_pbkdf2_reference(int algorithm, const void *secret, int secret_len, const void *salt, int salt_len,
                               int iterations, void *out, int out_len) {
    const EVP_MD *md = algorithm == DC_CIPHER_SHA1 ? EVP_sha1() : algorithm == DC_CIPHER_SHA256 ? EVP_sha256()
        : algorithm == DC_CIPHER_SHA512 ? EVP_sha512() : NULL;
    if (!md || secret_len < 0 || salt_len < 0 || out_len < 1 || iterations < 1) return 0;
    return PKCS5_PBKDF2_HMAC(secret, secret_len, salt, salt_len, iterations, md, out_len, out);
}
