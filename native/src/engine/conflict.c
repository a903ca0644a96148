/* The four conflict kinds: deleted twice, re-added, LSM overlap, bucket count change. */
#include "engine/conflict.h"
#include "engine/entries.h"
#include "engine/state.h"
#include "engine/table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "base/fileset.h"
#include "base/vec.h"
#include "format/binary_row.h"
#include "format/file_index.h"

int sc_conflict_compare_keys(const sc_table *t, sc_bytes a, sc_bytes b) {
    const sc_table_schema *s = &t->schema;
    int c;
    if (sc_row_compare(&c, a.data, a.len, b.data, b.len, s->trimmed_key_types, s->trimmed_key_count, "key") == 0) return c;
    sc_error_clear();
    return sc_bytes_compare(a, b);
}

/* "data-1.parquet (partition "dt=1", bucket 0, level 0)". Names are escaped: they
 * may come from tables written before control characters were refused. */
static void describe_file(char *out, size_t cap, const sc_table *t, const sc_file_entry *f) {
    char part[128], name[320];
    sc_entries_describe_partition(part, sizeof part, t, f->partition);
    sc_bytes_describe(name, sizeof name, (sc_bytes){(const uint8_t *)f->file, strlen(f->file)});
    snprintf(out, cap, "%s (partition \"%s\", bucket %d, level %d)", name, part, f->bucket,
             f->level);
}

static void describe_user(char out[96], const char *user) {
    sc_bytes_describe(out, 96, (sc_bytes){(const uint8_t *)user, strlen(user)});
}

static void describe_snapshot(char *out, size_t cap, const sc_snapshot *s) {
    char user[96];
    describe_user(user, s->commit_user);
    snprintf(out, cap, "snapshot %" PRIu64 " (commit user \"%s\", identifier %" PRId64 ", %s)",
             s->id, user, s->commit_identifier, sc_commit_kind_name(s->commit_kind));
}

/* ---- LSM overlap ---- */

typedef struct lsm_item {
    const sc_file_entry *f;
    int ours;
} lsm_item;

/* qsort_r's comparator: the table (its key types) comes as the context. */
static int lsm_order(const void *pa, const void *pb, void *table) {
    const sc_file_entry *a = ((const lsm_item *)pa)->f, *b = ((const lsm_item *)pb)->f;
    int c = sc_bytes_compare(a->partition, b->partition);
    if (c) return c;
    if (a->bucket != b->bucket) return a->bucket < b->bucket ? -1 : 1;
    if (a->level != b->level) return a->level < b->level ? -1 : 1;
    return sc_conflict_compare_keys(table, a->min_key, b->min_key);
}

static int same_run(const sc_file_entry *a, const sc_file_entry *b) {
    return a->bucket == b->bucket && a->level == b->level &&
           sc_bytes_compare(a->partition, b->partition) == 0;
}

/* Files at level >= 1 with keys, in the (partition, bucket, level) runs our adds touch,
 * must not overlap ours after sorting by min key: a.max >= b.min is a conflict. */
static int check_lsm(const sc_table *t, const sc_entry_vec *others, const sc_fileset *removed, const sc_entry_vec *adds,
                     const char *against) {
    /* Only primary-key tables have sorted runs (append tables keep everything at level 0). */
    if (t->schema.trimmed_key_count == 0) return 0;
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
    qsort_r(items, n, sizeof *items, lsm_order, (void *)t);
    int rc = 0;
    size_t run_max = 0; /* item with the largest max key so far in this run */
    for (size_t i = 1; !rc && i < n; i++) {
        if (!same_run(items[i - 1].f, items[i].f)) {
            run_max = i;
            continue;
        }
        const lsm_item *a = &items[run_max], *b = &items[i];
        if ((a->ours || b->ours) && sc_conflict_compare_keys(t, a->f->max_key, b->f->min_key) >= 0) {
            char fa[512], fb[512], ka[64], kb[64], kc[64], kd[64];
            describe_file(fa, sizeof fa, t, a->f);
            describe_file(fb, sizeof fb, t, b->f);
            sc_entries_describe_key(ka, sizeof ka, t, a->f->min_key);
            sc_entries_describe_key(kb, sizeof kb, t, a->f->max_key);
            sc_entries_describe_key(kc, sizeof kc, t, b->f->min_key);
            sc_entries_describe_key(kd, sizeof kd, t, b->f->max_key);
            rc = sc_error_set(SC_ECONFLICT,
                              "LSM conflict: key ranges overlap at the same level: %s [%s..%s] "
                              "and %s [%s..%s]; %s",
                              fa, ka, kb, fb, kc, kd, against);
        }
        if (sc_conflict_compare_keys(t, b->f->max_key, a->f->max_key) > 0) run_max = i;
    }
    free(items);
    return rc;
}

/* ---- bucket counts ---- */

/*
 * Per partition, the first entry that declares a bucket count and the first
 * that declares a different one. That is enough to tell, for any further
 * declaration, whether some entry disagrees with it and which one came first:
 * if it differs from `first`, `first`; otherwise `other` (when present).
 * Lookups go through one hash map keyed by the partition, so checking n
 * declarations against m costs O(n + m), not O(n * m).
 */
typedef struct bucket_decl {
    const sc_file_entry *first, *other;
} bucket_decl;

typedef struct bucket_index {
    sc_fileset *by_partition; /* partition -> index into decls */
    bucket_decl *decls;
    size_t count;
} bucket_index;

/* The map is keyed by file identity; a partition alone is the identity of a
 * nameless file in bucket 0, which no real file can have. */
static sc_file_entry partition_key(sc_bytes partition) {
    sc_file_entry k = {0};
    k.partition = partition;
    k.file = "";
    return k;
}

static void bucket_index_free(bucket_index *ix) {
    sc_fileset_free(ix->by_partition);
    free(ix->decls);
}

static int bucket_index_init(bucket_index *ix, size_t capacity) {
    memset(ix, 0, sizeof *ix);
    ix->decls = calloc(capacity ? capacity : 1, sizeof *ix->decls);
    if (!ix->decls) return sc_error_set(SC_ENOMEM, "out of memory");
    return sc_fileset_new(&ix->by_partition);
}

/* The entry an entry with f's partition and bucket count disagrees with, or NULL. */
static const sc_file_entry *bucket_index_disagree(const bucket_index *ix, const sc_file_entry *f) {
    sc_file_entry key = partition_key(f->partition);
    size_t at;
    if (sc_fileset_get(ix->by_partition, &key, &at) != 0) return NULL;
    const bucket_decl *d = &ix->decls[at];
    if (d->first->total_buckets != f->total_buckets) return d->first;
    return d->other;
}

/* Record f's declaration (capacity: one decl per recorded entry). */
static int bucket_index_add(bucket_index *ix, const sc_file_entry *f) {
    sc_file_entry key = partition_key(f->partition);
    size_t at;
    int rc = sc_fileset_put(ix->by_partition, &key, ix->count, &at);
    if (rc == 0) {
        ix->decls[ix->count++] = (bucket_decl){f, NULL};
        return 0;
    }
    if (rc != SC_EEXISTS) return rc;
    bucket_decl *d = &ix->decls[at];
    if (!d->other && d->first->total_buckets != f->total_buckets) d->other = f;
    return 0;
}

static int check_buckets(const sc_table *t, const sc_entry_vec *others, const sc_entry_vec *adds, const char *against) {
    bucket_index ix;
    int rc = bucket_index_init(&ix, others->count);
    for (size_t j = 0; !rc && j < others->count; j++) {
        const sc_file_entry *o = &others->items[j].file;
        if (others->items[j].kind == SC_ENTRY_ADD && o->total_buckets > 0) rc = bucket_index_add(&ix, o);
    }
    for (size_t i = 0; !rc && i < adds->count; i++) {
        const sc_file_entry *a = &adds->items[i].file;
        if (a->total_buckets <= 0) continue;
        const sc_file_entry *o = bucket_index_disagree(&ix, a);
        if (!o) continue;
        char part[128], fa[512], fo[320];
        sc_entries_describe_partition(part, sizeof part, t, a->partition);
        sc_bytes_describe(fo, sizeof fo, (sc_bytes){(const uint8_t *)o->file, strlen(o->file)});
        describe_file(fa, sizeof fa, t, a);
        rc = sc_error_set(SC_ECONFLICT,
                          "Bucket count conflict: partition \"%s\" has %d total buckets (%s) "
                          "but %s declares %d; change bucket counts only with OVERWRITE; %s",
                          part, o->total_buckets, fo, fa, a->total_buckets, against);
    }
    bucket_index_free(&ix);
    return rc;
}

/* Our own change set must not add or delete one file twice, nor disagree on
 * bucket counts. Hash maps keep this linear in the size of the change set. */
static int check_self(const sc_changes *c, sc_fileset *deleted) {
    sc_fileset *added = NULL;
    bucket_index ix = {0};
    char name[320];
    int rc = sc_fileset_new(&added);
    for (size_t i = 0; !rc && i < c->deletes.count; i++) {
        const sc_file_entry *d = &c->deletes.items[i].file;
        rc = sc_fileset_put(deleted, d, i, NULL);
        if (rc == SC_EEXISTS) {
            sc_bytes_describe(name, sizeof name, (sc_bytes){(const uint8_t *)d->file, strlen(d->file)});
            rc = sc_error_set(SC_EINVAL, "changes delete %s twice", name);
        }
    }
    for (size_t i = 0; !rc && i < c->adds.count; i++) {
        const sc_file_entry *a = &c->adds.items[i].file;
        rc = sc_fileset_put(added, a, i, NULL);
        if (rc == SC_EEXISTS) {
            sc_bytes_describe(name, sizeof name, (sc_bytes){(const uint8_t *)a->file, strlen(a->file)});
            rc = sc_error_set(SC_EINVAL, "changes add %s twice", name);
        }
    }
    if (!rc) rc = bucket_index_init(&ix, c->adds.count);
    for (size_t i = 0; !rc && i < c->adds.count; i++) {
        const sc_file_entry *b = &c->adds.items[i].file;
        if (b->total_buckets <= 0) continue;
        const sc_file_entry *a = bucket_index_disagree(&ix, b);
        if (a) {
            sc_bytes_describe(name, sizeof name, (sc_bytes){(const uint8_t *)b->file, strlen(b->file)});
            rc = sc_error_set(SC_EINVAL, "changes declare %d and %d total buckets for the partition of %s",
                              a->total_buckets, b->total_buckets, name);
        } else {
            rc = bucket_index_add(&ix, b);
        }
    }
    bucket_index_free(&ix);
    sc_fileset_free(added);
    return rc;
}

/* ---- the touched-files check: read only the manifests that may mention our files ---- */

/* What the touched-files check knows about one file the change set names. */
typedef struct touched_file {
    const sc_file_entry *f; /* the caller's entry (identity only) */
    uint64_t hash;          /* sc_file_index_hash of its identity */
    int live;               /* after the records read so far */
    size_t record;          /* index in `stored` of its live ADD record */
} touched_file;

/* The one total-bucket count our adds declare (> 0), 0 when none, -1 when several. */
static int32_t declared_buckets(const sc_changes *c) {
    int32_t t = 0;
    for (size_t i = 0; i < c->adds.count; i++) {
        int32_t b = c->adds.items[i].file.total_buckets;
        if (b <= 0 || b == t) continue;
        if (t) return -1;
        t = b;
    }
    return t;
}

/*
 * How a change's files stand in the base, for match_changes: the record as
 * committed when the file is live there, NULL when it is not.
 */
typedef const sc_file_entry *(*live_record_fn)(void *ctx, const sc_file_entry *f);

/*
 * The rules shared by the touched-files check and the full check: every
 * delete must name a live file (its stored record goes to *out_deletes, so
 * the DELETE carries what was committed), and no add may name a live file
 * unless this change deletes it too (a level change).
 */
static int match_changes(sc_entry_vec *out_deletes, const sc_table *t, const sc_changes *c, const sc_fileset *deleted,
                         live_record_fn live_record, void *ctx, int check_deletes, const char *against) {
    int rc = 0;
    for (size_t i = 0; !rc && check_deletes && i < c->deletes.count; i++) {
        const sc_file_entry *d = &c->deletes.items[i].file;
        const sc_file_entry *stored = live_record(ctx, d);
        if (stored) {
            rc = sc_entry_vec_push(out_deletes, SC_ENTRY_DELETE, stored);
            continue;
        }
        char fd[512];
        describe_file(fd, sizeof fd, t, d);
        rc = sc_error_set(SC_ECONFLICT,
                          "File deletion conflict: %s is not live (another commit removed it "
                          "or it was never added); %s; give up committing",
                          fd, against);
    }
    for (size_t i = 0; !rc && i < c->adds.count; i++) {
        const sc_file_entry *a = &c->adds.items[i].file;
        if (!live_record(ctx, a) || sc_fileset_get(deleted, a, NULL) == 0) continue;
        char fa[512];
        describe_file(fa, sizeof fa, t, a);
        rc = sc_error_set(SC_ECONFLICT, "File addition conflict: %s is already live; %s", fa, against);
    }
    return rc;
}

typedef struct touched_lookup {
    const sc_fileset *ids;
    const touched_file *files;
    const sc_entry_vec *stored;
} touched_lookup;

static const sc_file_entry *touched_live_record(void *ctx, const sc_file_entry *f) {
    const touched_lookup *l = ctx;
    size_t j = 0;
    if (sc_fileset_get(l->ids, f, &j) != 0 || !l->files[j].live) return NULL;
    return &l->stored->items[l->files[j].record].file;
}

typedef struct full_lookup {
    const sc_fileset *live_set;
    const sc_entry_vec *live;
} full_lookup;

static const sc_file_entry *full_live_record(void *ctx, const sc_file_entry *f) {
    const full_lookup *l = ctx;
    size_t at = 0;
    return sc_fileset_get(l->live_set, f, &at) == 0 ? &l->live->items[at].file : NULL;
}

/* The touched files' records replayed in order (check_touched): a record of one of them. */
typedef struct touched_replay {
    const sc_snapshot *latest;
    const sc_partition_set *parts;
    const sc_fileset *ids;
    touched_file *files;
    sc_entry_vec *stored;
    int32_t buckets;     /* the count our adds declare (> 0), or 0 */
    int buckets_differ;  /* a streamed manifest's ADD in our partitions declares another */
} touched_replay;

static int replay_touched(touched_replay *r, sc_entry_kind kind, const sc_file_entry *f) {
    size_t j;
    if (sc_fileset_get(r->ids, f, &j) != 0) return 0; /* a hash collision, not one of ours */
    if (kind == SC_ENTRY_ADD) {
        if (r->files[j].live)
            return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": manifests add %s twice", r->latest->id, f->file);
        int rc = sc_entry_vec_push_copy(r->stored, SC_ENTRY_ADD, f);
        if (rc) return rc;
        r->files[j].live = 1;
        r->files[j].record = r->stored->count - 1;
        return 0;
    }
    if (!r->files[j].live)
        return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": manifests delete %s, which is not live", r->latest->id, f->file);
    r->files[j].live = 0;
    return 0;
}

/* A record of a manifest without a file index, read one record at a time: ours are
 * replayed; the others only tell whether the bucket rule needs the full check. */
static int stream_touched(void *ctx, sc_entry_kind kind, const sc_file_entry *f) {
    touched_replay *r = ctx;
    if (kind == SC_ENTRY_ADD && r->buckets > 0 && f->total_buckets > 0 && f->total_buckets != r->buckets &&
        sc_partition_set_has(r->parts, f->partition))
        r->buckets_differ = 1;
    return replay_touched(r, kind, f);
}

/*
 * The first check of an APPEND or COMPACT, in time and reads that follow the
 * change set, not the table: of the manifests of `latest` that may hold a
 * touched partition, one with a file index (file_index.h) whose bucket range
 * agrees with the count our adds declare is read only when its filter may
 * hold one of our files, and of its records only those of our files are
 * replayed, in order — which decides liveness of our files exactly as
 * replaying everything would (a filter has no false "not"). A manifest
 * without an index (Paimon's, or a big one) is read one record at a time,
 * keeping only our files' records: its cost is its reading, not memory for
 * the table. *out_decided = 0 (nothing done) sends the caller to the full
 * scan: an OVERWRITE (it needs every live file), a primary-key compaction
 * output at level >= 1 (the LSM check needs the whole run), or a bucket count
 * that differs somewhere in the partition.
 */
static int check_touched(int *out_decided, sc_entry_vec *out_deletes, sc_table *t, const sc_snapshot *latest,
                         const sc_changes *c, sc_commit_kind kind, const sc_partition_set *parts,
                         const sc_fileset *deleted, const char *against) {
    *out_decided = 0;
    if (!latest || kind == SC_KIND_OVERWRITE) return 0;
    int32_t buckets = declared_buckets(c);
    if (buckets < 0) return 0;
    if (t->schema.trimmed_key_count > 0)
        for (size_t i = 0; i < c->adds.count; i++)
            if (c->adds.items[i].file.level >= 1) return 0;

    sc_manifest_file_vec metas = {0};
    sc_fileset *ids = NULL;
    sc_entry_vec stored = {0};
    size_t n = c->deletes.count + c->adds.count, count = 0;
    touched_file *files = calloc(n ? n : 1, sizeof *files);
    uint64_t *hashes = calloc(n ? n : 1, sizeof *hashes);
    sc_size_vec found = {0};
    uint8_t *read = NULL; /* per manifest: 0 skip, 1 look up our records, 2 read it whole (no index) */
    int rc = files && hashes ? sc_fileset_new(&ids) : sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        const sc_file_entry *f = i < c->deletes.count ? &c->deletes.items[i].file
                                                      : &c->adds.items[i - c->deletes.count].file;
        rc = sc_fileset_put(ids, f, count, NULL);
        if (rc == SC_EEXISTS) { /* deleted and added again (a level change): one identity */
            rc = 0;
            continue;
        }
        if (!rc) {
            hashes[count] = sc_file_index_hash(f->partition, f->bucket, f->file);
            files[count] = (touched_file){f, hashes[count], 0, 0};
            count++;
        }
    }
    if (!rc) rc = sc_state_load_list(&metas, t, &latest->base_manifest_list);
    if (!rc) rc = sc_state_load_list(&metas, t, &latest->delta_manifest_list);
    if (!rc && metas.count && !(read = calloc(metas.count, 1))) rc = sc_error_set(SC_ENOMEM, "out of memory");
    int usable = 1;
    for (size_t m = 0; !rc && usable && m < metas.count; m++) {
        const sc_manifest_file *meta = &metas.items[m];
        if (!sc_state_meta_may_hold(t, meta, parts)) continue;
        sc_file_index ix;
        if (!meta->file_index) {
            read[m] = 2;
            continue;
        }
        if ((rc = sc_file_index_decode(&ix, meta->file_index, meta->file_index_len, meta->name)) != 0) break;
        if (buckets > 0 && ix.has_bucket_range && (ix.min_total_buckets != buckets || ix.max_total_buckets != buckets)) {
            usable = 0;
            break;
        }
        for (size_t j = 0; j < count && !read[m]; j++) read[m] = (uint8_t)sc_file_index_may_contain(&ix, files[j].hash);
    }
    /* What the loop below reads, in one batch on a concurrent store (a hint: the reads report). */
    const sc_manifest_file *pick[SC_STATE_PREFETCH_OBJECTS];
    size_t np = 0;
    for (size_t m = 0; !rc && usable && m < metas.count && np < SC_STATE_PREFETCH_OBJECTS; m++)
        if (read[m]) pick[np++] = &metas.items[m];
    if (np > 1) sc_state_prefetch_manifests(t, pick, np);
    touched_replay r = {latest, parts, ids, files, &stored, buckets, 0};
    for (size_t m = 0; !rc && usable && m < metas.count; m++) {
        const sc_manifest_file *meta = &metas.items[m];
        if (read[m] == 2) {
            rc = sc_state_each_record(t, meta, (uint64_t)meta->added + (uint64_t)meta->deleted <= SC_STATE_KEEP_RECORDS,
                                      stream_touched, &r);
            if (!rc && r.buckets_differ) usable = 0;
            continue;
        }
        if (!read[m]) continue;
        const sc_entry_vec *records = NULL;
        sc_entry_vec holder;
        rc = sc_state_find_records(&found, &records, &holder, t, meta, hashes, count);
        /* Nothing below inserts into the cache, so the borrowed records stay valid. */
        for (size_t k = 0; !rc && k < found.count; k++) {
            const sc_manifest_entry *e = &records->items[found.items[k]];
            rc = replay_touched(&r, e->kind, &e->file);
        }
        sc_entry_vec_free(&holder);
    }
    if (!rc && usable) {
        *out_decided = 1;
        touched_lookup l = {ids, files, &stored};
        rc = match_changes(out_deletes, t, c, deleted, touched_live_record, &l, 1, against);
    }
    free(read);
    free(files);
    free(hashes);
    sc_size_vec_free(&found);
    sc_fileset_free(ids);
    sc_entry_vec_free(&stored);
    sc_manifest_file_vec_free(&metas);
    return rc;
}

int sc_conflict_check_full(sc_entry_vec *out_deletes, sc_table *t,
                           const sc_snapshot *latest, const sc_changes *c, sc_commit_kind kind,
                           const sc_partition_set *parts) {
    return sc_conflict_check_first(out_deletes, NULL, t, latest, c, kind, parts, 1);
}

int sc_conflict_check_first(sc_entry_vec *out_deletes, int *out_touched_only, sc_table *t,
                            const sc_snapshot *latest, const sc_changes *c, sc_commit_kind kind,
                            const sc_partition_set *parts, int allow_touched) {
    sc_entry_vec live = {0};
    sc_fileset *live_set = NULL, *deleted = NULL;
    char against[512] = "the table is empty";
    if (latest) {
        describe_snapshot(against, sizeof against, latest);
        strncat(against, " is the base", sizeof against - strlen(against) - 1);
    }
    int rc = sc_fileset_new(&deleted);
    if (!rc) rc = check_self(c, deleted);
    int decided = 0;
    if (!rc && allow_touched) rc = check_touched(&decided, out_deletes, t, latest, c, kind, parts, deleted, against);
    if (out_touched_only) *out_touched_only = decided;
    if (rc || decided) {
        sc_fileset_free(deleted);
        return rc;
    }
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
    }
    full_lookup l = {live_set, &live};
    if (!rc) rc = match_changes(out_deletes, t, c, deleted, full_live_record, &l, kind != SC_KIND_OVERWRITE, against);
    if (!rc && kind != SC_KIND_OVERWRITE) rc = check_buckets(t, &live, &c->adds, against);
    if (!rc) rc = check_lsm(t, &live, deleted, &c->adds, against);
    sc_fileset_free(deleted);
    sc_fileset_free(live_set);
    sc_entry_vec_free(&live);
    return rc;
}

/* The identity hashes of every file `c` adds or deletes (*out owned by the caller). */
static int touched_hashes(uint64_t **out, size_t *out_count, const sc_changes *c) {
    size_t n = c->deletes.count + c->adds.count;
    uint64_t *h = malloc((n ? n : 1) * sizeof *h);
    if (!h) return sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const sc_file_entry *f = i < c->deletes.count ? &c->deletes.items[i].file : &c->adds.items[i - c->deletes.count].file;
        h[i] = sc_file_index_hash(f->partition, f->bucket, f->file);
    }
    *out = h;
    *out_count = n;
    return 0;
}

/*
 * The records of snapshot `snap`'s delta in `parts` that can matter to `c`:
 * with `skip_unrelated`, a manifest whose file index rules out every touched
 * file and whose bucket range agrees with `buckets` is not read — its records
 * could neither conflict with ours nor feed the bucket rule (the LSM rule
 * needs none: the caller passes skip_unrelated only when it does not apply).
 */
static int delta_records(sc_entry_vec *out, sc_table *t, const sc_snapshot *snap, const sc_partition_set *parts,
                         int skip_unrelated, int32_t buckets, const uint64_t *hashes, size_t nhashes) {
    if (!skip_unrelated) return sc_state_delta_records(out, t, snap, parts);
    sc_manifest_file_vec metas = {0};
    int rc = sc_state_load_list(&metas, t, &snap->delta_manifest_list);
    for (size_t m = 0; !rc && m < metas.count; m++) {
        const sc_manifest_file *meta = &metas.items[m];
        if (!sc_state_meta_may_hold(t, meta, parts)) continue;
        sc_file_index ix;
        int read = 1;
        if (meta->file_index && sc_file_index_decode(&ix, meta->file_index, meta->file_index_len, meta->name) == 0 &&
            !(buckets > 0 && ix.has_bucket_range && (ix.min_total_buckets != buckets || ix.max_total_buckets != buckets))) {
            read = 0;
            for (size_t j = 0; j < nhashes && !read; j++) read = sc_file_index_may_contain(&ix, hashes[j]);
        }
        sc_error_clear();
        if (!read) continue;
        sc_entry_vec records = {0};
        rc = sc_state_load_manifest(&records, t, meta);
        for (size_t r = 0; !rc && r < records.count; r++) {
            const sc_manifest_entry *e = &records.items[r];
            if (parts && !sc_partition_set_has(parts, e->file.partition)) continue;
            rc = sc_entry_vec_push_copy(out, e->kind, &e->file);
        }
        sc_entry_vec_free(&records);
    }
    sc_manifest_file_vec_free(&metas);
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
    char against[512] = "", latest_user[96];
    describe_user(latest_user, latest->commit_user);
    /* As the touched-files check: what the commits since did to files we do not name cannot
     * conflict, unless the bucket or LSM rule needs their files (then read everything). */
    int32_t buckets = declared_buckets(c);
    int skip_unrelated = kind != SC_KIND_OVERWRITE && buckets >= 0;
    for (size_t i = 0; skip_unrelated && t->schema.trimmed_key_count > 0 && i < c->adds.count; i++)
        if (c->adds.items[i].file.level >= 1) skip_unrelated = 0;
    uint64_t *hashes = NULL;
    size_t nhashes = 0;
    if (!rc) rc = touched_hashes(&hashes, &nhashes, c);
    /* A snapshot in between may be a leftover below EARLIEST: a claim that landed late, after
     * an expiration had deleted the snapshot of that id. It is not history, and the one it
     * stands in for is gone: what was committed since cannot be read here (its files could
     * pass for a conflict, or hide one). SC_ENOTFOUND then, as for a snapshot read missing:
     * the caller checks against the latest snapshot's live files (sc_state_expired_under).
     * The latest itself is found by discovery, at or above EARLIEST. */
    if (!rc && latest->id - validated > 1) {
        uint64_t earliest = 0;
        rc = t->strategy->earliest(t, &earliest);
        if (!rc && earliest > validated + 1)
            rc = sc_error_set(SC_ENOTFOUND, "snapshots after %" PRIu64 " have expired (history starts at %" PRIu64 ")",
                              validated, earliest);
    }
    /* The snapshots in between, read a batch at a time (one round trip each on S3). */
    sc_snapshot *between = latest->id - validated > 1 ? calloc(SC_TABLE_SNAPSHOTS_BATCH, sizeof *between) : NULL;
    if (latest->id - validated > 1 && !between && !rc) rc = sc_error_set(SC_ENOMEM, "out of memory");
    uint64_t between_first = 0;
    size_t between_count = 0;
    for (uint64_t id = validated + 1; !rc && id <= latest->id; id++) {
        sc_snapshot *snap = (sc_snapshot *)latest;
        if (id != latest->id) {
            if (id >= between_first + between_count) {
                for (size_t k = 0; k < between_count; k++) sc_snapshot_clear(&between[k]);
                between_count = 0;
                uint64_t left = latest->id - id;
                size_t n = left < SC_TABLE_SNAPSHOTS_BATCH ? (size_t)left : SC_TABLE_SNAPSHOTS_BATCH;
                if ((rc = sc_table_read_snapshots(between, t, id, n)) != 0) break;
                between_first = id;
                between_count = n;
                /* ... and their delta lists, with the latest's, in one more (a hint: the reads report). */
                const sc_object_ref *lists[SC_TABLE_SNAPSHOTS_BATCH + 1];
                size_t nlists = 0;
                for (size_t k = 0; k < n; k++) lists[nlists++] = &between[k].delta_manifest_list;
                if (id + n == latest->id) lists[nlists++] = &latest->delta_manifest_list;
                sc_state_prefetch_lists(t, lists, nlists);
            }
            snap = &between[id - between_first];
        }
        size_t first = records.count;
        rc = delta_records(&records, t, snap, parts, skip_unrelated, buckets, hashes, nhashes);
        if (!rc) SC_VEC_RESERVE(rc, record_snapshot, record_snapshot_cap, records.count, 64, "conflict check records");
        /* Per file, only its last record counts: the value is that record's index. */
        for (size_t i = first; !rc && i < records.count; i++) {
            const sc_file_entry *f = &records.items[i].file;
            record_snapshot[i] = id;
            sc_fileset_remove(their_deleted, f, NULL);
            sc_fileset_remove(their_added, f, NULL);
            rc = sc_fileset_put(records.items[i].kind == SC_ENTRY_ADD ? their_added : their_deleted, f, i, NULL);
        }
    }
    for (size_t k = 0; k < between_count; k++) sc_snapshot_clear(&between[k]);
    free(between);
    size_t by;
    for (size_t i = 0; !rc && kind != SC_KIND_OVERWRITE && i < c->deletes.count; i++) {
        const sc_file_entry *d = &c->deletes.items[i].file;
        if (sc_fileset_get(their_deleted, d, &by) != 0) continue;
        by = (size_t)record_snapshot[by];
        char fd[512];
        describe_file(fd, sizeof fd, t, d);
        rc = sc_error_set(SC_ECONFLICT,
                          "File deletion conflict: %s was already deleted by snapshot %zu; "
                          "latest is snapshot %" PRIu64 " (commit user \"%s\"); give up committing",
                          fd, by, latest->id, latest_user);
    }
    for (size_t i = 0; !rc && i < c->adds.count; i++) {
        const sc_file_entry *a = &c->adds.items[i].file;
        if (sc_fileset_get(their_added, a, &by) != 0) continue;
        by = (size_t)record_snapshot[by];
        char fa[512];
        describe_file(fa, sizeof fa, t, a);
        rc = sc_error_set(SC_ECONFLICT,
                          "File addition conflict: %s was already added by snapshot %zu; latest "
                          "is snapshot %" PRIu64 " (commit user \"%s\")",
                          fa, by, latest->id, latest_user);
    }
    if (!rc) {
        snprintf(against, sizeof against,
                 "snapshots %" PRIu64 "..%" PRIu64 " were committed since the base (latest by "
                 "commit user \"%s\")",
                 validated + 1, latest->id, latest_user);
        /* Their files as they stand now: the last record of each, if it is an ADD. Stale
         * records of a file moved twice, or deleted later, must not count. */
        sc_entry_vec survivors = {0};
        size_t last;
        for (size_t i = 0; !rc && i < records.count; i++) {
            const sc_file_entry *f = &records.items[i].file;
            if (records.items[i].kind == SC_ENTRY_ADD && sc_fileset_get(their_added, f, &last) == 0 && last == i)
                rc = sc_entry_vec_push(&survivors, SC_ENTRY_ADD, f);
        }
        if (!rc && kind != SC_KIND_OVERWRITE) rc = check_buckets(t, &survivors, &c->adds, against);
        if (!rc) rc = check_lsm(t, &survivors, ours_deleted, &c->adds, against);
        sc_entry_vec_free(&survivors);
    }
    sc_fileset_free(ours_deleted);
    sc_fileset_free(their_deleted);
    sc_fileset_free(their_added);
    sc_entry_vec_free(&records);
    free(record_snapshot);
    free(hashes);
    return rc;
}


/* ---- index files ---- */

static void describe_index(char *out, size_t cap, const sc_table *t, const sc_index_entry *e) {
    char part[128], name[320];
    sc_entries_describe_partition(part, sizeof part, t, e->partition);
    sc_bytes_describe(name, sizeof name, (sc_bytes){(const uint8_t *)e->file, strlen(e->file)});
    snprintf(out, cap, "index file %s (%s, partition \"%s\", bucket %d)", name, e->index_type, part, e->bucket);
}

static int index_same_file(const sc_index_entry *a, const sc_index_entry *b) {
    return a->bucket == b->bucket && strcmp(a->index_type, b->index_type) == 0 && strcmp(a->file, b->file) == 0 &&
           sc_bytes_compare(a->partition, b->partition) == 0;
}

static int index_deleted_here(const sc_changes *c, const sc_index_entry *e) {
    for (size_t j = 0; j < c->index_deletes.count; j++)
        if (index_same_file(e, &c->index_deletes.items[j].entry)) return 1;
    return 0;
}

int sc_conflict_check_index(const sc_table *t, const sc_index_vec *live, const sc_changes *c) {
    char what[512];
    for (size_t i = 0; i < c->index_deletes.count; i++) {
        const sc_index_entry *d = &c->index_deletes.items[i].entry;
        int found = 0;
        for (size_t j = 0; !found && j < live->count; j++) found = index_same_file(d, &live->items[j].entry);
        if (!found) {
            describe_index(what, sizeof what, t, d);
            return sc_error_set(SC_ECONFLICT, "%s is deleted by this commit but is not live (another commit replaced or "
                                              "removed it, or it was never committed)", what);
        }
    }
    int unaware = t->schema.bucket == SC_BUCKET_UNAWARE && t->schema.primary_key_count == 0;
    for (size_t i = 0; unaware && i < c->index_adds.count; i++) {
        const sc_index_entry *a = &c->index_adds.items[i].entry;
        if (strcmp(a->index_type, "DELETION_VECTORS") != 0) continue;
        for (size_t j = 0; j < live->count; j++) {
            const sc_index_entry *l = &live->items[j].entry;
            if (strcmp(l->index_type, a->index_type) != 0 || index_deleted_here(c, l)) continue;
            if (strcmp(l->file, a->file) == 0) {
                describe_index(what, sizeof what, t, a);
                return sc_error_set(SC_ECONFLICT, "%s is added, but a live index file has that name", what);
            }
            for (size_t r = 0; r < a->dv_range_count; r++)
                for (size_t q = 0; q < l->dv_range_count; q++)
                    if (strcmp(a->dv_ranges[r].data_file, l->dv_ranges[q].data_file) == 0) {
                        char theirs[512];
                        describe_index(what, sizeof what, t, a);
                        describe_index(theirs, sizeof theirs, t, l);
                        return sc_error_set(SC_ECONFLICT, "%s holds a deletion vector of data file %s, which live %s "
                                                          "already holds (and this commit does not delete)",
                                            what, a->dv_ranges[r].data_file, theirs);
                    }
        }
    }
    return 0;
}

int sc_conflict_check_dv_targets(sc_table *t, const sc_snapshot *latest, const sc_changes *c) {
    sc_entry_vec targets = {0}; /* one identity per vector: partition, bucket, data file */
    int rc = 0;
    for (size_t i = 0; !rc && i < c->index_adds.count; i++) {
        const sc_index_entry *a = &c->index_adds.items[i].entry;
        for (size_t r = 0; !rc && r < a->dv_range_count; r++) {
            sc_file_entry f = {.partition = a->partition, .bucket = a->bucket, .file = a->dv_ranges[r].data_file};
            rc = sc_entry_vec_push(&targets, SC_ENTRY_ADD, &f);
        }
    }
    if (rc || targets.count == 0) {
        sc_entry_vec_free(&targets);
        return rc;
    }
    sc_partition_set parts = {0};
    sc_entry_vec live = {0};
    sc_fileset *after = NULL;
    rc = sc_partition_set_build(&parts, &targets, NULL);
    if (!rc && latest) rc = sc_state_live_files(&live, t, latest, &parts);
    if (!rc) rc = sc_fileset_new(&after);
    for (size_t i = 0; !rc && i < live.count; i++) rc = sc_fileset_put(after, &live.items[i].file, 0, NULL);
    for (size_t i = 0; !rc && i < c->deletes.count; i++)
        if (sc_fileset_remove(after, &c->deletes.items[i].file, NULL) != 0) sc_error_clear();
    for (size_t i = 0; !rc && i < c->adds.count; i++)
        if (sc_fileset_put(after, &c->adds.items[i].file, 0, NULL) == SC_EEXISTS) sc_error_clear();
    size_t at = 0;
    for (size_t i = 0; !rc && i < c->index_adds.count; i++) {
        const sc_index_entry *a = &c->index_adds.items[i].entry;
        for (size_t r = 0; !rc && r < a->dv_range_count; r++, at++) {
            if (sc_fileset_get(after, &targets.items[at].file, NULL) == 0) continue;
            sc_error_clear();
            char what[512], part[128];
            describe_index(what, sizeof what, t, a);
            sc_entries_describe_partition(part, sizeof part, t, a->partition);
            rc = sc_error_set(SC_ECONFLICT, "%s holds a deletion vector of data file %s, which is not live in partition "
                                            "\"%s\", bucket %d after this commit%s%s",
                              what, a->dv_ranges[r].data_file, part, a->bucket, latest ? " (deleted by a commit up to " : "",
                              latest ? "the latest snapshot, or never added)" : " (never added)");
        }
    }
    sc_fileset_free(after);
    sc_entry_vec_free(&live);
    sc_partition_set_free(&parts);
    sc_entry_vec_free(&targets);
    return rc;
}

int sc_conflict_check_dv_deletes(const sc_table *t, const sc_index_vec *live, const sc_changes *c) {
    int unaware = t->schema.bucket == SC_BUCKET_UNAWARE && t->schema.primary_key_count == 0;
    for (size_t j = 0; unaware && j < live->count; j++) {
        const sc_index_entry *l = &live->items[j].entry;
        if (strcmp(l->index_type, "DELETION_VECTORS") != 0 || index_deleted_here(c, l)) continue;
        for (size_t q = 0; q < l->dv_range_count; q++)
            for (size_t i = 0; i < c->deletes.count; i++) {
                const sc_file_entry *d = &c->deletes.items[i].file;
                if (strcmp(d->file, l->dv_ranges[q].data_file) != 0) continue;
                char what[512];
                describe_index(what, sizeof what, t, l);
                return sc_error_set(SC_ECONFLICT, "data file %s is deleted by this commit, but live %s holds a deletion "
                                                  "vector of it, which this commit does not delete (its deleted rows "
                                                  "would come back)",
                                    d->file, what);
            }
    }
    return 0;
}
