#ifndef DATACENTER_KEY_DERIVATION_H
#define DATACENTER_KEY_DERIVATION_H
/* PBKDF2-HMAC with SHA1, SHA256 or SHA512 (DC_CIPHER_SHA*): the page cipher's key derivation. */
#include "CPageCipher.h"
#include <stddef.h>

/* Writes `out_len` bytes of PBKDF2-HMAC-<algorithm>(secret, salt, iterations) to `out`.
 * Returns 1, or 0 for an unknown algorithm or a count below 1. */
int dc_pbkdf2(int algorithm, const unsigned char *secret, size_t secret_len, const unsigned char *salt, size_t salt_len,
              int iterations, unsigned char *out, size_t out_len);

#endif
