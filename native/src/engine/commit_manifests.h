/*
 * The manifests a commit writes (internal): the delta manifest and its list,
 * written once per commit (per attempt for OVERWRITE), and each attempt's
 * base list of N+1 — everything N held, merged when its tail of small
 * manifests grows long. Nothing here publishes: the objects get fresh names
 * and only a won claim makes a snapshot name them (engine/commit.c).
 */
#ifndef SC_COMMIT_MANIFESTS_H
#define SC_COMMIT_MANIFESTS_H

#include "format/index_entry.h"
#include "format/manifest.h"
#include "format/snapshot.h"
#include "strategy/strategy.h"

/* Above this many small manifests among the recent ones of a base list, the next commit merges them. */
#define SC_MANIFEST_MERGE_THRESHOLD 32
/* Entries per merged manifest at most: it keeps partition ranges tight, objects bounded and
 * each file index within one Avro field. */
#define SC_MANIFEST_MERGE_CHUNK 8192
/* Below this many entries a manifest is "small" (a merge gathers it). Records written in
 * several chunks are spread evenly over them, so each chunk of a bulk load holds at least
 * this many: none is left behind as a small remainder between big ones. */
#define SC_MANIFEST_SMALL (SC_MANIFEST_MERGE_CHUNK / 2)
/* The recent manifests of a base list, which a merge of them reads, start at the first
 * small one within this many records of its end (as many as 32 chunks): big ones after
 * small ones (a bulk load after a few small deltas) are merged with them rather than
 * leaving them stuck, where only a full merge (an O(table) rewrite) would gather them. */
#define SC_MANIFEST_RECENT_RECORDS ((uint64_t)SC_MANIFEST_MERGE_THRESHOLD * SC_MANIFEST_MERGE_CHUNK)

/* What one commit has written; zero-initialise, set `t`, free with sc_commit_manifests_free. */
typedef struct sc_commit_manifests {
    sc_table *t;
    /* Objects written by this commit, deleted again if it fails for sure. */
    char **written;
    size_t written_count, written_cap;
    /* The delta manifest list, written once (per attempt for OVERWRITE). */
    sc_object_ref delta_list;
    int64_t delta_rows;
    int64_t delta_files;
    /* SHA-256 of the delta manifest's bytes (has_delta_sha: one was written),
     * so that a delta rebuilt from the table's own records is written again
     * only when its bytes differ from the one written before the base was read. */
    int has_delta_sha;
    uint8_t delta_sha[SC_SHA256_LEN];
    /* Objects sent and no longer wanted (a lost attempt's base list): on a concurrent store
     * deleted with the next batch, or when the commit ends (sc_commit_manifests_settle). */
    char **doomed;
    size_t doomed_count;
    /* Keys of a delta replaced after the full check (not referenced by the
     * snapshot that lands): deleted, best effort, once the commit succeeded. */
    char **stale;
    size_t stale_count;
    /* Names of the delta manifests written last (none when the delta is empty): one,
     * or one per SC_MANIFEST_MERGE_CHUNK records of a big delta. */
    char **delta_manifests;
    size_t delta_manifest_count;
    int unremembered; /* while set, manifests written are not put into the handle's cache */
    /* The bytes of the manifest list written last (an attempt's base list) and their
     * SHA-256: a winner that built on the same base wrote a base list with the same
     * bytes under another name, which the retry then need not read. */
    sc_buf last_list;
    uint8_t last_list_sha[SC_SHA256_LEN];
    /* The changelog manifest list (name NULL: the commit has no changelog file) and the
     * rows of its files: written once, before the base is read. */
    sc_object_ref changelog_list;
    int64_t changelog_rows;
    /* Objects encoded but not yet sent: every write waits for the attempt's batch
     * (sc_commit_manifests_flush), which sends them together before the claim. */
    struct sc_pending_write *pending;
    size_t pending_count, pending_cap;
    size_t pending_bytes; /* their bodies: above 8 MiB they are sent at once */
} sc_commit_manifests;

/*
 * Send every pending write in one batch with `extra` (requests of the caller, e.g. the
 * looks that confirm a guessed base; their answers are left in place), and wait for all.
 * Returns the first failed write's error (its message recorded); the pending writes are
 * then still known for clean-up. Objects of a commit are thus durable before its claim.
 */
int sc_commit_manifests_flush(sc_commit_manifests *cm, sc_store_call *extra, size_t extra_count);
/* Forget the object `key` (one an earlier attempt wrote and no snapshot can name):
 * dropped when still pending, else deleted (best effort): on a concurrent store with the
 * next batch, which then costs no round trip of its own. */
void sc_commit_manifests_discard(sc_commit_manifests *cm, const char *key);
/* The commit ends: delete what is still doomed (one batch; best effort). */
void sc_commit_manifests_settle(sc_commit_manifests *cm);

/*
 * The delta: `deletes` first, then the adds of `c`, so a file moved between
 * levels (delete + add) merges right; sets delta_list, delta_rows and
 * delta_files. `deletes` are the caller's (written before the base is read)
 * or the live records the full check found. When the manifest's bytes equal
 * those already written, nothing is written again; when they differ, the
 * earlier delta is replaced and (unless `kind` is OVERWRITE, which rewrites
 * it per attempt) its keys are kept in `stale`.
 */
int sc_commit_manifests_write_delta(sc_commit_manifests *cm, const sc_changes *c, sc_commit_kind kind,
                                    const sc_entry_vec *deletes);
/*
 * Paimon's changelog of one snapshot: one manifest of `c`'s changelog files
 * (ADD records, the data manifests' schema) and a manifest list naming it, into
 * changelog_list, with changelog_rows their rows. Nothing is written when there
 * are none (changelog_list.name stays NULL). Depends on no base: written once.
 */
int sc_commit_manifests_write_changelog(sc_commit_manifests *cm, const sc_changes *c);
/*
 * Paimon's index manifest of N+1: `entries` (every live index file, ADD
 * records) as manifest/index-manifest-<uuid>-0; *out_name its name (the
 * caller frees it). Remembered for clean-up like the others.
 */
int sc_commit_manifests_write_index(sc_commit_manifests *cm, char **out_name, const sc_index_vec *entries);
/*
 * The base list of snapshot N+1 (`latest` = N, NULL for the first snapshot)
 * into *out (caller clears the name): N's base and delta manifests, merged
 * as the comment in commit_manifests.c describes. Reads N's lists (and, when
 * merging, manifests) through the handle's cache.
 */
int sc_commit_manifests_write_base(sc_commit_manifests *cm, sc_object_ref *out, const sc_snapshot *latest);
/* A commit that certainly did not land: delete every object written (best effort). */
void sc_commit_manifests_remove_written(sc_commit_manifests *cm);
/* A commit that landed: delete the replaced deltas no snapshot names (best effort). */
void sc_commit_manifests_remove_stale(sc_commit_manifests *cm);
void sc_commit_manifests_free(sc_commit_manifests *cm);

#endif
