/*
 * SQLite3 Multiple Ciphers' own page schemes, as its src/cipher_*.c lay them out, built on
 * OpenSSL's primitives (ChaCha20, Poly1305, AES-CBC, RC4 from its legacy provider, MD5,
 * SHA-1, SHA-256, PBKDF2):
 *
 * chacha20 (sqleet's composition, not RFC 8439's AEAD): key = PBKDF2-HMAC-SHA256(passphrase,
 *   salt, kdf_iter: 64007, or 12345 in legacy mode), or the raw 32-byte key. Each page keeps a
 *   16-byte random nonce and a 16-byte Poly1305 tag in its last 32 bytes (the reserve). With
 *   c = LE32(nonce[12..16]) XOR pgno, ChaCha20's keystream (12-byte nonce: nonce[0..12]) at
 *   block c is a 64-byte one-time key: its first 32 bytes key Poly1305, its last 32 key the
 *   page's span, encrypted from block c + 1. The tag covers the page as stored, from byte 0
 *   through the nonce. Page 1 keeps the salt in bytes 0-15 and, in the default mode, bytes
 *   16-23 in the clear (the span starts at 24); in legacy mode the span starts at 0 and the
 *   salt is written over its first 16 bytes.
 * aes128cbc (wxSQLite3's AES-128, Navicat's): key = MD5 rounds over the passphrase padded as
 *   PDF pads it, with an RC4 "owner key"; aes256cbc (wxSQLite3's AES-256): key = SHA-256 of
 *   the padded passphrase, then 4001 more SHA-256 rounds. Each page is AES-CBC with the page
 *   key MD5 (SHA-256) of key || LE32(pgno) || "sAlT" and the IV MD5 of 16 bytes drawn from a
 *   Park-Miller sequence seeded with pgno + 1: no reserve, no MAC. Page 1 in the default mode:
 *   bytes 0-15 encrypted on their own (and dropped), the rest from 16, then the encrypted
 *   bytes 16-23 moved to 8-15 and the clear ones put back; in legacy mode, wholly.
 * rc4 (System.Data.SQLite's): key = SHA-1(passphrase)[0..16]; each page RC4 from the start
 *   of the keystream, page 1 wholly.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* the one-shot MD5, SHA1 and SHA256 */
#include "CipherInternal.h"
#include "KeyDerivation.h"

#include <openssl/md5.h>
#include <openssl/sha.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <string.h>

#define TAG_LEN 16
#define NONCE_LEN 16

static const unsigned char sqlite_header[16] = "SQLite format 3";

/* The 32 bytes PDF pads a password with, as wxSQLite3 pads a passphrase. */
static const unsigned char pdf_padding[32] = {
    0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
    0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
};

static void pad_passphrase(const unsigned char *secret, int len, unsigned char out[32]) {
    int n = len > 32 ? 32 : len;
    if (n > 0) memcpy(out, secret, (size_t)n);
    memcpy(out + n, pdf_padding, (size_t)(32 - n));
}

/* The ciphers, fetched once: OpenSSL 3 fetches a cipher named by EVP_aes_256_cbc() and the
 * like again on every init, which costs more than a page's own AES. The digests of the key
 * derivations and of each page's key and IV go through OpenSSL's one-shot MD5, SHA1 and
 * SHA256, which skip EVP's dispatch (hundreds of short hashes per page read otherwise). */
static pthread_once_t fetch_once = PTHREAD_ONCE_INIT;
static EVP_CIPHER *cipher_chacha20, *cipher_aes128, *cipher_aes256, *cipher_aes256_cts;

static void fetch_algorithms(void) {
    cipher_chacha20 = EVP_CIPHER_fetch(NULL, "ChaCha20", NULL);
    cipher_aes128 = EVP_CIPHER_fetch(NULL, "AES-128-CBC", NULL);
    cipher_aes256 = EVP_CIPHER_fetch(NULL, "AES-256-CBC", NULL);
    cipher_aes256_cts = EVP_CIPHER_fetch(NULL, "AES-256-CBC-CTS", NULL);
}

static int fetched(void) {
    pthread_once(&fetch_once, fetch_algorithms);
    return cipher_chacha20 && cipher_aes128 && cipher_aes256 && cipher_aes256_cts;
}

/* A cipher context of the codec's, per direction: given its cipher once, then re-keyed alone
 * (a NULL cipher keeps it, and keeps the context's provider state). */
static EVP_CIPHER_CTX *keyed(Codec *c, int encrypt, const EVP_CIPHER *cipher, const unsigned char *key,
                             const unsigned char *iv) {
    EVP_CIPHER_CTX **ctx = &c->scheme_cipher[encrypt ? 1 : 0];
    if (!*ctx && !(*ctx = EVP_CIPHER_CTX_new())) return NULL;
    int same = EVP_CIPHER_CTX_get0_cipher(*ctx) == cipher;
    if (!EVP_CipherInit_ex(*ctx, same ? NULL : cipher, NULL, key, iv, encrypt)) return NULL;
    EVP_CIPHER_CTX_set_padding(*ctx, 0);
    return *ctx;
}

/* RC4 lives in OpenSSL's legacy provider, loaded into a library context of its own so that
 * the rest of the process keeps OpenSSL's defaults. */
static pthread_once_t rc4_once = PTHREAD_ONCE_INIT;
static OSSL_LIB_CTX *rc4_context;
static EVP_CIPHER *rc4_cipher;

static void load_rc4(void) {
    rc4_context = OSSL_LIB_CTX_new();
    if (!rc4_context || !OSSL_PROVIDER_load(rc4_context, "legacy") || !OSSL_PROVIDER_load(rc4_context, "default")) return;
    rc4_cipher = EVP_CIPHER_fetch(rc4_context, "RC4", NULL);
}

static int rc4_xor(const unsigned char *key, int key_len, const unsigned char *in, int len, unsigned char *out) {
    pthread_once(&rc4_once, load_rc4);
    if (!rc4_cipher) return 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0;
    int ok = ctx && EVP_CipherInit_ex(ctx, rc4_cipher, NULL, NULL, NULL, 1)
        && EVP_CIPHER_CTX_set_key_length(ctx, key_len) && EVP_CipherInit_ex(ctx, NULL, NULL, key, NULL, 1)
        && EVP_CipherUpdate(ctx, out, &n, in, len) && n == len;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

int cipher_scheme_derive(Codec *c, unsigned char key[DC_KEY_LEN]) {
    const unsigned char *secret = c->secret;
    int len = c->secret_len;
    memset(key, 0, DC_KEY_LEN);
    if (!fetched()) return 0;
    switch (c->f.scheme) {
    case DC_SCHEME_CHACHA20:
        if (c->is_raw) { memcpy(key, secret, DC_KEY_LEN); return 1; }
        return dc_pbkdf2(DC_CIPHER_SHA256, secret, (size_t)len, c->salt, DC_SALT_LEN, c->f.kdf_iter, key, DC_KEY_LEN);
    case DC_SCHEME_AES256CBC: {
        if (c->is_raw) return 0;
        unsigned char pad[32];
        pad_passphrase(secret, len, pad);
        int ok = (SHA256(pad, 32, key) != NULL);
        for (int i = 0; ok && i < 4001; i++) ok = (SHA256(key, 32, key) != NULL);
        OPENSSL_cleanse(pad, sizeof pad);
        return ok;
    }
    case DC_SCHEME_AES128CBC: {
        if (c->is_raw) return 0;
        unsigned char user[32], owner[32], d[16], mkey[16];
        pad_passphrase(secret, len, user);
        pad_passphrase(NULL, 0, owner);
        int ok = (MD5(owner, 32, d) != NULL);
        for (int k = 0; ok && k < 50; k++) ok = (MD5(d, 16, d) != NULL);
        memcpy(owner, user, 32);
        for (int i = 0; ok && i < 20; i++) {
            for (int j = 0; j < 16; j++) mkey[j] = (unsigned char)(d[j] ^ i);
            ok = rc4_xor(mkey, 16, owner, 32, owner);
        }
        unsigned char both[64];
        memcpy(both, user, 32);
        memcpy(both + 32, owner, 32);
        ok = ok && MD5(both, 64, d) != NULL;
        OPENSSL_cleanse(both, sizeof both);
        for (int k = 0; ok && k < 50; k++) ok = (MD5(d, 16, d) != NULL);
        memcpy(key, d, 16);
        OPENSSL_cleanse(user, sizeof user);
        OPENSSL_cleanse(owner, sizeof owner);
        OPENSSL_cleanse(d, sizeof d);
        OPENSSL_cleanse(mkey, sizeof mkey);
        return ok;
    }
    case DC_SCHEME_RC4: {
        if (c->is_raw) return 0;
        unsigned char d[20];
        int ok = (SHA1(secret, (size_t)len, d) != NULL);
        memcpy(key, d, 16);
        OPENSSL_cleanse(d, sizeof d);
        return ok;
    }
    default:
        return 0;
    }
}

int cipher_page1_plausible(const Format *f, const unsigned char *page) {
    int size = (page[16] << 8) | page[17];
    if (size == 1) size = 65536;
    if (size != f->page_size || page[20] < f->reserve || page[21] != 64 || page[22] != 32 || page[23] != 32) return 0;
    /* The schema's b-tree page header after SQLite's 100 bytes, as SQLite would read it: a
     * table page (leaf or interior), its free block, cells and content area inside the page. */
    int usable = size - page[20];
    int type = page[100], freeblock = (page[101] << 8) | page[102], cells = (page[103] << 8) | page[104];
    int content = (page[105] << 8) | page[106];
    if (content == 0) content = 65536;
    int header = type == 0x05 ? 12 : 8;
    return (type == 0x0d || type == 0x05) && freeblock < usable && page[107] <= 60
        && 100 + header + 2 * cells <= content && content <= usable;
}

/* ---- chacha20 ------------------------------------------------------------------------- */

/* XORs `len` bytes of ChaCha20's keystream (key, 12-byte nonce, from block `counter`) into
 * `in`, giving `out`. */
static int chacha20_xor(Codec *c, const unsigned char *key, const unsigned char *nonce, unsigned int counter,
                        const unsigned char *in, int len, unsigned char *out) {
    unsigned char iv[16] = {(unsigned char)counter, (unsigned char)(counter >> 8), (unsigned char)(counter >> 16),
                            (unsigned char)(counter >> 24)};
    memcpy(iv + 4, nonce, 12);
    EVP_CIPHER_CTX *ctx = keyed(c, 1, cipher_chacha20, key, iv);
    int n = 0;
    return ctx && EVP_EncryptUpdate(ctx, out, &n, in, len) && n == len;
}

static int poly1305(Codec *c, const unsigned char key[32], const unsigned char *in, size_t len, unsigned char tag[TAG_LEN]) {
    if (!c->poly1305) {
        EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
        if (!mac) return 0;
        c->poly1305 = EVP_MAC_CTX_new(mac);
        EVP_MAC_free(mac);
        if (!c->poly1305) return 0;
    }
    size_t out = 0;
    return EVP_MAC_init(c->poly1305, key, 32, NULL) && EVP_MAC_update(c->poly1305, in, len)
        && EVP_MAC_final(c->poly1305, tag, &out, TAG_LEN) && out == TAG_LEN;
}

/* The page's one-time key for the nonce in its reserve, and the block its span starts at. */
static int chacha20_one_time_key(Codec *c, unsigned int pgno, const unsigned char *nonce, unsigned char otk[64],
                                 unsigned int *counter) {
    static const unsigned char zeros[64];
    *counter = (unsigned int)le32(nonce + NONCE_LEN - 4) ^ pgno;
    return chacha20_xor(c, c->enc_key, nonce, *counter, zeros, 64, otk);
}

/* Where page 1's span starts: after the clear fields (24), or after a plaintext header
 * (at least 24 bytes in the default mode); from 0 in legacy mode, under the salt. */
static int chacha20_span_start(const Format *f, unsigned int pgno) {
    if (pgno != 1) return 0;
    if (f->legacy) return f->plaintext_header;
    return f->plaintext_header > 24 ? f->plaintext_header : 24;
}

static int chacha20_decrypt(Codec *c, unsigned int pgno, unsigned char *disk, unsigned char *out) {
    int pg = c->f.page_size, n = pg - c->f.reserve, start = chacha20_span_start(&c->f, pgno);
    unsigned char otk[64], tag[TAG_LEN];
    unsigned int counter;
    int ok = chacha20_one_time_key(c, pgno, disk + n, otk, &counter)
        && poly1305(c, otk, disk, (size_t)n + NONCE_LEN, tag)
        && CRYPTO_memcmp(tag, disk + n + NONCE_LEN, TAG_LEN) == 0
        && chacha20_xor(c, otk + 32, disk + n, counter + 1, disk + start, n - start, out + start);
    OPENSSL_cleanse(otk, sizeof otk);
    if (!ok) return 0;
    if (pgno == 1 && c->f.plaintext_header) {
        memcpy(out, disk, (size_t)start);   /* SQLite's own bytes, stored as they are */
    } else if (pgno == 1) {
        memcpy(out, sqlite_header, 16);
        if (start) memcpy(out + 16, disk + 16, 8);
    }
    memset(out + n, 0, (size_t)c->f.reserve);
    return 1;
}

static int chacha20_encrypt(Codec *c, unsigned int pgno, const unsigned char *in, unsigned char *out) {
    int pg = c->f.page_size, n = pg - c->f.reserve, start = chacha20_span_start(&c->f, pgno);
    unsigned char otk[64];
    unsigned int counter;
    if (RAND_bytes(out + n, NONCE_LEN) != 1) return 0;
    int ok = chacha20_one_time_key(c, pgno, out + n, otk, &counter)
        && chacha20_xor(c, otk + 32, out + n, counter + 1, in + start, n - start, out + start);
    if (ok && pgno == 1 && c->f.plaintext_header) {
        memcpy(out, in, (size_t)start);
    } else if (ok && pgno == 1) {
        memcpy(out, c->salt, DC_SALT_LEN);
        if (start) memcpy(out + 16, in + 16, 8);
    }
    ok = ok && poly1305(c, otk, out, (size_t)n + NONCE_LEN, out + n + NONCE_LEN);
    OPENSSL_cleanse(otk, sizeof otk);
    return ok;
}

/* ---- aes128cbc, aes256cbc ------------------------------------------------------------- */

/* The page's IV: MD5 of four words of the Park-Miller sequence (Schrage's method) seeded
 * with pgno + 1, little-endian. */
static int aes_page_iv(unsigned int pgno, unsigned char iv[16]) {
    unsigned char seed[16];
    long long z = (long long)(int)pgno + 1;
    for (int j = 0; j < 4; j++) {
        long long q = z / 52774;
        z = 40692 * (z - 52774 * q) - 3791 * q;
        if (z < 0) z += 2147483399LL;
        for (int b = 0; b < 4; b++) seed[4 * j + b] = (unsigned char)(z >> (8 * b));
    }
    return MD5(seed, 16, iv) != NULL;
}

/* AES-CBC of `len` bytes (whole blocks) with the page's key and IV, from a fresh chain. */
static int aes_page_cbc(Codec *c, unsigned int pgno, int encrypt, const unsigned char *in, int len, unsigned char *out) {
    int aes256 = c->f.scheme == DC_SCHEME_AES256CBC;
    unsigned char material[DC_KEY_LEN + 8], page_key[32], iv[16];
    int key_len = aes256 ? 32 : 16;
    memcpy(material, c->enc_key, (size_t)key_len);
    unsigned char *tail = material + key_len;
    tail[0] = (unsigned char)pgno;
    tail[1] = (unsigned char)(pgno >> 8);
    tail[2] = (unsigned char)(pgno >> 16);
    tail[3] = (unsigned char)(pgno >> 24);
    memcpy(tail + 4, "sAlT", 4);
    int n1 = 0, n2 = 0;
    int ok = (aes256 ? SHA256(material, (size_t)key_len + 8, page_key) : MD5(material, (size_t)key_len + 8, page_key)) != NULL
        && aes_page_iv(pgno, iv);
    EVP_CIPHER_CTX *ctx = ok ? keyed(c, encrypt, aes256 ? cipher_aes256 : cipher_aes128, page_key, iv) : NULL;
    ok = ctx && EVP_CipherUpdate(ctx, out, &n1, in, len) && EVP_CipherFinal_ex(ctx, out + n1, &n2) && n1 + n2 == len;
    OPENSSL_cleanse(material, sizeof material);
    OPENSSL_cleanse(page_key, sizeof page_key);
    return ok;
}

static int aes_decrypt(Codec *c, unsigned int pgno, unsigned char *disk, unsigned char *out) {
    int pg = c->f.page_size;
    if (pgno != 1 || c->f.legacy) {
        if (!aes_page_cbc(c, pgno, 0, disk, pg, out)) return 0;
        return pgno != 1 || memcmp(out, sqlite_header, 16) == 0;
    }
    unsigned char fields[8];
    memcpy(fields, disk + 16, 8);
    memcpy(disk + 16, disk + 8, 8); /* the encrypted bytes 16-23, kept at 8-15 */
    if (!aes_page_cbc(c, pgno, 0, disk + 16, pg - 16, out + 16)) return 0;
    if (CRYPTO_memcmp(fields, out + 16, 8) != 0) return 0; /* the clear fields check the key */
    memcpy(out, sqlite_header, 16);
    return 1;
}

static int aes_encrypt(Codec *c, unsigned int pgno, const unsigned char *in, unsigned char *out) {
    int pg = c->f.page_size;
    if (pgno != 1 || c->f.legacy) return aes_page_cbc(c, pgno, 1, in, pg, out);
    if (!aes_page_cbc(c, pgno, 1, in, 16, out) || !aes_page_cbc(c, pgno, 1, in + 16, pg - 16, out + 16)) return 0;
    memcpy(out + 8, out + 16, 8);   /* the encrypted bytes 16-23 kept where bytes 8-15 were */
    memcpy(out + 16, in + 16, 8);   /* and the clear ones in their place */
    return 1;
}

/* ---- Dispatch ------------------------------------------------------------------------- */

int cipher_scheme_decrypt(Codec *c, unsigned int pgno, unsigned char *disk, unsigned char *out) {
    int ok;
    if (!fetched()) return 0;
    switch (c->f.scheme) {
    case DC_SCHEME_CHACHA20: ok = chacha20_decrypt(c, pgno, disk, out); break;
    case DC_SCHEME_AES128CBC:
    case DC_SCHEME_AES256CBC: ok = aes_decrypt(c, pgno, disk, out); break;
    case DC_SCHEME_RC4:
        ok = rc4_xor(c->enc_key, 16, disk, c->f.page_size, out) && (pgno != 1 || memcmp(out, sqlite_header, 16) == 0);
        break;
    default: return 0;
    }
    /* Without a MAC (and as a second check with one), page 1 must read as SQLite's header. */
    return ok && (pgno != 1 || cipher_page1_plausible(&c->f, out));
}

int cipher_scheme_encrypt(Codec *c, unsigned int pgno, const unsigned char *in, unsigned char *out) {
    if (!fetched()) return 0;
    switch (c->f.scheme) {
    case DC_SCHEME_CHACHA20: return chacha20_encrypt(c, pgno, in, out);
    case DC_SCHEME_AES128CBC:
    case DC_SCHEME_AES256CBC: return aes_encrypt(c, pgno, in, out);
    case DC_SCHEME_RC4: return rc4_xor(c->enc_key, 16, in, c->f.page_size, out);
    default: return 0;
    }
}

int cipher_aes256_cbc_cts(Codec *c, int encrypt, const unsigned char *iv, const unsigned char *in, int len,
                          unsigned char *out) {
    if (!fetched()) return 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE, (char *)"CS2", 0),
        OSSL_PARAM_construct_end(),
    };
    int n1 = 0, n2 = 0;
    int ok = ctx && EVP_CipherInit_ex2(ctx, cipher_aes256_cts, c->enc_key, iv, encrypt, params)
        && EVP_CipherUpdate(ctx, out, &n1, in, len) && EVP_CipherFinal_ex(ctx, out + n1, &n2) && n1 + n2 == len;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}
