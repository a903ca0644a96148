/* The four conflict kinds: deleted twice, re-added, LSM overlap, bucket count change. */
#include "conflict.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "fileset.h"

void sc_bytes_describe(char *out, size_t cap, sc_bytes b) {
    size_t w = 0;
    if (cap == 0) return;
    for (size_t i = 0; i < b.len && w + 5 < cap; i++) {
        uint8_t c = b.data[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') out[w++] = (char)c;
        else w += (size_t)snprintf(out + w, cap - w, "\\x%02x", c);
    }
    if (w + 5 < cap || b.len == 0) out[w] = '\0';
    else snprintf(out + w, cap - w, "...");
}

/* "data/f1 (partition "dt=1", bucket 0)" */
static void describe_file(char *out, size_t cap, const sc_file_entry *f) {
    char part[128];
    sc_bytes_describe(part, sizeof part, f->partition);
    snprintf(out, cap, "%s (partition \"%s\", bucket %d, level %d)", f->file, part, f->bucket,
             f->level);
}

static void describe_snapshot(char *out, size_t cap, const sc_snapshot *s) {
    snprintf(out, cap, "snapshot %" PRIu64 " (commit user \"%s\", identifier %" PRId64 ", %s)",
             s->id, s->commit_user, s->commit_identifier, sc_commit_kind_name(s->commit_kind));
}

/* ---- LSM overlap ---- */

typedef struct lsm_item {
    const sc_file_entry *f;
    int ours;
} lsm_item;

static int lsm_order(const void *pa, const void *pb) {
    const sc_file_entry *a = ((const lsm_item *)pa)->f, *b = ((const lsm_item *)pb)->f;
    int c = sc_bytes_compare(a->partition, b->partition);
    if (c) return c;
    if (a->bucket != b->bucket) return a->bucket < b->bucket ? -1 : 1;
    if (a->level != b->level) return a->level < b->level ? -1 : 1;
    return sc_bytes_compare(a->min_key, b->min_key);
}

static int same_run(const sc_file_entry *a, const sc_file_entry *b) {
    return a->bucket == b->bucket && a->level == b->level &&
           sc_bytes_compare(a->partition, b->partition) == 0;
}

/* Files at level >= 1 with keys, in the (partition, bucket, level) runs our adds touch,
 * must not overlap ours after sorting by min key: a.max >= b.min is a conflict. */
static int check_lsm(const sc_entry_vec *others, const sc_fileset *removed, const sc_entry_vec *adds,
                     const char *against) {
    size_t n = 0;
    lsm_item *items = calloc(others->count + adds->count + 1, sizeof *items);
    if (!items) return sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; i < adds->count; i++) {
        const sc_file_entry *f = &adds->items[i].file;
        if (f->level >= 1 && f->min_key.data) items[n++] = (lsm_item){f, 1};
    }
    size_t ours = n;
    for (size_t i = 0; ours && i < others->count; i++) {
        const sc_file_entry *f = &others->items[i].file;
        if (others->items[i].kind != SC_ENTRY_ADD || f->level < 1 || !f->min_key.data) continue;
        if (removed && sc_fileset_get(removed, f, NULL) == 0) continue;
        items[n++] = (lsm_item){f, 0};
    }
    qsort(items, n, sizeof *items, lsm_order);
    int rc = 0;
    size_t run_max = 0; /* item with the largest max key so far in this run */
    for (size_t i = 1; !rc && i < n; i++) {
        if (!same_run(items[i - 1].f, items[i].f)) {
            run_max = i;
            continue;
        }
        const lsm_item *a = &items[run_max], *b = &items[i];
        if ((a->ours || b->ours) && sc_bytes_compare(a->f->max_key, b->f->min_key) >= 0) {
            char fa[512], fb[512], ka[64], kb[64], kc[64], kd[64];
            describe_file(fa, sizeof fa, a->f);
            describe_file(fb, sizeof fb, b->f);
            sc_bytes_describe(ka, sizeof ka, a->f->min_key);
            sc_bytes_describe(kb, sizeof kb, a->f->max_key);
            sc_bytes_describe(kc, sizeof kc, b->f->min_key);
            sc_bytes_describe(kd, sizeof kd, b->f->max_key);
            rc = sc_error_set(SC_ECONFLICT,
                              "LSM conflict: key ranges overlap at the same level: %s [%s..%s] "
                              "and %s [%s..%s]; %s",
                              fa, ka, kb, fb, kc, kd, against);
        }
        if (sc_bytes_compare(b->f->max_key, a->f->max_key) > 0) run_max = i;
    }
    free(items);
    return rc;
}

/* ---- bucket counts ---- */

static int check_buckets(const sc_entry_vec *others, const sc_entry_vec *adds, const char *against) {
    for (size_t i = 0; i < adds->count; i++) {
        const sc_file_entry *a = &adds->items[i].file;
        if (a->total_buckets <= 0) continue;
        for (size_t j = 0; j < others->count; j++) {
            const sc_file_entry *o = &others->items[j].file;
            if (others->items[j].kind != SC_ENTRY_ADD || o->total_buckets <= 0 ||
                o->total_buckets == a->total_buckets || sc_bytes_compare(o->partition, a->partition))
                continue;
            char part[128], fa[512];
            sc_bytes_describe(part, sizeof part, a->partition);
            describe_file(fa, sizeof fa, a);
            return sc_error_set(SC_ECONFLICT,
                                "Bucket count conflict: partition \"%s\" has %d total buckets (%s) "
                                "but %s declares %d; change bucket counts only with OVERWRITE; %s",
                                part, o->total_buckets, o->file, fa, a->total_buckets, against);
        }
    }
    return 0;
}

/* Our own change set must not add or delete one file twice, nor disagree on bucket counts. */
static int check_self(const sc_changes *c, sc_fileset *deleted) {
    sc_fileset *added = NULL;
    int rc = sc_fileset_new(&added);
    for (size_t i = 0; !rc && i < c->deletes.count; i++) {
        rc = sc_fileset_put(deleted, &c->deletes.items[i].file, i, NULL);
        if (rc == SC_EEXISTS)
            rc = sc_error_set(SC_EINVAL, "changes delete %s twice", c->deletes.items[i].file.file);
    }
    for (size_t i = 0; !rc && i < c->adds.count; i++) {
        rc = sc_fileset_put(added, &c->adds.items[i].file, i, NULL);
        if (rc == SC_EEXISTS)
            rc = sc_error_set(SC_EINVAL, "changes add %s twice", c->adds.items[i].file.file);
    }
    for (size_t i = 0; !rc && i < c->adds.count; i++) {
        const sc_file_entry *a = &c->adds.items[i].file;
        for (size_t j = i + 1; !rc && j < c->adds.count; j++) {
            const sc_file_entry *b = &c->adds.items[j].file;
            if (a->total_buckets > 0 && b->total_buckets > 0 && a->total_buckets != b->total_buckets &&
                sc_bytes_compare(a->partition, b->partition) == 0)
                rc = sc_error_set(SC_EINVAL, "changes declare %d and %d total buckets for the partition of %s",
                                  a->total_buckets, b->total_buckets, b->file);
        }
    }
    sc_fileset_free(added);
    return rc;
}

int sc_conflict_check_full(sc_entry_vec *out_deletes, sc_table *t,
                           const sc_snapshot *latest, const sc_changes *c, sc_commit_kind kind,
                           const sc_partition_set *parts) {
    sc_entry_vec live = {0};
    sc_fileset *live_set = NULL, *deleted = NULL;
    char against[512] = "the table is empty";
    if (latest) {
        describe_snapshot(against, sizeof against, latest);
        strncat(against, " is the base", sizeof against - strlen(against) - 1);
    }
    int rc = sc_fileset_new(&deleted);
    if (!rc) rc = check_self(c, deleted);
    if (!rc && latest) rc = sc_state_live_files(&live, t, latest, parts);
    if (!rc) rc = sc_fileset_new(&live_set);
    for (size_t i = 0; !rc && i < live.count; i++) rc = sc_fileset_put(live_set, &live.items[i].file, i, NULL);

    if (!rc && kind == SC_KIND_OVERWRITE) {
        /* Overwrite replaces whole partitions: every live file there goes. */
        for (size_t i = 0; !rc && i < live.count; i++) {
            rc = sc_entry_vec_push(out_deletes, SC_ENTRY_DELETE, &live.items[i].file);
            if (!rc) {
                rc = sc_fileset_put(deleted, &live.items[i].file, i, NULL);
                if (rc == SC_EEXISTS) rc = 0;
            }
        }
    } else {
        for (size_t i = 0; !rc && i < c->deletes.count; i++) {
            const sc_file_entry *d = &c->deletes.items[i].file;
            size_t at;
            if (sc_fileset_get(live_set, d, &at) == 0) {
                rc = sc_entry_vec_push(out_deletes, SC_ENTRY_DELETE, &live.items[at].file);
                continue;
            }
            char fd[512];
            describe_file(fd, sizeof fd, d);
            rc = sc_error_set(SC_ECONFLICT,
                              "File deletion conflict: %s is not live (another commit removed it "
                              "or it was never added); %s; give up committing",
                              fd, against);
        }
    }
    for (size_t i = 0; !rc && i < c->adds.count; i++) {
        const sc_file_entry *a = &c->adds.items[i].file;
        if (sc_fileset_get(live_set, a, NULL) != 0 || sc_fileset_get(deleted, a, NULL) == 0) continue;
        char fa[512];
        describe_file(fa, sizeof fa, a);
        rc = sc_error_set(SC_ECONFLICT, "File addition conflict: %s is already live; %s", fa, against);
    }
    if (!rc && kind != SC_KIND_OVERWRITE) rc = check_buckets(&live, &c->adds, against);
    if (!rc) rc = check_lsm(&live, deleted, &c->adds, against);
    sc_fileset_free(deleted);
    sc_fileset_free(live_set);
    sc_entry_vec_free(&live);
    return rc;
}

int sc_conflict_check_since(sc_table *t, uint64_t validated, const sc_snapshot *latest,
                            const sc_changes *c, sc_commit_kind kind, const sc_partition_set *parts) {
    sc_entry_vec records = {0};
    uint64_t *record_snapshot = NULL; /* snapshot id of each record, for messages */
    size_t record_snapshot_cap = 0;
    sc_fileset *ours_deleted = NULL, *their_deleted = NULL, *their_added = NULL;
    int rc = sc_fileset_new(&ours_deleted);
    if (!rc) rc = sc_fileset_new(&their_deleted);
    if (!rc) rc = sc_fileset_new(&their_added);
    if (!rc) rc = check_self(c, ours_deleted);
    char against[512] = "";
    for (uint64_t id = validated + 1; !rc && id <= latest->id; id++) {
        sc_snapshot s;
        sc_snapshot *snap = &s;
        if (id == latest->id) snap = (sc_snapshot *)latest;
        else if ((rc = sc_table_read_snapshot(&s, NULL, t, id)) != 0) break;
        size_t first = records.count;
        rc = sc_state_delta_records(&records, t, snap, parts);
        if (!rc && records.count > record_snapshot_cap) {
            uint64_t *grown = realloc(record_snapshot, records.count * 2 * sizeof *grown);
            if (!grown) rc = sc_error_set(SC_ENOMEM, "out of memory");
            else {
                record_snapshot = grown;
                record_snapshot_cap = records.count * 2;
            }
        }
        /* Per file, only its last record counts: the value is that record's index. */
        for (size_t i = first; !rc && i < records.count; i++) {
            const sc_file_entry *f = &records.items[i].file;
            record_snapshot[i] = id;
            sc_fileset_remove(their_deleted, f, NULL);
            sc_fileset_remove(their_added, f, NULL);
            rc = sc_fileset_put(records.items[i].kind == SC_ENTRY_ADD ? their_added : their_deleted, f, i, NULL);
        }
        if (snap != latest) sc_snapshot_clear(&s);
    }
    size_t by;
    for (size_t i = 0; !rc && kind != SC_KIND_OVERWRITE && i < c->deletes.count; i++) {
        const sc_file_entry *d = &c->deletes.items[i].file;
        if (sc_fileset_get(their_deleted, d, &by) != 0) continue;
        by = (size_t)record_snapshot[by];
        char fd[512];
        describe_file(fd, sizeof fd, d);
        rc = sc_error_set(SC_ECONFLICT,
                          "File deletion conflict: %s was already deleted by snapshot %zu; "
                          "latest is snapshot %" PRIu64 " (commit user \"%s\"); give up committing",
                          fd, by, latest->id, latest->commit_user);
    }
    for (size_t i = 0; !rc && i < c->adds.count; i++) {
        const sc_file_entry *a = &c->adds.items[i].file;
        if (sc_fileset_get(their_added, a, &by) != 0) continue;
        by = (size_t)record_snapshot[by];
        char fa[512];
        describe_file(fa, sizeof fa, a);
        rc = sc_error_set(SC_ECONFLICT,
                          "File addition conflict: %s was already added by snapshot %zu; latest "
                          "is snapshot %" PRIu64 " (commit user \"%s\")",
                          fa, by, latest->id, latest->commit_user);
    }
    if (!rc) {
        snprintf(against, sizeof against,
                 "snapshots %" PRIu64 "..%" PRIu64 " were committed since the base (latest by "
                 "commit user \"%s\")",
                 validated + 1, latest->id, latest->commit_user);
        /* Their files as they stand now: the last record of each, if it is an ADD. Stale
         * records of a file moved twice, or deleted later, must not count. */
        sc_entry_vec survivors = {0};
        size_t last;
        for (size_t i = 0; !rc && i < records.count; i++) {
            const sc_file_entry *f = &records.items[i].file;
            if (records.items[i].kind == SC_ENTRY_ADD && sc_fileset_get(their_added, f, &last) == 0 && last == i)
                rc = sc_entry_vec_push(&survivors, SC_ENTRY_ADD, f);
        }
        if (!rc && kind != SC_KIND_OVERWRITE) rc = check_buckets(&survivors, &c->adds, against);
        if (!rc) rc = check_lsm(&survivors, ours_deleted, &c->adds, against);
        sc_entry_vec_free(&survivors);
    }
    sc_fileset_free(ours_deleted);
    sc_fileset_free(their_deleted);
    sc_fileset_free(their_added);
    sc_entry_vec_free(&records);
    free(record_snapshot);
    return rc;
}
