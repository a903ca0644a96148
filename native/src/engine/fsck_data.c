/*
 * fsck's data pass (sc_table_check_data_files): the data files retained
 * snapshots name are present, and their changelog and index files. The metadata pass (fsck.c) reads every list
 * and manifest; data files are only named there, so this pass compares the
 * names with one listing of the table instead of sending a HEAD per file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "engine/state.h"
#include "engine/index_state.h"
#include "engine/upkeep.h"
#include "snapcommit/upkeep.h"

/* Passes started again after an expiration moved EARLIEST under them. */
#define DATA_CHECK_ATTEMPTS 3

typedef enum pass_outcome { PASS_DONE = 0, PASS_AGAIN = 1 } pass_outcome;

static int key_order(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* 1 when `key` is in the listing (its keys sorted bytewise). */
static int listed_has(const sc_list_page *listed, const char *key) {
    return bsearch(&key, listed->keys, listed->count, sizeof *listed->keys, key_order) != NULL;
}

/* Each file handed over (a live file of the earliest retained snapshot, or one a later
 * snapshot adds) must be in `listed`. Streamed: nothing holds a snapshot's live files. */
typedef struct listed_probe {
    sc_data_check_result *r;
    sc_table *t;
    const sc_list_page *listed;
    uint64_t id;
    int live_set;
} listed_probe;

static int probe_file(void *ctx, const sc_file_entry *f) {
    listed_probe *p = ctx;
    sc_keyset keys = {0};
    int rc = sc_upkeep_data_keys(&keys, &p->r->skipped, p->t, f);
    for (size_t k = 0; !rc && k < keys.count; k++) {
        p->r->files_checked++;
        if (!listed_has(p->listed, keys.items[k].key))
            rc = sc_error_set(SC_ECORRUPT, "%s: named by snapshot %" PRIu64 " (%s) but missing from storage",
                              keys.items[k].key, p->id, p->live_set ? "a live file of the earliest retained snapshot"
                                                                     : "added by it");
    }
    sc_keyset_free(&keys);
    return rc;
}

static int probe_added(void *ctx, sc_entry_kind kind, const sc_file_entry *f) {
    return kind == SC_ENTRY_ADD ? probe_file(ctx, f) : 0;
}

/* The changelog files a snapshot adds must be listed; its index manifest's index files (when
 * it names another index manifest than the snapshot checked before it) must exist with the
 * size the manifest records: index files are few, one HEAD each. */
static int check_paimon_files(sc_data_check_result *r, sc_table *t, const sc_list_page *listed, const sc_snapshot *s,
                              char **checked_index) {
    sc_manifest_file_vec metas = {0};
    int rc = s->changelog_manifest_list.name ? sc_state_load_list(&metas, t, &s->changelog_manifest_list) : 0;
    listed_probe probe = {r, t, listed, s->id, 0};
    for (size_t i = 0; !rc && i < metas.count; i++) rc = sc_state_each_record(t, &metas.items[i], 0, probe_added, &probe);
    sc_manifest_file_vec_free(&metas);
    if (rc || !s->index_manifest || (*checked_index && strcmp(*checked_index, s->index_manifest) == 0)) return rc;
    sc_index_vec index = {0};
    rc = sc_index_state_load(&index, t, s->index_manifest);
    for (size_t i = 0; !rc && i < index.count; i++) {
        const sc_index_entry *e = &index.items[i].entry;
        if (index.items[i].kind != SC_ENTRY_ADD) continue;
        if (e->external_path) {
            r->skipped++;
            continue;
        }
        char *key = NULL;
        rc = sc_upkeep_index_key(&key, t, e);
        if (rc) break;
        r->files_checked++;
        sc_object_info info;
        rc = sc_store_head(t->store, &info, key);
        if (rc == SC_ENOTFOUND)
            rc = sc_error_set(SC_ECORRUPT, "%s: named by snapshot %" PRIu64 " (its index manifest %s) but missing from storage",
                              key, s->id, s->index_manifest);
        else if (rc) rc = sc_error_wrap(rc, "fsck data: reading %s", key);
        else if (info.size != (uint64_t)e->size)
            rc = sc_error_set(SC_ECORRUPT, "%s: %" PRIu64 " bytes, the index manifest %s of snapshot %" PRIu64 " records %" PRId64,
                              key, info.size, s->index_manifest, s->id, e->size);
        free(key);
    }
    sc_index_vec_free(&index);
    if (!rc) {
        free(*checked_index);
        *checked_index = strdup(s->index_manifest);
        if (!*checked_index) rc = sc_error_set(SC_ENOMEM, "out of memory");
    }
    return rc;
}

static int one_pass(pass_outcome *out, sc_data_check_result *r, sc_table *t, sc_upkeep_progress_fn progress, void *ctx) {
    *out = PASS_DONE;
    uint64_t latest = 0, earliest = 0;
    int rc = sc_upkeep_read_range(&latest, &earliest, t, "fsck data");
    if (rc) return sc_error_has_message() ? rc : sc_error_wrap(rc, "fsck data: finding the retained snapshots");
    r->earliest = earliest;
    r->latest = latest;
    if (!latest) return 0;
    /* Listed after the latest was found: every file a snapshot up to it names was written before.
     * The listing is looked up in place (no copy of its keys): stores list in bytewise order,
     * sorted again only if one did not. */
    sc_list_page listed = {0};
    rc = sc_store_list_all(t->store, &listed, "");
    if (rc) rc = sc_error_wrap(rc, "fsck data: listing the table");
    r->objects_listed = listed.count;
    for (size_t i = 1; !rc && i < listed.count; i++)
        if (strcmp(listed.keys[i - 1], listed.keys[i]) > 0) {
            qsort(listed.keys, listed.count, sizeof *listed.keys, key_order);
            break;
        }
    char *checked_index = NULL; /* the index manifest whose files were checked last */
    for (uint64_t id = earliest; !rc && id <= latest; id++) {
        sc_snapshot s;
        rc = sc_table_read_snapshot(&s, NULL, t, id);
        if (!rc) {
            listed_probe probe = {r, t, &listed, id, id == earliest};
            rc = id == earliest ? sc_state_live_each(NULL, t, &s, NULL, probe_file, &probe)
                                : sc_state_delta_each(t, &s, probe_added, &probe);
            if (!rc) rc = check_paimon_files(r, t, &listed, &s, &checked_index);
            sc_snapshot_clear(&s);
        }
        /* Missing while snapshot `id` is retained is damage: expiration deletes only what no
         * retained snapshot names. Only once EARLIEST lies above `id` was it expired meanwhile. */
        uint64_t now_first;
        if (rc && sc_state_expired_under(&now_first, t, id, &rc)) { /* an expiration passed this pass: look again */
            sc_error_clear();
            rc = 0;
            *out = PASS_AGAIN;
            break;
        }
        if (progress) progress(ctx, "data files", id - earliest + 1, latest - earliest + 1);
    }
    free(checked_index);
    sc_list_page_free(&listed);
    return rc;
}

int sc_table_check_data_files(sc_data_check_result *out, sc_table *t, sc_upkeep_progress_fn progress, void *ctx) {
    sc_data_check_result r = {0};
    if (!t) return sc_error_set(SC_EINVAL, "fsck data: NULL table");
    int rc = 0;
    pass_outcome o = PASS_AGAIN;
    for (int attempt = 0; !rc && o == PASS_AGAIN && attempt < DATA_CHECK_ATTEMPTS; attempt++) {
        uint64_t rechecks = r.rechecks;
        r = (sc_data_check_result){.rechecks = rechecks + (attempt > 0)};
        rc = one_pass(&o, &r, t, progress, ctx);
    }
    if (!rc && o == PASS_AGAIN)
        rc = sc_error_set(SC_ETRANSIENT, "fsck data: expirations moved EARLIEST during %d passes; run it again",
                          DATA_CHECK_ATTEMPTS);
    if (out) *out = r;
    return rc;
}
