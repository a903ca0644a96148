/*
 * The watermark archive (internal; docs/format.md): the watermarks of the
 * commit users that are no longer in a snapshot's inline table, in one
 * immutable object named by the SHA-256 of its bytes,
 *
 *   metadata/watermarks/watermarks-<64 lower-case hex digits>
 *
 * referenced from a snapshot by name and length. Paimon's tools never walk
 * metadata/, so neither its expire nor its orphan cleaner deletes one.
 *
 * Layout (big-endian):
 *   8 bytes  magic "SCWMARC1"
 *   4 bytes  user count n (0 .. SC_WATERMARK_ARCHIVE_MAX_USERS)
 *   n times  1 byte user length L (1 .. 255), L bytes user (UTF-8, no NUL),
 *            8 bytes identifier (>= 0), 8 bytes snapshot id (>= 1)
 * Users strictly ascending by byte order (strcmp); nothing after the last entry.
 */
#ifndef SC_WATERMARK_ARCHIVE_H
#define SC_WATERMARK_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hash.h"
#include "format/snapshot.h"

#define SC_WATERMARK_ARCHIVE_DIR "metadata/watermarks/"
/* Room for the store key "metadata/watermarks/<name>" and its NUL. */
#define SC_WATERMARK_ARCHIVE_KEY_MAX (sizeof SC_WATERMARK_ARCHIVE_DIR - 1 + SC_WATERMARK_ARCHIVE_NAME_LEN + 1)

/* The decoder's bounds (a writer that would exceed them fails with SC_ELIMIT). */
#define SC_WATERMARK_ARCHIVE_MAX_USERS ((size_t)1 << 20)
#define SC_WATERMARK_ARCHIVE_MAX_BYTES SC_WATERMARK_ARCHIVE_MAX_LENGTH

/* A decoded archive: `items` sorted by user; the users point into `strings`. Owns both. */
typedef struct sc_watermark_archive {
    sc_watermark *items;
    size_t count;
    char *strings;
    uint64_t max_snapshot; /* the highest snapshot id an entry names (0 when empty) */
} sc_watermark_archive;

/*
 * Encode `count` watermarks, which must be sorted strictly by user (SC_EINVAL
 * otherwise: a writer bug must not publish a table readers refuse). More than
 * the bounds above is SC_ELIMIT. Appends to `out`.
 */
int sc_watermark_archive_encode(sc_buf *out, const sc_watermark *items, size_t count);

/*
 * Decode exactly `len` bytes. Every entry must name a snapshot <= `max_snapshot`
 * (the snapshot that references the archive). SC_ECORRUPT naming `object` on
 * anything else; SC_ENOMEM. On error `out` is zeroed.
 */
int sc_watermark_archive_decode(sc_watermark_archive *out, const uint8_t *data, size_t len,
                                uint64_t max_snapshot, const char *object);
void sc_watermark_archive_clear(sc_watermark_archive *a);

/* The entry of `user`, or NULL (binary search). */
const sc_watermark *sc_watermark_archive_find(const sc_watermark_archive *a, const char *user);

/* The content-addressed name of an archive whose bytes hash to `sha256`. */
void sc_watermark_archive_name(char out[SC_WATERMARK_ARCHIVE_NAME_LEN + 1], const uint8_t sha256[SC_SHA256_LEN]);
/* (Parsing a name is the snapshot codec's: sc_watermark_archive_name_parse, snapshot.h.) */
/* Store key of archive `name`. */
void sc_watermark_archive_key(char out[SC_WATERMARK_ARCHIVE_KEY_MAX], const char *name);

#endif
