/*
 * Manifests and manifest lists (internal): the compact, checksummed binary
 * container described in docs/format.md §Manifests.
 *
 * Container (big-endian):
 *   0  4  magic "SCMF"
 *   4  2  container version (1)
 *   6  2  type: 1 = manifest (file entries), 2 = manifest list (manifest metas)
 *   8  4  entry count
 *  12  8  body length in bytes
 *  20  .. body: `count` records, fields below
 *  ..  32 SHA-256 of every preceding byte
 *
 * Manifest record: u8 kind (1 ADD, 2 DELETE); partition (varint len + bytes);
 *   varint bucket; varint total_buckets; varint level; file (varint len + bytes);
 *   varint rows; varint size; u8 flags (bit 0: keys present; other bits 0);
 *   when keys present: min_key, max_key (varint len + bytes each).
 * Manifest-list record: name (varint len + bytes); 32-byte SHA-256; varint
 *   length; varint added; varint deleted; min_partition; max_partition
 *   (varint len + bytes each).
 * Varints are unsigned LEB128, at most 10 bytes, canonical (no redundant
 * trailing 0x80 groups); values above a field's range are corruption.
 */
#ifndef SC_MANIFEST_H
#define SC_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hash.h"
#include "format/reader.h"
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
/* Validate one entry's fields (non-negative numbers, relative file name without
 * "..", keys both present or both absent, min <= max). SC_EINVAL naming the field. */
int sc_file_entry_validate(const sc_file_entry *file);
/* Bytewise comparison of two optional byte strings (absent sorts first). */
int sc_bytes_compare(sc_bytes a, sc_bytes b);
/* Printable form of an opaque partition/key for messages (escapes non-printables). */
void sc_bytes_describe(char *out, size_t cap, sc_bytes b);

/* Description of one manifest inside a manifest list. Owns its fields. */
typedef struct sc_manifest_meta {
    char *name;                    /* store key relative to the table, e.g. manifest/manifest-<uuid> */
    uint8_t sha256[SC_SHA256_LEN]; /* of the manifest's bytes */
    uint64_t length;               /* of the manifest's bytes */
    uint64_t added;                /* ADD records */
    uint64_t deleted;              /* DELETE records */
    uint8_t *min_partition;        /* smallest partition in the manifest */
    size_t min_partition_len;
    uint8_t *max_partition;        /* largest partition in the manifest */
    size_t max_partition_len;
} sc_manifest_meta;

typedef struct sc_meta_vec {
    sc_manifest_meta *items;
    size_t count;
    size_t cap;
} sc_meta_vec;

/* Append a deep copy of `meta`. */
int sc_meta_vec_push(sc_meta_vec *v, const sc_manifest_meta *meta);
void sc_meta_vec_free(sc_meta_vec *v);

/* Encode entries as a type-1 container appended to `out`. */
int sc_manifest_encode(sc_buf *out, const sc_entry_vec *entries);
/*
 * Decode a type-1 container of exactly `len` bytes, appending to `out`.
 * `object` names the object in error messages ("manifest/manifest-…").
 * SC_ECORRUPT with a message naming the object, byte offset, record index and
 * field for any truncation, bad magic/version/type, checksum mismatch,
 * non-canonical varint, out-of-range value or trailing bytes.
 * On error `out` holds no partial records from this call.
 */
int sc_manifest_decode(sc_entry_vec *out, const uint8_t *data, size_t len,
                       const sc_decode_limits *limits, const char *object);

/* Same for manifest lists (type 2). */
int sc_manifest_list_encode(sc_buf *out, const sc_meta_vec *metas);
int sc_manifest_list_decode(sc_meta_vec *out, const uint8_t *data, size_t len,
                            const sc_decode_limits *limits, const char *object);

/* ---- Added by the manifest codec (manifest_entry.c, manifest_list.c) ---- */

/* Longest file or manifest name, in bytes: far above real names, and it keeps
 * a decoded name small enough to check on the stack. */
#define SC_MANIFEST_PATH_MAX 1024

/*
 * Check a path relative to the table root (data file names, manifest names):
 * non-NULL, non-empty, at most SC_MANIFEST_PATH_MAX bytes, not absolute, no
 * empty, "." or ".." segment (so no "//", "./x", "a/../b" or trailing "/":
 * two spellings of one object would defeat duplicate and conflict checks).
 * SC_EINVAL with a message naming `field`.
 */
int sc_relpath_validate(const char *field, const char *path);

/*
 * Free the entries at index >= count and shrink the vector to `count`
 * (no-op when count >= v->count). The decoders use it to roll back a failed
 * call. Entries must be released through this or sc_entry_vec_free: each
 * entry's bytes, strings and arrays live in one allocation rooted at
 * file.partition.data.
 */
void sc_entry_vec_truncate(sc_entry_vec *v, size_t count);

#endif
