/*
 * Index-manifest entries (internal): one index file's ADD or DELETE record,
 * as Paimon's IndexManifestEntry holds it (index_manifest.h encodes and
 * decodes them), and the owning vector change sets and decoders keep them in.
 */
#ifndef SC_INDEX_ENTRY_H
#define SC_INDEX_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "format/manifest.h" /* sc_entry_kind */
#include "snapcommit/types.h"

/* One record. `entry`'s pointers live in `mem`, owned by the vector. */
typedef struct sc_index_record {
    sc_entry_kind kind;
    sc_index_entry entry;
    void *mem;
} sc_index_record;

/* A vector of index records that owns copies of every string, byte and range field. */
typedef struct sc_index_vec {
    sc_index_record *items;
    size_t count;
    size_t cap;
} sc_index_vec;

/*
 * What holds for any index entry: bucket >= 0; index_type non-empty; file a
 * file NAME (no "/", not "." or "..", at most SC_MANIFEST_PATH_MAX bytes);
 * size and rows >= 0; ranges present when counted, each naming a data file
 * by name with offset and length >= 0; byte fields with data. SC_EINVAL
 * naming the field.
 */
int sc_index_entry_validate(const sc_index_entry *e);
/* Append a deep copy after sc_index_entry_validate. */
int sc_index_vec_push(sc_index_vec *v, sc_entry_kind kind, const sc_index_entry *e);
/* The same deep copy, refusing only missing pointers: for the decoder, which
 * checks records against the format's own rules and names them. */
int sc_index_vec_push_copy(sc_index_vec *v, sc_entry_kind kind, const sc_index_entry *e);
/* Free the records at index >= count (rollback of a failed call). */
void sc_index_vec_truncate(sc_index_vec *v, size_t count);
void sc_index_vec_free(sc_index_vec *v);

#endif
