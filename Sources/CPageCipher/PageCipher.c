/*
 * The cipher VFS: a shim over SQLite's default VFS that keeps SQLite's view of each page
 * (plaintext, with the format's reserved bytes) apart from the file's (SQLCipher's layout).
 *
 * Page layout on disk (P = page size, R = reserve, H = HMAC length):
 *   [0, 16)        page 1 only: the salt the keys were derived with
 *   [s, P-R)       AES-256-CBC ciphertext of the same bytes of the plaintext page
 *                  (s = 16 on page 1, 0 elsewhere; no padding, the span is whole blocks)
 *   [P-R, P-R+16)  the IV, fresh from the CSPRNG on every write
 *   [P-R+16, +H)   HMAC(hmac key, ciphertext || IV || page number as 4 bytes, little-endian
 *                  unless the settings say otherwise); absent when the settings turn HMAC off
 *   the rest       random filler up to the reserve
 * Keys: the AES key is PBKDF2(passphrase, salt, kdf_iter) or the raw key; the HMAC key is
 * PBKDF2(AES key, salt XOR the salt mask (0x3a), 2 iterations), both with the KDF digest.
 * With a plaintext header of N bytes, page 1's first N bytes are SQLite's own, stored in the
 * clear, encryption starts at N, and the salt is not in the file: the settings give it.
 * Every one of these is a setting (dc_cipher_settings), as SQLCipher's pragmas set them.
 */
#include "CPageCipher.h"
#include "KeyDerivation.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DC_VFS_NAME "datacenter-cipher"
#define DC_SALT_LEN 16
#define DC_KEY_LEN 32
#define DC_IV_LEN 16
#define DC_MAX_HMAC 64
#define DC_WAL_HEADER 32
#define DC_WAL_FRAME_HEADER 24
#define DC_KEY_CACHE_SIZE 32

/* ---- Settings ---------------------------------------------------------------------- */

typedef struct Format {
    int page_size, reserve, hmac_len, kdf_iter, use_hmac, hmac_pgno, salt_mask, plaintext_header;
    int kdf_algorithm, hmac_algorithm;
    const EVP_MD *(*kdf_digest)(void);
    const EVP_MD *(*hmac_digest)(void);
    int has_salt;
    unsigned char salt[DC_SALT_LEN];
} Format;

static const EVP_MD *(*digest_for(int algorithm))(void) {
    switch (algorithm) {
    case DC_CIPHER_SHA1: return EVP_sha1;
    case DC_CIPHER_SHA256: return EVP_sha256;
    case DC_CIPHER_SHA512: return EVP_sha512;
    default: return NULL;
    }
}

void dc_cipher_settings_for_version(int version, dc_cipher_settings *out) {
    memset(out, 0, sizeof *out);
    out->hmac_pgno = DC_CIPHER_PGNO_LE;
    out->hmac_salt_mask = 0x3a;
    out->use_hmac = 1;
    switch (version) {
    case 1: out->use_hmac = 0; /* fall through: version 2 with no HMAC */
    case 2: out->page_size = 1024; out->kdf_iter = 4000; out->kdf_algorithm = out->hmac_algorithm = DC_CIPHER_SHA1; break;
    case 3: out->page_size = 1024; out->kdf_iter = 64000; out->kdf_algorithm = out->hmac_algorithm = DC_CIPHER_SHA1; break;
    default: out->page_size = 4096; out->kdf_iter = 256000; out->kdf_algorithm = out->hmac_algorithm = DC_CIPHER_SHA512; break;
    }
}

/* Checks `in` and fills `out`; 0 when a setting is out of range (as SQLCipher refuses it). */
static int format_for(const dc_cipher_settings *in, Format *out) {
    if (!in) return 0;
    int pg = in->page_size;
    if (pg < 512 || pg > 65536 || (pg & (pg - 1)) != 0) return 0;
    if (in->kdf_iter < 1 || in->hmac_pgno < DC_CIPHER_PGNO_LE || in->hmac_pgno > DC_CIPHER_PGNO_NATIVE) return 0;
    if (in->hmac_salt_mask < 0 || in->hmac_salt_mask > 255) return 0;
    const EVP_MD *(*kdf)(void) = digest_for(in->kdf_algorithm);
    const EVP_MD *(*hmac)(void) = digest_for(in->hmac_algorithm);
    if (!kdf || !hmac) return 0;
    memset(out, 0, sizeof *out);
    out->page_size = pg;
    out->kdf_iter = in->kdf_iter;
    out->use_hmac = in->use_hmac ? 1 : 0;
    out->hmac_pgno = in->hmac_pgno;
    out->salt_mask = in->hmac_salt_mask;
    out->kdf_algorithm = in->kdf_algorithm;
    out->hmac_algorithm = in->hmac_algorithm;
    out->kdf_digest = kdf;
    out->hmac_digest = hmac;
    out->hmac_len = out->use_hmac ? EVP_MD_get_size(hmac()) : 0;
    /* The IV and the HMAC, rounded up to the AES block, as SQLCipher reserves them. */
    out->reserve = (DC_IV_LEN + out->hmac_len + 15) / 16 * 16;
    if (pg - out->reserve < 480) return 0; /* SQLite's least usable page */
    int phs = in->plaintext_header_size;
    if (phs < 0 || phs % 16 != 0 || phs > pg - out->reserve) return 0;
    out->plaintext_header = phs;
    out->has_salt = in->has_salt ? 1 : 0;
    memcpy(out->salt, in->salt, DC_SALT_LEN);
    return 1;
}

/* Where page 1's encrypted span starts: after the salt, or after the plaintext header. */
static int page1_start(const Format *f) {
    return f->plaintext_header ? f->plaintext_header : DC_SALT_LEN;
}

/* ---- Keys: one codec per open main database, shared with its journal and WAL ------ */

typedef struct Codec {
    Format f;
    unsigned char *secret;
    int secret_len;
    int is_raw;
    unsigned char salt[DC_SALT_LEN];
    int keys_ready;      /* enc_key and hmac_key hold keys for salt */
    int salt_from_file;  /* the salt was read from the file, not made up for a new one */
    unsigned char enc_key[DC_KEY_LEN];
    unsigned char hmac_key[DC_KEY_LEN];
    int failed_page;     /* last page that failed authentication, 0 when none */
    int failed_in_journal; /* it failed in a whole journal record: the journal is not this file's */
    /* Keyed contexts, made once and reused for every page (a key schedule and the HMAC's
     * inner and outer pads per page cost as much as the page's own AES). Each records the
     * key_gen it was keyed at; key_gen changes whenever enc_key and hmac_key do. */
    unsigned int key_gen;
    EVP_CIPHER_CTX *aes[2];      /* [0] decrypts, [1] encrypts */
    unsigned int aes_gen[2];
    EVP_MAC_CTX *mac;
    unsigned int mac_gen;
} Codec;

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
static _Thread_local long wal_chain_walk_frames; /* frames read to rebuild a WAL's checksum chain */

static int cache_id(const Codec *c, unsigned char id[32]) {
    /* Everything both derivations read: the digest, iterations, salt mask and secret. */
    unsigned char head[12] = {(unsigned char)c->f.kdf_algorithm, (unsigned char)c->is_raw, (unsigned char)c->f.salt_mask, 0,
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

/* Derives (or finds) the keys for the codec's salt. Returns 1 on success. */
static int codec_derive(Codec *c) {
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

    if (c->is_raw) {
        memcpy(c->enc_key, c->secret, DC_KEY_LEN);
    } else {
        if (!dc_pbkdf2(c->f.kdf_algorithm, c->secret, (size_t)c->secret_len, c->salt, DC_SALT_LEN,
                       c->f.kdf_iter, c->enc_key, DC_KEY_LEN)) return 0;
        kdf_count++;
    }
    unsigned char hmac_salt[DC_SALT_LEN];
    for (int i = 0; i < DC_SALT_LEN; i++) hmac_salt[i] = c->salt[i] ^ (unsigned char)c->f.salt_mask;
    if (!dc_pbkdf2(c->f.kdf_algorithm, c->enc_key, DC_KEY_LEN, hmac_salt, DC_SALT_LEN, 2, c->hmac_key, DC_KEY_LEN)) return 0;

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
    if (c->f.has_salt) { memcpy(c->salt, c->f.salt, DC_SALT_LEN); return codec_derive(c); }
    if (RAND_bytes(c->salt, DC_SALT_LEN) != 1) return 0;
    return codec_derive(c);
}

/* Adopts the salt found at the start of page 1, when the codec had none from the file. */
static int codec_adopt_salt(Codec *c, const unsigned char *salt) {
    if (c->f.has_salt || c->f.plaintext_header) return c->keys_ready; /* the salt is not in the file */
    if (c->keys_ready && (c->salt_from_file || memcmp(c->salt, salt, DC_SALT_LEN) == 0)) return 1;
    memcpy(c->salt, salt, DC_SALT_LEN);
    c->salt_from_file = 1;
    c->keys_ready = 0;
    return codec_derive(c);
}

static void codec_free(Codec *c) {
    if (!c) return;
    EVP_CIPHER_CTX_free(c->aes[0]);
    EVP_CIPHER_CTX_free(c->aes[1]);
    EVP_MAC_CTX_free(c->mac);
    if (c->secret) {
        OPENSSL_cleanse(c->secret, (size_t)c->secret_len);
        free(c->secret);
    }
    OPENSSL_cleanse(c, sizeof *c);
    free(c);
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

/* Verifies and decrypts one file page (`disk`, modified as scratch) into `out`.
 * Returns 1 when the page is authentic. */
static int page_decrypt(Codec *c, unsigned int pgno,
                        unsigned char *disk, unsigned char *out) {
    int pg = c->f.page_size, rs = c->f.reserve, start = pgno == 1 ? page1_start(&c->f) : 0;
    if (pgno == 1 && !codec_adopt_salt(c, disk)) return 0;
    if (!c->keys_ready) return 0;
    if (c->f.use_hmac) {
        unsigned char stored[DC_MAX_HMAC], computed[DC_MAX_HMAC];
        unsigned char *mac = disk + pg - rs + DC_IV_LEN;
        memcpy(stored, mac, (size_t)c->f.hmac_len);
        int ok = page_hmac(c, disk, pgno, start, computed)
            && CRYPTO_memcmp(stored, computed, (size_t)c->f.hmac_len) == 0;
        memcpy(mac, stored, (size_t)c->f.hmac_len);
        if (!ok) return 0;
    }
    if (start < pg - rs && !aes_cbc(c, 0, disk + pg - rs, disk + start, pg - rs - start, out + start))
        return 0;
    if (pgno == 1) {
        if (c->f.plaintext_header) memcpy(out, disk, (size_t)c->f.plaintext_header);
        else memcpy(out, "SQLite format 3", 16);
        /* Without an HMAC nothing authenticates a page: page 1 must at least decrypt into
         * SQLite's header for this page size, or the key is wrong (as SQLCipher 1 finds it). */
        if (!c->f.use_hmac) {
            int size = (out[16] << 8) | out[17];
            if (size == 1) size = 65536;
            if (size != pg || out[21] != 64 || out[22] != 32 || out[23] != 32) return 0;
        }
    }
    /* SQLite never writes its reserve, and zeroes new pages: handing it zeros keeps what it
     * checksums (WAL frames, journal records) equal to what it wrote. */
    memset(out + pg - rs, 0, (size_t)rs);
    return 1;
}

/* Encrypts SQLite's page `in` into the file page `out`. Returns 1 on success. */
static int page_encrypt(Codec *c, unsigned int pgno,
                        const unsigned char *in, unsigned char *out) {
    int pg = c->f.page_size, rs = c->f.reserve, start = pgno == 1 ? page1_start(&c->f) : 0;
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
    unsigned char *iv = out + pg - rs;
    if (RAND_bytes(iv, rs) != 1) return 0; /* the IV, and filler for the rest */
    if (start < pg - rs && !aes_cbc(c, 1, iv, in + start, pg - rs - start, out + start)) return 0;
    if (!c->f.use_hmac) return 1;
    unsigned char mac[DC_MAX_HMAC];
    unsigned char filler[4];
    memcpy(filler, iv + DC_IV_LEN, 4);
    if (!page_hmac(c, out, pgno, start, mac)) return 0;
    memcpy(iv + DC_IV_LEN, filler, 4);
    memcpy(iv + DC_IV_LEN, mac, (size_t)c->f.hmac_len);
    return 1;
}

/* ---- The VFS ----------------------------------------------------------------------- */

enum { KIND_PLAIN, KIND_MAIN, KIND_JOURNAL, KIND_WAL };

typedef struct CipherFile {
    sqlite3_file base;
    sqlite3_file *real;
    int kind;
    Codec *codec;          /* owned by the main file; borrowed by its journal and WAL */
    unsigned char *disk;   /* one page as stored */
    unsigned char *plain;  /* one page as SQLite sees it */
    sqlite3_int64 last_pgno_offset; /* journal: where the last page number was seen */
    unsigned int last_pgno;
    /* Journal only (see "Rollback journal records" below). */
    sqlite3_int64 journal_header_offset;   /* the segment header last read; -1: none */
    unsigned int journal_nonce;            /* that segment's checksum nonce */
    int journal_nonce_known;
    sqlite3_int64 journal_checksum_offset; /* the checksum of the record just written or read; -1: none */
    unsigned int journal_checksum_delta;   /* what to add to it on the way out (or in) */
    int page_size;         /* of the scratch buffers */
    /* WAL only (see "WAL frames" below). */
    unsigned char *frame;             /* one frame as stored: header, then the page */
    sqlite3_int64 held_header_offset; /* where the frame header held in `frame` goes; -1: none */
    sqlite3_int64 read_frame_offset;  /* the frame just read whole; -1 after any other call */
    sqlite3_int64 chain_offset;       /* the frame whose plaintext checksum is chain_sum; -1: none */
    unsigned int chain_sum[2];
    int chain_valid;                  /* whether every frame through chain_offset holds */
} CipherFile;

#define DC_FILE_SIZE ((sizeof(CipherFile) + 15) & ~(size_t)15)

typedef struct PendingKey {
    const Format *format;
    const void *secret;
    int secret_len;
    int is_raw;
} PendingKey;

static _Thread_local const PendingKey *pending_key;
static sqlite3_vfs *root_vfs;
static sqlite3_vfs cipher_vfs;
static const sqlite3_io_methods cipher_methods;

static unsigned int be32(const unsigned char *p) {
    return ((unsigned int)p[0] << 24) | ((unsigned int)p[1] << 16) | ((unsigned int)p[2] << 8) | p[3];
}

static void put_be32(unsigned char *p, unsigned int v);

static int fail_page(CipherFile *f, unsigned int pgno) {
    f->codec->failed_page = (int)pgno;
    if (f->kind == KIND_MAIN && pgno == 1) return SQLITE_NOTADB;
    return SQLITE_IOERR_DATA;
}

/* Reads one whole page of the main file into f->plain. Returns SQLITE_OK, SQLITE_IOERR_SHORT_READ
 * (past the end: f->plain zeroed) or an error. */
static int main_read_page(CipherFile *f, unsigned int pgno) {
    int pg = f->codec->f.page_size;
    sqlite3_int64 off = (sqlite3_int64)(pgno - 1) * pg;
    int rc = f->real->pMethods->xRead(f->real, f->disk, pg, off);
    if (rc == SQLITE_IOERR_SHORT_READ) {
        sqlite3_int64 size = 0;
        int src = f->real->pMethods->xFileSize(f->real, &size);
        if (src != SQLITE_OK) return src;
        if (size <= off) {
            memset(f->plain, 0, (size_t)pg);
            return SQLITE_IOERR_SHORT_READ;
        }
        return fail_page(f, pgno); /* a page cut short: the file was truncated */
    }
    if (rc != SQLITE_OK) return rc;
    if (!page_decrypt(f->codec, pgno, f->disk, f->plain)) return fail_page(f, pgno);
    return SQLITE_OK;
}

static int main_read(CipherFile *f, unsigned char *buf, int amt, sqlite3_int64 off) {
    int pg = f->codec->f.page_size, short_read = 0;
    sqlite3_int64 end = off + amt;
    for (sqlite3_int64 pos = off; pos < end;) {
        unsigned int pgno = (unsigned int)(pos / pg) + 1;
        sqlite3_int64 page_start = (sqlite3_int64)(pgno - 1) * pg;
        int rc = main_read_page(f, pgno);
        if (rc == SQLITE_IOERR_SHORT_READ) short_read = 1;
        else if (rc != SQLITE_OK) return rc;
        sqlite3_int64 chunk_end = page_start + pg < end ? page_start + pg : end;
        memcpy(buf + (pos - off), f->plain + (pos - page_start), (size_t)(chunk_end - pos));
        pos = chunk_end;
    }
    return short_read ? SQLITE_IOERR_SHORT_READ : SQLITE_OK;
}

static int main_write(CipherFile *f, const unsigned char *buf, int amt, sqlite3_int64 off) {
    int pg = f->codec->f.page_size;
    if (off % pg != 0 || amt % pg != 0) return SQLITE_IOERR_WRITE;
    for (int done = 0; done < amt; done += pg) {
        unsigned int pgno = (unsigned int)((off + done) / pg) + 1;
        if (!page_encrypt(f->codec, pgno, buf + done, f->disk)) return SQLITE_IOERR_WRITE;
        int rc = f->real->pMethods->xWrite(f->real, f->disk, pg, off + done);
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/* ---- Rollback journal records --------------------------------------------------------
 * A journal is segments, each a header (magic, record count, checksum nonce, ...) and
 * records: a page number (4 bytes, big-endian), the page, and a checksum (4 bytes): the
 * segment's nonce plus every 200th byte of the page, from the end. SQLite writes and reads
 * each part separately, in that order. The page is stored encrypted under its page number,
 * as in the main file, and the checksum is SQLCipher's: over the page as stored
 * (ciphertext), so that either implementation rolls back the other's hot journal exactly.
 * SQLite, under this VFS, computes it over the plaintext it sees, so the VFS translates it:
 * on the way out by what the sampled bytes differ by, and on the way in back again. Reading
 * a record, the VFS checks the stored checksum itself against the segment's nonce: a record
 * whose checksum fails is the torn end of the journal, and SQLite is given a checksum that
 * fails too (it stops there); a record whose checksum holds but whose page does not
 * authenticate was written for another file or key (DC_CIPHER_FCNTL_FAILED_FILE). */

static const unsigned char journal_magic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};

/* SQLite's journal checksum of `page`, without the nonce. */
static unsigned int journal_sample_sum(const unsigned char *page, int page_size) {
    unsigned int sum = 0;
    for (int i = page_size - 200; i > 0; i -= 200) sum += page[i];
    return sum;
}

/* Whether `off` is where the record whose page starts at `page_off` keeps its checksum. */
static int journal_is_record_checksum(CipherFile *f, sqlite3_int64 off) {
    return f->journal_checksum_offset >= 0 && off == f->journal_checksum_offset;
}

static int journal_read(CipherFile *f, unsigned char *buf, int amt, sqlite3_int64 off) {
    int pg = f->codec->f.page_size;
    if (amt == pg && off == f->last_pgno_offset + 4 && f->last_pgno > 0) {
        int rc = f->real->pMethods->xRead(f->real, f->disk, pg, off);
        if (rc != SQLITE_OK) return rc;
        unsigned int cipher_sum = journal_sample_sum(f->disk, pg);
        unsigned char stored[4];
        int has_checksum = f->real->pMethods->xRead(f->real, stored, 4, off + pg) == SQLITE_OK;
        int checksum_holds = has_checksum && f->journal_nonce_known
            && be32(stored) == f->journal_nonce + cipher_sum;
        if (!page_decrypt(f->codec, f->last_pgno, f->disk, buf)) {
            if (checksum_holds) {
                /* Whole and in place, yet not ours: another file's or key's journal. */
                f->codec->failed_in_journal = 1;
                return fail_page(f, f->last_pgno);
            }
            if (!f->journal_nonce_known) return fail_page(f, f->last_pgno);
            /* The torn end of the journal: SQLite's checksum over these zeros fails too. */
            memset(buf, 0, (size_t)pg);
        }
        f->journal_checksum_offset = off + pg;
        f->journal_checksum_delta = journal_sample_sum(buf, pg) - cipher_sum;
        return SQLITE_OK;
    }
    int rc = f->real->pMethods->xRead(f->real, buf, amt, off);
    if (rc != SQLITE_OK) return rc;
    if (amt == 8 && memcmp(buf, journal_magic, 8) == 0) {
        f->journal_header_offset = off;
        f->journal_nonce_known = 0;
    } else if (amt == 4 && f->journal_header_offset >= 0 && off == f->journal_header_offset + 12) {
        f->journal_nonce = be32(buf);
        f->journal_nonce_known = 1;
    }
    if (amt == 4 && journal_is_record_checksum(f, off)) {
        put_be32(buf, be32(buf) + f->journal_checksum_delta);
        f->journal_checksum_offset = -1;
    } else if (amt == 4) {
        f->last_pgno = be32(buf);
        f->last_pgno_offset = off;
    }
    return SQLITE_OK;
}

/* Checks a journal that exists when opened (a hot journal about to be rolled back) before
 * SQLite acts on it: SQLite first resizes the database to the size the journal records, so
 * a journal written for another file or key must be refused at open, not at its first
 * record, or the database would be changed before the error. The journal is another's when
 * its first record is whole (the checksum over the stored page holds) and its page does not
 * authenticate. Returns SQLITE_OK, or SQLITE_IOERR_DATA with the codec told why. */
static int journal_check_at_open(CipherFile *f) {
    sqlite3_int64 size = 0;
    if (f->real->pMethods->xFileSize(f->real, &size) != SQLITE_OK || size < 28) return SQLITE_OK;
    unsigned char header[28];
    if (f->real->pMethods->xRead(f->real, header, 28, 0) != SQLITE_OK) return SQLITE_OK;
    if (memcmp(header, journal_magic, 8) != 0) return SQLITE_OK; /* not hot, or zeroed */
    unsigned int nonce = be32(header + 12), sector = be32(header + 20), page_size = be32(header + 24);
    int pg = f->codec->f.page_size;
    if (page_size != (unsigned int)pg || sector < 28 || sector > 65536) return SQLITE_OK; /* SQLite will judge it */
    if (size < (sqlite3_int64)sector + 8 + pg) return SQLITE_OK;
    unsigned char number[4], stored[4];
    if (f->real->pMethods->xRead(f->real, number, 4, sector) != SQLITE_OK
        || f->real->pMethods->xRead(f->real, f->disk, pg, sector + 4) != SQLITE_OK
        || f->real->pMethods->xRead(f->real, stored, 4, sector + 4 + pg) != SQLITE_OK) return SQLITE_OK;
    unsigned int pgno = be32(number);
    if (pgno == 0 || be32(stored) != nonce + journal_sample_sum(f->disk, pg)) return SQLITE_OK; /* torn: SQLite stops there */
    if (page_decrypt(f->codec, pgno, f->disk, f->plain)) return SQLITE_OK;
    f->codec->failed_in_journal = 1;
    f->codec->failed_page = (int)pgno;
    return SQLITE_IOERR_DATA;
}

static int journal_write(CipherFile *f, const unsigned char *buf, int amt, sqlite3_int64 off) {
    int pg = f->codec->f.page_size;
    if (amt == pg && off == f->last_pgno_offset + 4 && f->last_pgno > 0) {
        if (!page_encrypt(f->codec, f->last_pgno, buf, f->disk)) return SQLITE_IOERR_WRITE;
        f->journal_checksum_offset = off + pg;
        f->journal_checksum_delta = journal_sample_sum(f->disk, pg) - journal_sample_sum(buf, pg);
        return f->real->pMethods->xWrite(f->real, f->disk, pg, off);
    }
    if (amt == 4 && journal_is_record_checksum(f, off)) {
        unsigned char stored[4];
        put_be32(stored, be32(buf) + f->journal_checksum_delta);
        f->journal_checksum_offset = -1;
        return f->real->pMethods->xWrite(f->real, stored, 4, off);
    }
    if (amt == 4) {
        f->last_pgno = be32(buf);
        f->last_pgno_offset = off;
    }
    return f->real->pMethods->xWrite(f->real, buf, amt, off);
}

/* ---- WAL frames ----------------------------------------------------------------------
 * A WAL is a 32-byte header and frames: a 24-byte frame header (page number, database size
 * after a commit, the WAL's two salts, two checksum words) and the page. The checksum is a
 * chain: each frame's continues the previous frame's, from the WAL header's own, over the
 * frame header's first 8 bytes and the page. SQLCipher computes it over the page as stored
 * (ciphertext); SQLite, under this VFS, over the page it sees (plaintext). The file keeps
 * SQLCipher's, so that a WAL either one left behind can be recovered by the other: on the
 * way out each frame's checksum is recomputed over its ciphertext, and on the way in
 * (recovery reads whole frames) SQLite is handed the plaintext chain it expects, for the
 * frames whose stored chain holds. */

#define DC_FRAME_CHECKSUM 16 /* offset of the checksum words in a frame header */

static unsigned int le32(const unsigned char *p) {
    return ((unsigned int)p[3] << 24) | ((unsigned int)p[2] << 16) | ((unsigned int)p[1] << 8) | p[0];
}

static void put_be32(unsigned char *p, unsigned int v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* SQLite's WAL checksum, continued over `n` bytes (a multiple of 8): words are read in the
 * byte order the WAL header's magic number names. */
static void wal_checksum(int big_endian, const unsigned char *data, int n, unsigned int sum[2]) {
    unsigned int s1 = sum[0], s2 = sum[1];
    for (int i = 0; i < n; i += 8) {
        s1 += (big_endian ? be32(data + i) : le32(data + i)) + s2;
        s2 += (big_endian ? be32(data + i + 4) : le32(data + i + 4)) + s1;
    }
    sum[0] = s1;
    sum[1] = s2;
}

/* The checksum over a frame's header words and page, continued from `sum`. */
static void wal_frame_checksum(CipherFile *f, int big_endian, const unsigned char *header,
                               const unsigned char *page, unsigned int sum[2]) {
    wal_checksum(big_endian, header, 8, sum);
    wal_checksum(big_endian, page, f->codec->f.page_size, sum);
}

static sqlite3_int64 wal_frame_size(CipherFile *f) {
    return f->codec->f.page_size + DC_WAL_FRAME_HEADER;
}

/* Which part of a frame `off` falls in: 0 at a frame header, DC_WAL_FRAME_HEADER at its
 * page; -1 in the WAL header. */
static int wal_frame_part(CipherFile *f, sqlite3_int64 off) {
    if (off < DC_WAL_HEADER) return -1;
    return (int)((off - DC_WAL_HEADER) % wal_frame_size(f));
}

/* The byte order of the WAL's checksums, and the checksum stored for the frame before the
 * one at `off` (the WAL header's for the first frame): where the stored chain goes on. */
static int wal_stored_chain_before(CipherFile *f, sqlite3_int64 off, int *big_endian, unsigned int sum[2]) {
    unsigned char header[DC_WAL_HEADER];
    int rc = f->real->pMethods->xRead(f->real, header, DC_WAL_HEADER, 0);
    if (rc != SQLITE_OK) return rc;
    *big_endian = (int)(be32(header) & 1);
    const unsigned char *stored = header + 24;
    unsigned char previous[8];
    if (off > DC_WAL_HEADER) {
        rc = f->real->pMethods->xRead(f->real, previous, 8, off - wal_frame_size(f) + DC_FRAME_CHECKSUM);
        if (rc != SQLITE_OK) return rc;
        stored = previous;
    }
    sum[0] = be32(stored);
    sum[1] = be32(stored + 4);
    return SQLITE_OK;
}

/* Stores in `header` the checksum the frame at `off` gets over `ciphertext`. */
static int wal_seal(CipherFile *f, sqlite3_int64 off, unsigned char *header, const unsigned char *ciphertext) {
    int big_endian;
    unsigned int sum[2];
    int rc = wal_stored_chain_before(f, off, &big_endian, sum);
    if (rc != SQLITE_OK) return rc;
    wal_frame_checksum(f, big_endian, header, ciphertext, sum);
    put_be32(header + DC_FRAME_CHECKSUM, sum[0]);
    put_be32(header + DC_FRAME_CHECKSUM + 4, sum[1]);
    return SQLITE_OK;
}

/* Writes the frame header at `off` for the page already stored after it, sealed over that
 * page's ciphertext. */
static int wal_write_header_for_stored_page(CipherFile *f, const unsigned char *header, sqlite3_int64 off) {
    int pg = f->codec->f.page_size;
    memcpy(f->frame, header, DC_WAL_FRAME_HEADER);
    int rc = f->real->pMethods->xRead(f->real, f->frame + DC_WAL_FRAME_HEADER, pg, off + DC_WAL_FRAME_HEADER);
    if (rc == SQLITE_IOERR_SHORT_READ) {
        /* No page there yet: the header goes as given, and the page's write seals it. */
        return f->real->pMethods->xWrite(f->real, header, DC_WAL_FRAME_HEADER, off);
    }
    if (rc != SQLITE_OK) return rc;
    rc = wal_seal(f, off, f->frame, f->frame + DC_WAL_FRAME_HEADER);
    if (rc != SQLITE_OK) return rc;
    return f->real->pMethods->xWrite(f->real, f->frame, DC_WAL_FRAME_HEADER, off);
}

/* Writes a frame header held back for its page, when something else comes first. */
static int wal_flush_held_header(CipherFile *f) {
    if (f->held_header_offset < 0) return SQLITE_OK;
    sqlite3_int64 off = f->held_header_offset;
    f->held_header_offset = -1;
    unsigned char header[DC_WAL_FRAME_HEADER];
    memcpy(header, f->frame, DC_WAL_FRAME_HEADER);
    return wal_write_header_for_stored_page(f, header, off);
}

/* The plaintext chain SQLite expects after the frame at `off`, by reading every frame
 * before it from the start: only when reads are not in order. Returns 0 when a frame on
 * the way does not hold (then no frame from there on is valid). */
static int wal_plain_chain_through(CipherFile *f, sqlite3_int64 off, int big_endian, unsigned int sum[2]) {
    int pg = f->codec->f.page_size;
    unsigned char header[DC_WAL_HEADER];
    if (f->real->pMethods->xRead(f->real, header, DC_WAL_HEADER, 0) != SQLITE_OK) return 0;
    sum[0] = be32(header + 24);
    sum[1] = be32(header + 28);
    unsigned char *frame = malloc((size_t)wal_frame_size(f));
    unsigned char *plain = malloc((size_t)pg);
    int ok = frame && plain;
    for (sqlite3_int64 at = DC_WAL_HEADER; ok && at <= off; at += wal_frame_size(f)) {
        wal_chain_walk_frames++;
        ok = f->real->pMethods->xRead(f->real, frame, (int)wal_frame_size(f), at) == SQLITE_OK;
        if (!ok) break;
        unsigned int stored[2];
        int stored_big;
        ok = wal_stored_chain_before(f, at, &stored_big, stored) == SQLITE_OK;
        if (!ok) break;
        wal_frame_checksum(f, big_endian, frame, frame + DC_WAL_FRAME_HEADER, stored);
        ok = stored[0] == be32(frame + DC_FRAME_CHECKSUM) && stored[1] == be32(frame + DC_FRAME_CHECKSUM + 4)
            && page_decrypt(f->codec, be32(frame), frame + DC_WAL_FRAME_HEADER, plain);
        if (ok) wal_frame_checksum(f, big_endian, frame, plain, sum);
    }
    free(frame);
    free(plain);
    return ok;
}

/* A whole frame, as recovery reads it: decrypted, with the checksum SQLite will accept when
 * (and only when) the stored chain holds there and the page authenticates. */
static int wal_read_frame(CipherFile *f, unsigned char *buf, int amt, sqlite3_int64 off) {
    int rc = f->real->pMethods->xRead(f->real, buf, amt, off);
    if (rc != SQLITE_OK) return rc;
    int big_endian;
    unsigned int stored[2];
    rc = wal_stored_chain_before(f, off, &big_endian, stored);
    if (rc != SQLITE_OK) return rc;
    unsigned char *header = buf, *page = buf + DC_WAL_FRAME_HEADER;
    wal_frame_checksum(f, big_endian, header, page, stored);
    unsigned int pgno = be32(header);
    int valid = pgno != 0 && stored[0] == be32(header + DC_FRAME_CHECKSUM)
        && stored[1] == be32(header + DC_FRAME_CHECKSUM + 4);
    memcpy(f->disk, page, (size_t)f->codec->f.page_size);
    if (!(pgno != 0 && page_decrypt(f->codec, pgno, f->disk, page))) {
        memset(page, 0, (size_t)f->codec->f.page_size);
        valid = 0;
    }
    unsigned int plain[2];
    if (off == DC_WAL_HEADER) {
        unsigned char seed[8];
        rc = f->real->pMethods->xRead(f->real, seed, 8, 24);
        if (rc != SQLITE_OK) return rc;
        plain[0] = be32(seed);
        plain[1] = be32(seed + 4);
    } else if (f->chain_offset == off - wal_frame_size(f)) {
        plain[0] = f->chain_sum[0];
        plain[1] = f->chain_sum[1];
        valid = valid && f->chain_valid;
    } else if (!wal_plain_chain_through(f, off - wal_frame_size(f), big_endian, plain)) {
        valid = 0;
    }
    wal_frame_checksum(f, big_endian, header, page, plain);
    /* The chain goes on through an invalid frame too, remembered as broken: reads in order
     * (recovery, and SQLite rewriting the checksums of a spilled transaction's frames, which
     * are stale until it has) then cost one frame each, never a walk from the WAL's start. */
    f->chain_offset = off;
    f->chain_valid = valid;
    f->chain_sum[0] = plain[0];
    f->chain_sum[1] = plain[1];
    /* An invalid frame gets a checksum one bit off the one SQLite computes: the log ends. */
    put_be32(header + DC_FRAME_CHECKSUM, plain[0] ^ (valid ? 0 : 1));
    put_be32(header + DC_FRAME_CHECKSUM + 4, plain[1]);
    f->read_frame_offset = off;
    return SQLITE_OK;
}

static int wal_read(CipherFile *f, unsigned char *buf, int amt, sqlite3_int64 off) {
    int rc = wal_flush_held_header(f);
    if (rc != SQLITE_OK) return rc;
    f->read_frame_offset = -1;
    int pg = f->codec->f.page_size;
    int part = wal_frame_part(f, off);
    if (amt == pg && part == DC_WAL_FRAME_HEADER) {
        unsigned char head[4];
        rc = f->real->pMethods->xRead(f->real, head, 4, off - DC_WAL_FRAME_HEADER);
        if (rc != SQLITE_OK) return rc;
        rc = f->real->pMethods->xRead(f->real, f->disk, pg, off);
        if (rc != SQLITE_OK) return rc;
        unsigned int pgno = be32(head);
        if (pgno == 0 || !page_decrypt(f->codec, pgno, f->disk, buf)) return fail_page(f, pgno);
        return SQLITE_OK;
    }
    if (amt == pg + DC_WAL_FRAME_HEADER && part == 0) return wal_read_frame(f, buf, amt, off);
    return f->real->pMethods->xRead(f->real, buf, amt, off);
}

static int wal_write(CipherFile *f, const unsigned char *buf, int amt, sqlite3_int64 off) {
    int pg = f->codec->f.page_size;
    int part = wal_frame_part(f, off);
    int just_read_this_frame = f->read_frame_offset == off;
    f->read_frame_offset = -1;
    if (amt == pg && part == DC_WAL_FRAME_HEADER && f->held_header_offset == off - DC_WAL_FRAME_HEADER) {
        /* A new frame: its header came just before; both go out sealed, in one write. */
        sqlite3_int64 at = f->held_header_offset;
        f->held_header_offset = -1;
        unsigned char *header = f->frame, *page = f->frame + DC_WAL_FRAME_HEADER;
        unsigned int pgno = be32(header);
        if (pgno == 0 || !page_encrypt(f->codec, pgno, buf, page)) return SQLITE_IOERR_WRITE;
        int rc = wal_seal(f, at, header, page);
        if (rc != SQLITE_OK) return rc;
        return f->real->pMethods->xWrite(f->real, f->frame, (int)wal_frame_size(f), at);
    }
    int rc = wal_flush_held_header(f);
    if (rc != SQLITE_OK) return rc;
    if (amt == DC_WAL_FRAME_HEADER && part == 0) {
        if (just_read_this_frame) {
            /* SQLite rewriting the checksums of frames already written: the page is stored. */
            return wal_write_header_for_stored_page(f, buf, off);
        }
        memcpy(f->frame, buf, DC_WAL_FRAME_HEADER);
        f->held_header_offset = off;
        return SQLITE_OK;
    }
    if (amt == pg && part == DC_WAL_FRAME_HEADER) {
        /* A page written again in place, its header already stored: reseal that header. */
        sqlite3_int64 at = off - DC_WAL_FRAME_HEADER;
        rc = f->real->pMethods->xRead(f->real, f->frame, DC_WAL_FRAME_HEADER, at);
        if (rc != SQLITE_OK) return rc;
        unsigned int pgno = be32(f->frame);
        unsigned char *page = f->frame + DC_WAL_FRAME_HEADER;
        if (pgno == 0 || !page_encrypt(f->codec, pgno, buf, page)) return SQLITE_IOERR_WRITE;
        rc = wal_seal(f, at, f->frame, page);
        if (rc != SQLITE_OK) return rc;
        return f->real->pMethods->xWrite(f->real, f->frame, (int)wal_frame_size(f), at);
    }
    /* Anything else touching a page would store plaintext: never seen, refused. */
    if (part >= DC_WAL_FRAME_HEADER || (part >= 0 && part + amt > DC_WAL_FRAME_HEADER)) return SQLITE_IOERR_WRITE;
    return f->real->pMethods->xWrite(f->real, buf, amt, off);
}

static int c_close(sqlite3_file *file) {
    CipherFile *f = (CipherFile *)file;
    int flush_rc = f->kind == KIND_WAL && f->frame ? wal_flush_held_header(f) : SQLITE_OK;
    int rc = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    if (rc == SQLITE_OK) rc = flush_rc;
    if (f->kind == KIND_MAIN) codec_free(f->codec);
    f->codec = NULL;
    if (f->disk) OPENSSL_cleanse(f->disk, (size_t)f->page_size);
    if (f->plain) OPENSSL_cleanse(f->plain, (size_t)f->page_size);
    free(f->disk);
    free(f->plain);
    free(f->frame);
    f->disk = f->plain = f->frame = NULL;
    return rc;
}

static int c_read(sqlite3_file *file, void *buf, int amt, sqlite3_int64 off) {
    CipherFile *f = (CipherFile *)file;
    switch (f->kind) {
    case KIND_MAIN: return main_read(f, buf, amt, off);
    case KIND_JOURNAL: return journal_read(f, buf, amt, off);
    case KIND_WAL: return wal_read(f, buf, amt, off);
    default: return f->real->pMethods->xRead(f->real, buf, amt, off);
    }
}

static int c_write(sqlite3_file *file, const void *buf, int amt, sqlite3_int64 off) {
    CipherFile *f = (CipherFile *)file;
    switch (f->kind) {
    case KIND_MAIN: return main_write(f, buf, amt, off);
    case KIND_JOURNAL: return journal_write(f, buf, amt, off);
    case KIND_WAL: return wal_write(f, buf, amt, off);
    default: return f->real->pMethods->xWrite(f->real, buf, amt, off);
    }
}

#define REAL(file) (((CipherFile *)(file))->real)

/* A WAL frame header held back for its page must be out before the file is cut or synced. */
static int flush_before(sqlite3_file *file) {
    CipherFile *f = (CipherFile *)file;
    if (f->kind != KIND_WAL) return SQLITE_OK;
    f->read_frame_offset = -1;
    return wal_flush_held_header(f);
}

static int c_truncate(sqlite3_file *file, sqlite3_int64 size) {
    int rc = flush_before(file);
    return rc != SQLITE_OK ? rc : REAL(file)->pMethods->xTruncate(REAL(file), size);
}
static int c_sync(sqlite3_file *file, int flags) {
    int rc = flush_before(file);
    return rc != SQLITE_OK ? rc : REAL(file)->pMethods->xSync(REAL(file), flags);
}
static int c_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    int rc = flush_before(file);
    return rc != SQLITE_OK ? rc : REAL(file)->pMethods->xFileSize(REAL(file), size);
}
static int c_lock(sqlite3_file *file, int lock) { return REAL(file)->pMethods->xLock(REAL(file), lock); }
static int c_unlock(sqlite3_file *file, int lock) { return REAL(file)->pMethods->xUnlock(REAL(file), lock); }
static int c_check_reserved(sqlite3_file *file, int *out) { return REAL(file)->pMethods->xCheckReservedLock(REAL(file), out); }
static int c_sector_size(sqlite3_file *file) { return REAL(file)->pMethods->xSectorSize(REAL(file)); }

static int c_file_control(sqlite3_file *file, int op, void *arg) {
    CipherFile *f = (CipherFile *)file;
    if (op == DC_CIPHER_FCNTL_FAILED_PAGE) {
        if (!f->codec) return SQLITE_NOTFOUND;
        *(int *)arg = f->codec->failed_page;
        f->codec->failed_page = 0;
        return SQLITE_OK;
    }
    if (op == DC_CIPHER_FCNTL_FAILED_IN_JOURNAL) {
        if (!f->codec) return SQLITE_NOTFOUND;
        *(int *)arg = f->codec->failed_in_journal;
        f->codec->failed_in_journal = 0;
        return SQLITE_OK;
    }
    if (op == SQLITE_FCNTL_MMAP_SIZE) {
        /* Pages must pass through xRead to be decrypted: no memory mapping. */
        if (arg) *(sqlite3_int64 *)arg = 0;
        return SQLITE_OK;
    }
    return f->real->pMethods->xFileControl(f->real, op, arg);
}

static int c_device_characteristics(sqlite3_file *file) {
    int caps = REAL(file)->pMethods->xDeviceCharacteristics(REAL(file));
    /* Whole-page ciphertext: no sub-page atomicity promises. */
    return caps & ~(SQLITE_IOCAP_BATCH_ATOMIC | SQLITE_IOCAP_ATOMIC512 | SQLITE_IOCAP_ATOMIC1K |
                    SQLITE_IOCAP_ATOMIC2K | SQLITE_IOCAP_ATOMIC4K | SQLITE_IOCAP_ATOMIC8K |
                    SQLITE_IOCAP_ATOMIC16K | SQLITE_IOCAP_ATOMIC32K | SQLITE_IOCAP_ATOMIC64K |
                    SQLITE_IOCAP_ATOMIC);
}

static int c_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **pp) {
    return REAL(file)->pMethods->xShmMap(REAL(file), region, size, extend, pp);
}
static int c_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    return REAL(file)->pMethods->xShmLock(REAL(file), offset, n, flags);
}
static void c_shm_barrier(sqlite3_file *file) { REAL(file)->pMethods->xShmBarrier(REAL(file)); }
static int c_shm_unmap(sqlite3_file *file, int del) { return REAL(file)->pMethods->xShmUnmap(REAL(file), del); }

/* Version 2: shared memory for WAL, but no xFetch, so SQLite never maps ciphertext. */
static const sqlite3_io_methods cipher_methods = {
    2, c_close, c_read, c_write, c_truncate, c_sync, c_file_size, c_lock, c_unlock,
    c_check_reserved, c_file_control, c_sector_size, c_device_characteristics,
    c_shm_map, c_shm_lock, c_shm_barrier, c_shm_unmap, NULL, NULL,
};

static int c_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    CipherFile *f = (CipherFile *)file;
    memset(f, 0, sizeof *f);
    f->real = (sqlite3_file *)((unsigned char *)file + DC_FILE_SIZE);
    Codec *codec = NULL;
    int kind = KIND_PLAIN;

    if (flags & SQLITE_OPEN_MAIN_DB) {
        const PendingKey *key = pending_key;
        if (!key) return SQLITE_CANTOPEN; /* opened by name without a key: refuse */
        codec = calloc(1, sizeof *codec);
        if (!codec) return SQLITE_NOMEM;
        codec->f = *key->format;
        codec->is_raw = key->is_raw;
        codec->secret_len = key->secret_len;
        codec->secret = malloc((size_t)key->secret_len);
        if (!codec->secret) { free(codec); return SQLITE_NOMEM; }
        memcpy(codec->secret, key->secret, (size_t)key->secret_len);
        kind = KIND_MAIN;
    } else if (flags & (SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL)) {
        sqlite3_file *main_file = sqlite3_database_file_object(name);
        if (!main_file || main_file->pMethods != &cipher_methods) return SQLITE_CANTOPEN;
        codec = ((CipherFile *)main_file)->codec;
        kind = (flags & SQLITE_OPEN_WAL) ? KIND_WAL : KIND_JOURNAL;
    }

    int rc = root_vfs->xOpen(root_vfs, name, f->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        if (kind == KIND_MAIN) codec_free(codec);
        return rc;
    }
    f->kind = kind;
    f->codec = codec;
    f->last_pgno_offset = -8;
    f->journal_header_offset = -1;
    f->journal_checksum_offset = -1;
    f->held_header_offset = -1;
    f->read_frame_offset = -1;
    f->chain_offset = -1;
    f->base.pMethods = &cipher_methods;
    if (kind == KIND_PLAIN) return SQLITE_OK;

    f->page_size = codec->f.page_size;
    f->disk = malloc((size_t)f->page_size);
    f->plain = malloc((size_t)f->page_size);
    if (kind == KIND_WAL) f->frame = malloc((size_t)f->page_size + DC_WAL_FRAME_HEADER);
    if (!f->disk || !f->plain || (kind == KIND_WAL && !f->frame)) { c_close(file); f->base.pMethods = NULL; return SQLITE_NOMEM; }

    if (kind == KIND_MAIN) {
        /* An existing file's salt decides the keys now; a new file gets one on first write. */
        sqlite3_int64 size = 0;
        rc = f->real->pMethods->xFileSize(f->real, &size);
        if (rc == SQLITE_OK && size >= DC_SALT_LEN) {
            if (codec->f.has_salt) {
                memcpy(codec->salt, codec->f.salt, DC_SALT_LEN);
            } else if (codec->f.plaintext_header) {
                rc = SQLITE_NOTADB; /* its salt is not in the file, and none was given */
                codec->failed_page = 1;
            } else {
                rc = f->real->pMethods->xRead(f->real, codec->salt, DC_SALT_LEN, 0);
            }
            if (rc == SQLITE_OK) {
                codec->salt_from_file = 1;
                if (!codec_derive(codec)) rc = SQLITE_NOMEM;
            }
        }
        if (rc != SQLITE_OK) { c_close(file); f->base.pMethods = NULL; return rc; }
    }
    if (kind == KIND_JOURNAL && f->codec->keys_ready) {
        rc = journal_check_at_open(f);
        if (rc != SQLITE_OK) { c_close(file); f->base.pMethods = NULL; return rc; }
    }
    return SQLITE_OK;
}

static int v_delete(sqlite3_vfs *v, const char *name, int sync) { (void)v; return root_vfs->xDelete(root_vfs, name, sync); }
static int v_access(sqlite3_vfs *v, const char *name, int flags, int *out) { (void)v; return root_vfs->xAccess(root_vfs, name, flags, out); }
static int v_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out) { (void)v; return root_vfs->xFullPathname(root_vfs, name, n, out); }
static void *v_dl_open(sqlite3_vfs *v, const char *name) { (void)v; return root_vfs->xDlOpen(root_vfs, name); }
static void v_dl_error(sqlite3_vfs *v, int n, char *out) { (void)v; root_vfs->xDlError(root_vfs, n, out); }
static void (*v_dl_sym(sqlite3_vfs *v, void *h, const char *sym))(void) { (void)v; return root_vfs->xDlSym(root_vfs, h, sym); }
static void v_dl_close(sqlite3_vfs *v, void *h) { (void)v; root_vfs->xDlClose(root_vfs, h); }
static int v_randomness(sqlite3_vfs *v, int n, char *out) { (void)v; return root_vfs->xRandomness(root_vfs, n, out); }
static int v_sleep(sqlite3_vfs *v, int us) { (void)v; return root_vfs->xSleep(root_vfs, us); }
static int v_current_time(sqlite3_vfs *v, double *out) { (void)v; return root_vfs->xCurrentTime(root_vfs, out); }
static int v_last_error(sqlite3_vfs *v, int n, char *out) { (void)v; return root_vfs->xGetLastError(root_vfs, n, out); }
static int v_current_time64(sqlite3_vfs *v, sqlite3_int64 *out) { (void)v; return root_vfs->xCurrentTimeInt64(root_vfs, out); }

static pthread_once_t register_once = PTHREAD_ONCE_INIT;
static int register_rc = SQLITE_ERROR;

static void register_vfs(void) {
    if (sqlite3_initialize() != SQLITE_OK) return;
    root_vfs = sqlite3_vfs_find(NULL);
    if (!root_vfs || root_vfs->iVersion < 2) return;
    cipher_vfs = (sqlite3_vfs){
        2, (int)(DC_FILE_SIZE + (size_t)root_vfs->szOsFile), root_vfs->mxPathname, NULL,
        DC_VFS_NAME, NULL, c_open, v_delete, v_access, v_full_pathname, v_dl_open, v_dl_error,
        v_dl_sym, v_dl_close, v_randomness, v_sleep, v_current_time, v_last_error,
        v_current_time64, NULL, NULL, NULL,
    };
    register_rc = sqlite3_vfs_register(&cipher_vfs, 0);
}

int dc_cipher_open(const char *filename, sqlite3 **db, int flags,
                   const void *secret, int secret_len, int is_raw_key, const dc_cipher_settings *settings) {
    *db = NULL;
    Format f;
    if (!format_for(settings, &f) || !secret || secret_len <= 0) return SQLITE_MISUSE;
    if (is_raw_key && secret_len != DC_KEY_LEN) return SQLITE_MISUSE;
    pthread_once(&register_once, register_vfs);
    if (register_rc != SQLITE_OK) return register_rc;

    PendingKey key = {&f, secret, secret_len, is_raw_key ? 1 : 0};
    pending_key = &key;
    int rc = sqlite3_open_v2(filename, db, flags, DC_VFS_NAME);
    pending_key = NULL;
    if (rc != SQLITE_OK) return rc;

    /* A URI's own vfs= parameter would open the file without this VFS, in plaintext. */
    sqlite3_file *main_file = NULL;
    if (sqlite3_file_control(*db, "main", SQLITE_FCNTL_FILE_POINTER, &main_file) != SQLITE_OK ||
        !main_file || main_file->pMethods != &cipher_methods) return SQLITE_MISUSE;

    /* A new file takes the format's page size and reserve; an existing one keeps its own
     * (read from its header), which must match for its pages to decrypt at all. Temporary
     * files and statement journals stay in memory: they would hold plaintext pages. */
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA page_size=%d; PRAGMA temp_store=MEMORY;", f.page_size);
    rc = sqlite3_exec(*db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) return rc;
    int reserve = f.reserve;
    sqlite3_file_control(*db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve);
    return SQLITE_OK;
}

int dc_cipher_failed_page(sqlite3 *db) {
    int page = 0;
    if (!db || sqlite3_file_control(db, "main", DC_CIPHER_FCNTL_FAILED_PAGE, &page) != SQLITE_OK) return 0;
    return page;
}

int dc_cipher_failed_in_journal(sqlite3 *db) {
    int in_journal = 0;
    if (!db || sqlite3_file_control(db, "main", DC_CIPHER_FCNTL_FAILED_IN_JOURNAL, &in_journal) != SQLITE_OK) return 0;
    return in_journal;
}

long dc_cipher_wal_chain_walk_frames(void) {
    return wal_chain_walk_frames;
}

int dc_cipher_kdf_count(void) {
    return kdf_count;
}

/* ---- Attaching an encrypted file to a connection ------------------------------------- */

/* Percent-encodes `path` for a file: URI (RFC 3986 unreserved characters and '/' stay). */
static char *uri_for_path(const char *path) {
    static const char hex[] = "0123456789ABCDEF";
    size_t len = strlen(path);
    char *uri = malloc(len * 3 + 64);
    if (!uri) return NULL;
    char *out = uri;
    memcpy(out, "file:", 5);
    out += 5;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '/' || c == '.' || c == '_' || c == '-' || c == '~') {
            *out++ = (char)c;
        } else {
            *out++ = '%';
            *out++ = hex[c >> 4];
            *out++ = hex[c & 15];
        }
    }
    strcpy(out, "?vfs=" DC_VFS_NAME);
    return uri;
}

int dc_cipher_attach(sqlite3 *db, const char *filename, const char *schema,
                     const void *secret, int secret_len, int is_raw_key, const dc_cipher_settings *settings) {
    Format f;
    if (!db || !filename || !schema || !format_for(settings, &f) || !secret || secret_len <= 0) return SQLITE_MISUSE;
    if (is_raw_key && secret_len != DC_KEY_LEN) return SQLITE_MISUSE;
    /* The schema name is put in SQL text: letters, digits and '_' only. */
    if (!*schema || strlen(schema) > 64) return SQLITE_MISUSE;
    for (const char *p = schema; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return SQLITE_MISUSE;
    }
    pthread_once(&register_once, register_vfs);
    if (register_rc != SQLITE_OK) return register_rc;

    char *uri = uri_for_path(filename);
    if (!uri) return SQLITE_NOMEM;
    char sql[160];
    snprintf(sql, sizeof sql, "ATTACH ?1 AS \"%s\"", schema);
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_bind_text(stmt, 1, uri, -1, SQLITE_TRANSIENT);
    if (rc == SQLITE_OK) {
        PendingKey key = {&f, secret, secret_len, is_raw_key ? 1 : 0};
        pending_key = &key;
        rc = sqlite3_step(stmt);
        pending_key = NULL;
        if (rc == SQLITE_DONE) rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    free(uri);
    if (rc != SQLITE_OK) return rc;

    /* The attached file must have gone through this VFS, keyed. */
    sqlite3_file *file = NULL;
    if (sqlite3_file_control(db, schema, SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
        !file || file->pMethods != &cipher_methods) {
        snprintf(sql, sizeof sql, "DETACH \"%s\"", schema);
        sqlite3_exec(db, sql, NULL, NULL, NULL);
        return SQLITE_MISUSE;
    }
    /* As for a main database: a new file takes the format's page size and reserve, and
     * temporary files stay in memory. */
    snprintf(sql, sizeof sql, "PRAGMA \"%s\".page_size=%d; PRAGMA temp_store=MEMORY;", schema, f.page_size);
    rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) return rc;
    int reserve = f.reserve;
    sqlite3_file_control(db, schema, SQLITE_FCNTL_RESERVE_BYTES, &reserve);
    return SQLITE_OK;
}

int dc_no_checkpoint_on_close(sqlite3 *db) {
    /* sqlite3_db_config is variadic, which Swift cannot call. */
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
}

int dc_cipher_detect(const char *filename, const void *secret, int secret_len, int is_raw_key,
                     const dc_cipher_settings *candidates, int count) {
    if (!filename || !secret || secret_len <= 0 || !candidates || count < 0) return -2;
    if (is_raw_key && secret_len != DC_KEY_LEN) return -2;
    FILE *file = fopen(filename, "rb");
    if (!file) return -2;
    unsigned char *head = malloc(65536);
    unsigned char *scratch = malloc(65536);
    unsigned char *plain = malloc(65536);
    size_t have = head ? fread(head, 1, 65536, file) : 0;
    fclose(file);
    int found = -1;
    Codec *c = calloc(1, sizeof *c);
    if (c && head && scratch && plain) {
        c->secret = malloc((size_t)secret_len);
        if (c->secret) {
            memcpy(c->secret, secret, (size_t)secret_len);
            c->secret_len = secret_len;
            c->is_raw = is_raw_key ? 1 : 0;
            for (int i = 0; i < count && found < 0; i++) {
                Format f;
                if (!format_for(&candidates[i], &f) || have < (size_t)f.page_size) continue;
                if (f.plaintext_header && !f.has_salt) continue; /* no salt to derive with */
                c->f = f;
                c->keys_ready = 0;
                c->salt_from_file = 0;
                memcpy(c->salt, f.has_salt ? f.salt : head, DC_SALT_LEN);
                if (f.has_salt || f.plaintext_header) c->salt_from_file = 1;
                if (!codec_derive(c)) continue;
                memcpy(scratch, head, (size_t)f.page_size);
                if (page_decrypt(c, 1, scratch, plain)) found = i;
            }
            OPENSSL_cleanse(plain, 65536);
        }
    }
    codec_free(c);
    free(head);
    free(scratch);
    free(plain);
    return found;
}
