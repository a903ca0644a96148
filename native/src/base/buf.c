/* Growable byte buffer with overflow-checked growth. */
#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"

int sc_buf_reserve(sc_buf *b, size_t extra) {
    if (extra > SIZE_MAX - b->len - 1) return sc_error_set(SC_ELIMIT, "buffer size overflow");
    size_t need = b->len + extra + 1; /* +1 keeps room for a NUL terminator */
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->data, cap);
    if (!p) return sc_error_set(SC_ENOMEM, "out of memory growing a buffer to %zu bytes", cap);
    b->data = p;
    b->cap = cap;
    return 0;
}

int sc_buf_append(sc_buf *b, const void *data, size_t len) {
    int rc = sc_buf_reserve(b, len);
    if (rc) return rc;
    if (len) memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

int sc_buf_append_byte(sc_buf *b, uint8_t byte) { return sc_buf_append(b, &byte, 1); }

int sc_buf_append_str(sc_buf *b, const char *s) { return sc_buf_append(b, s, strlen(s)); }

int sc_buf_printf(sc_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return sc_error_set(SC_EINVAL, "bad format string");
    int rc = sc_buf_reserve(b, (size_t)n);
    if (rc) return rc;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

int sc_buf_append_u32be(sc_buf *b, uint32_t v) {
    uint8_t t[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    return sc_buf_append(b, t, 4);
}

int sc_buf_append_u64be(sc_buf *b, uint64_t v) {
    int rc = sc_buf_append_u32be(b, (uint32_t)(v >> 32));
    return rc ? rc : sc_buf_append_u32be(b, (uint32_t)v);
}

const char *sc_buf_cstr(sc_buf *b) {
    if (sc_buf_reserve(b, 0)) return NULL;
    b->data[b->len] = '\0';
    return (const char *)b->data;
}

void sc_buf_free(sc_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
