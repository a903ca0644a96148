/*
 * Table upkeep: snapshot expiration and orphan-file removal (docs/protocols.md
 * "Upkeep", docs/operations.md "expire", "remove-orphans").
 *
 * Both run off the claim path: they never claim a snapshot, and a commit
 * running at the same time either commits or fails with a clear conflict.
 * Run one expiration (and one orphan removal) per table at a time.
 *
 * Thread-safety and ownership as in table.h: the table handle is used by one
 * thread at a time; options are read during the call only; results are plain
 * values the caller owns. Time (what "older than" is measured against) comes
 * from the handle's sc_env (sc_table_set_env), never from the clock directly.
 */
#ifndef SNAPCOMMIT_UPKEEP_H
#define SNAPCOMMIT_UPKEEP_H

#include "snapcommit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapcommit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Progress of a long run: `phase` names the step ("reading", "data files",
 * "manifests", "manifest lists", "snapshots", "listing", "orphans"; static
 * storage), `done` of `total` items of that step. Called on the caller's
 * thread, with no lock held; it must not use the table handle.
 */
typedef void (*sc_upkeep_progress_fn)(void *ctx, const char *phase, uint64_t done, uint64_t total);

/* Paimon's defaults (CoreOptions): snapshot.num-retained.min, .max,
 * snapshot.time-retained, snapshot.expire.limit. */
#define SC_EXPIRE_DEFAULT_RETAIN_MIN 10
#define SC_EXPIRE_DEFAULT_RETAIN_MAX INT32_MAX
#define SC_EXPIRE_DEFAULT_OLDER_THAN_MS ((int64_t)60 * 60 * 1000)
#define SC_EXPIRE_DEFAULT_LIMIT 50
/* Paimon's default age of an orphan (RemoveOrphanFiles: older_than 1 day). */
#define SC_ORPHANS_DEFAULT_OLDER_THAN_MS ((int64_t)24 * 60 * 60 * 1000)

typedef struct sc_expire_options {
    uint64_t retain_min;   /* snapshot.num-retained.min: at least this many kept, >= 1 */
    uint64_t retain_max;   /* snapshot.num-retained.max: at most this many kept, >= retain_min */
    int64_t older_than_ms; /* snapshot.time-retained: a snapshot younger than this is kept
                              (unless retain_max forces it out), >= 0 */
    uint64_t limit;        /* snapshot.expire.limit: at most this many expired per run, >= 1 */
    int dry_run;           /* 1: plan and count, delete nothing */
    sc_upkeep_progress_fn progress; /* NULL: none */
    void *progress_ctx;
} sc_expire_options;

/* Paimon's defaults: retain_min 10, retain_max INT32_MAX, 1 h, limit 50, no dry run. */
SC_API void sc_expire_options_init(sc_expire_options *opt);
/*
 * sc_expire_options_init, then the table's own Paimon options where its
 * schema sets them (snapshot.num-retained.min, snapshot.num-retained.max,
 * snapshot.time-retained, snapshot.expire.limit).
 * Errors: SC_EINVAL naming an option whose value does not parse.
 */
SC_API int sc_expire_options_from_table(sc_expire_options *opt, sc_table *table);

typedef struct sc_expire_result {
    uint64_t earliest_before;    /* retained history started here (0: empty table) */
    uint64_t earliest_after;     /* and starts here now (with dry_run: would) */
    uint64_t latest;             /* the latest snapshot, never expired */
    uint64_t snapshots_expired;  /* snapshot files deleted (with dry_run: to delete) */
    uint64_t data_files_deleted; /* data files and their extra files, changelog files, index files */
    uint64_t manifests_deleted;  /* manifests (data, changelog, index), statistics files, watermark archives */
    uint64_t manifest_lists_deleted; /* base, delta and changelog manifest lists */
    uint64_t bytes_deleted;      /* sizes as the metadata records them */
    uint64_t already_gone;       /* objects to delete that were already absent (a re-run) */
    uint64_t skipped;            /* objects not deleted because they are not under the table
                                    (external paths of data, changelog and index files) */
} sc_expire_result;

/*
 * Expire old snapshots with Paimon's meanings (docs/protocols.md "Expiration"):
 * snapshots below max(latest - retain_max + 1, earliest) expire; after them,
 * snapshots expire in id order while older than older_than_ms (by their
 * timeMillis against the env's now_ms), while more than retain_min remain,
 * and at most `limit` per run. Snapshots a previous, interrupted run left
 * below snapshot/EARLIEST are finished first.
 *
 * Order: snapshot/EARLIEST is moved (durably) first; then data files deleted
 * by the expired snapshots' deltas and live in no retained snapshot, the
 * expired snapshots' changelog files and the index files of their index
 * manifests that no retained snapshot's index manifest lists (Paimon's
 * SnapshotDeletion); then manifests (data, changelog, index) and statistics
 * files, then manifest lists no retained snapshot names; then the
 * snapshot files, oldest first. A crash at any point leaves a readable table,
 * and running again finishes the job.
 *
 * `out` may be NULL; on failure it holds what was done so far. `opt` NULL =
 * sc_expire_options_from_table.
 * Errors: SC_EINVAL (options out of range), SC_EUNSUPPORTED (a head or
 * tracker table; a table with Paimon tags, branches, consumers or long-lived changelogs, whose
 * protection is not implemented; a table whose changelog.num-retained.* or
 * changelog.time-retained options retain more than its snapshot.* options:
 * Paimon's decoupled changelog lifecycle), SC_ECORRUPT and store errors (nothing is
 * deleted when planning fails; a failed delete stops the run, re-run it).
 */
SC_API int sc_table_expire(sc_expire_result *out, sc_table *table, const sc_expire_options *opt);

typedef struct sc_orphans_options {
    int64_t older_than_ms; /* only objects whose storage mtime is older than this: at least the
                              commit budget (see sc_table_remove_orphans) unless `force` */
    int dry_run;
    int force;             /* 1: accept any older_than_ms >= 0 (no writer may be running) */
    sc_upkeep_progress_fn progress;
    void *progress_ctx;
} sc_orphans_options;

/* older_than 1 day, no dry run, no force, no progress. */
SC_API void sc_orphans_options_init(sc_orphans_options *opt);

typedef struct sc_orphans_result {
    uint64_t objects_listed;     /* keys looked at */
    uint64_t orphans_found;      /* unreferenced candidates (any age) */
    uint64_t too_young;          /* of those, kept: newer than older_than (or mtime unknown) */
    uint64_t data_files_deleted; /* data and changelog files */
    uint64_t manifests_deleted;  /* manifests and manifest lists (data and changelog), index manifests */
    uint64_t other_deleted;      /* statistics files, leftovers of the capability probe, watermark archives */
    uint64_t bytes_deleted;
    uint64_t index_files_deleted; /* index files: deletion vectors, hash indexes */
} sc_orphans_result;

/*
 * Delete objects no snapshot from the first present one to the latest
 * references and older than older_than_ms, as Paimon's orphan cleaner
 * (LocalOrphanFilesClean) does: manifests, manifest lists and index
 * manifests under manifest/ (manifest-*, index-manifest-*: data and
 * changelog), index files under index/ (or index-* beside the data files
 * when the table sets index-file-in-data-file-dir), statistics files under
 * statistics/, data and changelog files at <partition spec>/bucket-<b>/<file>
 * (objects of lost or unknown claim attempts, files of checkpoints that
 * never completed), unreferenced watermark archives and metadata/probe-*
 * leftovers. What a retained snapshot or an undecided claim names is kept:
 * its lists, manifests, changelog files, index manifest and the index files
 * it lists, statistics. A retained snapshot's manifest or index manifest that
 * cannot be read fails the run before anything is deleted. Never touched:
 * snapshot/, schema/, metadata/table.json, metadata/history, the head and
 * tracker strategies' records, and anything whose key is not of those shapes.
 * `older_than_ms` must exceed the longest time a commit can take from
 * writing its first object to its claim (docs/protocols.md): an age below
 * the commit budget (SC_COMMIT_DEFAULT_TIMEOUT_MS, or the handle's
 * sc_retry_policy.timeout_ms when longer) is refused with SC_EINVAL before
 * anything is read, unless `force` is set — a younger unreferenced object
 * may be a commit's in flight, and deleting its manifest list breaks the
 * snapshot it then publishes.
 * Errors: SC_EINVAL, SC_EUNSUPPORTED (tags, branches, consumers, long-lived changelogs, or an index
 * manifest with a global index), SC_ECORRUPT and store errors.
 */
SC_API int sc_table_remove_orphans(sc_orphans_result *out, sc_table *table, const sc_orphans_options *opt);

typedef struct sc_data_check_result {
    uint64_t earliest, latest; /* the retained snapshots checked (0, 0: empty table) */
    uint64_t objects_listed;   /* keys in the table's listing */
    uint64_t files_checked;    /* distinct data files and extra files named by them */
    uint64_t skipped;          /* files with an external path: not under the table, not checked */
    uint64_t rechecks;         /* runs started again because an expiration moved EARLIEST meanwhile */
} sc_data_check_result;

/*
 * fsck's data pass: every data file (and extra file) that a retained
 * snapshot (EARLIEST .. latest) names is present in storage. One listing of
 * the table, taken after the latest snapshot was found (so every file it
 * names was written before), then EARLIEST's live files and each later
 * snapshot's added files are looked up in it. When a snapshot's read or
 * file fails because an expiration moved EARLIEST past that snapshot during
 * the pass, the pass starts again (at most 3 times); a file missing for a
 * snapshot still retained is SC_ECORRUPT however EARLIEST moved.
 * `progress` reports phase "data files" per snapshot (NULL: none).
 * Errors: SC_ECORRUPT naming the first missing file and the snapshot that
 * names it; SC_ETRANSIENT when expirations kept moving EARLIEST (run it
 * again); store errors.
 */
SC_API int sc_table_check_data_files(sc_data_check_result *out, sc_table *table, sc_upkeep_progress_fn progress,
                                     void *progress_ctx);

/*
 * Parse a duration as Paimon writes them: a non-negative integer and a unit,
 * blanks allowed between ("500ms", "30 s", "30min", "1h", "1 d"): ms, s, m,
 * min, h, d and the long forms (millis, milliseconds, sec, seconds, minutes,
 * hours, days); a bare number is milliseconds. Errors: SC_EINVAL.
 */
SC_API int sc_duration_parse(int64_t *out_ms, const char *text);

#ifdef __cplusplus
}
#endif
#endif
