/* SHA-256 and hex (internal). UUIDs: env_internal.h; clocks: clock.h. */
#ifndef SC_HASH_H
#define SC_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SC_SHA256_LEN 32
#define SC_SHA256_HEX_LEN 64
#define SC_UUID_TEXT_LEN 36 /* a UUID as text, without NUL (made by env_internal.h) */

void sc_sha256(uint8_t out[SC_SHA256_LEN], const void *data, size_t len);
/* Lowercase hex of `len` bytes into out (2*len+1 bytes). */
void sc_hex_encode(char *out, const uint8_t *data, size_t len);
/* Decode exactly 2*len hex digits; SC_EINVAL on anything else. */
int sc_hex_decode(uint8_t *out, size_t len, const char *hex);

#endif
