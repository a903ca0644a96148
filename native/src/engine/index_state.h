/*
 * The index files of a table (internal): Paimon's index manifest of a
 * snapshot (every live HASH index and deletion-vectors file, format/index_manifest.h)
 * read, and combined with a commit's index changes into the next snapshot's,
 * as Paimon's IndexManifestFileHandler combines them.
 */
#ifndef SC_INDEX_STATE_H
#define SC_INDEX_STATE_H

#include "engine/state.h"
#include "format/changes.h"
#include "format/index_entry.h"

/* Paimon's index types (HashIndexFile.HASH_INDEX, DeletionVectorsIndexFile.DELETION_VECTORS_INDEX). */
#define SC_INDEX_TYPE_HASH "HASH"
#define SC_INDEX_TYPE_DV "DELETION_VECTORS"

/*
 * Append the entries of manifest/<name> (a snapshot's index manifest) to
 * `out`, read bounded by the handle's limits: SC_ECORRUPT naming it when it
 * is missing, does not decode or holds a DELETE record (a snapshot's index
 * manifest lists live files only); store errors as they arise.
 */
int sc_index_state_load(sc_index_vec *out, sc_table *t, const char *name);

/*
 * The live index files after a commit, into `out` (ADD records): `prev`
 * (the base's, live) combined with `c`'s index deletes and adds. HASH, and
 * DELETION_VECTORS of a table with buckets, are one file per (partition,
 * bucket, type): an added file replaces the one there. DELETION_VECTORS of a
 * bucket-unaware table, and any other type, are keyed by file name. With
 * `replace` (an OVERWRITE that replaces these partitions), every previous
 * entry of those partitions goes. The caller checks the conflicts first
 * (sc_conflict_check_index, engine/conflict.h).
 */
int sc_index_state_combine(sc_index_vec *out, const sc_table *t, const sc_index_vec *prev, const sc_changes *c,
                           const sc_partition_set *replace);

/* 1 when the table's deletion vectors are keyed by file name (Paimon's BUCKET_UNAWARE:
 * bucket -1 without a primary key). */
int sc_index_state_unaware(const sc_table *t);

#endif
