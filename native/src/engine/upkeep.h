/*
 * What expiration (expire.c) and orphan removal (orphans.c) share (internal):
 * sets of store keys with sizes, and what a snapshot references.
 */
#ifndef SC_UPKEEP_INTERNAL_H
#define SC_UPKEEP_INTERNAL_H

#include <stdint.h>

#include "format/index_entry.h"
#include "format/snapshot.h"
#include "strategy/strategy.h"

/* A set of store keys, each with the size its metadata records (0 unknown). */
typedef struct sc_keyset_item {
    char *key;
    uint64_t size;
} sc_keyset_item;

typedef struct sc_keyset {
    sc_keyset_item *items;
    size_t count, cap;
    int sealed; /* sorted and de-duplicated; adding a key unseals */
} sc_keyset;

/* Copy `key` into the set (unsealing it). SC_ENOMEM. */
int sc_keyset_add(sc_keyset *s, const char *key, uint64_t size);
/* Sort and drop duplicates (the first size of a key is kept). */
void sc_keyset_seal(sc_keyset *s);
/* 1 when the sealed set holds key. */
int sc_keyset_has(const sc_keyset *s, const char *key);
void sc_keyset_free(sc_keyset *s);

/*
 * Add to `lists` the manifest lists snapshot `s` names ("manifest/<name>")
 * and to `manifests` the manifests in them. Then the extension hook
 * (sc_upkeep_extra_refs) adds what a snapshot references beyond Paimon's.
 */
int sc_upkeep_meta_refs(sc_keyset *lists, sc_keyset *manifests, sc_table *t, const sc_snapshot *s);
/*
 * HOOK: objects a snapshot references beyond Paimon's own (snapcommit's
 * extensions in its properties, e.g. an archive under metadata/watermarks/).
 * Whatever is added to `keep` is never deleted while `s` is retained; when
 * `s` expires, whatever is added to `expired` (and is not kept by a retained
 * snapshot) is deleted with its manifests. Nothing today.
 */
int sc_upkeep_extra_refs(sc_keyset *keep, sc_keyset *expired, sc_table *t, const sc_snapshot *s);
/*
 * Paimon's objects a snapshot names beyond its base and delta lists: the
 * changelog manifest list into `lists`; the changelog list's manifests and the
 * index manifest into `manifests`; the changelog files those manifests add and
 * the index files the index manifest lists ("index/<name>") into `files`; the
 * statistics file ("statistics/<name>") into `extra`. The names the snapshot
 * itself holds go in first, so a failure part way still leaves them in. Files
 * with an external path are not under the table: counted in *out_skipped.
 */
int sc_upkeep_paimon_refs(sc_keyset *lists, sc_keyset *manifests, sc_keyset *files, sc_keyset *extra,
                          uint64_t *out_skipped, sc_table *t, const sc_snapshot *s);
/* Store key of index file `e` (no external path) into *out (malloc'd): "index/<name>", or the
 * bucket directory of its data files when the table sets Paimon's index-file-in-data-file-dir. */
int sc_upkeep_index_key(char **out, sc_table *t, const sc_index_entry *e);

/*
 * Add the store keys of data file `f` (and of its extra files, in the same
 * directory) to `out`. A file with an external path is not under the table:
 * nothing is added and *out_skipped is incremented.
 */
int sc_upkeep_data_keys(sc_keyset *out, uint64_t *out_skipped, sc_table *t, const sc_file_entry *f);

/* sc_upkeep_data_keys for the records a manifest walk hands over (an sc_state_record_fn
 * with this as its context): every record, or only those of `kind` when `one_kind`. */
typedef struct sc_upkeep_collect {
    sc_table *t;
    sc_keyset *into;
    uint64_t *skipped;
    int one_kind;
    sc_entry_kind kind;
} sc_upkeep_collect;
int sc_upkeep_collect_record(void *ctx, sc_entry_kind kind, const sc_file_entry *f);
/*
 * SC_EUNSUPPORTED naming what when the table has Paimon tags, branches,
 * consumers or long-lived changelogs (tag/, branch/, consumer/, changelog/):
 * they pin snapshots and files that
 * this build does not protect, so `what` ("expiration") refuses to run.
 */
int sc_upkeep_refuse_unprotected(sc_table *t, const char *what);

/*
 * The latest snapshot id, then EARLIEST, for an upkeep run (expire,
 * remove-orphans, fsck --data). Read in that order, commits and an
 * expiration between the two reads can put EARLIEST above the latest read:
 * then the latest is read again (a few times). *out_latest 0: no snapshot.
 * SC_ECORRUPT, prefixed by `what`, when the latest stays below EARLIEST
 * (snapshot/LATEST naming a leftover below it).
 */
int sc_upkeep_read_range(uint64_t *out_latest, uint64_t *out_earliest, sc_table *t, const char *what);

/* snapshot/EARLIEST as stored: *out 0 when absent or damaged, *out_present whether it
 * exists, *out_info its version (for a conditional update). The last two may be NULL. */
int sc_upkeep_read_earliest(uint64_t *out, int *out_present, sc_object_info *out_info, sc_table *t);

#endif
