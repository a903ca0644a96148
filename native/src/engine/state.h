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

/* Read and decode schema/schema-<id> (table.c). SC_ENOTFOUND when absent; SC_ECORRUPT
 * naming the key when it does not decode or holds another id. */
int sc_table_read_schema(sc_table_schema *out, sc_table *t, int64_t id);

/* Raise metadata/table.json to format `version` when it is older (table.c): before a
 * snapshot uses something an older writer would silently drop. Store errors. */
int sc_table_raise_format(sc_table *t, int version);

/* A sorted, de-duplicated set of partitions (borrowed bytes). */
typedef struct sc_partition_set {
    sc_bytes *items;
    size_t count;
} sc_partition_set;

/* Partitions named by `a` and `b` (either may be NULL). */
int sc_partition_set_build(sc_partition_set *out, const sc_entry_vec *a, const sc_entry_vec *b);
void sc_partition_set_free(sc_partition_set *set);
/* 1 when `p` is in the set (binary search). */
int sc_partition_set_has(const sc_partition_set *set, sc_bytes p);
/* Put `p` (borrowed: it must outlive the set) into the set, keeping it sorted; no-op when there. */
int sc_partition_set_add(sc_partition_set *set, sc_bytes p);
/* Decode a manifest list / a manifest (pinned by size, and by hash when snapcommit wrote
 * the reference), from the handle's cache when there. Appends to `out`. */
int sc_state_load_list(sc_manifest_file_vec *out, sc_table *t, const sc_object_ref *ref);
int sc_state_load_manifest(sc_entry_vec *out, sc_table *t, const sc_manifest_file *meta);
/*
 * Read and check every manifest of snapshot `snap`'s delta list — its length,
 * its SHA-256 when the list pins one, its decoding — unless the handle's cache
 * holds it under that name and hash (this handle wrote it or checked it
 * before): a commit's check of the manifests its base added, which the next
 * snapshot carries forward (docs/protocols.md §3). SC_ECORRUPT naming the
 * manifest when it is missing or damaged; the store's code when it cannot be read.
 */
int sc_state_check_delta(sc_table *t, const sc_snapshot *snap);

/* A growable vector of positions. */
typedef struct sc_size_vec {
    size_t *items;
    size_t count, cap;
} sc_size_vec;
void sc_size_vec_free(sc_size_vec *v);

/*
 * The records of manifest `meta` whose identity hash (sc_file_index_hash) is
 * one of `hashes`: their positions, ascending, in `out` (reset first), and
 * the records in *out_records — borrowed from the handle's cache (valid until
 * the next cache insertion: read them, then let go) or, for a manifest too
 * big to cache, held in `holder`, which the caller frees with
 * sc_entry_vec_free either way. A cached manifest is indexed by hash once, so
 * later lookups cost O(log n) per hash instead of a pass over the records.
 * Equal hashes do not mean equal identities: callers compare the files.
 */
int sc_state_find_records(sc_size_vec *out, const sc_entry_vec **out_records, sc_entry_vec *holder, sc_table *t,
                          const sc_manifest_file *meta, const uint64_t *hashes, size_t count);
/* 1 when the manifest's partition statistics may hold one of the filter's partitions
 * (always 1 for a NULL filter). */
int sc_state_meta_may_hold(const sc_table *t, const sc_manifest_file *m, const sc_partition_set *filter);
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

/* A record handed over by a walk: borrowed, valid only during the call. Non-zero stops the walk. */
typedef int (*sc_state_record_fn)(void *ctx, sc_entry_kind kind, const sc_file_entry *f);

/* Below this many records a walk keeps the manifests it decodes in the handle's cache
 * (about a megabyte per thousand records); above, it reads them one record at a time. */
#define SC_STATE_KEEP_RECORDS 8192

/*
 * Hand every record of manifest `meta` to `fn`, in order, checked as
 * sc_state_load_manifest checks them (pins, decoding, schema). From the
 * handle's cache when it holds the manifest; otherwise read from the store
 * and, with `keep`, decoded whole and cached afterwards, or without it
 * decoded one record at a time and not kept: memory then stays that of one
 * record (plus the manifest's bytes) however big the manifest. `fn` must not
 * read other manifests. On a decoding error, records before it were handed over.
 */
int sc_state_each_record(sc_table *t, const sc_manifest_file *meta, int keep, sc_state_record_fn fn, void *ctx);

/* A live file handed over by sc_state_live_each (borrowed, valid during the call). */
typedef int (*sc_state_live_fn)(void *ctx, const sc_file_entry *f);

/*
 * The live files of `snap` in `filter` (NULL = all), as sc_state_live_files
 * finds them, in its order, handed to `emit` (may be NULL: count only) one at
 * a time; *out_count (may be NULL) their number. Memory: the files ever
 * deleted in the manifests read, 8 bytes per other live file, and one
 * manifest (decoded whole only when the snapshot's manifests hold at most
 * SC_STATE_KEEP_RECORDS records) — not the records. Damage (a file added
 * twice, a delete of a file not live, a manifest that does not decode) is
 * SC_ECORRUPT before the first call to `emit`.
 */
int sc_state_live_each(uint64_t *out_count, sc_table *t, const sc_snapshot *snap, const sc_partition_set *filter,
                       sc_state_live_fn emit, void *ctx);

/* Append every record of the delta manifests of snapshot `snap` (in `filter`). */
int sc_state_delta_records(sc_entry_vec *out, sc_table *t, const sc_snapshot *snap,
                           const sc_partition_set *filter);

/* Hand every record of the delta manifests of snapshot `snap` to `fn`, in order, one at a
 * time (sc_state_each_record): a delta above SC_STATE_KEEP_RECORDS records (a bulk load, a
 * full compaction) is never held; a smaller one is cached for the next reader. */
int sc_state_delta_each(sc_table *t, const sc_snapshot *snap, sc_state_record_fn fn, void *ctx);

/*
 * Prefetch: on a store with SC_CAP_CONCURRENT, the pinned lists / manifests
 * named (those the cache lacks) are fetched in one batch, one round trip,
 * checked and decoded as the ordinary reads check them, and cached, so that
 * the reads that follow find them there. A hint, never an error: on any other
 * store, or for an object that fails (missing, damaged, not decodable), nothing
 * changes and the ordinary read fetches it and reports. Bounded: at most
 * SC_STATE_PREFETCH_OBJECTS objects and SC_STATE_PREFETCH_BYTES of their pinned
 * lengths; objects of unknown length are skipped, and so are manifests the walks
 * stream without keeping (more than SC_STATE_KEEP_RECORDS records), beyond
 * SC_STATE_PREFETCH_RECORDS records in all.
 */
#define SC_STATE_PREFETCH_OBJECTS 32
#define SC_STATE_PREFETCH_BYTES ((uint64_t)8 << 20)
#define SC_STATE_PREFETCH_RECORDS (4 * (uint64_t)SC_STATE_KEEP_RECORDS)
void sc_state_prefetch_lists(sc_table *t, const sc_object_ref *const *refs, size_t n);
void sc_state_prefetch_manifests(sc_table *t, const sc_manifest_file *const *metas, size_t n);
/* Append list `ref` to `out` when the handle's cache holds it: 1; 0 when it does not
 * (nothing read); SC_ENOMEM. */
int sc_state_cached_list(sc_manifest_file_vec *out, sc_table *t, const sc_object_ref *ref);
/*
 * The same prefetch of manifests with its GETs sent in a caller's batch (engine/commit.c
 * sends its base's delta manifests with its writes): begin picks them (NULL: nothing to
 * fetch); sc_state_prefetch_calls gives the calls (borrowed: the caller copies them into
 * its batch and their answers back); end checks and caches what came back, and frees.
 */
typedef struct sc_state_prefetch sc_state_prefetch;
sc_state_prefetch *sc_state_prefetch_manifests_begin(sc_table *t, const sc_manifest_file *const *metas, size_t n);
struct sc_store_call *sc_state_prefetch_calls(sc_state_prefetch *p, size_t *out_count);
void sc_state_prefetch_end(sc_state_prefetch *p, sc_table *t);

/*
 * Expiration between a reader's reads (docs/protocols.md §13). A read of an
 * object named by snapshot `id` failed with `rc`: a missing snapshot, list or
 * manifest (SC_ENOTFOUND, SC_ECORRUPT) is damage only while `id` is retained.
 * Returns 1 when EARLIEST, read now, lies above `id` (*out_earliest): an
 * expiration removed it meanwhile, a race to retry or report as such. 0 for
 * any other failure, or when `id` is still retained (the error stands, code
 * and message). When EARLIEST itself cannot be read, neither is known: *rc
 * becomes that read's error (a store fault, not damage) with both messages.
 */
int sc_state_expired_under(uint64_t *out_earliest, sc_table *t, uint64_t id, int *rc);

/* A read of one snapshot's objects: fills the caller's `ctx` from snapshot `id` (0: the
 * table has none); on failure leaves nothing to free. SC_STATE_READ_AGAIN (no error set,
 * nothing to free): an expiration removed an older snapshot the read of `id` needed, which
 * shows that `id` is no longer the latest; read the latest again. */
typedef int (*sc_state_read_fn)(void *ctx, sc_table *t, uint64_t id);
#define SC_STATE_READ_AGAIN 1

/* Reads of the latest snapshot started again after expirations removed it under them. */
#define SC_STATE_READ_RESTARTS 3

/*
 * Run `read` on snapshot `id`, or on the latest when `id` is 0, so that an
 * expiration meanwhile is never reported as damage: the latest is found again
 * and the read started again (also when `read` says SC_STATE_READ_AGAIN) (SC_STATE_READ_RESTARTS times, then
 * SC_ETRANSIENT: run it again); a snapshot asked for by id that expired under
 * the read is SC_ENOTFOUND, saying so. `what` prefixes these messages.
 */
int sc_state_read_retained(sc_table *t, uint64_t id, const char *what, sc_state_read_fn read, void *ctx);

#endif
