/*
 * The immutable objects a commit writes before its claim (commit_manifests.h):
 * the delta manifest and its list, and each attempt's base list, merged so
 * that it stays short. Every object gets a fresh name and goes into the
 * handle's cache; the keys are remembered for clean-up.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env_internal.h"
#include "base/error_internal.h"
#include "base/fileset.h"
#include "base/vec.h"
#include "engine/commit_manifests.h"
#include "engine/state.h"
#include "format/changes.h"
#include "format/file_index.h"
#include "format/index_manifest.h"
#include "format/partition.h"

/* Bytes of pending objects above which they are sent at once (a bulk load's chunks). */
#define SC_PENDING_BYTES_MAX ((size_t)8 << 20)

/* An encoded object waiting for the attempt's batch. */
struct sc_pending_write {
    char *key;
    sc_buf body;
};

static int remember(sc_commit_manifests *cm, const char *key) {
    int rc;
    SC_VEC_RESERVE(rc, cm->written, cm->written_cap, cm->written_count + 1, 8, "objects written by a commit");
    if (rc) return rc;
    if (!(cm->written[cm->written_count] = strdup(key))) return sc_error_set(SC_ENOMEM, "out of memory");
    cm->written_count++;
    return 0;
}

/* Write an immutable object under a fresh unique name, manifest/<prefix>-<uuid>-0 as
 * Paimon names them (its counter is per writer; ours is a fresh UUID per object).
 * What this handle writes goes into its cache: its next commit reads the lists and
 * manifests of the snapshot it just claimed without a request. */
static int put_unique(sc_commit_manifests *cm, sc_object_ref *out, const char *prefix, const sc_buf *body) {
    char uuid[SC_UUID_TEXT_LEN + 1], name[96], key[128];
    int rc = sc_env_uuid_text(&cm->t->env, uuid);
    if (rc) return rc;
    snprintf(name, sizeof name, "%s-%s-0", prefix, uuid);
    sc_manifest_key(key, sizeof key, name);
    /* Sent with the attempt's batch (sc_commit_manifests_flush). */
    SC_VEC_RESERVE(rc, cm->pending, cm->pending_cap, cm->pending_count + 1, 8, "objects waiting to be written");
    if (rc) return rc;
    struct sc_pending_write *w = &cm->pending[cm->pending_count];
    w->body = (sc_buf)SC_BUF_INIT;
    if (!(w->key = strdup(key)) || sc_buf_append(&w->body, body->data, body->len) != 0) {
        free(w->key);
        sc_buf_free(&w->body);
        return sc_error_set(SC_ENOMEM, "out of memory keeping %s for the batch", key);
    }
    cm->pending_count++;
    cm->pending_bytes += body->len;
    if ((rc = remember(cm, key)) != 0) return rc;
    out->name = strdup(name);
    if (!out->name) return sc_error_set(SC_ENOMEM, "out of memory");
    out->has_sha256 = 1;
    sc_sha256(out->sha256, body->data, body->len);
    out->length = body->len;
    if (strcmp(prefix, "manifest-list") == 0) sc_state_remember_list(cm->t, out, body->data, body->len);
    else if (strcmp(prefix, "manifest") == 0 && !cm->unremembered) sc_state_remember_manifest(cm->t, out, body->data, body->len);
    /* A bulk load's chunks are not held until the claim: sent once they add up (as they
     * were before batches: any time before the claim is early enough). */
    if (cm->pending_bytes > SC_PENDING_BYTES_MAX) return sc_commit_manifests_flush(cm, NULL, 0);
    return 0;
}

static void pending_drop(sc_commit_manifests *cm, size_t i) {
    cm->pending_bytes -= cm->pending[i].body.len;
    free(cm->pending[i].key);
    sc_buf_free(&cm->pending[i].body);
    cm->pending[i] = cm->pending[--cm->pending_count];
}

/* Calls per batch of pending writes, beside the caller's: the rest go in further batches. */
#define FLUSH_BATCH 32
/* Deletes waiting for a batch: more are sent at once (one round trip each). */
#define DOOMED_MAX 8

/* The doomed deletes as calls appended to `calls` at *n. */
static void doomed_calls(const sc_commit_manifests *cm, sc_store_call *calls, size_t *n) {
    for (size_t i = 0; i < cm->doomed_count; i++) calls[(*n)++] = (sc_store_call){.op = SC_OP_DELETE, .key = cm->doomed[i], .absent_ok = 1};
}

/* Sent: best effort (an object left behind is an orphan, as after a crash). */
static void doomed_done(sc_commit_manifests *cm) {
    for (size_t i = 0; i < cm->doomed_count; i++) free(cm->doomed[i]);
    free(cm->doomed);
    cm->doomed = NULL;
    cm->doomed_count = 0;
}

int sc_commit_manifests_flush(sc_commit_manifests *cm, sc_store_call *extra, size_t extra_count) {
    if (extra_count > SC_STRATEGY_CALLS_MAX * 2)
        return sc_error_set(SC_EINVAL, "%zu requests to send with a commit's writes (at most %d)", extra_count,
                            SC_STRATEGY_CALLS_MAX * 2);
    /* About 40 KB of calls: on the heap, not on a caller's (JNI) stack. */
    sc_store_call *calls = malloc((FLUSH_BATCH + SC_STRATEGY_CALLS_MAX * 2 + DOOMED_MAX) * sizeof *calls);
    if (!calls) return sc_error_set(SC_ENOMEM, "out of memory sending a commit's writes");
    int first = 1, rc = 0;
    while (!rc && (first || cm->pending_count)) {
        /* A merge can leave more than one batch of manifests: those go first, the caller's
         * requests with the last batch (usually the only one). */
        size_t take = cm->pending_count < FLUSH_BATCH ? cm->pending_count : FLUSH_BATCH;
        size_t at = cm->pending_count - take, n = 0;
        int last = at == 0;
        for (size_t i = at; i < cm->pending_count; i++)
            calls[n++] = (sc_store_call){.op = SC_OP_PUT, .key = cm->pending[i].key, .data = cm->pending[i].body.data,
                                         .len = cm->pending[i].body.len};
        size_t own = n;
        if (last)
            for (size_t i = 0; i < extra_count; i++) calls[n++] = extra[i];
        size_t doomed_at = n;
        if (last) doomed_calls(cm, calls, &n);
        rc = sc_store_batch(cm->t->store, &cm->t->env, calls, n);
        if (last)
            for (size_t i = 0; i < extra_count; i++) extra[i] = calls[own + i];
        if (last && !rc && n > doomed_at) doomed_done(cm);
        for (size_t i = 0; !rc && i < own; i++)
            if (calls[i].rc) rc = sc_error_wrap(sc_store_call_error(&calls[i]), "writing %s", calls[i].key);
        for (size_t i = 0; i < own; i++) sc_store_call_clear(&calls[i]);
        if (rc) break;
        while (cm->pending_count > at) pending_drop(cm, cm->pending_count - 1);
        first = 0;
    }
    free(calls);
    return rc;
}

/* 1 when `key` was still waiting for a batch (it is then dropped, never sent). */
static int pending_forget(sc_commit_manifests *cm, const char *key) {
    for (size_t i = 0; i < cm->pending_count; i++)
        if (strcmp(cm->pending[i].key, key) == 0) {
            pending_drop(cm, i);
            return 1;
        }
    return 0;
}

void sc_commit_manifests_discard(sc_commit_manifests *cm, const char *key) {
    if (pending_forget(cm, key)) return;
    if ((sc_store_caps(cm->t->store) & SC_CAP_CONCURRENT) && cm->doomed_count < DOOMED_MAX) {
        char **grown = realloc(cm->doomed, (cm->doomed_count + 1) * sizeof *grown);
        char *copy = grown ? strdup(key) : NULL;
        if (grown) cm->doomed = grown;
        if (copy) {
            cm->doomed[cm->doomed_count++] = copy;
            return;
        }
    }
    if (sc_store_discard(cm->t->store, key) != 0) sc_error_clear();
}

void sc_commit_manifests_settle(sc_commit_manifests *cm) {
    sc_store_call calls[DOOMED_MAX];
    size_t n = 0;
    doomed_calls(cm, calls, &n);
    if (n && sc_store_batch(cm->t->store, &cm->t->env, calls, n) != 0) sc_error_clear();
    doomed_done(cm);
}

/* Paimon's ManifestFileMeta of entries [from, to): counts, partition statistics, bucket and level ranges. */
static int describe_range(sc_manifest_file *m, sc_table *t, const sc_entry_vec *v, size_t from, size_t to) {
    size_t n = to - from, arity = t->schema.partition_key_count;
    sc_bytes *parts = malloc((n ? n : 1) * sizeof *parts);
    int64_t *nulls = calloc(arity ? arity : 1, sizeof *nulls);
    sc_buf min = SC_BUF_INIT, max = SC_BUF_INIT;
    int rc = parts && nulls ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = from; !rc && i < to; i++) {
        const sc_file_entry *f = &v->items[i].file;
        parts[i - from] = f->partition;
        if (v->items[i].kind == SC_ENTRY_ADD) m->added++;
        else m->deleted++;
        if (i == from || f->bucket < m->min_bucket) m->min_bucket = f->bucket;
        if (i == from || f->bucket > m->max_bucket) m->max_bucket = f->bucket;
        if (i == from || f->level < m->min_level) m->min_level = f->level;
        if (i == from || f->level > m->max_level) m->max_level = f->level;
    }
    m->has_bucket_range = m->has_level_range = n > 0;
    if (!rc) rc = sc_partition_stats(&min, &max, nulls, &t->schema, parts, n, "a partition of this commit");
    if (!rc) {
        m->partition_min = min.data;
        m->partition_min_len = min.len;
        m->partition_max = max.data;
        m->partition_max_len = max.len;
        m->partition_null_counts = nulls;
        m->partition_null_count_len = arity;
        m->has_partition_null_counts = 1;
        nulls = NULL;
        memset(&min, 0, sizeof min);
        memset(&max, 0, sizeof max);
    }
    free(parts);
    free(nulls);
    sc_buf_free(&min);
    sc_buf_free(&max);
    return rc;
}

/* The file index (file_index.h) of entries [from, to) into `out`; *present 0 when too big for one field. */
static int index_range(sc_buf *out, int *present, const sc_table *t, const sc_entry_vec *v, size_t from, size_t to) {
    size_t n = to - from;
    const sc_file_entry **files = malloc((n ? n : 1) * sizeof *files);
    uint8_t *is_add = malloc(n ? n : 1);
    int rc = files && is_add ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        files[i] = &v->items[from + i].file;
        is_add[i] = v->items[from + i].kind == SC_ENTRY_ADD;
    }
    if (!rc) rc = sc_file_index_build(out, present, files, is_add, n, t->limits.max_field_len);
    free(files);
    free(is_add);
    return rc;
}

/* Write `body`, the encoding of entries [from, to) of v, as one manifest and add its meta
 * (with the file index of those entries) to `list`. */
static int write_manifest_body(sc_commit_manifests *cm, sc_manifest_file_vec *list, const sc_entry_vec *v, size_t from,
                               size_t to, const sc_buf *body) {
    sc_buf index = SC_BUF_INIT;
    sc_object_ref ref = {0};
    sc_manifest_file m = {0};
    int has_index = 0;
    int rc = index_range(&index, &has_index, cm->t, v, from, to);
    if (!rc && has_index) {
        m.file_index = index.data;
        m.file_index_len = index.len;
    }
    if (!rc) rc = put_unique(cm, &ref, "manifest", body);
    if (!rc) {
        m.name = ref.name;
        m.size = (int64_t)ref.length;
        m.has_sha256 = 1;
        memcpy(m.sha256, ref.sha256, SC_SHA256_LEN);
        m.schema_id = cm->t->schema.id;
        rc = describe_range(&m, cm->t, v, from, to);
    }
    if (!rc) rc = sc_manifest_file_vec_push(list, &m);
    free(m.partition_min);
    free(m.partition_max);
    free(m.partition_null_counts);
    free(ref.name);
    sc_buf_free(&index);
    return rc;
}

/* Write entries [from, to) of v as one manifest and add its meta to `list`. */
static int write_manifest(sc_commit_manifests *cm, sc_manifest_file_vec *list, const sc_entry_vec *v, size_t from,
                          size_t to) {
    sc_entry_vec part = {v->items + from, to - from, to - from}; /* borrowed view */
    sc_buf body = SC_BUF_INIT;
    int rc = sc_paimon_manifest_encode(&body, &part);
    if (!rc) rc = write_manifest_body(cm, list, v, from, to, &body);
    sc_buf_free(&body);
    return rc;
}

static int write_list(sc_commit_manifests *cm, sc_object_ref *out, const sc_manifest_file_vec *list) {
    sc_buf body = SC_BUF_INIT;
    int rc = sc_paimon_list_encode(&body, list);
    if (!rc) rc = put_unique(cm, out, "manifest-list", &body);
    if (!rc) {
        sc_buf_free(&cm->last_list);
        cm->last_list = body;
        memcpy(cm->last_list_sha, out->sha256, SC_SHA256_LEN);
        return 0;
    }
    sc_buf_free(&body);
    return rc;
}

static void ref_clear(sc_object_ref *r) {
    free(r->name);
    memset(r, 0, sizeof *r);
}

static void free_names(char ***names, size_t *count) {
    for (size_t i = 0; i < *count; i++) free((*names)[i]);
    free(*names);
    *names = NULL;
    *count = 0;
}

static int write_chunks(sc_commit_manifests *cm, sc_manifest_file_vec *list, const sc_entry_vec *entries);

/* The delta manifest and its list (commit_manifests.h). */
int sc_commit_manifests_write_delta(sc_commit_manifests *cm, const sc_changes *c, sc_commit_kind kind,
                                    const sc_entry_vec *deletes) {
    sc_entry_vec all = {0};
    sc_manifest_file_vec list = {0};
    sc_buf body = SC_BUF_INIT;
    int rc = 0;
    cm->delta_rows = 0;
    cm->delta_files = 0;
    /* A delta of adds only is the change set's own vector (checked as a copy would be):
     * a bulk load's entries are not held twice. */
    int borrowed = deletes->count == 0;
    for (size_t i = 0; borrowed && i < c->adds.count; i++) borrowed = c->adds.items[i].kind == SC_ENTRY_ADD;
    for (size_t i = 0; borrowed && !rc && i < c->adds.count; i++) {
        rc = sc_file_entry_validate(&c->adds.items[i].file);
        if (!rc && __builtin_add_overflow(cm->delta_rows, c->adds.items[i].file.rows, &cm->delta_rows))
            rc = sc_error_set(SC_EINVAL, "the row counts of the added files overflow a 64-bit count (%s declares %" PRId64 ")",
                              c->adds.items[i].file.file, c->adds.items[i].file.rows);
        cm->delta_files++;
    }
    if (borrowed) all = c->adds; /* a view: never freed here */
    for (size_t i = 0; !borrowed && !rc && i < deletes->count; i++) {
        rc = sc_entry_vec_push(&all, SC_ENTRY_DELETE, &deletes->items[i].file);
        if (!rc && __builtin_sub_overflow(cm->delta_rows, deletes->items[i].file.rows, &cm->delta_rows))
            rc = sc_error_set(SC_EINVAL, "the row counts of the deleted files overflow a 64-bit count");
        cm->delta_files--;
    }
    for (size_t i = 0; !borrowed && !rc && i < c->adds.count; i++) {
        rc = sc_entry_vec_push(&all, SC_ENTRY_ADD, &c->adds.items[i].file);
        if (!rc && __builtin_add_overflow(cm->delta_rows, c->adds.items[i].file.rows, &cm->delta_rows))
            rc = sc_error_set(SC_EINVAL, "the row counts of the added files overflow a 64-bit count (%s declares %" PRId64 ")",
                              c->adds.items[i].file.file, c->adds.items[i].file.rows);
        cm->delta_files++;
    }
    uint8_t sha[SC_SHA256_LEN] = {0};
    if (!rc) rc = sc_paimon_manifest_encode(&body, &all);
    if (!rc) sc_sha256(sha, body.data, body.len);
    if (!rc && cm->delta_list.name && cm->has_delta_sha && memcmp(sha, cm->delta_sha, sizeof sha) == 0) {
        sc_buf_free(&body); /* the delta already written holds exactly these records */
        if (!borrowed) sc_entry_vec_free(&all);
        return 0;
    }
    if (!rc && cm->delta_list.name && kind != SC_KIND_OVERWRITE) {
        /* Replaced before any snapshot could name it: deleted once the commit is through
         * (APPEND and COMPACT replace the delta at most once, after the first full check). */
        free_names(&cm->stale, &cm->stale_count);
        char **keys = calloc(cm->delta_manifest_count + 1, sizeof *keys);
        for (size_t i = 0; keys && i <= cm->delta_manifest_count; i++) {
            char key[SC_MANIFEST_PATH_MAX + 16];
            sc_manifest_key(key, sizeof key, i == 0 ? cm->delta_list.name : cm->delta_manifests[i - 1]);
            if (pending_forget(cm, key)) continue; /* never sent: nothing to delete */
            if ((keys[cm->stale_count] = strdup(key)) != NULL) cm->stale_count++; /* best effort: NULL leaves it behind */
        }
        cm->stale = keys;
    }
    free_names(&cm->delta_manifests, &cm->delta_manifest_count);
    /* A big delta (a bulk load) is written in chunks as merged manifests are: each then
     * carries a file index, so later commits find their files without reading it. */
    if (!rc && all.count > SC_MANIFEST_MERGE_CHUNK) {
        sc_buf_free(&body); /* encoded only for its hash: the chunks are encoded anew */
        cm->unremembered = 1; /* too big to keep decoded: the next commit checks it unheld */
        rc = write_chunks(cm, &list, &all);
        cm->unremembered = 0;
    } else if (!rc && all.count) rc = write_manifest_body(cm, &list, &all, 0, all.count, &body);
    if (!rc && list.count && !(cm->delta_manifests = calloc(list.count, sizeof *cm->delta_manifests)))
        rc = sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < list.count; i++) {
        if (!(cm->delta_manifests[i] = strdup(list.items[i].name))) rc = sc_error_set(SC_ENOMEM, "out of memory");
        else cm->delta_manifest_count++;
    }
    ref_clear(&cm->delta_list);
    if (!rc) rc = write_list(cm, &cm->delta_list, &list);
    if (!rc) {
        memcpy(cm->delta_sha, sha, sizeof sha);
        cm->has_delta_sha = 1;
    }
    sc_buf_free(&body);
    sc_manifest_file_vec_free(&list);
    if (!borrowed) sc_entry_vec_free(&all);
    return rc;
}

int sc_commit_manifests_write_changelog(sc_commit_manifests *cm, const sc_changes *c) {
    sc_manifest_file_vec list = {0};
    int rc = 0;
    cm->changelog_rows = 0;
    if (c->changelog.count == 0) return 0;
    for (size_t i = 0; !rc && i < c->changelog.count; i++)
        if (__builtin_add_overflow(cm->changelog_rows, c->changelog.items[i].file.rows, &cm->changelog_rows))
            rc = sc_error_set(SC_EINVAL, "the row counts of the changelog files overflow a 64-bit count");
    /* The list written last is the base list the next attempt compares against the winner's:
     * this one must not take its place. */
    sc_buf keep = cm->last_list;
    uint8_t keep_sha[SC_SHA256_LEN];
    memcpy(keep_sha, cm->last_list_sha, sizeof keep_sha);
    cm->last_list = (sc_buf)SC_BUF_INIT;
    if (!rc) rc = write_manifest(cm, &list, &c->changelog, 0, c->changelog.count);
    if (!rc) rc = write_list(cm, &cm->changelog_list, &list);
    sc_buf_free(&cm->last_list);
    cm->last_list = keep;
    memcpy(cm->last_list_sha, keep_sha, sizeof keep_sha);
    sc_manifest_file_vec_free(&list);
    return rc;
}

int sc_commit_manifests_write_index(sc_commit_manifests *cm, char **out_name, const sc_index_vec *entries) {
    sc_buf body = SC_BUF_INIT;
    sc_object_ref ref = {0};
    *out_name = NULL;
    int rc = sc_index_manifest_encode(&body, entries);
    if (!rc) rc = put_unique(cm, &ref, "index-manifest", &body);
    if (!rc) *out_name = ref.name;
    else free(ref.name);
    sc_buf_free(&body);
    return rc;
}

static int by_partition(const void *pa, const void *pb) {
    const sc_manifest_entry *a = pa, *b = pb;
    int c = sc_bytes_compare(a->file.partition, b->file.partition);
    if (c) return c;
    return a->file.bucket < b->file.bucket ? -1 : a->file.bucket > b->file.bucket;
}

static int is_small(const sc_manifest_file *m) { return (uint64_t)m->added + (uint64_t)m->deleted < SC_MANIFEST_SMALL; }

/*
 * Write `entries` as the fewest manifests of at most SC_MANIFEST_MERGE_CHUNK entries, in
 * order, their sizes differing by one at most. With two or more, each holds more than half a
 * chunk, so none is small: a remainder chunk of every bulk load would otherwise sit small
 * between big ones, where only a full merge (an O(table) rewrite) gathers it.
 */
static int write_chunks(sc_commit_manifests *cm, sc_manifest_file_vec *list, const sc_entry_vec *entries) {
    size_t n = entries->count, chunks = (n + SC_MANIFEST_MERGE_CHUNK - 1) / SC_MANIFEST_MERGE_CHUNK;
    int rc = 0;
    for (size_t k = 0, from = 0; !rc && k < chunks; k++) {
        size_t to = from + n / chunks + (k < n % chunks);
        rc = write_manifest(cm, list, entries, from, to);
        from = to;
    }
    return rc;
}

/* Merge everything: the live files of N, sorted by partition (an O(table) rewrite). */
static int merge_full(sc_commit_manifests *cm, sc_manifest_file_vec *out, const sc_snapshot *latest) {
    sc_entry_vec live = {0};
    int rc = sc_state_live_files(&live, cm->t, latest, NULL);
    if (!rc && live.count) qsort(live.items, live.count, sizeof *live.items, by_partition);
    if (!rc) rc = write_chunks(cm, out, &live);
    sc_entry_vec_free(&live);
    return rc;
}

/*
 * Merge the recent manifests list[from..] into as few as possible, in their
 * order: an ADD and a later DELETE of the same file inside them cancel out;
 * a DELETE of a file added before `from` stays (it must come after that ADD,
 * which it does: the merged manifests take the place of the last ones).
 * Costs the size of the recent manifests, not of the table.
 */
static int merge_tail(sc_commit_manifests *cm, sc_manifest_file_vec *out, const sc_manifest_file_vec *list, size_t from) {
    sc_entry_vec records = {0}, kept = {0};
    sc_fileset *added = NULL;
    uint8_t *keep = NULL;
    int rc = 0;
    for (size_t i = 0; !rc && i < from; i++) rc = sc_manifest_file_vec_push(out, &list->items[i]);
    for (size_t i = from; !rc && i < list->count; i++) rc = sc_state_load_manifest(&records, cm->t, &list->items[i]);
    if (!rc) rc = sc_fileset_new(&added);
    if (!rc && records.count && !(keep = calloc(records.count, 1))) rc = sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < records.count; i++) {
        const sc_manifest_entry *e = &records.items[i];
        size_t prev;
        keep[i] = 1;
        if (e->kind == SC_ENTRY_ADD) {
            rc = sc_fileset_put(added, &e->file, i, NULL);
            if (rc == SC_EEXISTS)
                rc = sc_error_set(SC_ECORRUPT, "the manifests of the latest snapshot add %s twice", e->file.file);
        } else if (sc_fileset_remove(added, &e->file, &prev) == 0) {
            keep[prev] = keep[i] = 0;
        }
    }
    for (size_t i = 0; !rc && i < records.count; i++)
        if (keep[i]) rc = sc_entry_vec_push_copy(&kept, records.items[i].kind, &records.items[i].file);
    if (!rc) rc = write_chunks(cm, out, &kept);
    free(keep);
    sc_fileset_free(added);
    sc_entry_vec_free(&records);
    sc_entry_vec_free(&kept);
    return rc;
}

/*
 * The base list of snapshot N+1 is everything N held: N's base and delta
 * manifests, one more per commit. Two merges keep it short without making
 * any one commit pay for the table's age:
 *  - the recent manifests (from the first small one among the last
 *    SC_MANIFEST_RECENT_RECORDS records to the end), once more than
 *    SC_MANIFEST_MERGE_THRESHOLD of them are small, become one (or a few)
 *    manifests: the cost is the size of those deltas, not of the table. Big
 *    ones among them (a bulk load or a bigger change set after a few small
 *    deltas) are merged with the small ones around them, which would
 *    otherwise be left behind them for the full merge;
 *  - the whole list is rewritten as the live files sorted by partition only
 *    when small manifests are stuck before the recent ones, when deletes have piled up (more than
 *    half as many DELETE records as ADD records), or when a manifest has no
 *    file index (Paimon wrote it): an O(table) read that is rare and lets
 *    every later commit check only the manifests its files may be in.
 */
int sc_commit_manifests_write_base(sc_commit_manifests *cm, sc_object_ref *out, const sc_snapshot *latest) {
    sc_manifest_file_vec list = {0}, merged = {0};
    int rc = 0;
    if (latest) {
        rc = sc_state_load_list(&list, cm->t, &latest->base_manifest_list);
        if (!rc) rc = sc_state_load_list(&list, cm->t, &latest->delta_manifest_list);
    }
    /* The recent manifests start at the first small one within the last
     * SC_MANIFEST_RECENT_RECORDS records: `recent` small ones from `tail` on. */
    size_t tail = list.count, recent = 0;
    uint64_t records = 0;
    for (size_t i = list.count; i > 0; i--) {
        const sc_manifest_file *m = &list.items[i - 1];
        records += (uint64_t)m->added + (uint64_t)m->deleted; /* each >= 0: decoded */
        if (records > SC_MANIFEST_RECENT_RECORDS) break;
        if (is_small(m)) {
            tail = i - 1;
            recent++;
        }
    }
    int64_t added = 0, deleted = 0;
    size_t stuck = 0; /* small manifests before the recent ones: only a full merge gets them */
    int unindexed = 0;
    for (size_t i = 0; i < list.count; i++) {
        added += list.items[i].added;
        deleted += list.items[i].deleted;
        unindexed |= list.items[i].file_index == NULL;
        stuck += i < tail && is_small(&list.items[i]);
    }
    int merge = 0;
    if (!rc && list.count > SC_MANIFEST_MERGE_THRESHOLD) {
        if (stuck > SC_MANIFEST_MERGE_THRESHOLD || unindexed || deleted > added / 2) {
            rc = merge_full(cm, &merged, latest);
            merge = 1;
        } else if (recent > SC_MANIFEST_MERGE_THRESHOLD) {
            rc = merge_tail(cm, &merged, &list, tail);
            merge = 2;
        }
    }
    if (!rc && merge) {
        sc_log(SC_LOG_INFO, "merged %s of the manifests of snapshot %" PRIu64 " (%zu) into %zu",
               merge == 1 ? "all" : "the recent ones", latest->id, list.count, merged.count);
        sc_manifest_file_vec_free(&list);
        list = merged;
        memset(&merged, 0, sizeof merged);
    }
    if (!rc) rc = write_list(cm, out, &list);
    sc_manifest_file_vec_free(&merged);
    sc_manifest_file_vec_free(&list);
    return rc;
}

void sc_commit_manifests_remove_written(sc_commit_manifests *cm) {
    doomed_done(cm); /* written too: deleted below */
    for (size_t i = 0; i < cm->written_count; i++) {
        if (sc_store_discard(cm->t->store, cm->written[i]) != 0)
            sc_log(SC_LOG_DEBUG, "could not remove unreferenced %s", cm->written[i]);
    }
}

void sc_commit_manifests_remove_stale(sc_commit_manifests *cm) {
    for (size_t i = 0; i < cm->stale_count; i++) {
        if (sc_store_discard(cm->t->store, cm->stale[i]) != 0) {
            sc_log(SC_LOG_DEBUG, "could not remove unreferenced %s", cm->stale[i]);
            sc_error_clear();
        }
    }
}

void sc_commit_manifests_free(sc_commit_manifests *cm) {
    for (size_t i = 0; i < cm->written_count; i++) free(cm->written[i]);
    free(cm->written);
    free_names(&cm->stale, &cm->stale_count);
    free_names(&cm->delta_manifests, &cm->delta_manifest_count);
    while (cm->pending_count) pending_drop(cm, cm->pending_count - 1);
    free(cm->pending);
    doomed_done(cm);
    sc_buf_free(&cm->last_list);
    ref_clear(&cm->delta_list);
    ref_clear(&cm->changelog_list);
    memset(cm, 0, sizeof *cm);
}
