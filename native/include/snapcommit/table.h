/*
 * snapcommit tables: init, open, commit, replay filtering, inspection.
 *
 * Thread-safety: a sc_table handle is used by one thread at a time. Several
 * handles — in one process or many — may commit to the same table
 * concurrently: that is what the claim strategies are for.
 *
 * Ownership: every `**out` object is new and owned by the caller, freed with
 * the matching *_free function; free functions accept NULL. Input pointers
 * are borrowed for the duration of the call only.
 */
#ifndef SNAPCOMMIT_TABLE_H
#define SNAPCOMMIT_TABLE_H

#include "snapcommit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapcommit/error.h"
#include "snapcommit/log.h"
#include "snapcommit/store.h"
#include "snapcommit/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_table sc_table;

/* ---- changes: the files one commit adds and deletes ---- */

typedef struct sc_changes sc_changes;

/*
 * A new, empty change set in *out (NULL on failure), owned by the caller:
 * free it with sc_changes_free. Errors: SC_ENOMEM.
 */
SC_API int sc_changes_new(sc_changes **out);
/* Free a change set and the entries copied into it. Accepts NULL. */
SC_API void sc_changes_free(sc_changes *changes);
/*
 * Copy an entry into the change set. SC_EINVAL names the bad field: besides
 * the ranges above, partition, min_key and max_key are at most 65,536 bytes,
 * and an added file's partition and name contain no control character (C0,
 * DEL, C1). A delete may name any file, so that such a file written by an
 * older version can still be removed.
 */
SC_API int sc_changes_add(sc_changes *changes, const sc_file_entry *entry);
SC_API int sc_changes_delete(sc_changes *changes, const sc_file_entry *entry);
/* Largest change-set JSON that sc_table_parse_changes accepts (64 MiB). */
#define SC_CHANGES_MAX_JSON_BYTES ((size_t)64 << 20)
/* Most entries (adds and deletes together) in one change-set JSON. Each
 * decoded entry holds a whole DataFileMeta (~0.9 KB with its copies during a
 * commit), so this bounds a commit's memory to ~250 MB (docs/operations.md). */
#define SC_CHANGES_MAX_ENTRIES 250000
/* sc_table_parse_changes, the change-set JSON of a table, is declared with the table API below. */
/* Number of entries added (sc_changes_add) or deleted so far; `changes` must not be NULL. */
SC_API size_t sc_changes_add_count(const sc_changes *changes);
SC_API size_t sc_changes_delete_count(const sc_changes *changes);

/*
 * Changelog files (Paimon's changelog producers write them under the bucket
 * directory like data files) are only ever added: the entry is checked and
 * copied as sc_changes_add's. SC_EINVAL names the bad field.
 */
SC_API int sc_changes_add_changelog(sc_changes *changes, const sc_file_entry *entry);
/*
 * Copy an index file (a bucket's hash index or deletion vectors) into the set
 * as added or deleted. SC_EINVAL names the bad field: index_type non-empty,
 * file a file name (no "/", not "." or "..", at most 1024 bytes, no control
 * character when added), size and rows >= 0, bucket >= 0, every range's
 * data_file a file name and offset and length >= 0, partition at most
 * 65,536 bytes.
 */
SC_API int sc_changes_add_index(sc_changes *changes, const sc_index_entry *entry);
SC_API int sc_changes_delete_index(sc_changes *changes, const sc_index_entry *entry);
/* Numbers of changelog files, added and deleted index files so far; `changes` must not be NULL. */
SC_API size_t sc_changes_changelog_count(const sc_changes *changes);
SC_API size_t sc_changes_index_add_count(const sc_changes *changes);
SC_API size_t sc_changes_index_delete_count(const sc_changes *changes);

/* The section of a change set that sc_changes_add_paimon fills. */
typedef enum sc_paimon_section {
    SC_SECTION_DATA = 0,      /* data files: ManifestEntry records */
    SC_SECTION_CHANGELOG = 1, /* changelog files: ManifestEntry records, ADD only */
    SC_SECTION_INDEX = 2,     /* index files: IndexManifestEntry records */
} sc_paimon_section;
/*
 * Decode `len` bytes of a Paimon manifest-format Avro container (the null,
 * deflate and zstandard codecs Paimon writes) and add every record: DATA and
 * CHANGELOG read ManifestEntry records (_KIND 0 ADD adds, 1 DELETE deletes; a
 * DELETE in CHANGELOG is SC_EINVAL), INDEX reads IndexManifestEntry records
 * (ADD → sc_changes_add_index, DELETE → sc_changes_delete_index). The same
 * decoders and limits as manifests read from storage: SC_ECORRUPT names the
 * record and field, SC_ELIMIT when over the limits, SC_EUNSUPPORTED for a
 * _GLOBAL_INDEX; each record then passes the checks of the add/delete call
 * (SC_EINVAL naming the record). Nothing is added on error. The bytes are
 * borrowed for the call.
 */
SC_API int sc_changes_add_paimon(sc_changes *changes, sc_paimon_section section, const uint8_t *avro, size_t len);

/* ---- opening ---- */

/*
 * Create a new, empty table in `store`. The location is checked first with
 * sc_store_check() (an s3 bucket must exist; it is never created). `strategy` SC_STRATEGY_AUTO picks
 * from the store's capabilities; an explicit strategy the store cannot
 * honour fails with SC_EUNSUPPORTED. Nothing is changed when a table
 * already exists (SC_ETABLEEXISTS). The store is borrowed.
 */
SC_API int sc_table_create(sc_store *store, sc_strategy_kind strategy);
/*
 * As sc_table_create, with the table's schema: `schema_json` (`len` bytes,
 * borrowed) is Paimon's schema JSON or the short form
 * {"fields":[{"name":"dt","type":"STRING"},...],"partitionKeys":[...],
 *  "primaryKeys":[...],"options":{...}} (docs/format.md). It is stored as
 * schema/schema-0. NULL means a table without fields or keys.
 * Errors: SC_EINVAL naming the problem in the schema, then as sc_table_create.
 */
SC_API int sc_table_create_with_schema(sc_store *store, sc_strategy_kind strategy,
                                       const char *schema_json, size_t len);
/*
 * The table's current schema as Paimon's schema JSON, in *out (malloc()ed,
 * NUL-terminated, the caller free()s it) and *out_len (without the NUL).
 * Errors: SC_ECORRUPT (damaged schema), store errors.
 */
SC_API int sc_table_schema_json(char **out, size_t *out_len, sc_table *table);

/*
 * Open the table in `store`. The store is borrowed and must outlive the
 * handle. Errors: SC_ENOTABLE (no metadata/table.json: no table, or a Paimon
 * table snapcommit has not adopted yet, which the message says),
 * SC_ECORRUPT (damaged table metadata), SC_EUNSUPPORTED (format version or
 * strategy this build/store cannot use).
 */
SC_API int sc_table_open(sc_table **out, sc_store *store);

/*
 * Flags of the *_with_flags opens (0 = as sc_table_open).
 * SC_OPEN_READ_UNADOPTED: also open a Paimon table that snapcommit has not
 * adopted (schema/schema-0 but no metadata/table.json), for reading only:
 * its snapshots are found through snapshot/ as Paimon's readers find them,
 * and nothing is written. sc_table_commit, sc_table_expire and
 * sc_table_remove_orphans on such a handle fail with SC_ENOTABLE (adopt the
 * table first: sc_table_create without a schema). sc_table_strategy() is
 * SC_STRATEGY_AUTO (none chosen) and sc_table_uuid() "". A table that is
 * adopted opens as without the flag.
 */
#define SC_OPEN_READ_UNADOPTED 0x1u
/* As sc_table_open, with `flags` (SC_OPEN_*; an unknown bit is SC_EINVAL). */
SC_API int sc_table_open_with_flags(sc_table **out, sc_store *store, unsigned flags);

/*
 * As sc_table_open, but opens the store at `location` (sc_store_open): the
 * handle owns that store and sc_table_free frees it. *out is NULL on failure,
 * and then no store is left open.
 * Errors: those of sc_store_open, then those of sc_table_open.
 */
SC_API int sc_table_open_location(sc_table **out, const char *location);
/*
 * As sc_table_open_location, with the store's configuration (NULL =
 * environment and defaults; `config` is only read during the call).
 * Errors: those of sc_store_open_with_config, then those of sc_table_open.
 */
SC_API int sc_table_open_location_with_config(sc_table **out, const char *location,
                                              const sc_store_config *config);
/* As sc_table_open_location_with_config, with `flags` (SC_OPEN_*). */
SC_API int sc_table_open_location_with_flags(sc_table **out, const char *location,
                                             const sc_store_config *config, unsigned flags);

/*
 * Parse a change set for `table`: {"add":[ENTRY...],"delete":[ENTRY...]}, each
 * ENTRY {"partition":"dt=2024-01-01/h=3" (a spec of the table's partition
 * keys, "" when unpartitioned), "bucket":0, "totalBuckets":N (optional: -1
 * bucket-unaware, 0 or absent the table's setting), "level":0, "file":"<name,
 * no />", "rows":10, "size":100, "minKey":[...], "maxKey":[...] (the trimmed
 * primary key's values; a bare value for a one-field key; only on
 * primary-key tables), "minSeq":0, "maxSeq":0} (docs/format.md §8).
 * *out is owned by the caller (sc_changes_free). SC_EINVAL naming the entry
 * and field on bad input; SC_ELIMIT when len is above
 * SC_CHANGES_MAX_JSON_BYTES or the text has more than SC_CHANGES_MAX_ENTRIES
 * entries (counted before any is decoded). Memory is bounded: entries are
 * decoded one at a time (docs/operations.md).
 */
SC_API int sc_table_parse_changes(sc_changes **out, sc_table *table, const char *json, size_t len);

/* Close the handle (and its store when opened by location). Accepts NULL. On a concurrent
 * store (S3) it first waits for the LATEST hint of the handle's last commit, which a thread
 * of its own writes (one request, with the store's retries and timeouts: seconds at worst
 * against an unreachable server): a store the table borrows must outlive this call. */
SC_API void sc_table_free(sc_table *table);

/*
 * Retry policy of this handle's commits (a handle starts with
 * sc_retry_policy_default). *policy is copied; both must be non-NULL. No
 * errors: the values are taken as given (see sc_retry_policy).
 */
SC_API void sc_table_set_retry_policy(sc_table *table, const sc_retry_policy *policy);
/*
 * Time and randomness of this handle (snapcommit/env.h): backoff waits and
 * jitter, timeouts, snapshot times, UUIDs, the tracker's fences. A handle
 * starts with its store's (sc_store_set_env). *env is copied; NULL restores
 * the real environment.
 * Errors: SC_EINVAL (NULL table, env not initialised with sc_env_init).
 */
SC_API int sc_table_set_env(sc_table *table, const sc_env *env);
SC_API sc_strategy_kind sc_table_strategy(const sc_table *table);
/* Table UUID as 36-character text. Owned by the table. */
SC_API const char *sc_table_uuid(const sc_table *table);
SC_API sc_store *sc_table_store(sc_table *table);

/* ---- committing ---- */

typedef struct sc_commit_request {
    const char *commit_user;    /* non-empty, at most 255 bytes, UTF-8, no control characters */
    int64_t identifier;         /* >= 0, strictly increasing per user (checkpoint id) */
    sc_commit_kind kind;
    uint64_t base_snapshot;     /* snapshot the changes were planned against, 0 = unknown */
    /* The files; sc_table_commit checks them against the table's schema and
     * completes them in place (docs/api.md: total_buckets 0 becomes the
     * table's setting; missing statistics, file source and creation time are
     * filled in), so the same change set can be committed again unchanged. */
    sc_changes *changes;
} sc_commit_request;

typedef struct sc_commit_result {
    uint64_t snapshot_id;       /* the new snapshot (0 when nothing was written) */
    uint64_t existing_snapshot; /* SC_ECOMMITTED: snapshot that holds the identifier, 0 unknown */
    int attempts;               /* claims tried */
    int lost_claims;            /* claims another writer won */
    int unknown_outcomes;       /* claims whose answer was lost and reconciled */
    int64_t elapsed_ms;
    sc_store_stats stats;       /* store operations spent by this commit */
    /* The store operations of the claim window of the attempt that won: from
     * the moment its base snapshot N was known (the latest snapshot read) to
     * the claim's answer, inclusive. Zero when nothing was claimed. */
    sc_store_stats window_stats;
    /* Requests on this commit's critical path: each request sent alone counts one,
     * requests sent together in one batch (a concurrent store) count one. On a
     * network store the commit's latency is about round_trips x the round-trip time. */
    uint64_t round_trips;
} sc_commit_result;
/* sc_commit_result has window_stats (added after 1.0: the struct grew). */
#define SC_COMMIT_RESULT_HAS_WINDOW 1
/* ... and round_trips (the struct grew again). */
#define SC_COMMIT_RESULT_HAS_ROUND_TRIPS 1

/*
 * Publish `req->changes` as the next snapshot, exactly once.
 *   0               committed: out->snapshot_id is the new snapshot
 *   SC_ECOMMITTED   (user, identifier) is at or below the user's watermark:
 *                   already committed, nothing written
 *   SC_ECONFLICT    a real conflict (file deleted twice, file re-added, LSM
 *                   overlap, bucket count change); never retried
 *   SC_ERETRIES / SC_ETIMEOUT  claims kept being lost
 *   SC_EUNKNOWN     a claim's outcome could not be reconciled (storage
 *                   unreachable); the caller must not assume failure
 *   store and SC_ECORRUPT codes as they arise
 * `out` may be NULL. Not thread-safe per handle.
 */
SC_API int sc_table_commit(sc_commit_result *out, sc_table *table, const sc_commit_request *req);

/*
 * One Paimon checkpoint: an append part (new and deleted data files, changelog
 * and index files of the data increment) and a compact part (compactBefore as
 * deletes, compactAfter as adds, its changelog and index files). The request
 * borrows both change sets; either may be NULL or empty.
 */
/*
 * What the append part of an INSERT OVERWRITE checkpoint replaces (Paimon's
 * FileStoreCommit.overwritePartition). The replaced files are planned anew on
 * every attempt from what is live at its base, so a file committed meanwhile
 * into a replaced partition goes too, and one into another partition stays.
 * The index files of the replaced partitions go with them. The changelog files
 * of both parts are dropped (logged as a warning), as Paimon's: an overwrite
 * commits no changelog. Without a compact part, Paimon's overwrite-upgrade
 * (table option, default true) raises the append part's level-0 files of a
 * primary-key table to the top level, per bucket when their keys do not
 * overlap (the change set is completed in place).
 */
typedef enum sc_overwrite_scope {
    SC_OVERWRITE_NONE = 0,      /* a normal checkpoint */
    SC_OVERWRITE_DYNAMIC = 1,   /* the partitions the append part adds or deletes files in (Paimon's
                                 * dynamic-partition-overwrite); none: nothing replaced, no append
                                 * snapshot. On an unpartitioned table: the whole table (as Paimon) */
    SC_OVERWRITE_PARTITION = 2, /* every partition matching overwrite_partition */
    SC_OVERWRITE_TABLE = 3,     /* the whole table */
} sc_overwrite_scope;

typedef struct sc_checkpoint_request {
    const char *commit_user;   /* as sc_commit_request */
    int64_t identifier;        /* as sc_commit_request: one identifier for both parts */
    uint64_t base_snapshot;    /* snapshot the append part was planned against, 0 = unknown */
    int has_watermark;
    int64_t watermark;         /* the checkpoint's event-time watermark (Paimon's snapshot "watermark") */
    sc_changes *append;        /* may be NULL or empty; completed in place as sc_table_commit does */
    sc_changes *compact;       /* may be NULL or empty */
    /* ---- added with INSERT OVERWRITE (the struct grows at the end; zeroed = a normal checkpoint) ---- */
    sc_overwrite_scope overwrite;
    /* SC_OVERWRITE_PARTITION: a spec of some or all partition keys, "k=v[/k=v...]" escaped as
     * partition paths (docs/format.md §10; the partition.default-name value stands for null); a
     * partition matches when it has those values, whatever its other keys hold. "" = the whole
     * table; NULL is SC_EINVAL, as are a value not of its key's type and a key that is not a
     * partition key (checked before anything is written). Every data file the append part adds or
     * deletes must lie in a matching partition (SC_EINVAL otherwise). Borrowed. */
    const char *overwrite_partition;
} sc_checkpoint_request;

typedef struct sc_checkpoint_result {
    sc_commit_result append;   /* snapshot_id 0 when that part wrote nothing */
    sc_commit_kind append_kind; /* APPEND, or OVERWRITE when promoted (see below) */
    sc_commit_result compact;  /* snapshot_id 0 when that part wrote nothing */
} sc_checkpoint_result;

/*
 * Commit one checkpoint as Paimon does: the append part, then the compact
 * part, each a snapshot of its own with the same (commit user, identifier),
 * each claimed, retried and reconciled as sc_table_commit, each with its own
 * commit UUID. An empty part writes nothing. The append part is labelled
 * OVERWRITE when it deletes a data file or adds or deletes a DELETION_VECTORS
 * index file (Paimon's rule), but applies exactly its changes: unlike
 * sc_table_commit's OVERWRITE it replaces no partition, unless req->overwrite
 * asks for an overwrite (sc_overwrite_scope; then it is labelled OVERWRITE and
 * written even when empty, except a DYNAMIC one that adds nothing). Both snapshots carry
 * the watermark max(previous snapshot's, req->watermark) (absent when
 * neither has one), the table's latest schema id, their own changelog
 * manifest list and count (absent without changelog files) and the index
 * manifest of every live index file.
 *   SC_ECOMMITTED   the identifier is at or below the user's watermark:
 *                   nothing written (a checkpoint whose append part landed
 *                   is filtered whole, its compact part with it, as Paimon's)
 *   other codes as sc_table_commit's; when the append part landed and the
 *   compact part failed, out->append.snapshot_id says what landed.
 * `out` may be NULL. Not thread-safe per handle.
 */
SC_API int sc_table_commit_checkpoint(sc_checkpoint_result *out, sc_table *table, const sc_checkpoint_request *req);
/*
 * Parse a checkpoint change set (docs/format.md §8: the sc_table_parse_changes
 * JSON plus "changelog", "index", "compact" and "watermark") into its append
 * and compact parts (owned by the caller, sc_changes_free; never NULL on
 * success, possibly empty) and watermark (*out_has_watermark 0 when absent).
 * Errors as sc_table_parse_changes; nothing to free on error.
 */
SC_API int sc_table_parse_checkpoint(sc_changes **out_append, sc_changes **out_compact, int *out_has_watermark,
                                     int64_t *out_watermark, sc_table *table, const char *json, size_t len);
/*
 * The same, with the checkpoint's "overwrite" member (docs/format.md §10),
 * which sc_table_parse_checkpoint refuses as an unknown key: *out_scope
 * (SC_OVERWRITE_NONE when absent) and, for SC_OVERWRITE_PARTITION, the spec
 * in *out_partition (malloc()ed, free() it; NULL otherwise). Nothing to free
 * on error.
 */
SC_API int sc_table_parse_checkpoint_request(sc_changes **out_append, sc_changes **out_compact, int *out_has_watermark,
                                             int64_t *out_watermark, sc_overwrite_scope *out_scope,
                                             char **out_partition, sc_table *table, const char *json, size_t len);

/* ---- idempotency ---- */

/*
 * The last identifier committed by `user`, read from the latest snapshot
 * alone. *out_found = 0 when the user has no commit recorded (or the table
 * has no snapshot); *out_identifier is then left as it was.
 * Errors (*out_found 0): SC_EINVAL for a NULL or empty user; store errors and
 * SC_ECORRUPT from finding and reading the latest snapshot; SC_ETRANSIENT when
 * expirations removed the latest while it was read, 3 times in a row (call
 * again); SC_ENOMEM.
 */
SC_API int sc_table_last_committed(int64_t *out_identifier, int *out_found, sc_table *table,
                                   const char *user);

/*
 * Keep the identifiers not yet committed by `user` (greater than its
 * watermark), in input order. `out_ids` must have room for `count` values
 * and may be `ids` itself (filtering in place); *out_count receives how many
 * were kept. One read of the latest snapshot; a table without snapshots
 * keeps every identifier.
 * Errors (*out_count and out_ids untouched): SC_EINVAL for a NULL or empty
 * user; store errors and SC_ECORRUPT from finding and reading the latest
 * snapshot; SC_ETRANSIENT as sc_table_last_committed; SC_ENOMEM.
 */
SC_API int sc_table_filter_committed(int64_t *out_ids, size_t *out_count, sc_table *table,
                                     const char *user, const int64_t *ids, size_t count);

/* ---- inspection ---- */

typedef struct sc_snapshot_info {
    uint64_t id;
    char *commit_user;
    int64_t commit_identifier;
    sc_commit_kind commit_kind;
    int64_t time_millis;
    int64_t total_record_count;
    int64_t delta_record_count;
    uint64_t file_count;        /* live files after this snapshot */
    char parent_hash[65];       /* hex SHA-256 of snapshot id-1, "" for the first */
    /* ---- added with checkpoint commits (the struct is the library's: it grows at the end) ---- */
    int64_t schema_id;          /* the table's schema the snapshot names (Paimon's schemaId) */
    int has_watermark;
    int64_t watermark;          /* Paimon's event-time "watermark" */
    int has_changelog_record_count;
    int64_t changelog_record_count; /* rows of the snapshot's changelog files */
} sc_snapshot_info;
/* sc_snapshot_info has schema_id, watermark and changelog_record_count. */
#define SC_SNAPSHOT_INFO_HAS_CHECKPOINT 1

/* Latest snapshot id, 0 for an empty table. */
SC_API int sc_table_latest_id(uint64_t *out_id, sc_table *table);
/* Earliest retained snapshot id, 0 for an empty table. */
SC_API int sc_table_earliest_id(uint64_t *out_id, sc_table *table);

/* Read one snapshot. Free with sc_snapshot_info_free(). SC_ENOTFOUND when absent. */
SC_API int sc_table_snapshot_info(sc_snapshot_info **out, sc_table *table, uint64_t id);
SC_API void sc_snapshot_info_free(sc_snapshot_info *info);

/* A list of live files; entries' pointers are owned by the list. */
typedef struct sc_file_list {
    sc_file_entry *entries;
    size_t count;
} sc_file_list;

/*
 * Where a data file lives, relative to the table root:
 * "<partition spec>/bucket-<b>/<file>" ("bucket-<b>/<file>" when unpartitioned),
 * values escaped as Paimon escapes them. *out is malloc()ed (free() it).
 * SC_ECORRUPT when the entry's partition does not fit the table's schema.
 */
SC_API int sc_table_file_path(char **out, sc_table *table, const sc_file_entry *entry);
/* The Hive-style spec of a partition row of the table ("dt=2024-01-01/h=3", "" when
 * unpartitioned). *out is malloc()ed (free() it). SC_ECORRUPT as sc_table_file_path. */
SC_API int sc_table_partition_spec(char **out, sc_table *table, sc_bytes partition);
/* A key row of the table's trimmed primary key as a JSON array of its values
 * (numbers, booleans, strings). *out is malloc()ed (free() it). SC_EINVAL when the
 * table has no primary key or the row does not fit it. */
SC_API int sc_table_key_json(char **out, sc_table *table, sc_bytes key);

/* Live files of snapshot `id` (0 = latest). Free with sc_file_list_free().
 * SC_ENOTFOUND when `id` does not exist or has expired (also during the read);
 * for the latest, SC_ETRANSIENT when expirations removed it while it was read,
 * 3 times in a row (call again). */
SC_API int sc_table_files(sc_file_list **out, sc_table *table, uint64_t id);
/*
 * The live files of snapshot `id` (0 = latest), as sc_table_files lists them
 * and in its order, handed to `fn` one at a time (the entry is borrowed:
 * valid only during the call) without holding them all: memory does not grow
 * with the number of live files. The snapshot is checked first, so damage is
 * reported (SC_ECORRUPT) before the first call. A non-zero return from `fn`
 * stops the walk and is returned. Errors as sc_table_files, except that when
 * an expiration removes the latest snapshot after files were handed over,
 * the walk is not started again (that would hand them over twice):
 * SC_ETRANSIENT, call again.
 */
typedef int (*sc_file_fn)(void *ctx, const sc_file_entry *entry);
SC_API int sc_table_files_each(sc_table *table, uint64_t id, sc_file_fn fn, void *ctx);
/* The changelog files snapshot `id` (0 = latest) added (its changelog manifest list; an empty
 * list when it has none), as sc_table_files. Free with sc_file_list_free(). */
SC_API int sc_table_changelog_files(sc_file_list **out, sc_table *table, uint64_t id);
/* The live index files of snapshot `id` (0 = latest): its index manifest's entries (an empty
 * list when it names none), as sc_table_files. Free with sc_index_list_free(). */
typedef struct sc_index_list {
    sc_index_entry *entries;   /* pointers owned by the list */
    size_t count;
} sc_index_list;
SC_API int sc_table_index_files(sc_index_list **out, sc_table *table, uint64_t id);
SC_API void sc_index_list_free(sc_index_list *list);
SC_API void sc_file_list_free(sc_file_list *list);

/*
 * Verify table metadata, the snapshot hash chain, manifest lists and
 * manifests. 0 when sound; SC_ECORRUPT (or the store's code) with a message
 * naming the damaged object otherwise. A snapshot that an expiration removes
 * while it is checked is no finding: the check goes on from the new EARLIEST.
 * `progress`, when non-NULL, is called once per snapshot checked.
 */
typedef void (*sc_progress_fn)(void *ctx, uint64_t done, uint64_t total);
SC_API int sc_table_fsck(sc_table *table, sc_progress_fn progress, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
