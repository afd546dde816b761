#ifndef DATACENTER_CIPHER_INTERNAL_H
#define DATACENTER_CIPHER_INTERNAL_H
/*
 * What the cipher VFS's files share: the settings as the codec holds them, the codec (keys
 * and page transforms, one per open main database), and the VFS's file. One concern a file:
 * Settings.c, KeyDerivation.c, Codec.c (keys and pages), Schemes.c (SQLite3 Multiple Ciphers'
 * own schemes' keys and pages), Journal.c (rollback journal records), WAL.c (WAL frames and
 * their checksums), PageCipher.c (the VFS shim and the API).
 */
#include "CPageCipher.h"

#include <openssl/evp.h>
#include <stddef.h>

#define DC_VFS_NAME "datacenter-cipher"
#define DC_SALT_LEN 16
#define DC_KEY_LEN 32
#define DC_IV_LEN 16
#define DC_MAX_HMAC 64
#define DC_WAL_HEADER 32
#define DC_WAL_FRAME_HEADER 24
#define DC_KEY_CACHE_SIZE 32

/* ---- Settings (Settings.c) ------------------------------------------------------------ */

typedef struct Format {
    int page_size, reserve, hmac_len, kdf_iter, use_hmac, hmac_pgno, salt_mask, plaintext_header;
    int kdf_algorithm, hmac_algorithm;
    const EVP_MD *(*kdf_digest)(void);
    const EVP_MD *(*hmac_digest)(void);
    int has_salt;
    unsigned char salt[DC_SALT_LEN];
    int scheme;  /* DC_SCHEME_* */
    int legacy;  /* SQLite3MC's chacha20 and AES schemes: page 1 wholly encrypted */
} Format;

/* Checks `in` and fills `out`; 0 when a setting is out of range (as SQLCipher refuses it). */
int cipher_format_for(const dc_cipher_settings *in, Format *out);

/* Whether page 1 keeps bytes 16-23 of SQLite's header (page size, versions, reserve,
 * payload fractions) in the clear, as SQLite3MC's non-legacy modes do. */
static inline int cipher_page1_keeps_fields(const Format *f) {
    return f->scheme == DC_SCHEME_MC_SQLCIPHER
        || ((f->scheme == DC_SCHEME_CHACHA20 || f->scheme == DC_SCHEME_AES128CBC || f->scheme == DC_SCHEME_AES256CBC) && !f->legacy);
}

/* Whether the keys are derived with a salt kept at the start of page 1 (or given). */
static inline int cipher_scheme_has_salt(const Format *f) {
    return f->scheme == DC_SCHEME_SQLCIPHER || f->scheme == DC_SCHEME_MC_SQLCIPHER || f->scheme == DC_SCHEME_CHACHA20;
}

/* Whether the keys need that salt: not chacha20's raw key behind a plaintext header, which is
 * the key itself (SQLite3MC keeps no salt in such a file, and derives nothing). */
static inline int cipher_needs_salt(const Format *f, int is_raw) {
    if (!cipher_scheme_has_salt(f)) return 0;
    return !(f->scheme == DC_SCHEME_CHACHA20 && is_raw && f->plaintext_header);
}

/* Where page 1's encrypted span starts in SQLCipher's page layout: after the salt (and
 * the clear fields, in SQLite3MC's non-legacy mode), or after the plaintext header. */
static inline int cipher_page1_start(const Format *f) {
    if (f->plaintext_header) return f->plaintext_header;
    return cipher_page1_keeps_fields(f) ? 24 : DC_SALT_LEN;
}

/* ---- The codec (Codec.c) --------------------------------------------------------------- */

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
    /* SQLite3MC's schemes (Schemes.c): a cipher context re-keyed per page, and Poly1305. */
    EVP_CIPHER_CTX *scheme_cipher[2]; /* [0] decrypts, [1] encrypts (and runs ChaCha20) */
    EVP_MAC_CTX *poly1305;
} Codec;

/* Derives (or finds in the per-process cache) the keys for the codec's salt. 1 on success. */
int cipher_codec_derive(Codec *c);
/* Frees a codec, wiping its keys and secret. */
void cipher_codec_free(Codec *c);
/* Verifies and decrypts one file page (`disk`, used as scratch) into `out`; 1 when authentic. */
int cipher_page_decrypt(Codec *c, unsigned int pgno, unsigned char *disk, unsigned char *out);
/* Encrypts SQLite's page `in` into the file page `out`; 1 on success. */
int cipher_page_encrypt(Codec *c, unsigned int pgno, const unsigned char *in, unsigned char *out);

/* ---- SQLite3 Multiple Ciphers' schemes (Schemes.c) ------------------------------------ */

/* Derives the key of a chacha20, aes128cbc, aes256cbc or rc4 codec into enc_key (chacha20
 * with the codec's salt). 1 on success; 0 also for a raw key where the scheme takes none. */
int cipher_scheme_derive(Codec *c, unsigned char key[DC_KEY_LEN]);
/* As cipher_page_decrypt and cipher_page_encrypt, for those schemes. */
int cipher_scheme_decrypt(Codec *c, unsigned int pgno, unsigned char *disk, unsigned char *out);
int cipher_scheme_encrypt(Codec *c, unsigned int pgno, const unsigned char *in, unsigned char *out);
/* AES-256-CBC with ciphertext stealing (CS2) in place over `len` bytes (> 16), for page 1 of
 * SQLite3MC's non-legacy sqlcipher, whose span after its 24 clear bytes is not whole blocks. */
int cipher_aes256_cbc_cts(Codec *c, int encrypt, const unsigned char *iv, const unsigned char *in, int len, unsigned char *out);
/* Whether page 1 as decrypted (`page`, `pg` bytes) reads as SQLite's header for the format:
 * its page size, reserve and payload fractions. */
int cipher_page1_plausible(const Format *f, const unsigned char *page);

/* ---- The VFS's files (PageCipher.c) ---------------------------------------------------- */

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

/* Big- and little-endian 32-bit words, as SQLite's headers and WAL checksums hold them. */
static inline unsigned int be32(const unsigned char *p) {
    return ((unsigned int)p[0] << 24) | ((unsigned int)p[1] << 16) | ((unsigned int)p[2] << 8) | p[3];
}

static inline unsigned int le32(const unsigned char *p) {
    return ((unsigned int)p[3] << 24) | ((unsigned int)p[2] << 16) | ((unsigned int)p[1] << 8) | p[0];
}

static inline void put_be32(unsigned char *p, unsigned int v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static inline int cipher_fail_page(CipherFile *f, unsigned int pgno) {
    f->codec->failed_page = (int)pgno;
    if (f->kind == KIND_MAIN && pgno == 1) return SQLITE_NOTADB;
    return SQLITE_IOERR_DATA;
}

/* ---- Rollback journals (Journal.c) ----------------------------------------------------- */

int cipher_journal_read(CipherFile *f, unsigned char *buf, int amt, sqlite3_int64 off);
int cipher_journal_write(CipherFile *f, const unsigned char *buf, int amt, sqlite3_int64 off);
/* Refuses, before SQLite acts on it, a hot journal written for another file or key. */
int cipher_journal_check_at_open(CipherFile *f);

/* ---- WAL files (WAL.c) ----------------------------------------------------------------- */

int cipher_wal_read(CipherFile *f, unsigned char *buf, int amt, sqlite3_int64 off);
int cipher_wal_write(CipherFile *f, const unsigned char *buf, int amt, sqlite3_int64 off);
/* Writes a frame header held back for its page, before anything else touches the file. */
int cipher_wal_flush_held_header(CipherFile *f);

#endif
