/*
 * Paimon manifests and manifest lists (internal): Avro container files with
 * Paimon 1.4's record schemas (docs/paimon-layout.md §5), encoded and
 * decoded through avro_container.h.
 *
 * Manifest (manifest/manifest-*): ManifestEntry records, _VERSION 2:
 *   _KIND (0 ADD, 1 DELETE), _PARTITION, _BUCKET, _TOTAL_BUCKETS, _FILE
 *   (DataFileMeta: every member of sc_file_entry).
 * Manifest list (manifest/manifest-list-*): ManifestFileMeta records,
 *   _VERSION 2, plus one field of ours that Paimon's readers skip (they match
 *   fields by name): _SNAPCOMMIT_SHA256 ["null","bytes"], the SHA-256 of the
 *   manifest, so a replaced or damaged manifest is detected. Lists written by
 *   Paimon lack it (has_sha256 = 0): then only the size is checked.
 *
 * We write the complete 1.4.2 schemas (pypaimon needs fields that Java
 * treats as optional) with the deflate codec; we read null, deflate and
 * zstandard (Paimon's default) and any field order, and ignore unknown
 * fields. Decoders fail closed: SC_ECORRUPT naming the object, record index
 * and field for a missing required field, a wrong type, a negative count or
 * size, an unknown _KIND or _VERSION; SC_ELIMIT above the limits. On error
 * `out` holds nothing from the call.
 */
#ifndef SC_PAIMON_MANIFEST_H
#define SC_PAIMON_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hash.h"
#include "format/manifest.h" /* sc_entry_vec, sc_manifest_entry, sc_entry_kind */
#include "format/limits.h"   /* sc_decode_limits */

/* The record version Paimon 1.4 writes and accepts in both file types. */
#define SC_PAIMON_RECORD_VERSION 2

/* Encode `entries` as a Paimon manifest (deflate). SC_EINVAL when an entry
 * cannot be represented (a negative size, a NULL name). */
int sc_paimon_manifest_encode(sc_buf *out, const sc_entry_vec *entries);
/* Decode a manifest of exactly `len` bytes, appending its entries to `out`. */
int sc_paimon_manifest_decode(sc_entry_vec *out, const uint8_t *data, size_t len,
                              const sc_decode_limits *limits, const char *object);

/*
 * The same decoding, one record at a time: `fn` gets each record (index from
 * 0; the entry and its bytes are borrowed, valid only during the call) and
 * nothing is kept, so memory does not grow with the manifest. A non-zero
 * return from `fn` stops the walk and is returned. Records before a
 * malformed one have been handed over already.
 */
typedef int (*sc_manifest_record_fn)(void *ctx, sc_entry_kind kind, const sc_file_entry *f, uint64_t index);
int sc_paimon_manifest_each(const uint8_t *data, size_t len, const sc_decode_limits *limits, const char *object,
                            sc_manifest_record_fn fn, void *ctx);

/* One ManifestFileMeta. Owns its strings and bytes. */
typedef struct sc_manifest_file {
    char *name;                 /* file name under manifest/ (no directory) */
    int64_t size;               /* _FILE_SIZE */
    int64_t added;              /* _NUM_ADDED_FILES */
    int64_t deleted;            /* _NUM_DELETED_FILES */
    uint8_t *partition_min;     /* _PARTITION_STATS._MIN_VALUES (serialized row) */
    size_t partition_min_len;
    uint8_t *partition_max;     /* _PARTITION_STATS._MAX_VALUES */
    size_t partition_max_len;
    int64_t *partition_null_counts; /* -1 = null element; NULL + 0 = null list */
    size_t partition_null_count_len;
    int has_partition_null_counts;
    int64_t schema_id;
    int has_bucket_range;
    int32_t min_bucket, max_bucket;
    int has_level_range;
    int32_t min_level, max_level;
    int has_row_id_range;
    int64_t min_row_id, max_row_id;
    int has_sha256;
    uint8_t sha256[SC_SHA256_LEN];
    /* _SNAPCOMMIT_FILE_INDEX (file_index.h): NULL when absent (Paimon's lists, big manifests). */
    uint8_t *file_index;
    size_t file_index_len;
} sc_manifest_file;

typedef struct sc_manifest_file_vec {
    sc_manifest_file *items;
    size_t count;
    size_t cap;
} sc_manifest_file_vec;

/* Append a deep copy. */
int sc_manifest_file_vec_push(sc_manifest_file_vec *v, const sc_manifest_file *m);
void sc_manifest_file_vec_free(sc_manifest_file_vec *v);

int sc_paimon_list_encode(sc_buf *out, const sc_manifest_file_vec *files);
int sc_paimon_list_decode(sc_manifest_file_vec *out, const uint8_t *data, size_t len,
                          const sc_decode_limits *limits, const char *object);

#endif
