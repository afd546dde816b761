#ifndef DATACENTER_CPAGECIPHER_H
#define DATACENTER_CPAGECIPHER_H
/*
 * Page encryption in SQLCipher's file format, as a SQLite VFS over the default one.
 *
 * Every page of the main database, of its rollback journal and of its WAL is stored
 * AES-256-CBC encrypted with a fresh random IV and authenticated by an HMAC over
 * ciphertext || IV || page number (little-endian), in the page's reserved bytes. Page 1
 * starts with the 16-byte salt the keys are derived with. SQLite sees plaintext pages.
 */
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Digests for the KDF and the HMAC (cipher_kdf_algorithm, cipher_hmac_algorithm). */
#define DC_CIPHER_SHA1 1
#define DC_CIPHER_SHA256 2
#define DC_CIPHER_SHA512 3

/**
 * The page-encryption scheme (SQLite3 Multiple Ciphers' `cipher=` names but the first):
 * SQLCipher's own format (and SQLite3MC's `sqlcipher` in its legacy modes 1-4, which is it);
 * SQLite3MC's `sqlcipher` in its default, non-legacy mode (SQLCipher's pages, but page 1's
 * bytes 16-23 kept in the clear); `chacha20` (sqleet's ChaCha20 + Poly1305); `aes128cbc`
 * (wxSQLite3's AES-128); `aes256cbc` (wxSQLite3's AES-256); `rc4` (System.Data.SQLite's).
 */
#define DC_SCHEME_SQLCIPHER 0
#define DC_SCHEME_MC_SQLCIPHER 1
#define DC_SCHEME_CHACHA20 2
#define DC_SCHEME_AES128CBC 3
#define DC_SCHEME_AES256CBC 4
#define DC_SCHEME_RC4 5

/** The byte order of the page number in each page's HMAC (cipher_hmac_pgno). */
#define DC_CIPHER_PGNO_LE 0
#define DC_CIPHER_PGNO_BE 1
#define DC_CIPHER_PGNO_NATIVE 2

/**
 * A file's SQLCipher settings, one field per pragma an app may set: cipher_page_size
 * (512-65536, a power of 2), kdf_iter, cipher_kdf_algorithm, cipher_hmac_algorithm,
 * cipher_use_hmac, cipher_hmac_pgno, cipher_hmac_salt_mask, cipher_plaintext_header_size
 * (a multiple of 16; page 1's first bytes stay SQLite's own, in the clear) and cipher_salt
 * (`has_salt`: the 16-byte KDF salt given, not read from the file; needed with a plaintext
 * header, and given with a raw key as x'<key><salt>').
 * `scheme` (DC_SCHEME_*; 0, SQLCipher's format, when zeroed) and `legacy` (SQLite3MC's
 * chacha20, aes128cbc and aes256cbc: page 1 wholly encrypted, as their first versions wrote
 * it; otherwise its bytes 16-23 stay in the clear) choose the other schemes; for those, only
 * page_size and kdf_iter (chacha20's PBKDF2-SHA256) also apply, and a raw key only to
 * chacha20 (SQLite3MC derives the others' keys from the text it is given).
 */
typedef struct dc_cipher_settings {
    int page_size;
    int kdf_iter;
    int kdf_algorithm;
    int hmac_algorithm;
    int use_hmac;
    int hmac_pgno;
    int hmac_salt_mask;
    int plaintext_header_size;
    int has_salt;
    unsigned char salt[16];
    int scheme;
    int legacy;
} dc_cipher_settings;

/** Fills `out` with the defaults of SQLCipher `version` (1 to 4; cipher_compatibility). */
void dc_cipher_settings_for_version(int version, dc_cipher_settings *out);

/** The file-control opcode answering the last page that failed authentication (int *). */
#define DC_CIPHER_FCNTL_FAILED_PAGE 0x44430001

/**
 * Opens `filename` (as sqlite3_open_v2 does, `flags` included) through the cipher VFS,
 * keyed by `secret`: a passphrase (run through PBKDF2 with the file's salt) or, when
 * `is_raw_key` is non-zero, the 32-byte AES key itself, read and written with `settings`. A
 * new database gets the settings' page size and reserve. Derived keys are cached per
 * process, keyed by everything the derivation reads (secret, salt, KDF digest, iterations,
 * salt mask), so a second open of the same file does not pay the KDF again.
 * Returns an SQLite result code (SQLITE_MISUSE for settings out of range); `*db` is set as
 * sqlite3_open_v2 sets it.
 */
int dc_cipher_open(const char *filename, sqlite3 **db, int flags,
                   const void *secret, int secret_len, int is_raw_key, const dc_cipher_settings *settings);

/**
 * Which of `candidates` (tried in order) authenticates page 1 of the encrypted file
 * `filename` under `secret`: its index, -1 when none does, -2 when the file cannot be read.
 * Nothing is written. Each distinct key derivation is done once (and cached as for
 * dc_cipher_open), so candidates that differ only in page size, HMAC digest or page-number
 * order cost an HMAC each. A candidate with a plaintext header and no salt is skipped.
 */
int dc_cipher_detect(const char *filename, const void *secret, int secret_len, int is_raw_key,
                     const dc_cipher_settings *candidates, int count);

/** The file-control opcode answering whether that page failed in a whole record of a hot
 * rollback journal (int *): a journal written for another file or key. */
#define DC_CIPHER_FCNTL_FAILED_IN_JOURNAL 0x44430002

/**
 * The page of the main database, its journal or its WAL that last failed authentication on
 * this connection, or 0 when none did.
 */
int dc_cipher_failed_page(sqlite3 *db);

/**
 * Non-zero when the last failure was a whole record of the rollback journal (its checksum
 * holds) whose page does not authenticate: the journal was not written for this database
 * or key, and the database itself is not at fault. Ask before dc_cipher_failed_page; each
 * answer clears what it reports.
 */
int dc_cipher_failed_in_journal(sqlite3 *db);

/**
 * Wipes the per-process cache of derived keys: the next open of each file runs its key
 * derivation again. For benchmarks that time an open as a new process would pay it, and for
 * a process done with its keys.
 */
void dc_cipher_forget_derived_keys(void);

/**
 * PBKDF2-HMAC with `algorithm` (DC_CIPHER_SHA1, _SHA256, _SHA512), as the page cipher derives
 * its keys; and the same through OpenSSL's PKCS5_PBKDF2_HMAC, which tests hold it to.
 * Return 1 on success, 0 for arguments out of range.
 */
int dc_cipher_pbkdf2(int algorithm, const void *secret, int secret_len, const void *salt, int salt_len,
                     int iterations, void *out, int out_len);
int dc_cipher_pbkdf2_reference(int algorithm, const void *secret, int secret_len, const void *salt, int salt_len,
                               int iterations, void *out, int out_len);

/** The number of passphrase key derivations (PBKDF2 runs) done on the calling thread; for tests. */
int dc_cipher_kdf_count(void);

/**
 * The number of WAL frames read on the calling thread to rebuild a checksum chain from the
 * WAL's start (done only when frames are read out of order); for tests, which pin that
 * reading a WAL in order never walks it again.
 */
long dc_cipher_wal_chain_walk_frames(void);

/**
 * Attaches `filename` to the open connection `db` as schema `schema` (letters, digits and
 * '_'), through the cipher VFS keyed by `secret` as for dc_cipher_open: a new file takes the
 * format's page size and reserve. For copying a whole database into an encrypted one (or
 * out of one) with INSERT ... SELECT across the two schemas. The connection must have been
 * opened with SQLITE_OPEN_URI. Returns an SQLite result code.
 */
int dc_cipher_attach(sqlite3 *db, const char *filename, const char *schema,
                     const void *secret, int secret_len, int is_raw_key, const dc_cipher_settings *settings);

/**
 * Stops `db` from checkpointing its WAL into the database file when it closes
 * (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE), so that reading a file leaves it byte for byte as it
 * was. Returns an SQLite result code.
 */
int dc_no_checkpoint_on_close(sqlite3 *db);

/**
 * Reads up to `count` bytes from the start of `filename` into `buffer`, through SQLite's
 * default VFS as SQLite reads its own files: closing the file then never drops the POSIX
 * locks this process's connections hold on it (closing any other descriptor of the file
 * would, and a writer elsewhere could then take the file as unused and delete its WAL).
 * Returns the bytes read (fewer at the end of the file), or -1 when it cannot be read.
 */
int dc_read_file_head(const char *filename, void *buffer, int count);

/**
 * Keeps secrets out of core dumps: makes the process not dumpable (PR_SET_DUMPABLE 0) and sets
 * its core size limit to 0. Returns 0 on success. dc_process_is_dumpable answers
 * PR_GET_DUMPABLE; dc_core_size_limit the soft core limit (-2: unlimited, -1: unknown).
 */
int dc_protect_secrets(void);
int dc_process_is_dumpable(void);
long dc_core_size_limit(void);

#ifdef __cplusplus
}
#endif
#endif
