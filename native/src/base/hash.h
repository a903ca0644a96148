/* SHA-256, hex, UUIDs and clocks (internal). */
#ifndef SC_HASH_H
#define SC_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SC_SHA256_LEN 32
#define SC_SHA256_HEX_LEN 64
#define SC_UUID_TEXT_LEN 36

void sc_sha256(uint8_t out[SC_SHA256_LEN], const void *data, size_t len);
/* Lowercase hex of `len` bytes into out (2*len+1 bytes). */
void sc_hex_encode(char *out, const uint8_t *data, size_t len);
/* Decode exactly 2*len hex digits; SC_EINVAL on anything else. */
int sc_hex_decode(uint8_t *out, size_t len, const char *hex);
/* Random version-4 UUID as text (37 bytes with NUL). */
int sc_uuid_text(char out[SC_UUID_TEXT_LEN + 1]);
/* Cryptographically random bytes. */
int sc_random_bytes(void *out, size_t len);
int64_t sc_now_ms(void);       /* wall clock, ms since epoch */
int64_t sc_monotonic_ms(void); /* monotonic clock */
void sc_sleep_ms(int64_t ms);

#endif
