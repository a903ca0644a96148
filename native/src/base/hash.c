/* SHA-256 (OpenSSL), hex, UUIDs, clocks. */
#include "base/hash.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <time.h>

#include "base/error_internal.h"

void sc_sha256(uint8_t out[SC_SHA256_LEN], const void *data, size_t len) {
    unsigned int n = 0;
    EVP_Digest(data, len, out, &n, EVP_sha256(), NULL);
}

void sc_hex_encode(char *out, const uint8_t *data, size_t len) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
    out[2 * len] = '\0';
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int sc_hex_decode(uint8_t *out, size_t len, const char *hex) {
    for (size_t i = 0; i < len; i++) {
        if (!hex[2 * i] || !hex[2 * i + 1]) return SC_EINVAL;
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return SC_EINVAL;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return hex[2 * len] == '\0' ? 0 : SC_EINVAL;
}

int sc_random_bytes(void *out, size_t len) {
    if (RAND_bytes(out, (int)len) != 1)
        return sc_error_set(SC_EIO, "the system random generator failed");
    return 0;
}

int sc_uuid_text(char out[SC_UUID_TEXT_LEN + 1]) {
    uint8_t u[16];
    int rc = sc_random_bytes(u, sizeof u);
    if (rc) return rc;
    u[6] = (u[6] & 0x0f) | 0x40;
    u[8] = (u[8] & 0x3f) | 0x80;
    snprintf(out, SC_UUID_TEXT_LEN + 1,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    return 0;
}

int64_t sc_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t sc_monotonic_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sc_sleep_ms(int64_t ms) {
    if (ms <= 0) return;
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}
