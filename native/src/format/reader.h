/*
 * Bounded reader and the checksummed container shared by manifests and
 * manifest lists (internal). See manifest.h for the byte layout.
 *
 * A reader is a cursor over (pointer, end) that never reads past `end`; every
 * failure is recorded with sc_error_set() as
 *   "<object>: record <i>, field <f> (byte <offset>): <problem>"
 * where offsets count from the first byte of the object and records from 0,
 * so a damaged object can be inspected with a hex dump.
 *
 * The container's constants and the decode limits live here, not in
 * manifest.h: the manifest codecs build on the reader, never the reverse.
 */
#ifndef SC_READER_H
#define SC_READER_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hash.h"

#define SC_MANIFEST_MAGIC "SCMF"
#define SC_MANIFEST_CONTAINER_VERSION 1
#define SC_MANIFEST_HEADER_LEN 20
#define SC_MANIFEST_TYPE_ENTRIES 1
#define SC_MANIFEST_TYPE_LIST 2

/* Decoder limits. Anything above them is SC_ECORRUPT (or SC_ELIMIT when the
 * data is well-formed but bigger than the reader allows). */
typedef struct sc_decode_limits {
    uint64_t max_entries;    /* default 16,777,216 */
    size_t max_field_len;    /* default 65,536 bytes per string/bytes field */
    size_t max_object_len;   /* default 1 GiB */
} sc_decode_limits;

void sc_decode_limits_default(sc_decode_limits *out);

/* Magic + version + type + count + body length, then the body, then SHA-256. */
#define SC_CONTAINER_MIN_LEN (SC_MANIFEST_HEADER_LEN + SC_SHA256_LEN)

typedef struct sc_reader {
    const uint8_t *data;            /* the whole object, so offsets in messages are absolute */
    size_t pos;                     /* next byte to read */
    size_t end;                     /* one past the last readable byte (the body's end) */
    const sc_decode_limits *limits;
    const char *object;             /* name for messages, never NULL */
    uint64_t record;                /* index of the record being read, when in_record */
    int in_record;
} sc_reader;

/*
 * Check a container of exactly `len` bytes: length, magic, version, `type`,
 * body length == len - header - checksum, the checksum (before anything in
 * the body is trusted), then the entry count: SC_ECORRUPT when `count`
 * records of at least `min_record_len` bytes cannot fit in the body,
 * SC_ELIMIT when it is above limits->max_entries (or the object above
 * limits->max_object_len). On success *out reads the body.
 */
int sc_container_open(sc_reader *out, uint32_t *out_count, const uint8_t *data, size_t len,
                      uint16_t type, size_t min_record_len, const sc_decode_limits *limits,
                      const char *object);

/* Append a header with placeholder count and length; *out_start marks it. */
int sc_container_begin(size_t *out_start, sc_buf *out, uint16_t type);
/*
 * Fill in the header of the container begun at `start` and append the
 * checksum. SC_ELIMIT when the result would exceed the default decode limits
 * (a reader with default limits must be able to read what we write).
 */
int sc_container_end(sc_buf *out, size_t start, uint64_t count);

/* Record `code` with the reader's location prefix. `field` may be NULL. */
int sc_reader_fail(const sc_reader *r, int code, const char *field, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

int sc_reader_u8(uint8_t *out, sc_reader *r, const char *field);
/* Canonical unsigned LEB128, at most 10 bytes, no bits beyond 64. */
int sc_reader_varint(uint64_t *out, sc_reader *r, const char *field);
/* A varint that must be <= max (SC_ECORRUPT "out of range" otherwise). */
int sc_reader_varint_max(uint64_t *out, sc_reader *r, const char *field, uint64_t max);
/* Exactly n bytes; *out points into the object. */
int sc_reader_fixed(const uint8_t **out, sc_reader *r, size_t n, const char *field);
/*
 * Varint length + bytes. SC_ECORRUPT when the length runs past the body,
 * SC_ELIMIT when it exceeds limits->max_field_len. *out points into the object.
 */
int sc_reader_lenbytes(const uint8_t **out, size_t *out_len, sc_reader *r, const char *field);
/* SC_ECORRUPT unless every body byte was consumed. */
int sc_reader_finish(const sc_reader *r);

#endif
