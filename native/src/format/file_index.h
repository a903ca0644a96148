/*
 * The file index of a manifest (internal; docs/format.md §5.3): a Bloom
 * filter over the identities — (partition, bucket, file name) — of every
 * record in one manifest, ADD and DELETE alike, and the range of total
 * bucket counts its ADD records declare. snapcommit stores it in the
 * manifest list record of that manifest (`_SNAPCOMMIT_FILE_INDEX`, which
 * Paimon's readers skip), so that a commit can tell from the list alone
 * which manifests may mention the files it adds or deletes, and read only
 * those: the cost of a commit follows what it touches, not the table's age.
 * A filter answers "maybe" or "certainly not", never a false "not".
 */
#ifndef SC_FILE_INDEX_H
#define SC_FILE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "snapcommit/types.h"

#define SC_FILE_INDEX_VERSION 1
#define SC_FILE_INDEX_HEADER_LEN 11
/* Bits per identity when the filter is built: a false "maybe" about once in 100,000
 * lookups, so that even a compaction naming 1,000 files rarely reads a manifest for nothing. */
#define SC_FILE_INDEX_BITS_PER_FILE 24
/* Below this many bits per identity the filter is not worth its bytes: no index. */
#define SC_FILE_INDEX_MIN_BITS_PER_FILE 8
#define SC_FILE_INDEX_HASHES 16
#define SC_FILE_INDEX_MIN_FILTER_BYTES 16

/* A decoded (validated) index. Borrows the filter bytes of the encoded form. */
typedef struct sc_file_index {
    int hashes;           /* probes per identity, 1..16 */
    int has_bucket_range; /* some ADD record declares total buckets > 0 */
    int32_t min_total_buckets, max_total_buckets;
    const uint8_t *filter;
    size_t filter_len; /* bytes; the filter has filter_len * 8 bits */
} sc_file_index;

/* The 64-bit hash of a file's identity the filter is probed with (stable: part of the format). */
uint64_t sc_file_index_hash(sc_bytes partition, int32_t bucket, const char *file);

/*
 * Build the index of `count` records. `files[i]` and `is_add[i]` describe
 * record i. Writes the encoded index to `out` (reset first) and sets
 * *out_present; when the filter would need more than `max_len` bytes for
 * SC_FILE_INDEX_MIN_BITS_PER_FILE bits per record, writes nothing and
 * *out_present = 0 (readers then read the manifest). SC_ENOMEM only.
 */
int sc_file_index_build(sc_buf *out, int *out_present, const sc_file_entry *const *files, const uint8_t *is_add,
                        size_t count, size_t max_len);

/* Validate `len` bytes at `data` (SC_ECORRUPT naming `where` on anything malformed). */
int sc_file_index_decode(sc_file_index *out, const uint8_t *data, size_t len, const char *where);

/* 1 when the manifest may hold a record of the identity with hash `h`, 0 when it certainly does not. */
int sc_file_index_may_contain(const sc_file_index *ix, uint64_t h);

#endif
