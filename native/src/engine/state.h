/*
 * Reading table state (internal): manifest lists and manifests pinned by
 * hash and length, merged into the live files of a snapshot, optionally
 * restricted to a set of partitions so that cost follows what a commit touches.
 */
#ifndef SC_STATE_H
#define SC_STATE_H

#include "format/manifest.h"
#include "format/paimon_manifest.h"
#include "format/snapshot.h"
#include "strategy/strategy.h"

/* Read and decode snapshot `id` (table.c); also returns the raw bytes' SHA-256 when
 * `out_hash` is non-NULL. */
int sc_table_read_snapshot(sc_snapshot *out, uint8_t out_hash[SC_SHA256_LEN], sc_table *t,
                           uint64_t id);

/* A sorted, de-duplicated set of partitions (borrowed bytes). */
typedef struct sc_partition_set {
    sc_bytes *items;
    size_t count;
} sc_partition_set;

/* Partitions named by `a` and `b` (either may be NULL). */
int sc_partition_set_build(sc_partition_set *out, const sc_entry_vec *a, const sc_entry_vec *b);
void sc_partition_set_free(sc_partition_set *set);
/* Decode a manifest list / a manifest (pinned by size, and by hash when snapcommit wrote
 * the reference), from the handle's cache when there. Appends to `out`. */
int sc_state_load_list(sc_manifest_file_vec *out, sc_table *t, const sc_object_ref *ref);
int sc_state_load_manifest(sc_entry_vec *out, sc_table *t, const sc_manifest_file *meta);
/* A list / manifest this handle just wrote (`data`, `len`: its bytes, borrowed),
 * put into the handle's cache so that its next commit does not read it back.
 * Best effort: nothing is cached on any failure. */
void sc_state_remember_list(sc_table *t, const sc_object_ref *ref, const uint8_t *data, size_t len);
void sc_state_remember_manifest(sc_table *t, const sc_object_ref *ref, const uint8_t *data, size_t len);

/*
 * Append to `out` the ADD records of the files live in `snap`, in the
 * partitions of `filter` (NULL = every partition). Manifests whose partition
 * statistics cannot hold any of the filter's partitions are not read. Records that delete a file that is
 * not live, or add one twice, are SC_ECORRUPT.
 */
int sc_state_live_files(sc_entry_vec *out, sc_table *t, const sc_snapshot *snap,
                        const sc_partition_set *filter);

/* Append every record of the delta manifests of snapshot `snap` (in `filter`). */
int sc_state_delta_records(sc_entry_vec *out, sc_table *t, const sc_snapshot *snap,
                           const sc_partition_set *filter);

#endif
