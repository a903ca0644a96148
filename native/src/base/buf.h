/* Growable byte buffer (internal). Every size computation is overflow-checked. */
#ifndef SC_BUF_H
#define SC_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct sc_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} sc_buf;

#define SC_BUF_INIT {NULL, 0, 0}

/* Make room for `extra` more bytes. SC_ENOMEM / SC_ELIMIT on overflow. */
int sc_buf_reserve(sc_buf *b, size_t extra);
int sc_buf_append(sc_buf *b, const void *data, size_t len);
int sc_buf_append_byte(sc_buf *b, uint8_t byte);
int sc_buf_append_str(sc_buf *b, const char *s);
int sc_buf_printf(sc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sc_buf_append_u32be(sc_buf *b, uint32_t v);
int sc_buf_append_u64be(sc_buf *b, uint64_t v);
/* NUL-terminate without counting it in len; returns data as a C string. */
const char *sc_buf_cstr(sc_buf *b);
void sc_buf_free(sc_buf *b);

#endif
