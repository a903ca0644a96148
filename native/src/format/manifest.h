/*
 * Manifest entries (internal): one data file's ADD or DELETE record, as
 * Paimon's ManifestEntry holds it (paimon_manifest.h encodes and decodes
 * them), and the owning vector every layer passes entries around in.
 */
#ifndef SC_MANIFEST_H
#define SC_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hash.h"
#include "format/limits.h"
#include "snapcommit/types.h"


typedef enum sc_entry_kind { SC_ENTRY_ADD = 1, SC_ENTRY_DELETE = 2 } sc_entry_kind;

/* One manifest record. `file`'s pointers are owned by the vector holding it. */
typedef struct sc_manifest_entry {
    sc_entry_kind kind;
    sc_file_entry file;
} sc_manifest_entry;

/* A vector of entries that owns copies of every string/byte field. */
typedef struct sc_entry_vec {
    sc_manifest_entry *items;
    size_t count;
    size_t cap;
} sc_entry_vec;

/* Append a deep copy of `file` (every member, format v2 included) after
 * sc_file_entry_validate. */
int sc_entry_vec_push(sc_entry_vec *v, sc_entry_kind kind, const sc_file_entry *file);
/* The same deep copy without sc_file_entry_validate's rules (only missing
 * pointers are refused): for decoders that check entries against their own
 * format's rules, e.g. Paimon's bucket-unaware total_buckets = -1 and
 * BinaryRow keys, which do not order bytewise. */
int sc_entry_vec_push_copy(sc_entry_vec *v, sc_entry_kind kind, const sc_file_entry *file);
void sc_entry_vec_free(sc_entry_vec *v);
/*
 * Check what holds for any entry whatever the table's schema: non-negative
 * bucket, level, rows and size; total_buckets -1 (bucket-unaware), 0 (the
 * table's setting) or > 0; bucket < total_buckets when that is > 0; a file
 * NAME (no "/", not "." or "..", at most SC_MANIFEST_PATH_MAX bytes); keys both present or both absent; min_seq <=
 * max_seq; byte fields with data. What depends on the schema (partition and
 * key rows, key order) is engine/entries.c's. SC_EINVAL naming the field.
 */
int sc_file_entry_validate(const sc_file_entry *file);
/*
 * Check a file name (a data or changelog file under <partition>/bucket-<b>/,
 * an index file under index/, a manifest under manifest/): non-NULL,
 * non-empty, at most SC_MANIFEST_PATH_MAX bytes, no "/" and not "." or "..".
 * SC_EINVAL with a message naming `field`.
 */
int sc_file_name_validate(const char *field, const char *name);
/* Bytewise comparison of two optional byte strings (absent sorts first). */
int sc_bytes_compare(sc_bytes a, sc_bytes b);
/* Printable form of an opaque partition/key for messages (escapes non-printables). */
void sc_bytes_describe(char *out, size_t cap, sc_bytes b);

/* Longest file or manifest name, in bytes: far above real names, and it keeps
 * a decoded name small enough to check on the stack. */
#define SC_MANIFEST_PATH_MAX 1024

/* The canonical serialized BinaryRow of no fields (4-byte arity 0, 8-byte header):
 * the partition of an unpartitioned table and the key of a table without one. */
#define SC_EMPTY_ROW_LEN 12
extern const uint8_t sc_empty_row[SC_EMPTY_ROW_LEN];

/*
 * Free the entries at index >= count and shrink the vector to `count`
 * (no-op when count >= v->count). The decoders use it to roll back a failed
 * call. Entries must be released through this or sc_entry_vec_free: each
 * entry's bytes, strings and arrays live in one allocation rooted at
 * file.partition.data.
 */
void sc_entry_vec_truncate(sc_entry_vec *v, size_t count);

#endif
