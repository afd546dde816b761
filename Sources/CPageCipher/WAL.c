#include "CipherInternal.h"

#include <stdlib.h>
#include <string.h>

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

static _Thread_local long wal_chain_walk_frames; /* frames read to rebuild a WAL's checksum chain */

long dc_cipher_wal_chain_walk_frames(void) {
    return wal_chain_walk_frames;
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
int cipher_wal_flush_held_header(CipherFile *f) {
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
            && cipher_page_decrypt(f->codec, be32(frame), frame + DC_WAL_FRAME_HEADER, plain);
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
    if (!(pgno != 0 && cipher_page_decrypt(f->codec, pgno, f->disk, page))) {
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

int cipher_wal_read(CipherFile *f, unsigned char *buf, int amt, sqlite3_int64 off) {
    int rc = cipher_wal_flush_held_header(f);
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
        if (pgno == 0 || !cipher_page_decrypt(f->codec, pgno, f->disk, buf)) return cipher_fail_page(f, pgno);
        return SQLITE_OK;
    }
    if (amt == pg + DC_WAL_FRAME_HEADER && part == 0) return wal_read_frame(f, buf, amt, off);
    return f->real->pMethods->xRead(f->real, buf, amt, off);
}

int cipher_wal_write(CipherFile *f, const unsigned char *buf, int amt, sqlite3_int64 off) {
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
        if (pgno == 0 || !cipher_page_encrypt(f->codec, pgno, buf, page)) return SQLITE_IOERR_WRITE;
        int rc = wal_seal(f, at, header, page);
        if (rc != SQLITE_OK) return rc;
        return f->real->pMethods->xWrite(f->real, f->frame, (int)wal_frame_size(f), at);
    }
    int rc = cipher_wal_flush_held_header(f);
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
        if (pgno == 0 || !cipher_page_encrypt(f->codec, pgno, buf, page)) return SQLITE_IOERR_WRITE;
        rc = wal_seal(f, at, f->frame, page);
        if (rc != SQLITE_OK) return rc;
        return f->real->pMethods->xWrite(f->real, f->frame, (int)wal_frame_size(f), at);
    }
    /* Anything else touching a page would store plaintext: never seen, refused. */
    if (part >= DC_WAL_FRAME_HEADER || (part >= 0 && part + amt > DC_WAL_FRAME_HEADER)) return SQLITE_IOERR_WRITE;
    return f->real->pMethods->xWrite(f->real, buf, amt, off);
}
