/*
 * The codec: the keys of one open database (derived once per salt, cached per process) and
 * the transforms of its pages between SQLite's plaintext and the file's SQLCipher layout.
 */
#include "CipherInternal.h"
#include "KeyDerivation.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The derived-key cache: entries are named by a SHA-256 of everything the KDF reads. */
typedef struct CacheEntry {
    int used;
    unsigned char id[32];
    unsigned char enc_key[DC_KEY_LEN];
    unsigned char hmac_key[DC_KEY_LEN];
} CacheEntry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static CacheEntry cache[DC_KEY_CACHE_SIZE];
static int cache_next;
static _Thread_local int kdf_count; /* per thread, so tests running in parallel do not mix */

static int cache_id(const Codec *c, unsigned char id[32]) {
    /* Everything both derivations read: the scheme, digest, iterations, salt mask and secret. */
    unsigned char head[12] = {(unsigned char)c->f.kdf_algorithm, (unsigned char)c->is_raw, (unsigned char)c->f.salt_mask,
                              (unsigned char)c->f.scheme,
                              (unsigned char)(c->f.kdf_iter >> 24), (unsigned char)(c->f.kdf_iter >> 16),
                              (unsigned char)(c->f.kdf_iter >> 8), (unsigned char)c->f.kdf_iter, 0, 0, 0, 0};
    unsigned int len = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx) return 0;
    int ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)
        && EVP_DigestUpdate(ctx, head, sizeof head)
        && EVP_DigestUpdate(ctx, c->salt, DC_SALT_LEN)
        && EVP_DigestUpdate(ctx, c->secret, (size_t)c->secret_len)
        && EVP_DigestFinal_ex(ctx, id, &len);
    EVP_MD_CTX_free(ctx);
    return ok && len == 32;
}

void dc_cipher_forget_derived_keys(void) {
    pthread_mutex_lock(&cache_lock);
    OPENSSL_cleanse(cache, sizeof cache);
    cache_next = 0;
    pthread_mutex_unlock(&cache_lock);
}

/* SQLCipher's keys: the AES key from the passphrase (or the raw key), the HMAC key from it
 * and the salt with its mask. Returns 1 on success. */
static int derive_sqlcipher_keys(Codec *c) {
    if (c->is_raw) {
        memcpy(c->enc_key, c->secret, DC_KEY_LEN);
    } else {
        if (!dc_pbkdf2(c->f.kdf_algorithm, c->secret, (size_t)c->secret_len, c->salt, DC_SALT_LEN,
                       c->f.kdf_iter, c->enc_key, DC_KEY_LEN)) return 0;
        kdf_count++;
    }
    unsigned char hmac_salt[DC_SALT_LEN];
    for (int i = 0; i < DC_SALT_LEN; i++) hmac_salt[i] = c->salt[i] ^ (unsigned char)c->f.salt_mask;
    return dc_pbkdf2(c->f.kdf_algorithm, c->enc_key, DC_KEY_LEN, hmac_salt, DC_SALT_LEN, 2, c->hmac_key, DC_KEY_LEN);
}

/* Derives (or finds) the keys for the codec's salt. Returns 1 on success. */
int cipher_codec_derive(Codec *c) {
    unsigned char id[32];
    if (!cache_id(c, id)) return 0;
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < DC_KEY_CACHE_SIZE; i++) {
        if (cache[i].used && CRYPTO_memcmp(cache[i].id, id, 32) == 0) {
            memcpy(c->enc_key, cache[i].enc_key, DC_KEY_LEN);
            memcpy(c->hmac_key, cache[i].hmac_key, DC_KEY_LEN);
            pthread_mutex_unlock(&cache_lock);
            c->key_gen++;
            c->keys_ready = 1;
            return 1;
        }
    }
    pthread_mutex_unlock(&cache_lock);

    if (c->f.scheme >= DC_SCHEME_CHACHA20) {
        /* SQLite3MC's schemes: one key, derived as each derives it. */
        if (!cipher_scheme_derive(c, c->enc_key)) return 0;
        if (!c->is_raw && c->f.scheme == DC_SCHEME_CHACHA20) kdf_count++;
        memset(c->hmac_key, 0, DC_KEY_LEN);
    } else if (!derive_sqlcipher_keys(c)) {
        return 0;
    }

    pthread_mutex_lock(&cache_lock);
    CacheEntry *e = &cache[cache_next];
    cache_next = (cache_next + 1) % DC_KEY_CACHE_SIZE;
    e->used = 1;
    memcpy(e->id, id, 32);
    memcpy(e->enc_key, c->enc_key, DC_KEY_LEN);
    memcpy(e->hmac_key, c->hmac_key, DC_KEY_LEN);
    pthread_mutex_unlock(&cache_lock);
    c->key_gen++;
    c->keys_ready = 1;
    return 1;
}

/* Makes sure the codec has keys: for a file without a salt yet, a new random one. */
static int codec_ready_for_write(Codec *c) {
    if (c->keys_ready) return 1;
    if (!cipher_needs_salt(&c->f, c->is_raw)) return cipher_codec_derive(c);
    if (c->f.has_salt) { memcpy(c->salt, c->f.salt, DC_SALT_LEN); return cipher_codec_derive(c); }
    if (RAND_bytes(c->salt, DC_SALT_LEN) != 1) return 0;
    return cipher_codec_derive(c);
}

/* Adopts the salt found at the start of page 1, when the codec had none from the file. */
static int codec_adopt_salt(Codec *c, const unsigned char *salt) {
    if (!cipher_needs_salt(&c->f, c->is_raw)) return c->keys_ready || cipher_codec_derive(c);
    if (c->f.has_salt || c->f.plaintext_header) return c->keys_ready; /* the salt is not in the file */
    if (c->keys_ready && (c->salt_from_file || memcmp(c->salt, salt, DC_SALT_LEN) == 0)) return 1;
    memcpy(c->salt, salt, DC_SALT_LEN);
    c->salt_from_file = 1;
    c->keys_ready = 0;
    return cipher_codec_derive(c);
}

void cipher_codec_free(Codec *c) {
    if (!c) return;
    EVP_CIPHER_CTX_free(c->aes[0]);
    EVP_CIPHER_CTX_free(c->aes[1]);
    EVP_MAC_CTX_free(c->mac);
    EVP_CIPHER_CTX_free(c->scheme_cipher[0]);
    EVP_CIPHER_CTX_free(c->scheme_cipher[1]);
    EVP_MAC_CTX_free(c->poly1305);
    if (c->secret) {
        OPENSSL_cleanse(c->secret, (size_t)c->secret_len);
        free(c->secret);
    }
    OPENSSL_cleanse(c, sizeof *c);
    free(c);
}

int dc_cipher_kdf_count(void) {
    return kdf_count;
}

/* ---- Page transforms --------------------------------------------------------------- */

/* Readies the codec's HMAC context for a new message: keyed with hmac_key on first use and
 * after the keys change, otherwise restarted with the key it holds. Returns 1 on success. */
static int mac_begin(Codec *c) {
    if (!c->mac) {
        EVP_MAC *hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
        if (!hmac) return 0;
        c->mac = EVP_MAC_CTX_new(hmac);
        EVP_MAC_free(hmac); /* the context holds its own reference */
        if (!c->mac) return 0;
    }
    if (c->mac_gen == c->key_gen) return EVP_MAC_init(c->mac, NULL, 0, NULL);
    c->mac_gen = 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)EVP_MD_get0_name(c->f.hmac_digest()), 0),
        OSSL_PARAM_construct_end(),
    };
    if (!EVP_MAC_init(c->mac, c->hmac_key, DC_KEY_LEN, params)) return 0;
    c->mac_gen = c->key_gen;
    return 1;
}

static int page_hmac(Codec *c, unsigned char *page, unsigned int pgno, int start,
                     unsigned char *out) {
    /* HMAC over ciphertext || IV || pgno: the pgno is put just after the IV (in the HMAC's
     * own slot of this scratch copy) so the input is one contiguous span. */
    int pg = c->f.page_size, rs = c->f.reserve;
    unsigned char *tail = page + pg - rs + DC_IV_LEN;
    if (c->f.hmac_pgno == DC_CIPHER_PGNO_BE) {
        tail[0] = (unsigned char)(pgno >> 24);
        tail[1] = (unsigned char)(pgno >> 16);
        tail[2] = (unsigned char)(pgno >> 8);
        tail[3] = (unsigned char)pgno;
    } else if (c->f.hmac_pgno == DC_CIPHER_PGNO_NATIVE) {
        memcpy(tail, &pgno, 4);
    } else {
        tail[0] = (unsigned char)pgno;
        tail[1] = (unsigned char)(pgno >> 8);
        tail[2] = (unsigned char)(pgno >> 16);
        tail[3] = (unsigned char)(pgno >> 24);
    }
    size_t len = 0;
    size_t n = (size_t)(pg - rs - start + DC_IV_LEN + 4);
    if (!mac_begin(c) || !EVP_MAC_update(c->mac, page + start, n) || !EVP_MAC_final(c->mac, out, &len, DC_MAX_HMAC))
        return 0;
    return (int)len == c->f.hmac_len;
}

/* AES-256-CBC with the codec's enc_key. The context of each direction gets its key schedule
 * on first use and after the keys change; after that only the IV is set (a NULL cipher and
 * key keep the schedule), which gives the same output as a full init. */
static int aes_cbc(Codec *c, int encrypt, const unsigned char *iv, const unsigned char *in, int len,
                   unsigned char *out) {
    int n1 = 0, n2 = 0;
    EVP_CIPHER_CTX *ctx = c->aes[encrypt];
    if (!ctx && !(ctx = c->aes[encrypt] = EVP_CIPHER_CTX_new())) return 0;
    if (c->aes_gen[encrypt] == c->key_gen) {
        if (!EVP_CipherInit_ex(ctx, NULL, NULL, NULL, iv, encrypt)) return 0;
    } else {
        c->aes_gen[encrypt] = 0;
        if (!EVP_CipherInit_ex(ctx, EVP_aes_256_cbc(), NULL, c->enc_key, iv, encrypt)) return 0;
        c->aes_gen[encrypt] = c->key_gen;
    }
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    if (!EVP_CipherUpdate(ctx, out, &n1, in, len)) return 0;
    if (!EVP_CipherFinal_ex(ctx, out + n1, &n2)) return 0;
    return n1 + n2 == len;
}

/* The encrypted span of a page: whole blocks, but for page 1 of SQLite3MC's non-legacy
 * sqlcipher, whose span starts at 24 and is encrypted with ciphertext stealing. */
static int span_cbc(Codec *c, int encrypt, const unsigned char *iv, const unsigned char *in, int len, unsigned char *out) {
    if (len % 16 != 0) return cipher_aes256_cbc_cts(c, encrypt, iv, in, len, out);
    return aes_cbc(c, encrypt, iv, in, len, out);
}

/* Verifies and decrypts one file page (`disk`, modified as scratch) into `out`.
 * Returns 1 when the page is authentic. */
int cipher_page_decrypt(Codec *c, unsigned int pgno,
                        unsigned char *disk, unsigned char *out) {
    int pg = c->f.page_size, rs = c->f.reserve, start = pgno == 1 ? cipher_page1_start(&c->f) : 0;
    if (pgno == 1 && !codec_adopt_salt(c, disk)) return 0;
    if (!c->keys_ready) return 0;
    if (c->f.scheme >= DC_SCHEME_CHACHA20) return cipher_scheme_decrypt(c, pgno, disk, out);
    if (c->f.use_hmac) {
        unsigned char stored[DC_MAX_HMAC], computed[DC_MAX_HMAC];
        unsigned char *mac = disk + pg - rs + DC_IV_LEN;
        memcpy(stored, mac, (size_t)c->f.hmac_len);
        int ok = page_hmac(c, disk, pgno, start, computed)
            && CRYPTO_memcmp(stored, computed, (size_t)c->f.hmac_len) == 0;
        memcpy(mac, stored, (size_t)c->f.hmac_len);
        if (!ok) return 0;
    }
    if (start < pg - rs && !span_cbc(c, 0, disk + pg - rs, disk + start, pg - rs - start, out + start))
        return 0;
    if (pgno == 1) {
        if (c->f.plaintext_header) memcpy(out, disk, (size_t)c->f.plaintext_header);
        else memcpy(out, "SQLite format 3", 16);
        if (!c->f.plaintext_header && cipher_page1_keeps_fields(&c->f)) memcpy(out + 16, disk + 16, 8);
        /* Without an HMAC nothing authenticates a page: page 1 must at least decrypt into
         * SQLite's header for this page size and a schema page SQLite would read, or the key
         * is wrong (as SQLCipher 1 finds it). */
        if (!c->f.use_hmac && !cipher_page1_plausible(&c->f, out)) return 0;
    }
    /* SQLite never writes its reserve, and zeroes new pages: handing it zeros keeps what it
     * checksums (WAL frames, journal records) equal to what it wrote. */
    memset(out + pg - rs, 0, (size_t)rs);
    return 1;
}

/* Encrypts SQLite's page `in` into the file page `out`. Returns 1 on success. */
int cipher_page_encrypt(Codec *c, unsigned int pgno,
                        const unsigned char *in, unsigned char *out) {
    int pg = c->f.page_size, rs = c->f.reserve, start = pgno == 1 ? cipher_page1_start(&c->f) : 0;
    if (c->f.scheme >= DC_SCHEME_CHACHA20) {
        if (pgno == 1 && !cipher_page1_plausible(&c->f, in)) return 0;
        return codec_ready_for_write(c) && cipher_scheme_encrypt(c, pgno, in, out);
    }
    if (pgno == 1) {
        /* SQLite must lay pages out with this format's size and at least its reserve, or
         * the IV and HMAC would overwrite its data. (A larger reserve is fine, and occurs:
         * SQLCipher 4 in SQLCipher 3 compatibility keeps the 80 bytes it set at creation.) */
        int size = (in[16] << 8) | in[17];
        if (size == 1) size = 65536;
        if (size != pg || in[20] < rs) return 0;
    }
    if (!codec_ready_for_write(c)) return 0;
    if (pgno == 1 && c->f.plaintext_header) memcpy(out, in, (size_t)c->f.plaintext_header);
    else if (pgno == 1) memcpy(out, c->salt, DC_SALT_LEN);
    if (pgno == 1 && !c->f.plaintext_header && cipher_page1_keeps_fields(&c->f)) memcpy(out + 16, in + 16, 8);
    unsigned char *iv = out + pg - rs;
    if (RAND_bytes(iv, rs) != 1) return 0; /* the IV, and filler for the rest */
    if (start < pg - rs && !span_cbc(c, 1, iv, in + start, pg - rs - start, out + start)) return 0;
    if (!c->f.use_hmac) return 1;
    unsigned char mac[DC_MAX_HMAC];
    unsigned char filler[4];
    memcpy(filler, iv + DC_IV_LEN, 4);
    if (!page_hmac(c, out, pgno, start, mac)) return 0;
    memcpy(iv + DC_IV_LEN, filler, 4);
    memcpy(iv + DC_IV_LEN, mac, (size_t)c->f.hmac_len);
    return 1;
}
