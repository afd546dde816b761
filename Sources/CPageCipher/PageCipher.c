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
 * SQLite3 Multiple Ciphers' non-legacy sqlcipher is this layout with page 1's bytes 16-23
 * kept in the clear (its span from 24, with ciphertext stealing); its other schemes lay
 * pages out as Schemes.c describes. The journal and WAL code is the same for every scheme.
 */
#include "CipherInternal.h"

#include <openssl/crypto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        return cipher_fail_page(f, pgno); /* a page cut short: the file was truncated */
    }
    if (rc != SQLITE_OK) return rc;
    if (!cipher_page_decrypt(f->codec, pgno, f->disk, f->plain)) return cipher_fail_page(f, pgno);
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
        if (!cipher_page_encrypt(f->codec, pgno, buf + done, f->disk)) return SQLITE_IOERR_WRITE;
        int rc = f->real->pMethods->xWrite(f->real, f->disk, pg, off + done);
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

static int c_close(sqlite3_file *file) {
    CipherFile *f = (CipherFile *)file;
    int flush_rc = f->kind == KIND_WAL && f->frame ? cipher_wal_flush_held_header(f) : SQLITE_OK;
    int rc = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    if (rc == SQLITE_OK) rc = flush_rc;
    if (f->kind == KIND_MAIN) cipher_codec_free(f->codec);
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
    case KIND_JOURNAL: return cipher_journal_read(f, buf, amt, off);
    case KIND_WAL: return cipher_wal_read(f, buf, amt, off);
    default: return f->real->pMethods->xRead(f->real, buf, amt, off);
    }
}

static int c_write(sqlite3_file *file, const void *buf, int amt, sqlite3_int64 off) {
    CipherFile *f = (CipherFile *)file;
    switch (f->kind) {
    case KIND_MAIN: return main_write(f, buf, amt, off);
    case KIND_JOURNAL: return cipher_journal_write(f, buf, amt, off);
    case KIND_WAL: return cipher_wal_write(f, buf, amt, off);
    default: return f->real->pMethods->xWrite(f->real, buf, amt, off);
    }
}

#define REAL(file) (((CipherFile *)(file))->real)

/* A WAL frame header held back for its page must be out before the file is cut or synced. */
static int flush_before(sqlite3_file *file) {
    CipherFile *f = (CipherFile *)file;
    if (f->kind != KIND_WAL) return SQLITE_OK;
    f->read_frame_offset = -1;
    return cipher_wal_flush_held_header(f);
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
        if (kind == KIND_MAIN) cipher_codec_free(codec);
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
            if (!cipher_needs_salt(&codec->f, codec->is_raw)) {
                /* aes128cbc, aes256cbc, rc4, a raw chacha20 key: the key is the secret's alone */
            } else if (codec->f.has_salt) {
                memcpy(codec->salt, codec->f.salt, DC_SALT_LEN);
            } else if (codec->f.plaintext_header) {
                rc = SQLITE_NOTADB; /* its salt is not in the file, and none was given */
                codec->failed_page = 1;
            } else {
                rc = f->real->pMethods->xRead(f->real, codec->salt, DC_SALT_LEN, 0);
            }
            if (rc == SQLITE_OK) {
                codec->salt_from_file = 1;
                if (!cipher_codec_derive(codec)) rc = SQLITE_NOMEM;
            }
        }
        if (rc != SQLITE_OK) { c_close(file); f->base.pMethods = NULL; return rc; }
    }
    if (kind == KIND_JOURNAL && f->codec->keys_ready) {
        rc = cipher_journal_check_at_open(f);
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
    if (!cipher_format_for(settings, &f) || !secret || secret_len <= 0) return SQLITE_MISUSE;
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
    if (!db || !filename || !schema || !cipher_format_for(settings, &f) || !secret || secret_len <= 0) return SQLITE_MISUSE;
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

int dc_read_file_head(const char *filename, void *buffer, int count) {
    if (!filename || !buffer || count < 0 || sqlite3_initialize() != SQLITE_OK) return -1;
    /* The default VFS (unix; the cipher's is never made the default): the bytes as stored. */
    sqlite3_vfs *vfs = sqlite3_vfs_find(NULL);
    if (!vfs) return -1;
    /* The full path as SQLite makes it for its own open (relative names and links resolved),
       then a main-database name as SQLite makes them, so that the VFS may look up URI
       parameters. */
    char *full = sqlite3_malloc(vfs->mxPathname + 1);
    /* SQLITE_OK_SYMLINK (a link resolved) is success too. */
    if (!full || (vfs->xFullPathname(vfs, filename, vfs->mxPathname + 1, full) & 0xff) != SQLITE_OK) {
        sqlite3_free(full);
        return -1;
    }
    sqlite3_filename name = sqlite3_create_filename(full, "", "", 0, NULL);
    sqlite3_free(full);
    sqlite3_file *file = sqlite3_malloc(vfs->szOsFile);
    if (!name || !file) {
        sqlite3_free_filename(name);
        sqlite3_free(file);
        return -1;
    }
    memset(file, 0, (size_t)vfs->szOsFile);
    int out_flags = 0;
    int rc = vfs->xOpen(vfs, name, file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &out_flags);
    int have = -1;
    if (rc == SQLITE_OK) {
        sqlite3_int64 size = 0;
        if (file->pMethods->xFileSize(file, &size) == SQLITE_OK) {
            int want = size < count ? (int)size : count;
            if (want == 0 || file->pMethods->xRead(file, buffer, want, 0) == SQLITE_OK) have = want;
        }
    }
    if (file->pMethods) file->pMethods->xClose(file);
    sqlite3_free(file);
    sqlite3_free_filename(name);
    return have;
}

int dc_cipher_detect(const char *filename, const void *secret, int secret_len, int is_raw_key,
                     const dc_cipher_settings *candidates, int count) {
    if (!filename || !secret || secret_len <= 0 || !candidates || count < 0) return -2;
    if (is_raw_key && secret_len != DC_KEY_LEN) return -2;
    unsigned char *head = malloc(65536);
    unsigned char *scratch = malloc(65536);
    unsigned char *plain = malloc(65536);
    int read = head ? dc_read_file_head(filename, head, 65536) : -1;
    if (read < 0) {
        free(head);
        free(scratch);
        free(plain);
        return -2;
    }
    size_t have = (size_t)read;
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
                if (!cipher_format_for(&candidates[i], &f) || have < (size_t)f.page_size) continue;
                int needs_salt = cipher_needs_salt(&f, c->is_raw);
                if (f.plaintext_header && !f.has_salt && needs_salt) continue; /* no salt to derive with */
                c->f = f;
                c->keys_ready = 0;
                c->salt_from_file = 0;
                if (!needs_salt) memset(c->salt, 0, DC_SALT_LEN);
                else memcpy(c->salt, f.has_salt ? f.salt : head, DC_SALT_LEN);
                if (f.has_salt || f.plaintext_header || !needs_salt) c->salt_from_file = 1;
                if (!cipher_codec_derive(c)) continue; /* also a raw key the scheme takes none of */
                memcpy(scratch, head, (size_t)f.page_size);
                if (cipher_page_decrypt(c, 1, scratch, plain)) found = i;
            }
            OPENSSL_cleanse(plain, 65536);
        }
    }
    cipher_codec_free(c);
    free(head);
    free(scratch);
    free(plain);
    return found;
}
