/* The index files of a table: a snapshot's index manifest read and combined (index_state.h). */
#include "engine/index_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/index_manifest.h"

int sc_index_state_unaware(const sc_table *t) {
    return t->schema.bucket == SC_BUCKET_UNAWARE && t->schema.primary_key_count == 0;
}

int sc_index_state_load(sc_index_vec *out, sc_table *t, const char *name) {
    char key[SC_MANIFEST_PATH_MAX + 16];
    sc_manifest_key(key, sizeof key, name);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, t->limits.max_object_len);
    if (rc == SC_ENOTFOUND) return sc_error_set(SC_ECORRUPT, "%s: referenced by a snapshot but missing from storage", key);
    if (rc) return sc_error_wrap(rc, "reading %s", key);
    size_t from = out->count;
    rc = sc_index_manifest_decode(out, data, len, &t->limits, key);
    free(data);
    for (size_t i = from; !rc && i < out->count; i++)
        if (out->items[i].kind != SC_ENTRY_ADD)
            rc = sc_error_set(SC_ECORRUPT, "%s: record %zu deletes %s, but a snapshot's index manifest lists live files only",
                              key, i - from, out->items[i].entry.file);
    if (rc) sc_index_vec_truncate(out, from);
    return rc;
}

/* One file per (partition, bucket, type): Paimon's BucketedCombiner. */
static int bucketed(const sc_table *t, const char *type) {
    if (strcmp(type, SC_INDEX_TYPE_HASH) == 0) return 1;
    return strcmp(type, SC_INDEX_TYPE_DV) == 0 && !sc_index_state_unaware(t);
}

static int same_slot(const sc_index_entry *a, const sc_index_entry *b) {
    return a->bucket == b->bucket && strcmp(a->index_type, b->index_type) == 0 &&
           sc_bytes_compare(a->partition, b->partition) == 0;
}

int sc_index_state_combine(sc_index_vec *out, const sc_table *t, const sc_index_vec *prev, const sc_changes *c,
                           const sc_partition_set *replace) {
    int rc = 0;
    for (size_t i = 0; !rc && i < prev->count; i++) {
        const sc_index_entry *p = &prev->items[i].entry;
        int keep = !(replace && sc_partition_set_has(replace, p->partition));
        for (size_t j = 0; keep && j < c->index_deletes.count; j++)
            keep = !(same_slot(p, &c->index_deletes.items[j].entry) && strcmp(p->file, c->index_deletes.items[j].entry.file) == 0);
        /* A new file for a bucket's slot replaces the old one, deleted or not (Paimon's rule). */
        for (size_t j = 0; keep && bucketed(t, p->index_type) && j < c->index_adds.count; j++)
            keep = !same_slot(p, &c->index_adds.items[j].entry);
        if (keep) rc = sc_index_vec_push_copy(out, SC_ENTRY_ADD, p);
    }
    for (size_t j = 0; !rc && j < c->index_adds.count; j++)
        rc = sc_index_vec_push_copy(out, SC_ENTRY_ADD, &c->index_adds.items[j].entry);
    if (rc) sc_index_vec_free(out);
    return rc;
}
