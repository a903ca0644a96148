/*
 * The manifests' file index and what it buys: the Bloom filter itself, a
 * first conflict check that reads only the manifests its files may be in
 * (compared decision by decision with the full scan of the partition), the
 * objects a fresh handle reads per commit at two table ages, and the
 * manifest merge that keeps the base list short.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/conflict.h"
#include "engine/entries.h"
#include "engine/state.h"
#include "format/changes.h"
#include "format/file_index.h"
#include "sc_test_util.h"

/* ---- the filter ---- */

static sc_file_entry named(const char *part, int bucket, int total, const char *file) {
    sc_file_entry f = {.partition = tu_bytes(part), .bucket = bucket, .total_buckets = total, .file = file};
    return f;
}

Test(file_index, every_identity_built_in_is_a_maybe_and_strangers_mostly_are_not) {
    enum { N = 2000 };
    static sc_file_entry files[N];
    static const sc_file_entry *ptrs[N];
    static uint8_t is_add[N];
    static char names[N][32];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "data-%d.parquet", i);
        files[i] = named(i % 2 ? "p1" : "p0", i % 3, 3, names[i]);
        ptrs[i] = &files[i];
        is_add[i] = i % 5 != 0;
    }
    sc_buf b = SC_BUF_INIT;
    int present = 0;
    cr_assert_eq(sc_file_index_build(&b, &present, ptrs, is_add, N, 65536), 0);
    cr_assert(present);
    sc_file_index ix;
    cr_assert_eq(sc_file_index_decode(&ix, b.data, b.len, "test"), 0, "%s", sc_error_message());
    cr_assert(ix.has_bucket_range);
    cr_assert_eq(ix.min_total_buckets, 3);
    cr_assert_eq(ix.max_total_buckets, 3);
    for (int i = 0; i < N; i++)
        cr_assert(sc_file_index_may_contain(&ix, sc_file_index_hash(files[i].partition, files[i].bucket, files[i].file)),
                  "false 'not' for %s", names[i]);
    /* The same names in another partition, bucket or spelling are other identities. */
    int maybes = 0;
    char other[40];
    for (int i = 0; i < N; i++) {
        snprintf(other, sizeof other, "data-%d.parquet", N + i);
        maybes += sc_file_index_may_contain(&ix, sc_file_index_hash(tu_bytes("p0"), 0, other));
        maybes += sc_file_index_may_contain(&ix, sc_file_index_hash(tu_bytes("p2"), files[i].bucket, names[i]));
    }
    /* 16 bits and 11 probes per identity: about 0.05 % expected; 1 % would mean a broken filter. */
    cr_assert_lt(maybes, 2 * N / 100, "%d of %d strangers are 'maybe'", maybes, 2 * N);
    sc_buf_free(&b);
}

Test(file_index, the_bucket_range_covers_only_adds_with_a_count) {
    sc_file_entry f[3] = {named("p", 0, 4, "a"), named("p", 0, 7, "b"), named("p", 0, -1, "c")};
    const sc_file_entry *ptrs[3] = {&f[0], &f[1], &f[2]};
    uint8_t adds_only_a[3] = {1, 0, 1};
    sc_buf b = SC_BUF_INIT;
    int present;
    sc_file_index ix;
    cr_assert_eq(sc_file_index_build(&b, &present, ptrs, adds_only_a, 3, 65536), 0);
    cr_assert_eq(sc_file_index_decode(&ix, b.data, b.len, "t"), 0);
    cr_assert(ix.has_bucket_range && ix.min_total_buckets == 4 && ix.max_total_buckets == 4);
    uint8_t all_adds[3] = {1, 1, 1};
    cr_assert_eq(sc_file_index_build(&b, &present, ptrs, all_adds, 3, 65536), 0);
    cr_assert_eq(sc_file_index_decode(&ix, b.data, b.len, "t"), 0);
    cr_assert(ix.min_total_buckets == 4 && ix.max_total_buckets == 7);
    uint8_t none[3] = {0, 0, 0};
    cr_assert_eq(sc_file_index_build(&b, &present, ptrs, none, 3, 65536), 0);
    cr_assert_eq(sc_file_index_decode(&ix, b.data, b.len, "t"), 0);
    cr_assert_not(ix.has_bucket_range);
    sc_buf_free(&b);
}

Test(file_index, too_many_files_for_one_field_leave_no_index) {
    enum { N = 70000 };
    sc_file_entry *f = calloc(N, sizeof *f);
    const sc_file_entry **p = calloc(N, sizeof *p);
    uint8_t *add = calloc(N, 1);
    for (int i = 0; i < N; i++) f[i] = named("p", 0, 1, "x"), p[i] = &f[i], add[i] = 1;
    sc_buf b = SC_BUF_INIT;
    int present = 1;
    /* 70,000 identities at 8 bits each need 70 KB: more than one 64 KiB field. */
    cr_assert_eq(sc_file_index_build(&b, &present, p, add, N, 65536), 0);
    cr_assert_not(present);
    cr_assert_eq(b.len, 0);
    /* 30,000 fit at the reduced rate (17 bits each is above the floor of 8). */
    cr_assert_eq(sc_file_index_build(&b, &present, p, add, 30000, 65536), 0);
    cr_assert(present);
    cr_assert_leq(b.len, 65536);
    sc_buf_free(&b);
    free(f);
    free(p);
    free(add);
}

Test(file_index, damaged_headers_fail_closed_with_what_is_wrong) {
    uint8_t good[SC_FILE_INDEX_HEADER_LEN + 16] = {1, 11, 1, 0, 0, 0, 2, 0, 0, 0, 2};
    sc_file_index ix;
    cr_assert_eq(sc_file_index_decode(&ix, good, sizeof good, "list record 3"), 0);
    cr_assert_eq(sc_file_index_decode(&ix, good, sizeof good - 1, "list record 3"), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "list record 3"), "%s", sc_error_message());
    struct { size_t at; uint8_t value; const char *says; } cases[] = {
        {0, 2, "version 2"}, {1, 0, "0 hash probes"}, {1, 17, "17 hash probes"},
        {2, 4, "flags 0x04"}, {10, 0, "bucket range 2..0"}, {3, 0x80, "bucket range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t bad[sizeof good];
        memcpy(bad, good, sizeof good);
        bad[cases[i].at] = cases[i].value;
        cr_assert_eq(sc_file_index_decode(&ix, bad, sizeof bad, "list record 3"), SC_ECORRUPT, "case %zu", i);
        cr_assert(strstr(sc_error_message(), cases[i].says), "case %zu: %s", i, sc_error_message());
    }
    uint8_t no_range_but_counts[sizeof good];
    memcpy(no_range_but_counts, good, sizeof good);
    no_range_but_counts[2] = 0;
    cr_assert_eq(sc_file_index_decode(&ix, no_range_but_counts, sizeof good, "r"), SC_ECORRUPT);
}

/* ---- the touched-files check against the full scan ---- */

#define MAX_FILES 4096

typedef struct model {
    char names[MAX_FILES][32];
    int part[MAX_FILES], bucket[MAX_FILES];
    int live[MAX_FILES], ever[MAX_FILES];
    int count;
} model;

static const char *PARTS[] = {"p0", "p1", "p2"};

static sc_file_entry model_file(model *m, int i) {
    return tu_file(PARTS[m->part[i]], m->bucket[i], TU_BUCKETS, 0, m->names[i], 10 + i, NULL, NULL);
}

static int new_file(model *m, int part) {
    int i = m->count++;
    cr_assert_lt(i, MAX_FILES);
    snprintf(m->names[i], sizeof m->names[i], "data-f%d", i);
    m->part[i] = part;
    m->bucket[i] = i % TU_BUCKETS;
    return i;
}

static int random_live(model *m, unsigned *seed, int part) {
    for (int tries = 0; tries < 200; tries++) {
        int i = (int)(rand_r(seed) % (unsigned)(m->count ? m->count : 1));
        if (m->live[i] && m->part[i] == part) return i;
    }
    return -1;
}

/* Age the table: appends of 1..5 files, and compactions of 2..4 live files into one. */
static void age_table(sc_table *t, model *m, unsigned *seed, int commits, int64_t *ident) {
    for (int c = 0; c < commits; c++) {
        sc_file_entry adds[5], dels[4];
        size_t na = 0, nd = 0;
        int part = (int)(rand_r(seed) % 3);
        int compaction = rand_r(seed) % 4 == 0;
        if (compaction) {
            for (int k = 0; k < 4; k++) {
                int i = random_live(m, seed, part);
                int dup = 0;
                for (size_t j = 0; j < nd; j++) dup |= strcmp(dels[j].file, tu_name(m->names[i < 0 ? 0 : i])) == 0;
                if (i >= 0 && !dup) dels[nd++] = model_file(m, i), m->live[i] = -1;
            }
            for (int i = 0; i < m->count; i++) if (m->live[i] == -1) m->live[i] = 0;
        }
        int n = compaction ? 1 : 1 + (int)(rand_r(seed) % 5);
        for (int k = 0; k < n; k++) {
            int i = new_file(m, part);
            adds[na++] = model_file(m, i);
            m->live[i] = m->ever[i] = 1;
        }
        sc_commit_result r;
        int rc = tu_commit(&r, t, "ager", ++*ident, compaction && nd ? SC_KIND_COMPACT : SC_KIND_APPEND, 0, adds, na,
                           dels, nd);
        cr_assert_eq(rc, 0, "aging commit %d: %s", c, sc_error_message());
    }
}

/* Run both checks on one change set; they must agree on the code and on the deletes. */
static int compare_checks(sc_table *t, sc_changes *c, sc_commit_kind kind, int *out_touched_only) {
    uint64_t latest_id = tu_latest(t);
    sc_snapshot latest;
    cr_assert_eq(sc_table_read_snapshot(&latest, NULL, t, latest_id), 0, "%s", sc_error_message());
    cr_assert_eq(sc_entries_prepare(t, c, kind, 1), 0, "%s", sc_error_message());
    sc_partition_set parts;
    cr_assert_eq(sc_partition_set_build(&parts, &c->adds, &c->deletes), 0);
    sc_entry_vec fast = {0}, full = {0};
    char fast_msg[1024];
    int touched = -1, unused;
    int rc_fast = sc_conflict_check_first(&fast, &touched, t, &latest, c, kind, &parts, 1);
    snprintf(fast_msg, sizeof fast_msg, "%s", sc_error_message());
    int rc_full = sc_conflict_check_first(&full, &unused, t, &latest, c, kind, &parts, 0);
    cr_assert_eq(unused, 0);
    cr_assert_eq(rc_fast, rc_full, "touched-files check says %d (%s), full scan %d (%s)", rc_fast, fast_msg, rc_full,
                 sc_error_message());
    if (rc_fast == SC_ECONFLICT)
        cr_assert_str_eq(fast_msg, sc_error_message(), "both name the same first conflict");
    cr_assert_eq(fast.count, full.count);
    for (size_t i = 0; i < fast.count; i++) {
        cr_assert_str_eq(fast.items[i].file.file, full.items[i].file.file);
        cr_assert_eq(fast.items[i].file.rows, full.items[i].file.rows, "the stored record, not the caller's copy");
        cr_assert_eq(sc_bytes_compare(fast.items[i].file.partition, full.items[i].file.partition), 0);
    }
    sc_entry_vec_free(&fast);
    sc_entry_vec_free(&full);
    sc_partition_set_free(&parts);
    sc_snapshot_clear(&latest);
    *out_touched_only = touched;
    return rc_fast;
}

Test(touched_check, agrees_with_the_full_scan_on_random_change_sets) {
    sc_table *t = tu_mem_table("touched-random");
    static model m;
    memset(&m, 0, sizeof m);
    unsigned seed = 20261201;
    int64_t ident = 0;
    int outcomes[3] = {0}, touched_total = 0, cases = 0;
    for (int round = 0; round < 6; round++) {
        age_table(t, &m, &seed, 40, &ident); /* 240 commits: both kinds of merge happen on the way */
        for (int k = 0; k < 60; k++, cases++) {
            sc_changes *c;
            cr_assert_eq(sc_changes_new(&c), 0);
            int part = (int)(rand_r(&seed) % 3);
            int deletes = k % 3 == 0 ? 0 : 1 + (int)(rand_r(&seed) % 3);
            for (int d = 0; d < deletes; d++) {
                int pick = rand_r(&seed) % 10;
                int i = pick < 7 ? random_live(&m, &seed, part) : (int)(rand_r(&seed) % (unsigned)m.count);
                sc_file_entry f = i < 0 ? tu_file(PARTS[part], 0, TU_BUCKETS, 0, "data/never", 1, NULL, NULL)
                                        : model_file(&m, i);
                if (sc_changes_delete(c, &f) != 0) sc_error_clear(); /* a duplicate pick: skip it */
            }
            int adds = 1 + (int)(rand_r(&seed) % 3);
            for (int a = 0; a < adds; a++) {
                int pick = rand_r(&seed) % 10;
                char fresh[32];
                snprintf(fresh, sizeof fresh, "data/new-%d-%d", cases, a);
                sc_file_entry f = pick < 7 ? tu_file(PARTS[part], a % TU_BUCKETS, TU_BUCKETS, 0, fresh, 1, NULL, NULL)
                                           : model_file(&m, (int)(rand_r(&seed) % (unsigned)m.count));
                if (sc_changes_add(c, &f) != 0) sc_error_clear();
            }
            int touched;
            int rc = compare_checks(t, c, deletes ? SC_KIND_COMPACT : SC_KIND_APPEND, &touched);
            outcomes[rc == 0 ? 0 : rc == SC_ECONFLICT ? 1 : 2]++;
            /* A change set that contradicts itself (SC_EINVAL) is refused before either check. */
            cr_assert(rc == 0 || rc == SC_ECONFLICT || rc == SC_EINVAL, "%d: %s", rc, sc_error_message());
            if (rc == SC_EINVAL) cases--;
            else touched_total += touched;
            sc_changes_free(c);
        }
    }
    /* The cases must exercise both answers, and the fast way must be the one taken. */
    cr_assert_gt(outcomes[0], 30, "%d commits pass", outcomes[0]);
    cr_assert_gt(outcomes[1], 30, "%d conflicts", outcomes[1]);
    cr_assert_eq(touched_total, cases, "the touched-files check decided %d of %d", touched_total, cases);
    sc_table_free(t);
}

Test(touched_check, a_bucket_count_it_cannot_rule_out_goes_to_the_full_scan) {
    sc_table *t = tu_mem_table("touched-buckets");
    sc_file_entry a = tu_file("p0", 0, TU_BUCKETS, 0, "data/a", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &a, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    sc_file_entry b = tu_file("p0", 0, TU_BUCKETS + 1, 0, "data/b", 1, NULL, NULL);
    cr_assert_eq(sc_changes_add(c, &b), 0);
    int touched;
    cr_assert_eq(compare_checks(t, c, SC_KIND_APPEND, &touched), SC_ECONFLICT);
    cr_assert_eq(touched, 0);
    cr_assert(strstr(sc_error_message(), "Bucket count conflict"), "%s", sc_error_message());
    sc_changes_free(c);
    sc_table_free(t);
}

/* ---- what a fresh handle reads, young and old ---- */

/* GETs and bytes of one append of 5 new files by a fresh handle, after `age` appends. */
static void fresh_append_reads(const char *name, int age, sc_store_stats *out, size_t *base_manifests) {
    sc_table *t = tu_mem_table(name);
    char file[64];
    for (int i = 1; i <= age; i++) {
        sc_file_entry f[5];
        for (int k = 0; k < 5; k++) {
            snprintf(file, sizeof file, "data/seed-%d-%d", i, k);
            f[k] = tu_file("p0", k % TU_BUCKETS, TU_BUCKETS, 0, file, 1, NULL, NULL);
        }
        cr_assert_eq(tu_commit(NULL, t, "seed", i, SC_KIND_APPEND, 0, f, 5, NULL, 0), 0, "%s", sc_error_message());
    }
    sc_table_free(t);
    t = tu_reopen(name);
    sc_file_entry f[5];
    for (int k = 0; k < 5; k++) {
        snprintf(file, sizeof file, "data/fresh-%d", k);
        f[k] = tu_file("p0", k % TU_BUCKETS, TU_BUCKETS, 0, file, 1, NULL, NULL);
    }
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "fresh", 1, SC_KIND_APPEND, 0, f, 5, NULL, 0), 0, "%s", sc_error_message());
    *out = r.stats;
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, r.snapshot_id), 0);
    sc_manifest_file_vec list = {0};
    cr_assert_eq(sc_state_load_list(&list, t, &s.base_manifest_list), 0);
    *base_manifests = list.count;
    sc_manifest_file_vec_free(&list);
    sc_snapshot_clear(&s);
    sc_table_free(t);
}

Test(touched_check, a_fresh_append_reads_as_many_objects_at_age_400_as_at_age_40) {
    sc_store_stats young, old;
    size_t young_list, old_list;
    fresh_append_reads("fresh-young", 40, &young, &young_list);
    fresh_append_reads("fresh-old", 400, &old, &old_list);
    /* Snapshot, LATEST, base and delta lists, EARLIEST after the claim, and of the manifests only
     * the latest snapshot's delta (every commit checks it: docs/protocols.md §3), whatever the
     * age (2,000 files at 400). */
    cr_assert_eq(old.ops[SC_OP_GET], young.ops[SC_OP_GET], "GETs at age 400: %llu, at 40: %llu",
                 (unsigned long long)old.ops[SC_OP_GET], (unsigned long long)young.ops[SC_OP_GET]);
    cr_assert_leq(old.ops[SC_OP_GET], 6);
    /* The base list stays short: merges keep it within the threshold plus the merged manifests. */
    cr_assert_leq(old_list, 34, "base list of %zu manifests at age 400", old_list);
    cr_assert_leq(young_list, 34);
}

Test(touched_check, a_compaction_reads_only_the_manifests_of_its_files) {
    sc_table *t = tu_mem_table("compaction-reads");
    char file[64];
    for (int i = 1; i <= 300; i++) {
        sc_file_entry f[5];
        for (int k = 0; k < 5; k++) {
            snprintf(file, sizeof file, "data/s-%d-%d", i, k);
            f[k] = tu_file("p0", 0, TU_BUCKETS, 0, file, 1, NULL, NULL);
        }
        cr_assert_eq(tu_commit(NULL, t, "seed", i, SC_KIND_APPEND, 0, f, 5, NULL, 0), 0, "%s", sc_error_message());
    }
    sc_table_free(t);
    t = tu_reopen("compaction-reads");
    /* Ten files of the last commits: they sit in at most two recent manifests. */
    sc_file_entry dels[10];
    for (int k = 0; k < 10; k++) {
        snprintf(file, sizeof file, "data/s-%d-%d", 299 + k / 5, k % 5);
        dels[k] = tu_file("p0", 0, TU_BUCKETS, 0, file, 1, NULL, NULL);
    }
    sc_file_entry merged = tu_file("p0", 0, TU_BUCKETS, 0, "data/merged", 10, NULL, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "compactor", 1, SC_KIND_COMPACT, 0, &merged, 1, dels, 10), 0, "%s",
                 sc_error_message());
    /* Snapshot + LATEST + two lists + at most two manifests (+ one false 'maybe' allowed). */
    cr_assert_leq(r.stats.ops[SC_OP_GET], 7, "%llu GETs", (unsigned long long)r.stats.ops[SC_OP_GET]);
    cr_assert_eq(tu_file_count(t), 1500 - 10 + 1);
    /* Deleting one of them again is the conflict the full scan would report. */
    cr_assert_eq(tu_commit(&r, t, "compactor", 2, SC_KIND_COMPACT, 0, NULL, 0, dels, 1), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "is not live"), "%s", sc_error_message());
    sc_table_free(t);
}
