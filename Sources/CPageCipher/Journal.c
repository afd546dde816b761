#include "CipherInternal.h"

#include <string.h>

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
 * authenticate was written for another file or key (DC_CIPHER_FCNTL_FAILED_IN_JOURNAL).
 *
 * SQLite3 Multiple Ciphers encrypts journal pages in its VFS, under SQLite's own checksum:
 * over the plaintext. For its schemes the checksum is left as SQLite computes it, and a
 * record whose page does not authenticate (or decrypt into page 1's header) is read as the
 * torn end: without the plaintext, nothing tells a torn record from another file's. Its
 * `sqlcipher` in SQLCipher's own format (legacy=1…4) is written the same way: a record whose
 * plaintext checksum holds is read as whole, whichever convention wrote it. */

/* Whether the journal's checksums are over the plaintext (SQLite3MC) rather than over the
 * page as stored (SQLCipher). */
static int checksum_over_plaintext(const CipherFile *f) {
    return f->codec->f.scheme != DC_SCHEME_SQLCIPHER;
}

static const unsigned char journal_magic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};

/* SQLite's journal checksum of `page`, without the nonce. */
static unsigned int journal_sample_sum(const unsigned char *page, int page_size) {
    unsigned int sum = 0;
    for (int i = page_size - 200; i > 0; i -= 200) sum += page[i];
    return sum;
}

/* Whether `off` is where the record just written or read keeps its checksum. */
static int journal_is_record_checksum(CipherFile *f, sqlite3_int64 off) {
    return f->journal_checksum_offset >= 0 && off == f->journal_checksum_offset;
}

int cipher_journal_read(CipherFile *f, unsigned char *buf, int amt, sqlite3_int64 off) {
    int pg = f->codec->f.page_size;
    if (amt == pg && off == f->last_pgno_offset + 4 && f->last_pgno > 0) {
        int rc = f->real->pMethods->xRead(f->real, f->disk, pg, off);
        if (rc != SQLITE_OK) return rc;
        if (checksum_over_plaintext(f)) {
            /* A page that does not open is the torn end: SQLite's checksum over zeros fails. */
            if (!cipher_page_decrypt(f->codec, f->last_pgno, f->disk, buf)) memset(buf, 0, (size_t)pg);
            return SQLITE_OK;
        }
        unsigned int cipher_sum = journal_sample_sum(f->disk, pg);
        unsigned char stored[4];
        int has_checksum = f->real->pMethods->xRead(f->real, stored, 4, off + pg) == SQLITE_OK;
        int checksum_holds = has_checksum && f->journal_nonce_known
            && be32(stored) == f->journal_nonce + cipher_sum;
        if (!cipher_page_decrypt(f->codec, f->last_pgno, f->disk, buf)) {
            if (checksum_holds) {
                /* Whole and in place, yet not ours: another file's or key's journal. */
                f->codec->failed_in_journal = 1;
                return cipher_fail_page(f, f->last_pgno);
            }
            if (!f->journal_nonce_known) return cipher_fail_page(f, f->last_pgno);
            /* The torn end of the journal: SQLite's checksum over these zeros fails too. */
            memset(buf, 0, (size_t)pg);
        }
        f->journal_checksum_offset = off + pg;
        f->journal_checksum_delta = journal_sample_sum(buf, pg) - cipher_sum;
        /* SQLite3MC writes SQLCipher's format (its cipher=sqlcipher legacy=N) under SQLite's
         * own checksum, over the plaintext: such a record is whole too, and goes to SQLite as
         * it is stored. */
        if (!checksum_holds && has_checksum && f->journal_nonce_known
            && be32(stored) == f->journal_nonce + journal_sample_sum(buf, pg)) f->journal_checksum_delta = 0;
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
int cipher_journal_check_at_open(CipherFile *f) {
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
    if (checksum_over_plaintext(f)) return SQLITE_OK; /* a record that does not open reads as torn */
    if (pgno == 0 || be32(stored) != nonce + journal_sample_sum(f->disk, pg)) return SQLITE_OK; /* torn: SQLite stops there */
    if (cipher_page_decrypt(f->codec, pgno, f->disk, f->plain)) return SQLITE_OK;
    f->codec->failed_in_journal = 1;
    f->codec->failed_page = (int)pgno;
    return SQLITE_IOERR_DATA;
}

int cipher_journal_write(CipherFile *f, const unsigned char *buf, int amt, sqlite3_int64 off) {
    int pg = f->codec->f.page_size;
    if (amt == pg && off == f->last_pgno_offset + 4 && f->last_pgno > 0) {
        if (!cipher_page_encrypt(f->codec, f->last_pgno, buf, f->disk)) return SQLITE_IOERR_WRITE;
        if (checksum_over_plaintext(f)) return f->real->pMethods->xWrite(f->real, f->disk, pg, off);
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
