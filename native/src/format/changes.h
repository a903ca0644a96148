/* A commit's change set (internal view of the public sc_changes). */
#ifndef SC_CHANGES_H
#define SC_CHANGES_H

#include "format/manifest.h"
#include "snapcommit/table.h" /* the public sc_changes API this module implements */

struct sc_changes {
    sc_entry_vec adds;
    sc_entry_vec deletes;
};

/*
 * Control characters in a name: C0 (bytes 0x00..0x1f), DEL (0x7f) and C1
 * (U+0080..U+009F, i.e. the UTF-8 pairs 0xc2 0x80..0x9f). Returns the byte
 * offset of the first one and its length in bytes in *out_len (1 or 2), or
 * SIZE_MAX when there is none.
 */
size_t sc_name_control_at(const uint8_t *name, size_t len, size_t *out_len);
/* 0, or SC_EINVAL naming `field`, the name and the first control character
 * (escaped) with its byte offset. Names are printed in text output and logs,
 * where such characters would forge lines or drive the terminal. */
int sc_name_check(const char *field, const uint8_t *name, size_t len);

#endif
