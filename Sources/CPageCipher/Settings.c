/*
 * SQLCipher's settings as the codec holds them: each version's defaults, and the checks
 * SQLCipher makes of a setting before it takes it (the page size, the reserve the IV and
 * HMAC need, the plaintext header); and those of SQLite3MC's other schemes.
 */
#include "CipherInternal.h"

#include <string.h>

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
int cipher_format_for(const dc_cipher_settings *in, Format *out) {
    if (!in) return 0;
    int pg = in->page_size;
    if (pg < 512 || pg > 65536 || (pg & (pg - 1)) != 0) return 0;
    if (in->scheme < DC_SCHEME_SQLCIPHER || in->scheme > DC_SCHEME_RC4) return 0;
    if (in->scheme >= DC_SCHEME_CHACHA20) {
        /* SQLite3MC's own schemes: the page size and kdf_iter, and for chacha20 a plaintext
         * header (up to SQLite's 100 bytes) with a given salt. */
        int phs = in->plaintext_header_size;
        if (in->kdf_iter < 1 || phs < 0 || phs > 100) return 0;
        if (in->scheme != DC_SCHEME_CHACHA20 && (phs != 0 || in->has_salt)) return 0;
        memset(out, 0, sizeof *out);
        out->plaintext_header = phs;
        out->has_salt = in->has_salt ? 1 : 0;
        memcpy(out->salt, in->salt, DC_SALT_LEN);
        out->scheme = in->scheme;
        out->legacy = in->scheme == DC_SCHEME_RC4 ? 1 : (in->legacy ? 1 : 0);
        out->page_size = pg;
        out->kdf_iter = in->kdf_iter;
        out->kdf_algorithm = DC_CIPHER_SHA256;
        out->kdf_digest = EVP_sha256;
        out->hmac_digest = EVP_sha256;
        /* chacha20 keeps a 16-byte nonce and a 16-byte Poly1305 tag in each page. */
        out->reserve = in->scheme == DC_SCHEME_CHACHA20 ? 32 : 0;
        return pg - out->reserve >= 480;
    }
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
    out->scheme = in->scheme;
    /* SQLite3MC's non-legacy sqlcipher keeps 24 bytes of page 1 before its encrypted span. */
    if (in->scheme == DC_SCHEME_MC_SQLCIPHER && phs != 0 && phs < 24) return 0;
    return 1;
}
