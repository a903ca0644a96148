/* SHA-256 (OpenSSL) and hex. */
#include "base/hash.h"

#include <openssl/evp.h>

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
