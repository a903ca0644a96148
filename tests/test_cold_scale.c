/*
 * Cold processes on big tables (issue 20, goal 4), counted in objects read and
 * compared with the whole-table answers, never timed: a bulk load's delta is
 * written in chunks that carry file indexes, so a later commit reads none of
 * it; the touched-files check reads a manifest without an index one record at
 * a time and still decides alone, as the full scan would; the live-file walk
 * that `files` and `fsck` stream agrees with sc_state_live_files in order,
 * count and verdict on damage, and hands nothing over from a damaged table.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/commit_manifests.h"
#include "engine/conflict.h"
#include "engine/entries.h"
#include "engine/state.h"
#include "format/changes.h"
#include "format/paimon_manifest.h"
#include "format/partition.h"
#include "sc_test_util.h"

/* Commit `n` new level-0 files <prefix>-<i> into partition `part` as one change set. */
static void bulk(sc_table *t, int64_t ident, const char *prefix, int n, const char *part) {
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    char name[96]; /* a prefix of up to 63 bytes, '-' and an int */
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s-%d", prefix, i);
        sc_file_entry f = tu_file(part, i % TU_BUCKETS, TU_BUCKETS, 0, name, 1, NULL, NULL);
        cr_assert_eq(sc_changes_add(c, &f), 0, "%s", sc_error_message());
    }
    sc_commit_request req = {"loader", ident, SC_KIND_APPEND, 0, c};
    cr_assert_eq(sc_table_commit(NULL, t, &req), 0, "%s", sc_error_message());
    sc_changes_free(c);
}

/* ---- a commit after a bulk load ---- */

Test(cold, a_bulk_load_is_written_in_indexed_chunks_and_a_later_commit_reads_none_of_them) {
    /* Above 65,536 records one manifest cannot carry a file index (its filter would not fit
     * one Avro field): a later commit into the partition would have had to read it whole. */
    const int n = 66000;
    sc_table *t = tu_mem_table("cold-bulk");
    bulk(t, 1, "data/bulk", n, "p0");
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, tu_latest(t)), 0, "%s", sc_error_message());
    sc_manifest_file_vec delta = {0};
    cr_assert_eq(sc_state_load_list(&delta, t, &s.delta_manifest_list), 0, "%s", sc_error_message());
    cr_assert_eq(delta.count, (size_t)(n + 8191) / 8192, "%zu delta manifests", delta.count);
    for (size_t i = 0; i < delta.count; i++) {
        cr_assert_not_null(delta.items[i].file_index, "chunk %zu has a file index", i);
        cr_assert_leq(delta.items[i].added, 8192);
        cr_assert_geq(delta.items[i].added, n / (int64_t)delta.count, "chunk %zu: the records are spread evenly", i);
    }
    sc_manifest_file_vec_free(&delta);
    sc_snapshot_clear(&s);
    /* One more commit, so that the next one's base delta is small, as in steady state. */
    sc_file_entry next = tu_file("p0", 0, TU_BUCKETS, 0, "data/next", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "w", 1, SC_KIND_APPEND, 0, &next, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_table_free(t);

    /* A fresh handle appends into the bulk-loaded partition: snapshot, LATEST, the two lists,
     * the base's delta manifest, EARLIEST after the claim — and none of the bulk chunks. */
    t = tu_reopen("cold-bulk");
    sc_file_entry one = tu_file("p0", 1, TU_BUCKETS, 0, "data/cold", 1, NULL, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "cold", 1, SC_KIND_APPEND, 0, &one, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_leq(r.stats.ops[SC_OP_GET], 6, "%llu GETs", (unsigned long long)r.stats.ops[SC_OP_GET]);
    /* Re-adding a bulk-loaded file is still the conflict the full scan finds. */
    sc_file_entry again = tu_file("p0", 7 % TU_BUCKETS, TU_BUCKETS, 0, "data/bulk-7", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, t, "cold", 2, SC_KIND_APPEND, 0, &again, 1, NULL, 0), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "already live"), "%s", sc_error_message());
    sc_table_free(t);
}

/*
 * A load one record above a chunk is written as two halves, not as a full chunk and a
 * one-record remainder: such a remainder stays small between big manifests, and once 32 of
 * them sit there (32 bulk loads) a commit pays a full merge, an O(table) rewrite (13 s and
 * 1.5 GB at 1,000,000 live files).
 */
Test(cold, a_bulk_load_leaves_no_small_manifest_between_big_ones) {
    sc_table *t = tu_mem_table("cold-stuck");
    bulk(t, 1, "data/a", 8193, "p0");
    bulk(t, 2, "data/b", 8193, "p1");
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, tu_latest(t)), 0, "%s", sc_error_message());
    sc_manifest_file_vec list = {0};
    cr_assert_eq(sc_state_load_list(&list, t, &s.base_manifest_list), 0, "%s", sc_error_message());
    cr_assert_eq(sc_state_load_list(&list, t, &s.delta_manifest_list), 0, "%s", sc_error_message());
    cr_assert_eq(list.count, 4, "%zu manifests", list.count);
    for (size_t i = 0; i < list.count; i++) {
        int64_t records = list.items[i].added + list.items[i].deleted;
        cr_assert_geq(records, SC_MANIFEST_SMALL, "manifest %zu holds %lld records: small, and stuck before the next load",
                      i, (long long)records);
    }
    sc_manifest_file_vec_free(&list);
    sc_snapshot_clear(&s);
    sc_table_free(t);
}

static int full_merges, recent_merges;
static void count_merges(void *ctx, sc_log_level level, const char *message) {
    (void)ctx, (void)level;
    if (strstr(message, "merged all of the manifests")) full_merges++;
    if (strstr(message, "merged the recent ones")) recent_merges++;
}

/*
 * Streaming writers commit a few files at a time, and now and then a bigger change set
 * lands (a batch job, a compaction). Each big one used to leave the small deltas before it
 * behind it, where only a full merge (an O(table) rewrite) gathers them: after four rounds
 * of ten small commits the next commit rewrote the whole table. The recent small manifests
 * are merged with the big ones after them instead, at the cost of those recent deltas.
 * Run with a change set of a single manifest (4,100 records, small before 3b83dfd) and
 * with a bulk load written in chunks.
 */
static void small_commits_around_big_ones(const char *name, int big) {
    sc_table *t = tu_mem_table(name);
    full_merges = recent_merges = 0;
    sc_log_set_handler(count_merges, NULL);
    int64_t ident = 1;
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < 10; i++) {
            char f[64];
            snprintf(f, sizeof f, "data/s-%d-%d", round, i);
            sc_file_entry e = tu_file("p0", 0, TU_BUCKETS, 0, f, 1, NULL, NULL);
            cr_assert_eq(tu_commit(NULL, t, "stream", ident++, SC_KIND_APPEND, 0, &e, 1, NULL, 0), 0, "%s",
                         sc_error_message());
        }
        char prefix[64];
        snprintf(prefix, sizeof prefix, "data/big-%d", round);
        bulk(t, round + 1, prefix, big, "p1");
        /* A compaction of a small delta's file and a big one's: its DELETEs must stay after
         * their ADDs however the recent manifests are merged (fsck and the count below). */
        char small_name[64], big_name[96], merged_name[64];
        snprintf(small_name, sizeof small_name, "data/s-%d-3", round);
        snprintf(big_name, sizeof big_name, "%s-5", prefix);
        snprintf(merged_name, sizeof merged_name, "data/c-%d", round);
        sc_file_entry gone[2] = {tu_file("p0", 0, TU_BUCKETS, 0, small_name, 1, NULL, NULL),
                                 tu_file("p1", 5 % TU_BUCKETS, TU_BUCKETS, 0, big_name, 1, NULL, NULL)};
        sc_file_entry merged = tu_file("p1", 1, TU_BUCKETS, 1, merged_name, 2, NULL, NULL);
        cr_assert_eq(tu_commit(NULL, t, "compact", round + 1, SC_KIND_COMPACT, 0, &merged, 1, gone, 2), 0, "%s",
                     sc_error_message());
    }
    sc_log_set_handler(NULL, NULL);
    cr_assert_eq(full_merges, 0, "%d full merges (O(table) rewrites) for small commits between big ones", full_merges);
    cr_assert_gt(recent_merges, 0, "the small deltas were merged with the big ones after them");
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, tu_latest(t)), 0, "%s", sc_error_message());
    sc_manifest_file_vec list = {0};
    cr_assert_eq(sc_state_load_list(&list, t, &s.base_manifest_list), 0, "%s", sc_error_message());
    cr_assert_eq(sc_state_load_list(&list, t, &s.delta_manifest_list), 0, "%s", sc_error_message());
    size_t small = 0;
    for (size_t i = 0; i < list.count; i++) small += list.items[i].added + list.items[i].deleted < SC_MANIFEST_SMALL;
    cr_assert_leq(small, (size_t)SC_MANIFEST_MERGE_THRESHOLD + 1, "%zu small manifests of 66 small commits left in the list", small);
    sc_manifest_file_vec_free(&list);
    sc_snapshot_clear(&s);
    cr_assert_eq(tu_file_count(t), (size_t)(6 * (10 + big - 1)));
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

Test(cold, small_commits_before_a_mid_sized_one_are_not_left_for_a_full_merge) {
    small_commits_around_big_ones("cold-mixed-mid", SC_MANIFEST_SMALL + 4);
}

Test(cold, small_commits_before_a_bulk_load_are_not_left_for_a_full_merge) {
    small_commits_around_big_ones("cold-mixed-bulk", SC_MANIFEST_MERGE_CHUNK + 1);
}

/* ---- hand-made manifests (no file index, or damaged) under a snapshot that only the test holds ---- */

typedef struct hand_table {
    sc_table *t;
    sc_manifest_file_vec metas;
    int next;
} hand_table;

/* Write `entries` as one manifest without a file index; its meta goes into h->metas (with
 * `declared_deletes` as its delete count when >= 0). */
static void hand_manifest(hand_table *h, const sc_entry_vec *entries, int declared_deletes) {
    sc_buf body = SC_BUF_INIT;
    cr_assert_eq(sc_paimon_manifest_encode(&body, entries), 0, "%s", sc_error_message());
    char name[64], key[128];
    snprintf(name, sizeof name, "manifest-hand-%d", h->next++);
    sc_manifest_key(key, sizeof key, name);
    cr_assert_eq(sc_store_put(sc_table_store(h->t), NULL, key, body.data, body.len), 0, "%s", sc_error_message());
    sc_manifest_file m = {0};
    m.name = name;
    m.size = (int64_t)body.len;
    size_t n = entries->count, arity = h->t->schema.partition_key_count;
    sc_bytes *parts = calloc(n ? n : 1, sizeof *parts);
    int64_t *nulls = calloc(arity ? arity : 1, sizeof *nulls);
    for (size_t i = 0; i < n; i++) {
        parts[i] = entries->items[i].file.partition;
        if (entries->items[i].kind == SC_ENTRY_ADD) m.added++;
        else m.deleted++;
    }
    if (declared_deletes >= 0) m.deleted = declared_deletes;
    sc_buf min = SC_BUF_INIT, max = SC_BUF_INIT;
    cr_assert_eq(sc_partition_stats(&min, &max, nulls, &h->t->schema, parts, n, "hand"), 0, "%s", sc_error_message());
    m.partition_min = min.data;
    m.partition_min_len = min.len;
    m.partition_max = max.data;
    m.partition_max_len = max.len;
    m.partition_null_counts = nulls;
    m.partition_null_count_len = arity;
    m.has_partition_null_counts = 1;
    cr_assert_eq(sc_manifest_file_vec_push(&h->metas, &m), 0);
    sc_buf_free(&min);
    sc_buf_free(&max);
    free(nulls);
    free(parts);
    sc_buf_free(&body);
}

/* A snapshot (never published) whose base list names h->metas and whose delta list is empty. */
static void hand_snapshot(hand_table *h, sc_snapshot *s) {
    memset(s, 0, sizeof *s);
    s->id = 7;
    s->commit_user = "hand";
    sc_manifest_file_vec none = {0};
    const sc_manifest_file_vec *lists[2] = {&h->metas, &none};
    sc_object_ref *refs[2] = {&s->base_manifest_list, &s->delta_manifest_list};
    for (int i = 0; i < 2; i++) {
        sc_buf body = SC_BUF_INIT;
        cr_assert_eq(sc_paimon_list_encode(&body, lists[i]), 0, "%s", sc_error_message());
        char name[64], key[128];
        snprintf(name, sizeof name, "manifest-list-hand-%d", h->next++);
        sc_manifest_key(key, sizeof key, name);
        cr_assert_eq(sc_store_put(sc_table_store(h->t), NULL, key, body.data, body.len), 0);
        refs[i]->name = strdup(name);
        refs[i]->length = body.len;
        sc_buf_free(&body);
    }
}

static void hand_snapshot_free(sc_snapshot *s) {
    free(s->base_manifest_list.name);
    free(s->delta_manifest_list.name);
}

static void push(sc_entry_vec *v, sc_entry_kind kind, const char *part, int bucket, int total, int level, const char *file) {
    sc_file_entry f = tu_file(part, bucket, total, level, file, 1, NULL, NULL);
    cr_assert_eq(sc_entry_vec_push(v, kind, &f), 0, "%s", sc_error_message());
}

/* ---- the touched-files check on manifests without a file index ---- */

/* Both checks on one change set against `latest`: same code, message and deletes; *touched
 * says whether the touched-files check decided alone. */
static int both_checks(sc_table *t, const sc_snapshot *latest, sc_changes *c, sc_commit_kind kind, int *touched) {
    cr_assert_eq(sc_entries_prepare(t, c, kind, 1), 0, "%s", sc_error_message());
    sc_partition_set parts;
    cr_assert_eq(sc_partition_set_build(&parts, &c->adds, &c->deletes), 0);
    sc_entry_vec fast = {0}, full = {0};
    char fast_msg[1024];
    int unused;
    int rc_fast = sc_conflict_check_first(&fast, touched, t, latest, c, kind, &parts, 1);
    snprintf(fast_msg, sizeof fast_msg, "%s", sc_error_message());
    int rc_full = sc_conflict_check_first(&full, &unused, t, latest, c, kind, &parts, 0);
    cr_assert_eq(rc_fast, rc_full, "touched %d (%s), full %d (%s)", rc_fast, fast_msg, rc_full, sc_error_message());
    if (rc_fast == SC_ECONFLICT) cr_assert_str_eq(fast_msg, sc_error_message());
    cr_assert_eq(fast.count, full.count);
    for (size_t i = 0; i < fast.count; i++) cr_assert_str_eq(fast.items[i].file.file, full.items[i].file.file);
    sc_entry_vec_free(&fast);
    sc_entry_vec_free(&full);
    sc_partition_set_free(&parts);
    return rc_fast;
}

Test(cold, the_touched_check_reads_a_manifest_without_an_index_and_decides_alone) {
    hand_table h = {tu_mem_table("cold-unindexed"), {0}, 0};
    /* 300 files in p0 and p1, then a manifest deleting every third of them and moving
     * every fifth of the rest to level 1 (delete + add of the same file). */
    sc_entry_vec m1 = {0}, m2 = {0};
    char name[32];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "data/f%d", i);
        push(&m1, SC_ENTRY_ADD, i % 2 ? "p1" : "p0", i % TU_BUCKETS, TU_BUCKETS, 0, name);
    }
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "data/f%d", i);
        if (i % 3 == 0) push(&m2, SC_ENTRY_DELETE, i % 2 ? "p1" : "p0", i % TU_BUCKETS, TU_BUCKETS, 0, name);
        else if (i % 5 == 0) {
            push(&m2, SC_ENTRY_DELETE, i % 2 ? "p1" : "p0", i % TU_BUCKETS, TU_BUCKETS, 0, name);
            push(&m2, SC_ENTRY_ADD, i % 2 ? "p1" : "p0", i % TU_BUCKETS, TU_BUCKETS, 1, name);
        }
    }
    hand_manifest(&h, &m1, -1);
    hand_manifest(&h, &m2, -1);
    sc_snapshot s;
    hand_snapshot(&h, &s);
    unsigned seed = 42;
    int outcomes[2] = {0};
    for (int k = 0; k < 120; k++) {
        sc_changes *c;
        cr_assert_eq(sc_changes_new(&c), 0);
        int deletes = k % 3 == 0 ? 0 : 1 + (int)(rand_r(&seed) % 3);
        for (int d = 0; d < deletes; d++) {
            int i = (int)(rand_r(&seed) % 300);
            snprintf(name, sizeof name, "data/f%d", i);
            sc_file_entry f = tu_file(i % 2 ? "p1" : "p0", i % TU_BUCKETS, TU_BUCKETS, 0, name, 1, NULL, NULL);
            if (sc_changes_delete(c, &f) != 0) sc_error_clear();
        }
        int i = (int)(rand_r(&seed) % 300);
        if (rand_r(&seed) % 3 == 0) snprintf(name, sizeof name, "data/f%d", i); /* may be live: a re-add */
        else snprintf(name, sizeof name, "data/new-%d", k);
        sc_file_entry f = tu_file(i % 2 ? "p1" : "p0", i % TU_BUCKETS, TU_BUCKETS, 0, name, 1, NULL, NULL);
        if (sc_changes_add(c, &f) != 0) sc_error_clear();
        int touched = -1;
        int rc = both_checks(h.t, &s, c, deletes ? SC_KIND_COMPACT : SC_KIND_APPEND, &touched);
        cr_assert(rc == 0 || rc == SC_ECONFLICT || rc == SC_EINVAL, "%d: %s", rc, sc_error_message());
        if (rc != SC_EINVAL) {
            cr_assert_eq(touched, 1, "case %d: the touched-files check decided alone", k);
            outcomes[rc == 0 ? 0 : 1]++;
        }
        sc_changes_free(c);
    }
    cr_assert_gt(outcomes[0], 10, "%d pass", outcomes[0]);
    cr_assert_gt(outcomes[1], 10, "%d conflicts", outcomes[1]);

    /* A bucket count the unindexed manifest contradicts: the full scan decides. */
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    sc_file_entry odd = tu_file("p0", 0, TU_BUCKETS + 1, 0, "data/odd", 1, NULL, NULL);
    cr_assert_eq(sc_changes_add(c, &odd), 0);
    int touched = -1;
    cr_assert_eq(both_checks(h.t, &s, c, SC_KIND_APPEND, &touched), SC_ECONFLICT);
    cr_assert_eq(touched, 0);
    cr_assert(strstr(sc_error_message(), "Bucket count conflict"), "%s", sc_error_message());
    sc_changes_free(c);
    sc_entry_vec_free(&m1);
    sc_entry_vec_free(&m2);
    hand_snapshot_free(&s);
    sc_manifest_file_vec_free(&h.metas);
    sc_table_free(h.t);
}

/* ---- the live-file walk ---- */

typedef struct collected {
    sc_entry_vec files;
    int calls;
} collected;

static int collect(void *ctx, const sc_file_entry *f) {
    collected *c = ctx;
    c->calls++;
    return sc_entry_vec_push_copy(&c->files, SC_ENTRY_ADD, f);
}

/* The walk of `s` in `filter` against sc_state_live_files: same code; on success the same
 * files in the same order, and the count. */
static int walk_agrees(sc_table *t, const sc_snapshot *s, const sc_partition_set *filter) {
    sc_entry_vec live = {0};
    int rc_live = sc_state_live_files(&live, t, s, filter);
    char live_msg[1024];
    snprintf(live_msg, sizeof live_msg, "%s", sc_error_message());
    collected got = {{0}, 0};
    uint64_t count = 0;
    int rc_walk = sc_state_live_each(&count, t, s, filter, collect, &got);
    cr_assert_eq(rc_walk, rc_live, "walk %d (%s), live files %d (%s)", rc_walk, sc_error_message(), rc_live, live_msg);
    if (rc_walk) {
        cr_assert_eq(got.calls, 0, "a damaged snapshot hands nothing over");
    } else {
        cr_assert_eq(count, live.count);
        cr_assert_eq(got.files.count, live.count);
        for (size_t i = 0; i < live.count; i++) {
            cr_assert_str_eq(got.files.items[i].file.file, live.items[i].file.file, "file %zu", i);
            cr_assert_eq(got.files.items[i].file.level, live.items[i].file.level, "file %zu", i);
        }
        uint64_t only_count = 0;
        cr_assert_eq(sc_state_live_each(&only_count, t, s, filter, NULL, NULL), 0, "%s", sc_error_message());
        cr_assert_eq(only_count, live.count);
    }
    sc_entry_vec_free(&live);
    sc_entry_vec_free(&got.files);
    return rc_walk;
}

/* The files of an aged table, as the test made them. */
typedef struct aged_file {
    char name[32];
    int part, bucket, level, live;
} aged_file;

static sc_file_entry aged(const aged_file *f, int level) {
    return tu_file(f->part ? "p1" : "p0", f->bucket, TU_BUCKETS, level, f->name, 1, NULL, NULL);
}

static int pick_live(const aged_file *v, int n, unsigned *seed, int part) {
    for (int tries = 0; tries < 100; tries++) {
        int i = (int)(rand_r(seed) % (unsigned)n);
        if (v[i].live && (part < 0 || v[i].part == part)) return i;
    }
    return -1;
}

Test(cold, the_live_walk_agrees_with_the_live_files_of_an_aged_table) {
    sc_table *t = tu_mem_table("cold-walk");
    static aged_file v[1024];
    int n = 0;
    unsigned seed = 7;
    /* Appends, compactions (2 files into 1) and level moves of one file (delete + re-add,
     * a repeated identity for the walk), across merges of the base list. */
    for (int c = 0; c < 150; c++) {
        sc_file_entry adds[3], dels[2];
        size_t na = 0, nd = 0;
        int kind = n >= 6 ? (int)(rand_r(&seed) % 3) : 0;
        int a = kind ? pick_live(v, n, &seed, -1) : -1;
        int b = kind == 2 && a >= 0 ? pick_live(v, n, &seed, v[a].part) : -1;
        if (kind == 1 && a >= 0) { /* a level move */
            dels[nd++] = aged(&v[a], v[a].level);
            adds[na++] = aged(&v[a], ++v[a].level);
        } else if (kind == 2 && a >= 0 && b >= 0 && b != a) { /* a compaction */
            dels[nd++] = aged(&v[a], v[a].level);
            dels[nd++] = aged(&v[b], v[b].level);
            v[a].live = v[b].live = 0;
            aged_file *f = &v[n++];
            *f = (aged_file){.part = v[a].part, .bucket = n % TU_BUCKETS, .live = 1};
            snprintf(f->name, sizeof f->name, "data/c%d", n);
            adds[na++] = aged(f, 0);
        } else {
            for (int k = 0; k < 3; k++) {
                aged_file *f = &v[n++];
                *f = (aged_file){.part = n % 3 == 0, .bucket = n % TU_BUCKETS, .live = 1};
                snprintf(f->name, sizeof f->name, "data/w%d", n);
                adds[na++] = aged(f, 0);
            }
        }
        cr_assert_lt(n, 1000);
        int rc = tu_commit(NULL, t, "ager", c + 1, nd ? SC_KIND_COMPACT : SC_KIND_APPEND, 0, adds, na, dels, nd);
        cr_assert_eq(rc, 0, "commit %d: %s", c, sc_error_message());
        if (c % 25 != 24) continue;
        sc_snapshot s;
        cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, tu_latest(t)), 0);
        walk_agrees(t, &s, NULL);
        sc_partition_set p1 = {0};
        cr_assert_eq(sc_partition_set_add(&p1, tu_string_row("p1")), 0);
        walk_agrees(t, &s, &p1);
        sc_partition_set_free(&p1);
        sc_snapshot_clear(&s);
    }
    /* The public walk hands over what sc_table_files lists, in its order. */
    sc_file_list *l;
    cr_assert_eq(sc_table_files(&l, t, 0), 0);
    collected got = {{0}, 0};
    cr_assert_eq(sc_table_files_each(t, 0, collect, &got), 0, "%s", sc_error_message());
    cr_assert_eq(got.files.count, l->count);
    for (size_t i = 0; i < l->count; i++) cr_assert_str_eq(got.files.items[i].file.file, l->entries[i].file);
    sc_entry_vec_free(&got.files);
    sc_file_list_free(l);
    sc_table_free(t);
}

/* One damage case: manifests of `spec`, "+name" an ADD, "-name" a DELETE, "|" the next manifest. */
static int hand_walk(const char *table, const char *spec, int declare_no_deletes) {
    hand_table h = {tu_mem_table(table), {0}, 0};
    sc_entry_vec m = {0};
    char buf[256];
    snprintf(buf, sizeof buf, "%s|", spec);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        size_t len = strlen(tok);
        int end = tok[len - 1] == '|';
        if (end) tok[--len] = '\0';
        if (len) push(&m, tok[0] == '+' ? SC_ENTRY_ADD : SC_ENTRY_DELETE, "p0", 0, TU_BUCKETS, 0, tok + 1);
        if (end) {
            hand_manifest(&h, &m, declare_no_deletes ? 0 : -1);
            sc_entry_vec_free(&m);
        }
    }
    sc_snapshot s;
    hand_snapshot(&h, &s);
    int rc = walk_agrees(h.t, &s, NULL);
    hand_snapshot_free(&s);
    sc_manifest_file_vec_free(&h.metas);
    sc_table_free(h.t);
    return rc;
}

Test(cold, the_live_walk_finds_damage_before_handing_over_a_file) {
    cr_assert_eq(hand_walk("cold-d1", "+a +b | +c +a", 0), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "add a twice"), "%s", sc_error_message());
    cr_assert_eq(hand_walk("cold-d2", "+a +b | -c", 0), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "delete c, which is not live"), "%s", sc_error_message());
    cr_assert_eq(hand_walk("cold-d3", "+a -a | +a | +a", 0), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "add a twice"), "%s", sc_error_message());
    cr_assert_eq(hand_walk("cold-d4", "+a -a -a | +a", 0), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "delete a, which is not live"), "%s", sc_error_message());
    /* Sound: a level move (delete and re-add), and deletes a list does not count. */
    cr_assert_eq(hand_walk("cold-s1", "+a +b -a +a | +c -b", 0), 0, "%s", sc_error_message());
    cr_assert_eq(hand_walk("cold-s2", "+a +b | -a +a -b | +b", 1), 0, "%s", sc_error_message());
}
