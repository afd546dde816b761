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

/** SQLCipher 4's settings: 4096-byte pages, HMAC-SHA512, PBKDF2-HMAC-SHA512 x 256,000. */
#define DC_CIPHER_FORMAT_SQLCIPHER4 4
/** SQLCipher 3's settings: 1024-byte pages, HMAC-SHA1, PBKDF2-HMAC-SHA1 x 64,000. */
#define DC_CIPHER_FORMAT_SQLCIPHER3 3

/** The file-control opcode answering the last page that failed authentication (int *). */
#define DC_CIPHER_FCNTL_FAILED_PAGE 0x44430001

/**
 * Opens `filename` (as sqlite3_open_v2 does, `flags` included) through the cipher VFS,
 * keyed by `secret`: a passphrase (run through PBKDF2 with the file's salt) or, when
 * `is_raw_key` is non-zero, the 32-byte AES key itself. A new database gets the format's
 * page size and reserve. Derived keys are cached per process, keyed by secret, salt and
 * format, so a second open of the same file does not pay the KDF again.
 * Returns an SQLite result code; `*db` is set as sqlite3_open_v2 sets it.
 */
int dc_cipher_open(const char *filename, sqlite3 **db, int flags,
                   const void *secret, int secret_len, int is_raw_key, int format);

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
                     const void *secret, int secret_len, int is_raw_key, int format);

/**
 * Stops `db` from checkpointing its WAL into the database file when it closes
 * (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE), so that reading a file leaves it byte for byte as it
 * was. Returns an SQLite result code.
 */
int dc_no_checkpoint_on_close(sqlite3 *db);

#ifdef __cplusplus
}
#endif
#endif
