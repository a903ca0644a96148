/*
 * Fields of Avro records (internal), shared by the Paimon manifest codecs
 * (paimon_manifest.c, index_manifest.c): look-ups by field name, so that any
 * field order and unknown fields are read, with failures as SC_ECORRUPT
 * "<object>: record <n>, field <path>: <what>"; and setters for the writers,
 * which return nonzero (libavro's error, avro_strerror()) on failure.
 */
#ifndef SC_AVRO_FIELDS_H
#define SC_AVRO_FIELDS_H

#include <avro.h>
#include <stdint.h>

#include "format/limits.h"
#include "snapcommit/types.h"

/*
 * Where each field name looked up lies in a record schema of one file: libavro finds a
 * field by name through a hash of the name, which dominated the decoding of big manifests
 * (about 30 look-ups per record). Keyed by the schema and the name's address (call sites
 * pass literals), so it holds for one file only: a decoder keeps one per call.
 */
#define SC_AVRO_FIELD_SLOTS 128 /* a power of two, probed linearly */
typedef struct sc_avro_field_slot {
    avro_schema_t schema;
    const char *name;
    int index; /* -1: the schema has no such field */
} sc_avro_field_slot; /* empty while name is NULL */
typedef struct sc_avro_fields {
    sc_avro_field_slot slots[SC_AVRO_FIELD_SLOTS];
    size_t count;
} sc_avro_fields;

/* Where a decoder is: the object's name, the record's index, the limits; and, optionally,
 * the field positions it has found in this file (NULL: every look-up by name). */
typedef struct sc_avro_ctx {
    const char *object;
    uint64_t record;
    const sc_decode_limits *limits;
    sc_avro_fields *fields;
} sc_avro_ctx;

/* SC_ECORRUPT naming the object, record and field `path`. */
int sc_avro_bad(const sc_avro_ctx *d, const char *path, const char *what);
/* Look up `name` in record `rec`. *present = 0 when the file's schema lacks it or it
 * holds null (a union on its null branch); then *out is unset, and SC_ECORRUPT if required. */
int sc_avro_get(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, avro_value_t *out,
                int *present, int required);
int sc_avro_get_int(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, int32_t *out,
                    int *present, int required);
/* Longs also accept an int in the file (Avro's int-to-long promotion). */
int sc_avro_get_long(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, int64_t *out,
                     int *present, int required);
/* A required long >= 0. */
int sc_avro_get_nonneg(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, int64_t *out);
/* Bytes pointing into the value (valid while it is); absent = {NULL, 0}, present-but-empty non-NULL. */
int sc_avro_get_bytes(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, sc_bytes *out,
                      int required);
/* A string value as a C string (no NUL inside), pointing into the value. */
int sc_avro_as_string(const sc_avro_ctx *d, avro_value_t *v, const char *path, const char **out);
/* An optional or required string field; absent = NULL. */
int sc_avro_get_string(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path,
                       const char **out, int required);
/* A file name stored in a manifest: one path segment of at most SC_MANIFEST_PATH_MAX bytes. */
int sc_avro_check_name(const sc_avro_ctx *d, const char *path, const char *name);

/* ---- writing ---- */
int sc_avro_set_field(avro_value_t *rec, const char *name, avro_value_t *out);
/* Set a ["null", T] union to T (branch 1, returned in *branch) or, when !present, to null. */
int sc_avro_set_branch(avro_value_t *rec, const char *name, int present, avro_value_t *branch);
int sc_avro_set_int(avro_value_t *rec, const char *name, int32_t x);
int sc_avro_set_long(avro_value_t *rec, const char *name, int64_t x);
/* Bytes; with `row`, absent or empty bytes are written as Paimon's arity-0 row. */
int sc_avro_put_bytes(avro_value_t *v, sc_bytes b, int row);
int sc_avro_set_bytes(avro_value_t *rec, const char *name, sc_bytes b, int row);
int sc_avro_opt_int(avro_value_t *rec, const char *name, int present, int32_t x);
int sc_avro_opt_long(avro_value_t *rec, const char *name, int present, int64_t x);

#endif
