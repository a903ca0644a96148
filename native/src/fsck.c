/*
 * fsck: verify table metadata, the snapshot hash chain, manifest lists and
 * manifests. Stops at the first damage with SC_ECORRUPT naming the object.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "state.h"
#include "table_internal.h"

#define LATEST_HINT_KEY "snapshot/LATEST"

/* Every manifest of a list must exist with the pinned hash, length and partition range. */
static int check_list(sc_table *t, const sc_object_ref *ref, uint64_t *out_adds, uint64_t *out_deletes) {
    sc_meta_vec metas = {0};
    int rc = sc_state_load_list(&metas, t, ref);
    for (size_t i = 0; !rc && i < metas.count; i++) {
        const sc_manifest_meta *m = &metas.items[i];
        sc_entry_vec records = {0};
        rc = sc_state_load_manifest(&records, t, m);
        uint64_t adds = 0, dels = 0;
        for (size_t j = 0; !rc && j < records.count; j++) {
            if (records.items[j].kind == SC_ENTRY_ADD) adds++;
            else dels++;
            sc_bytes p = records.items[j].file.partition;
            sc_bytes min = {m->min_partition ? m->min_partition : (const uint8_t *)"", m->min_partition_len};
            sc_bytes max = {m->max_partition ? m->max_partition : (const uint8_t *)"", m->max_partition_len};
            if (sc_bytes_compare(p, min) < 0 || sc_bytes_compare(p, max) > 0)
                rc = sc_error_set(SC_ECORRUPT, "%s: record %zu lies outside the partition range its list declares",
                                  m->name, j);
        }
        if (!rc && (adds != m->added || dels != m->deleted))
            rc = sc_error_set(SC_ECORRUPT, "%s: holds %" PRIu64 " adds and %" PRIu64 " deletes, its list declares %" PRIu64 " and %" PRIu64,
                              m->name, adds, dels, m->added, m->deleted);
        if (out_adds) *out_adds += adds;
        if (out_deletes) *out_deletes += dels;
        sc_entry_vec_free(&records);
    }
    sc_meta_vec_free(&metas);
    return rc;
}

int sc_table_fsck(sc_table *t, sc_progress_fn progress, void *ctx) {
    uint64_t earliest = 0, latest = 0;
    sc_list_page page = {0};
    int rc = 0;
    if (t->strategy->kind != SC_STRATEGY_RENAME && t->strategy->kind != SC_STRATEGY_CONDITIONAL) {
        /* Snapshots not stored as snapshot/snapshot-N files: walk what the strategy reaches. */
        rc = t->strategy->earliest(t, &earliest);
        if (!rc) rc = t->strategy->latest(t, &latest);
        if (rc) return sc_error_wrap(rc, "finding the snapshots");
    } else if ((rc = sc_store_list_all(t->store, &page, "snapshot/snapshot-")) != 0) {
        return sc_error_wrap(rc, "listing snapshots");
    }
    /* Every snapshot between the first and the last listed must be there. */
    for (size_t i = 0; !rc && i < page.count; i++) {
        uint64_t id;
        if (sc_snapshot_key_parse(&id, page.keys[i]) != 0) {
            rc = sc_error_set(SC_ECORRUPT, "%s: not a valid snapshot name", page.keys[i]);
            break;
        }
        if (i == 0) earliest = id;
        else if (id != latest + 1)
            rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " is missing: the chain jumps from %" PRIu64 " to %" PRIu64,
                              latest + 1, latest, id);
        latest = id;
    }
    sc_list_page_free(&page);
    if (rc) return rc;

    uint8_t *hint = NULL;
    size_t hint_len = 0;
    if (sc_store_get(t->store, &hint, &hint_len, NULL, LATEST_HINT_KEY) == 0) {
        char text[24] = "";
        if (hint_len) memcpy(text, hint, hint_len < sizeof text - 1 ? hint_len : sizeof text - 1);
        uint64_t h = strtoull(text, NULL, 10);
        free(hint);
        /* A hint may lag; one ahead of the chain means snapshots were lost or rolled back. */
        if (h > latest)
            return sc_error_set(SC_ECORRUPT, "%s says %" PRIu64 " but the last snapshot is %" PRIu64 ": snapshots were lost or rolled back",
                                LATEST_HINT_KEY, h, latest);
    }
    sc_error_clear();

    uint8_t prev_hash[SC_SHA256_LEN];
    uint64_t prev_files = 0;
    int64_t prev_records = 0;
    for (uint64_t id = earliest; !rc && id && id <= latest; id++) {
        sc_snapshot s;
        uint8_t hash[SC_SHA256_LEN];
        if ((rc = sc_table_read_snapshot(&s, hash, t, id)) != 0) {
            if (rc == SC_ENOTFOUND) rc = sc_error_wrap(SC_ECORRUPT, "snapshot %" PRIu64 " is missing", id);
            break;
        }
        if (id > earliest && memcmp(s.parent_hash, prev_hash, SC_SHA256_LEN) != 0)
            rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": parent hash does not match snapshot %" PRIu64 " (rewritten or replaced)",
                              id, id - 1);
        uint64_t adds = 0, dels = 0;
        if (!rc) rc = check_list(t, &s.base_manifest_list, NULL, NULL);
        if (!rc) rc = check_list(t, &s.delta_manifest_list, &adds, &dels);
        if (!rc && id > earliest && s.file_count != prev_files + adds - dels)
            rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": fileCount %" PRIu64 " does not follow from snapshot %" PRIu64 " and its delta",
                              id, s.file_count, id - 1);
        if (!rc && id > earliest && s.total_record_count != prev_records + s.delta_record_count)
            rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": totalRecordCount does not follow from snapshot %" PRIu64, id, id - 1);
        memcpy(prev_hash, hash, sizeof hash);
        prev_files = s.file_count;
        prev_records = s.total_record_count;
        if (!rc && id == latest) {
            /* The live state must merge cleanly and match the declared count. */
            sc_entry_vec live = {0};
            rc = sc_state_live_files(&live, t, &s, NULL);
            if (!rc && live.count != s.file_count)
                rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": %zu live files, fileCount says %" PRIu64, id, live.count, s.file_count);
            sc_entry_vec_free(&live);
        }
        sc_snapshot_clear(&s);
        if (progress) progress(ctx, id - earliest + 1, latest - earliest + 1);
    }
    return rc;
}
