/*
 * Table upkeep (upkeep.h): expiration with Paimon's retention rules, exactly
 * the unreferenced objects deleted, a run interrupted at every delete and
 * finished by the next, commits planned on an expired base, replay filtering
 * after expiry, orphan removal by age, durations; a stalled claim landing below
 * EARLIEST, a failed read of EARLIEST; commits, readers and discovery that an
 * expiration passes between their reads (a race, never damage).
 */
#include "sc_test_util.h"
#include "sc_test_assert.h"

#include <inttypes.h>
#include <time.h>

#include "snapcommit/upkeep.h"
#include "strategy/strategy.h" /* sc_table.watermark_inline_users: a low bound makes archives early */
#include "engine/state.h"     /* sc_table_read_snapshot: Paimon-written snapshots are made from ours */

/* ---- a virtual clock shared by the table and the mem store ---- */

static int64_t clock_ms;
static int64_t now_fn(void *ctx) {
    (void)ctx;
    return clock_ms;
}

static void use_clock(sc_table *t, const char *name) {
    sc_env env;
    sc_env_init(&env);
    env.now_ms = now_fn;
    OK(sc_table_set_env(t, &env));
    OK(sc_mem_store_set_env(name, &env));
}

static sc_table *table(const char *name) {
    clock_ms = 1000000;
    sc_table *t = tu_mem_table(name);
    use_clock(t, name);
    return t;
}

static int present(sc_table *t, const char *key) {
    sc_object_info info;
    int rc = sc_store_head(sc_table_store(t), &info, key);
    cr_assert(rc == 0 || rc == SC_ENOTFOUND, "%s", sc_error_message());
    return rc == 0;
}

static int data_present(sc_table *t, const char *file) {
    char *k = tu_data_key(t, file);
    int p = present(t, k);
    free(k);
    return p;
}

/*
 * n commits, one a clock second apart: commit i adds data/f<i> (written to the store) and,
 * as a compaction, deletes data/f<i-1>. Every snapshot therefore has one live file, and the
 * file of snapshot i is deleted by snapshot i+1.
 */
static void chain(sc_table *t, int from, int n) {
    for (int i = from; i < from + n; i++) {
        char add[32], del[32];
        snprintf(add, sizeof add, "data/f%d", i);
        snprintf(del, sizeof del, "data/f%d", i - 1);
        tu_put_data(t, add);
        sc_file_entry a = tu_file("p", 0, 0, 0, add, 1, NULL, NULL), d = tu_file("p", 0, 0, 0, del, 1, NULL, NULL);
        clock_ms += 1000;
        int rc = tu_commit(NULL, t, "job", i, i > 1 ? SC_KIND_COMPACT : SC_KIND_APPEND, 0, &a, 1, &d, i > 1);
        cr_assert_eq(rc, 0, "commit %d: %s", i, sc_error_message());
    }
}

static sc_expire_options opts(uint64_t min, uint64_t max, int64_t older, uint64_t limit) {
    sc_expire_options o;
    sc_expire_options_init(&o);
    o.retain_min = min;
    o.retain_max = max;
    o.older_than_ms = older;
    o.limit = limit;
    return o;
}

static uint64_t earliest(sc_table *t) {
    uint64_t id;
    OK(sc_table_earliest_id(&id, t));
    return id;
}

/* Every retained snapshot reads whole, every live file of each is on storage, fsck is clean. */
static void check_retained(sc_table *t) {
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "fsck: %s", sc_error_message());
    uint64_t e = earliest(t), l = tu_latest(t);
    for (uint64_t id = e; id <= l; id++) {
        sc_file_list *files;
        cr_assert_eq(sc_table_files(&files, t, id), 0, "snapshot %" PRIu64 ": %s", id, sc_error_message());
        for (size_t i = 0; i < files->count; i++) {
            char *k;
            OK(sc_table_file_path(&k, t, &files->entries[i]));
            cr_assert(present(t, k), "snapshot %" PRIu64 " lost its file %s", id, k);
            free(k);
        }
        sc_file_list_free(files);
    }
}

/* ---- retention rules ---- */

Test(expire, retain_min_keeps_that_many_however_old) {
    sc_table *t = table("ex_min");
    chain(t, 1, 12);
    clock_ms += 10 * 3600 * 1000;
    sc_expire_options o = opts(4, INT32_MAX, 0, 50);
    sc_expire_result r;
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(r.snapshots_expired, 8);
    cr_assert_eq(r.earliest_before, 1);
    cr_assert_eq(r.earliest_after, 9);
    cr_assert_eq(earliest(t), 9);
    cr_assert_eq(tu_latest(t), 12);
    cr_assert_eq(r.data_files_deleted, 8, "f1..f8 were deleted by snapshots 2..9; f9 is live in 9");
    for (int i = 1; i <= 12; i++) {
        char f[16];
        snprintf(f, sizeof f, "data/f%d", i);
        cr_assert_eq(data_present(t, f), i >= 9, "%s", f);
    }
    check_retained(t);
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(r.snapshots_expired, 0, "a second run finds nothing");
    sc_table_free(t);
}

Test(expire, time_retained_keeps_young_snapshots) {
    sc_table *t = table("ex_time");
    chain(t, 1, 10); /* snapshot i at 1,000,000 + 1000 i */
    clock_ms = 1000000 + 10000 + 3500;
    /* cutoff = now - 7.5 s = 1,006,000: snapshots 1..5 (timeMillis < 1,006,000) are old */
    sc_expire_options o = opts(1, INT32_MAX, 7500, 50);
    sc_expire_result r;
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(r.earliest_after, 6, "expired up to the first young snapshot: %" PRIu64, r.earliest_after);
    cr_assert_eq(r.snapshots_expired, 5);
    check_retained(t);
    sc_table_free(t);
}

Test(expire, retain_max_forces_young_snapshots_out) {
    sc_table *t = table("ex_max");
    chain(t, 1, 10);
    sc_expire_options o = opts(1, 3, 3600 * 1000, 50); /* every snapshot is young */
    sc_expire_result r;
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(r.earliest_after, 8, "at most 3 kept: %" PRIu64, r.earliest_after);
    check_retained(t);
    o = opts(1, INT32_MAX, 3600 * 1000, 50);
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(r.snapshots_expired, 0, "young snapshots stay without retain-max");
    sc_table_free(t);
}

Test(expire, limit_bounds_one_run) {
    sc_table *t = table("ex_limit");
    chain(t, 1, 10);
    clock_ms += 3600 * 1000 * 2;
    sc_expire_options o = opts(2, INT32_MAX, 0, 3);
    sc_expire_result r;
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(r.snapshots_expired, 3);
    cr_assert_eq(earliest(t), 4);
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(earliest(t), 7);
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(earliest(t), 9, "retain-min 2 stops the third run at 9");
    cr_assert_eq(r.snapshots_expired, 2);
    check_retained(t);
    sc_table_free(t);
}

Test(expire, options_are_checked_and_read_from_the_table) {
    sc_table *t = table("ex_opts");
    sc_expire_options o = opts(0, 10, 0, 1);
    FAILS(SC_EINVAL, sc_table_expire(NULL, t, &o));
    o = opts(5, 4, 0, 1);
    FAILS(SC_EINVAL, sc_table_expire(NULL, t, &o));
    o = opts(1, 4, -1, 1);
    FAILS(SC_EINVAL, sc_table_expire(NULL, t, &o));
    OK(sc_expire_options_from_table(&o, t));
    cr_assert_eq(o.retain_min, 10);
    cr_assert_eq(o.retain_max, INT32_MAX);
    cr_assert_eq(o.older_than_ms, 3600 * 1000);
    cr_assert_eq(o.limit, 50);
    sc_table_free(t);

    sc_mem_store_reset("ex_opts2");
    sc_store *s;
    OK(sc_store_open(&s, "mem://ex_opts2"));
    const char *schema = "{\"fields\":[{\"name\":\"v\",\"type\":\"BIGINT\"}],\"options\":{\"snapshot.num-retained.min\":\"3\","
                         "\"snapshot.num-retained.max\":\"7\",\"snapshot.time-retained\":\"30 min\",\"snapshot.expire.limit\":\"9\"}}";
    OK(sc_table_create_with_schema(s, SC_STRATEGY_AUTO, schema, strlen(schema)));
    sc_store_free(s);
    t = tu_reopen("ex_opts2");
    OK(sc_expire_options_from_table(&o, t));
    cr_assert_eq(o.retain_min, 3);
    cr_assert_eq(o.retain_max, 7);
    cr_assert_eq(o.older_than_ms, 30 * 60 * 1000);
    cr_assert_eq(o.limit, 9);
    sc_expire_result r;
    OK(sc_table_expire(&r, t, NULL));
    cr_assert_eq(r.latest, 0, "an empty table: nothing to do");
    sc_table_free(t);
}

Test(expire, durations) {
    int64_t ms;
    OK(sc_duration_parse(&ms, "500ms"));
    cr_assert_eq(ms, 500);
    OK(sc_duration_parse(&ms, "30m"));
    cr_assert_eq(ms, 30 * 60000);
    OK(sc_duration_parse(&ms, "1 h"));
    cr_assert_eq(ms, 3600000);
    OK(sc_duration_parse(&ms, "1d"));
    cr_assert_eq(ms, 86400000);
    OK(sc_duration_parse(&ms, "30 min"));
    cr_assert_eq(ms, 1800000);
    OK(sc_duration_parse(&ms, "42"));
    cr_assert_eq(ms, 42);
    FAILS(SC_EINVAL, sc_duration_parse(&ms, "h"));
    FAILS(SC_EINVAL, sc_duration_parse(&ms, "1 week"));
    FAILS(SC_EINVAL, sc_duration_parse(&ms, "-1s"));
    FAILS(SC_EINVAL, sc_duration_parse(&ms, "99999999999999999999d"));
    FAILS(SC_EINVAL, sc_duration_parse(&ms, "9999999999999999d"));
}

/* ---- exactly the unreferenced objects ---- */


static sc_list_page listing(const char *name) {
    sc_list_page p;
    OK(sc_mem_store_keys(&p, name));
    return p;
}

static int in_page(const sc_list_page *p, const char *key) {
    for (size_t i = 0; i < p->count; i++)
        if (strcmp(p->keys[i], key) == 0) return 1;
    return 0;
}

Test(expire, deletes_exactly_what_no_retained_snapshot_references) {
    sc_table *t = table("ex_exact");
    chain(t, 1, 20);
    clock_ms += 3600 * 1000 * 2;
    sc_list_page before = listing("ex_exact");
    sc_expire_options o = opts(5, INT32_MAX, 0, 50);
    o.dry_run = 1;
    sc_expire_result dry, r;
    OK(sc_table_expire(&dry, t, &o));
    sc_list_page same = listing("ex_exact");
    cr_assert_eq(same.count, before.count, "a dry run deletes nothing");
    sc_list_page_free(&same);
    o.dry_run = 0;
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(r.snapshots_expired, dry.snapshots_expired);
    cr_assert_eq(r.data_files_deleted, dry.data_files_deleted);
    cr_assert_eq(r.manifests_deleted, dry.manifests_deleted);
    cr_assert_eq(r.manifest_lists_deleted, dry.manifest_lists_deleted);
    cr_assert_eq(r.bytes_deleted, dry.bytes_deleted);
    sc_list_page after = listing("ex_exact");
    uint64_t gone = 0, gone_snap = 0, gone_data = 0, gone_meta = 0;
    for (size_t i = 0; i < before.count; i++) {
        const char *k = before.keys[i];
        if (in_page(&after, k)) continue;
        gone++;
        uint64_t id;
        if (strncmp(k, "snapshot/snapshot-", 18) == 0) {
            id = strtoull(k + 18, NULL, 10);
            cr_assert_lt(id, 16, "retained snapshot %s deleted", k);
            gone_snap++;
        } else if (strncmp(k, "manifest/", 9) == 0) {
            gone_meta++;
        } else {
            cr_assert(strstr(k, "/bucket-0/data-f"), "unexpected deletion %s", k);
            gone_data++;
        }
        cr_assert(strncmp(k, "metadata/", 9) && strncmp(k, "schema/", 7), "%s must never be deleted", k);
    }
    cr_assert_eq(gone_snap, 15);
    cr_assert_eq(gone_data, 15, "f1..f15: deleted by snapshots 2..16, live in no retained one");
    cr_assert_eq(gone_meta, r.manifests_deleted + r.manifest_lists_deleted);
    cr_assert_eq(gone, r.snapshots_expired + r.data_files_deleted + r.manifests_deleted + r.manifest_lists_deleted);
    for (size_t i = 0; i < after.count; i++) cr_assert(in_page(&before, after.keys[i]) || !strcmp(after.keys[i], "snapshot/EARLIEST"));
    check_retained(t);
    /* Nothing unreferenced is left: orphan removal (another walk, over every retained
     * snapshot) finds no manifest to delete. */
    sc_orphans_options oo;
    sc_orphans_options_init(&oo);
    oo.older_than_ms = 0;
    oo.force = 1; /* no writer runs: every unreferenced object counts, however young */
    oo.dry_run = 1;
    sc_orphans_result orr;
    OK(sc_table_remove_orphans(&orr, t, &oo));
    cr_assert_eq(orr.orphans_found, 0, "expire left %" PRIu64 " unreferenced objects", orr.orphans_found);
    sc_list_page_free(&before);
    sc_list_page_free(&after);
    sc_table_free(t);
}

/*
 * A file an expired delta deletes stays while a retained snapshot names it: Paimon's upgrade
 * (a compaction deletes a file at level 0 and adds the same file at level 5) keeps it live in
 * the first retained snapshot, and a name added again by a later retained snapshot is named
 * there. Expiration looks each retained file up among those it would delete as the files
 * stream by; both paths are covered here.
 */
Test(expire, files_an_expired_delta_deletes_that_a_retained_snapshot_names_stay) {
    sc_table *t = table("ex_still_named");
    tu_put_data(t, "data/up");
    tu_put_data(t, "data/back");
    sc_file_entry up0 = tu_file("p", 0, 0, 0, "data/up", 1, NULL, NULL), up5 = tu_file("p", 0, 0, 5, "data/up", 1, NULL, NULL);
    sc_file_entry back = tu_file("p", 0, 0, 0, "data/back", 1, NULL, NULL);
    sc_file_entry both[2] = {up0, back};
    clock_ms += 1000;
    OK(tu_commit(NULL, t, "job", 1, SC_KIND_APPEND, 0, both, 2, NULL, 0));
    clock_ms += 1000;
    OK(tu_commit(NULL, t, "job", 2, SC_KIND_COMPACT, 0, &up5, 1, both, 2)); /* up upgraded, back deleted */
    clock_ms += 1000;
    OK(tu_commit(NULL, t, "job", 3, SC_KIND_APPEND, 0, &back, 1, NULL, 0)); /* back added again */
    clock_ms += 3600 * 1000 * 2;
    sc_expire_options o = opts(2, 2, 0, 50); /* retains 2..3: snapshot 2's delta deletes both */
    sc_expire_result r;
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(earliest(t), 2);
    cr_assert_eq(r.snapshots_expired, 1);
    cr_assert_eq(r.data_files_deleted, 0, "both files are still named");
    cr_assert(data_present(t, "data/up"), "live at level 5 in the first retained snapshot");
    cr_assert(data_present(t, "data/back"), "added again by a retained snapshot");
    check_retained(t);
    sc_table_free(t);
}

/* ---- interrupted at every delete, finished by the next run ---- */

Test(expire, a_run_failing_at_any_delete_leaves_a_sound_table_and_a_rerun_finishes) {
    char name[32] = "ex_crash";
    sc_table *t = table(name);
    chain(t, 1, 12);
    clock_ms += 3600 * 1000 * 2;
    sc_expire_options o = opts(4, INT32_MAX, 0, 50);
    o.dry_run = 1;
    sc_expire_result plan;
    OK(sc_table_expire(&plan, t, &o));
    o.dry_run = 0;
    uint64_t deletes = plan.snapshots_expired + plan.data_files_deleted + plan.manifests_deleted + plan.manifest_lists_deleted;
    cr_assert_gt(deletes, 20);
    sc_table_free(t);
    for (uint64_t n = 1; n <= deletes; n++) {
        snprintf(name, sizeof name, "ex_crash_%" PRIu64, n);
        t = table(name);
        chain(t, 1, 12);
        clock_ms += 3600 * 1000 * 2;
        OK(sc_mem_store_arm_fault(name, 1u << SC_OP_DELETE, n, SC_MEM_FAULT_FAIL, 0));
        sc_expire_result r;
        cr_assert_neq(sc_table_expire(&r, t, &o), 0, "delete %" PRIu64 " failed, so must the run", n);
        sc_table *u = tu_reopen(name);
        use_clock(u, name);
        check_retained(u);
        cr_assert_eq(tu_latest(u), 12);
        sc_expire_result again;
        cr_assert_eq(sc_table_expire(&again, u, &o), 0, "re-run after delete %" PRIu64 ": %s", n, sc_error_message());
        cr_assert_eq(earliest(u), 9);
        check_retained(u);
        cr_assert_eq(tu_count_keys(name, "snapshot/snapshot-", NULL), 4);
        for (int i = 1; i <= 8; i++) {
            char f[16];
            snprintf(f, sizeof f, "data/f%d", i);
            cr_assert(!data_present(u, f), "%s left after the re-run (fault at %" PRIu64 ")", f, n);
        }
        sc_orphans_options oo;
        sc_orphans_options_init(&oo);
        oo.older_than_ms = 0;
        oo.force = 1;
        oo.dry_run = 1;
        sc_orphans_result orr;
        OK(sc_table_remove_orphans(&orr, u, &oo));
        cr_assert_eq(orr.orphans_found, 0, "fault at %" PRIu64 ": %" PRIu64 " objects left behind", n, orr.orphans_found);
        sc_table_free(u);
        sc_table_free(t);
        sc_mem_store_reset(name);
    }
}

/* ---- commits in flight, replay ---- */

Test(expire, a_commit_planned_on_an_expired_base_commits_or_conflicts_clearly) {
    sc_table *t = table("ex_inflight");
    chain(t, 1, 3); /* live after 3: f3 */
    uint64_t base = tu_latest(t);
    /* Planned on base 3, committed later: an append of a new file, and a compaction of f3. */
    sc_file_entry nf = tu_file("p", 0, 0, 0, "data/late", 1, NULL, NULL);
    sc_file_entry f3 = tu_file("p", 0, 0, 0, "data/f3", 1, NULL, NULL);
    sc_file_entry merged = tu_file("p", 0, 0, 0, "data/merged", 1, NULL, NULL);
    tu_put_data(t, "data/late");
    chain(t, 4, 10); /* snapshot 4 deletes f3 */
    clock_ms += 3600 * 1000 * 2;
    sc_expire_options o = opts(2, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, t, &o));
    cr_assert_gt(earliest(t), base + 1, "the base's successors have expired");
    cr_assert(!data_present(t, "data/f3"));
    sc_table *w = tu_reopen("ex_inflight");
    FAILS(SC_ECONFLICT, tu_commit(NULL, w, "other", 1, SC_KIND_COMPACT, base, &merged, 1, &f3, 1));
    cr_assert(strstr(sc_error_message(), "File deletion conflict"), "%s", sc_error_message());
    sc_commit_result cr;
    cr_assert_eq(tu_commit(&cr, w, "other", 2, SC_KIND_APPEND, base, &nf, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert(data_present(w, "data/late"));
    check_retained(w);
    sc_table_free(w);
    sc_table_free(t);
}

/*
 * A writer stalls between reading snapshot 3 and claiming 4; meanwhile another writer
 * commits 4..7 and an expiration deletes 1..5. The stalled claim of 4 then succeeds on the
 * freed key, below EARLIEST: it must not be acknowledged there, but retried on the latest.
 */
static sc_table *g_world;
static int g_stalled;
static int stall_before_claim(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)ctx;
    (void)call;
    if (g_stalled || (op != SC_OP_PUT_IF_ABSENT && op != SC_OP_PUT) || strncmp(key, "snapshot/snapshot-", 18) != 0)
        return 0;
    g_stalled = 1;
    chain(g_world, 4, 4);
    clock_ms += 10000;
    sc_expire_options o = opts(2, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, g_world, &o));
    cr_assert_eq(earliest(g_world), 6);
    return 0;
}

Test(expire, a_stalled_claim_that_lands_below_earliest_is_retried_not_acknowledged) {
    sc_table *t = table("ex_stall");
    chain(t, 1, 3);
    sc_table *w = tu_reopen("ex_stall");
    sc_env env;
    sc_env_init(&env);
    env.now_ms = now_fn;
    env.monotonic_ms = now_fn; /* the stall shows in the writer's own elapsed time */
    OK(sc_table_set_env(w, &env));
    sc_file_entry late = tu_file("p", 0, 0, 0, "data/late", 1, NULL, NULL);
    tu_put_data(w, "data/late");
    g_world = t;
    g_stalled = 0;
    sc_store_set_fault_hook(sc_table_store(w), stall_before_claim, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, w, "late", 1, SC_KIND_APPEND, 0, &late, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(w), NULL, NULL);
    cr_assert(g_stalled);
    cr_assert_eq(r.snapshot_id, 8, "acknowledged at %" PRIu64 " (the claim of 4 lies below EARLIEST 6)", r.snapshot_id);
    cr_assert_eq(r.lost_claims, 1);
    sc_snapshot_info *info;
    OK(sc_table_snapshot_info(&info, t, 8));
    cr_assert_str_eq(info->commit_user, "late");
    sc_snapshot_info_free(info);
    int64_t ident = 0;
    int found = 0;
    OK(sc_table_last_committed(&ident, &found, t, "late"));
    cr_assert(found && ident == 1);
    check_retained(t);
    /* The leftover below EARLIEST goes with the next expiration. */
    clock_ms += 10000;
    sc_expire_options o = opts(2, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, t, &o));
    cr_assert(!present(t, "snapshot/snapshot-4"));
    check_retained(t);
    sc_table_free(w);
    sc_table_free(t);
}

static int fail_earliest_reads(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)ctx;
    (void)call;
    return op == SC_OP_GET && strcmp(key, "snapshot/EARLIEST") == 0 ? SC_EIO : 0;
}

/* An EARLIEST that cannot be read is an error of that read, not an absent EARLIEST
 * (which would make history start at 1 and the expired table look damaged). */
Test(expire, a_failed_read_of_earliest_is_not_damage) {
    sc_table *t = table("ex_earliest_io");
    chain(t, 1, 5);
    clock_ms += 10000;
    sc_expire_options o = opts(2, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, t, &o));
    cr_assert_eq(earliest(t), 4);
    sc_table *r = tu_reopen("ex_earliest_io");
    sc_store_set_fault_hook(sc_table_store(r), fail_earliest_reads, NULL);
    uint64_t id = 0;
    FAILS(SC_EIO, sc_table_earliest_id(&id, r));
    FAILS(SC_EIO, sc_table_expire(NULL, r, &o));
    sc_store_set_fault_hook(sc_table_store(r), NULL, NULL);
    OK(sc_table_earliest_id(&id, r));
    cr_assert_eq(id, 4);
    sc_table_free(r);
    sc_table_free(t);
}

Test(expire, replay_filtering_survives_the_expiry_of_the_users_commit) {
    sc_table *t = table("ex_replay");
    sc_commit_result r;
    OK(tu_commit_one(&r, t, "early", 5));
    chain(t, 1, 15);
    clock_ms += 3600 * 1000 * 2;
    sc_expire_options o = opts(3, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, t, &o));
    cr_assert_gt(earliest(t), 1, "the snapshot holding early's commit has expired");
    FAILS(SC_ECOMMITTED, tu_commit_one(&r, t, "early", 5));
    int64_t ident = 0;
    int found = 0;
    OK(sc_table_last_committed(&ident, &found, t, "early"));
    cr_assert(found && ident == 5);
    int64_t ids[] = {4, 5, 6};
    size_t n;
    OK(sc_table_filter_committed(ids, &n, t, "early", ids, 3));
    cr_assert_eq(n, 1);
    cr_assert_eq(ids[0], 6);
    sc_table_free(t);
}

/* Users moved to the watermark archive stay filtered after their snapshots expire, and
 * neither expiration nor orphan removal deletes the archive the retained snapshots name. */
Test(expire, archived_watermarks_survive_expiration_and_orphan_removal) {
    sc_table *t = table("ex_archive");
    t->watermark_inline_users = 2; /* a third user moves the least recent out */
    sc_commit_result r;
    const char *users[] = {"u1", "u2", "u3", "u4", "u5", "u6"};
    for (size_t i = 0; i < 6; i++) {
        char file[32];
        snprintf(file, sizeof file, "data/%s-7", users[i]);
        tu_put_data(t, file); /* tu_commit_one's data file, so that the retained snapshots are whole */
        clock_ms += 1000;
        OK(tu_commit_one(&r, t, users[i], 7));
    }
    chain(t, 1, 12); /* user "job" only: the archive is carried forward unchanged */
    sc_list_page before = listing("ex_archive");
    int archives = 0;
    for (size_t i = 0; i < before.count; i++) archives += strncmp(before.keys[i], "metadata/watermarks/", 20) == 0;
    cr_assert_gt(archives, 0, "a bound of 2 users must have made an archive");
    sc_list_page_free(&before);
    clock_ms += 3600 * 1000 * 2;
    sc_expire_options o = opts(2, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, t, &o));
    cr_assert_gt(earliest(t), 6, "every snapshot of u1..u6 has expired");
    sc_orphans_options oo;
    sc_orphans_options_init(&oo);
    oo.older_than_ms = 0;
    oo.force = 1;
    OK(sc_table_remove_orphans(NULL, t, &oo));
    for (size_t i = 0; i < 6; i++) FAILS(SC_ECOMMITTED, tu_commit_one(&r, t, users[i], 7));
    sc_table *fresh = tu_reopen("ex_archive");
    for (size_t i = 0; i < 6; i++) FAILS(SC_ECOMMITTED, tu_commit_one(&r, fresh, users[i], 7));
    check_retained(fresh);
    sc_table_free(fresh);
    sc_table_free(t);
}

/* ---- refusals ---- */

Test(expire, tables_whose_protection_is_not_implemented_are_refused) {
    sc_table *t = tu_mem_table_with("ex_head", (tu_table_opts){.strategy = SC_STRATEGY_HEAD});
    FAILS(SC_EUNSUPPORTED, sc_table_expire(NULL, t, NULL));
    sc_table_free(t);
    t = table("ex_tag");
    chain(t, 1, 3);
    OK(sc_store_put(sc_table_store(t), NULL, "tag/tag-a", TEXT("{}")));
    FAILS(SC_EUNSUPPORTED, sc_table_expire(NULL, t, NULL));
    cr_assert(strstr(sc_error_message(), "tag"), "%s", sc_error_message());
    FAILS(SC_EUNSUPPORTED, sc_table_remove_orphans(NULL, t, NULL));
    sc_table_free(t);
}

/* ---- orphans ---- */

Test(orphans, removes_old_unreferenced_objects_only) {
    sc_table *t = table("or_basic");
    chain(t, 1, 3);
    sc_store *s = sc_table_store(t);
    tu_put_data(t, "data/lost-checkpoint");
    OK(sc_store_put(s, NULL, "manifest/manifest-list-lost-0", TEXT("x")));
    OK(sc_store_put(s, NULL, "manifest/index-manifest-x", TEXT("x")));
    OK(sc_store_put(s, NULL, "index/index-lost-0", TEXT("x")));
    OK(sc_store_put(s, NULL, "statistics/stat-lost-0", TEXT("x")));
    OK(sc_store_put(s, NULL, "metadata/probe-x/a", TEXT("x")));
    OK(sc_store_put(s, NULL, "notes/readme", TEXT("x")));
    OK(sc_store_put(s, NULL, "part=p/bucket-0/sub/deeper", TEXT("x")));
    OK(sc_store_put(s, NULL, "index/sub/deeper", TEXT("x")));
    OK(sc_store_put(s, NULL, "manifest/.hidden-manifest-0", TEXT("x")));
    clock_ms += 120000;
    tu_put_data(t, "data/young");
    sc_orphans_options o;
    sc_orphans_options_init(&o);
    o.older_than_ms = 90000; /* above the commit budget, below the strays' age */
    sc_orphans_result r;
    OK(sc_table_remove_orphans(&r, t, &o));
    /* f1, f2: deleted by snapshots 2 and 3 but still referenced by their deltas and snapshots */
    cr_assert(data_present(t, "data/f1") && data_present(t, "data/f2") && data_present(t, "data/f3"));
    cr_assert(!data_present(t, "data/lost-checkpoint"));
    cr_assert(!present(t, "manifest/manifest-list-lost-0"));
    cr_assert(!present(t, "manifest/index-manifest-x"), "an index manifest no snapshot names (Paimon deletes it too)");
    cr_assert(!present(t, "index/index-lost-0"), "an index file no index manifest lists");
    cr_assert(!present(t, "statistics/stat-lost-0"), "a statistics file no snapshot names");
    cr_assert(!present(t, "metadata/probe-x/a"));
    cr_assert(data_present(t, "data/young"), "younger than older_than");
    cr_assert(present(t, "notes/readme") && present(t, "part=p/bucket-0/sub/deeper") && present(t, "index/sub/deeper") &&
              present(t, "manifest/.hidden-manifest-0"), "keys of unknown shape are never touched");
    cr_assert(present(t, "metadata/table.json") && present(t, "schema/schema-0") && present(t, "snapshot/EARLIEST"));
    cr_assert_eq(r.data_files_deleted, 1);
    cr_assert_eq(r.manifests_deleted, 2);
    cr_assert_eq(r.index_files_deleted, 1);
    cr_assert_eq(r.other_deleted, 2);
    cr_assert_eq(r.too_young, 1);
    check_retained(t);
    sc_table_free(t);
}

/* Paimon's orphan cleaner keeps every data file a retained snapshot's manifests name, a DELETE
 * record of its delta too: a read of that snapshot's changes (an overwrite read as a diff) opens
 * the files it deletes. Here snapshot 1 is gone (as after an expiration that deleted only the
 * snapshot file) and data/f1, which snapshot 2's delta deletes, stays. */
Test(orphans, files_a_retained_delta_deletes_stay) {
    sc_table *t = table("or_delta_delete");
    chain(t, 1, 3);
    sc_store *s = sc_table_store(t);
    OK(sc_store_delete(s, "snapshot/snapshot-1"));
    OK(sc_store_put(s, NULL, "snapshot/EARLIEST", TEXT("2")));
    tu_put_data(t, "data/lost-checkpoint");
    clock_ms += 120000;
    sc_orphans_options o;
    sc_orphans_options_init(&o);
    o.older_than_ms = 90000;
    sc_orphans_result r;
    OK(sc_table_remove_orphans(&r, t, &o));
    cr_assert(data_present(t, "data/f1"), "named by snapshot 2's delta (DELETE)");
    cr_assert(!data_present(t, "data/lost-checkpoint"));
    cr_assert_eq(r.data_files_deleted, 1);
    sc_table_free(t);
}

/* ---- fsck after expiration ---- */

/* An age below the commit budget could take a commit's objects in flight (a deleted
 * manifest list leaves its snapshot unreadable): refused before anything is read,
 * unless forced. The budget is the default one, or the handle's when longer. */
Test(orphans, an_age_below_the_commit_budget_is_refused_unless_forced) {
    sc_table *t = table("or_budget");
    chain(t, 1, 2);
    OK(sc_store_put(sc_table_store(t), NULL, "manifest/manifest-list-inflight-0", TEXT("x")));
    clock_ms += 10000; /* ten seconds old: a commit may still be writing it */
    sc_orphans_options o;
    sc_orphans_options_init(&o);
    sc_orphans_result r;
    int64_t refused[] = {0, 10000, SC_COMMIT_DEFAULT_TIMEOUT_MS - 1};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        o.older_than_ms = refused[i];
        FAILS(SC_EINVAL, sc_table_remove_orphans(&r, t, &o));
        cr_assert(strstr(sc_error_message(), "below the commit budget of 60000 ms") && strstr(sc_error_message(), "force"),
                  "%s", sc_error_message());
    }
    o.older_than_ms = 0;
    o.dry_run = 1;
    FAILS(SC_EINVAL, sc_table_remove_orphans(&r, t, &o)); /* a dry run too: it reports what a run would delete */
    o.dry_run = 0;
    cr_assert(present(t, "manifest/manifest-list-inflight-0"));
    /* A handle whose commits may run longer raises the floor. */
    sc_retry_policy p;
    sc_retry_policy_default(&p);
    p.timeout_ms = 300000;
    sc_table_set_retry_policy(t, &p);
    o.older_than_ms = SC_COMMIT_DEFAULT_TIMEOUT_MS;
    FAILS(SC_EINVAL, sc_table_remove_orphans(&r, t, &o));
    cr_assert(strstr(sc_error_message(), "commit budget of 300000 ms"), "%s", sc_error_message());
    o.older_than_ms = 300000;
    OK(sc_table_remove_orphans(&r, t, &o));
    cr_assert_eq(r.too_young, 1);
    cr_assert(present(t, "manifest/manifest-list-inflight-0"));
    /* Forced: the caller says no writer runs. */
    o.older_than_ms = 0;
    o.force = 1;
    OK(sc_table_remove_orphans(&r, t, &o));
    cr_assert_eq(r.manifests_deleted, 1);
    cr_assert(!present(t, "manifest/manifest-list-inflight-0"));
    check_retained(t);
    sc_table_free(t);
}

Test(expire, fsck_accepts_history_from_earliest_and_finds_a_missing_retained_object) {
    sc_table *t = table("ex_fsck");
    chain(t, 1, 8);
    clock_ms += 3600 * 1000 * 2;
    sc_expire_options o = opts(3, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, t, &o));
    cr_assert_eq(earliest(t), 6);
    OK(sc_table_fsck(t, NULL, NULL));
    /* the first retained snapshot's delta list: named by it, so its loss is damage */
    sc_snapshot_info *info;
    OK(sc_table_snapshot_info(&info, t, 6));
    sc_snapshot_info_free(info);
    uint8_t *doc;
    size_t len;
    OK(sc_store_get(sc_table_store(t), &doc, &len, NULL, "snapshot/snapshot-6"));
    char *text = strndup((const char *)doc, len);
    free(doc);
    char *at = strstr(text, "\"deltaManifestList\":\"");
    cr_assert_not_null(at);
    at += strlen("\"deltaManifestList\":\"");
    char key[256] = "manifest/";
    strncat(key, at, strcspn(at, "\""));
    free(text);
    OK(sc_store_delete(sc_table_store(t), key));
    sc_table *u = tu_reopen("ex_fsck");
    FAILS(SC_ECORRUPT, sc_table_fsck(u, NULL, NULL));
    cr_assert(strstr(sc_error_message(), "missing"), "%s", sc_error_message());
    sc_table_free(u);
    sc_table_free(t);
}

/* A snapshot as Paimon's own committer writes it (no watermark table), on top of `below`
 * (snapshot 1, whose base list is empty: its delta list names every file). */
static void put_paimon_snapshot(sc_table *t, uint64_t id, const char *user, int64_t ident, const sc_snapshot *below) {
    char key[64], doc[1024];
    sc_snapshot_key(key, id);
    int n = snprintf(doc, sizeof doc,
                     "{\n  \"version\" : 3,\n  \"id\" : %" PRIu64 ",\n  \"schemaId\" : 0,\n"
                     "  \"baseManifestList\" : \"%s\",\n  \"deltaManifestList\" : \"%s\",\n"
                     "  \"commitUser\" : \"%s\",\n  \"commitIdentifier\" : %" PRId64 ",\n  \"commitKind\" : \"COMPACT\",\n"
                     "  \"timeMillis\" : %" PRId64 ",\n  \"totalRecordCount\" : %" PRId64 ",\n  \"deltaRecordCount\" : 0,\n"
                     "  \"nextRowId\" : 0\n}",
                     id, below->delta_manifest_list.name, below->base_manifest_list.name, user, ident, clock_ms,
                     below->total_record_count);
    OK(sc_store_put(sc_table_store(t), NULL, key, (const uint8_t *)doc, (size_t)n));
}

/* Paimon's own jobs (a dedicated compaction, say) commit on top of ours until every snapshot
 * of ours has expired: the watermarks of our users must still be found, or a restarted job
 * commits its last checkpoint a second time. */
Test(expire, watermarks_survive_when_every_snapshot_of_ours_expires_under_paimons) {
    const char *name = "ex_paimon_on_top";
    sc_table *t = table(name);
    sc_commit_result r;
    OK(tu_commit_one(&r, t, "early", 5));
    sc_snapshot s1;
    OK(sc_table_read_snapshot(&s1, NULL, t, 1));
    for (uint64_t id = 2; id <= 6; id++) {
        clock_ms += 1000;
        put_paimon_snapshot(t, id, "paimon-compaction", (int64_t)id, &s1);
    }
    sc_snapshot_clear(&s1);
    clock_ms += 3600 * 1000 * 2;
    sc_expire_options o = opts(1, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, t, &o));
    cr_assert_eq(earliest(t), 1, "the newest snapshot of ours stays under Paimon's (EARLIEST %" PRIu64 ")", earliest(t));
    sc_table *fresh = tu_reopen(name);
    int64_t ident = 0;
    int found = 0;
    OK(sc_table_last_committed(&ident, &found, fresh, "early"));
    cr_assert(found && ident == 5, "user early's watermark is gone (found %d, identifier %lld)", found, (long long)ident);
    FAILS(SC_ECOMMITTED, tu_commit_one(&r, fresh, "early", 5));
    /* Once ours is on top again, it carries the watermarks and the rest can go. */
    OK(tu_commit_one(&r, fresh, "late", 1));
    cr_assert_eq(r.snapshot_id, 7);
    clock_ms += 3600 * 1000 * 2;
    OK(sc_table_expire(NULL, fresh, &o));
    cr_assert_eq(earliest(fresh), 7);
    FAILS(SC_ECOMMITTED, tu_commit_one(&r, fresh, "early", 5));
    sc_table_free(fresh);
    sc_table_free(t);
}
/* A writer whose claim window spans other commits and an expiration: they land N+1 and N+2
 * and expire everything below N+2 (retain-min 1, older-than 0) just before it claims N+1. */
typedef struct expiring_rival {
    sc_table *other;
    int fired;
} expiring_rival;

static int expire_before_claim(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    expiring_rival *c = p;
    if (c->fired || op != SC_OP_PUT_IF_ABSENT || strncmp(key, "snapshot/snapshot-", 18) != 0) return 0;
    c->fired = 1;
    chain(c->other, 4, 2);
    clock_ms += 1000;
    sc_expire_options o = opts(1, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, c->other, &o));
    return 0;
}

/* The id a stale writer claims may be one an expiration already deleted: put-if-absent then
 * succeeds below EARLIEST, where no reader looks. That must not be reported as committed. */
Test(expire, a_claim_of_an_expired_id_is_not_reported_as_committed) {
    const char *name = "ex_stale_claim";
    sc_table *t = table(name);
    chain(t, 1, 3);
    sc_table *a = tu_reopen(name);
    use_clock(a, name);
    expiring_rival c = {t, 0};
    sc_store_set_fault_hook(sc_table_store(a), expire_before_claim, &c);
    tu_put_data(a, "data/a1");
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/a1", 1, NULL, NULL);
    sc_commit_result r;
    int rc = tu_commit(&r, a, "a", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0);
    sc_store_set_fault_hook(sc_table_store(a), NULL, NULL);
    cr_assert(c.fired, "the claim was reached");
    cr_assert_eq(earliest(t), 5, "the expiration ran before the claim");
    if (rc == 0) {
        sc_table *fresh = tu_reopen(name);
        uint64_t latest = tu_latest(fresh);
        cr_assert_geq(r.snapshot_id, earliest(fresh), "committed as snapshot %" PRIu64 ", below EARLIEST %" PRIu64,
                      r.snapshot_id, earliest(fresh));
        cr_assert_eq(r.snapshot_id, latest, "committed as %" PRIu64 ", latest is %" PRIu64, r.snapshot_id, latest);
        cr_assert(data_present(fresh, "data/a1"));
        sc_file_list *files;
        OK(sc_table_files(&files, fresh, latest));
        int seen = 0;
        for (size_t i = 0; i < files->count; i++) seen |= strcmp(files->entries[i].file, "data-a1") == 0;
        sc_file_list_free(files);
        cr_assert(seen, "the committed file is not live in the latest snapshot");
        check_retained(fresh);
        sc_table_free(fresh);
    } else {
        int64_t ident = 0;
        int found = 0;
        OK(sc_table_last_committed(&ident, &found, t, "a"));
        cr_assert(!found, "failed, yet user a has a watermark");
    }
    sc_table_free(a);
    sc_table_free(t);
}

/* ---- an undecided tracker claim ---- */

static int drop_commit_hints(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)ctx;
    (void)call;
    size_t n = strlen(key);
    return (op == SC_OP_PUT || op == SC_OP_PUT_IF_ABSENT) && n >= 11 && strcmp(key + n - 11, "COMMIT-HINT") == 0 ? SC_EIO : 0;
}

/*
 * Version 1 of a tracker table: its writer's commit file is publishable but its COMMIT-HINT
 * never landed, so no version is decided (latest 0). Any later writer publishes that claim,
 * so remove-orphans must keep what it names however old it is.
 */
Test(orphans, keeps_what_an_undecided_first_tracker_claim_names) {
    clock_ms = 1000000;
    sc_table *a = tu_mem_table_with("or_tr_first", (tu_table_opts){SC_STRATEGY_TRACKER, 1000, 20});
    use_clock(a, "or_tr_first");
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/first", 1, NULL, NULL);
    tu_put_data(a, "data/first");
    sc_store_set_fault_hook(sc_table_store(a), drop_commit_hints, NULL);
    sc_commit_result r;
    FAILS(SC_EUNKNOWN, tu_commit(&r, a, "A", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0));
    sc_store_set_fault_hook(sc_table_store(a), NULL, NULL);
    sc_table_free(a);
    clock_ms += 2 * 86400 * 1000LL; /* older than the default limit of a day */
    sc_table *u = tu_reopen("or_tr_first");
    use_clock(u, "or_tr_first");
    cr_assert_eq(tu_latest(u), 0, "no version is decided yet");
    OK(sc_table_remove_orphans(NULL, u, NULL));
    cr_assert(data_present(u, "data/first"), "the data file of the undecided claim was deleted");
    /* The next writer publishes A's claim first, then commits its own on top. */
    OK(tu_commit_one(&r, u, "B", 1));
    cr_assert_eq(r.snapshot_id, 2);
    sc_file_list *files;
    cr_assert_eq(sc_table_files(&files, u, 1), 0, "snapshot 1 (A's claim): %s", sc_error_message());
    cr_assert_eq(files->count, 1);
    sc_file_list_free(files);
    cr_assert_eq(sc_table_fsck(u, NULL, NULL), 0, "fsck: %s", sc_error_message());
    sc_table_free(u);
}

/*
 * Two writers stall before their claims: one read 2 and claims 3, the other read 3 and
 * claims 4. Meanwhile 4..8 are committed and 1..6 expire. The claim of 4 lands on the
 * freed key; right after it, the other writer's claim of 3 lands too. A present snapshot 3
 * says nothing about 4: the claim of 4 must be retried, not acknowledged below EARLIEST
 * (its LATEST hint would then point below EARLIEST and the next commit land at 5).
 */
static uint8_t *g_prev_doc;
static size_t g_prev_len;
static int g_phase;
static int two_stalls(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)ctx;
    (void)call;
    if (g_phase == 0 && (op == SC_OP_PUT_IF_ABSENT || op == SC_OP_PUT) && strncmp(key, "snapshot/snapshot-", 18) == 0) {
        g_phase = 1;
        OK(sc_store_get(sc_table_store(g_world), &g_prev_doc, &g_prev_len, NULL, "snapshot/snapshot-3"));
        chain(g_world, 4, 5); /* 4..8 */
        clock_ms += 10000;
        sc_expire_options o = opts(2, INT32_MAX, 0, 50);
        OK(sc_table_expire(NULL, g_world, &o));
        cr_assert_eq(earliest(g_world), 7);
    } else if (g_phase == 1) { /* the first request after the claim of 4 */
        g_phase = 2;
        OK(sc_store_put(sc_table_store(g_world), NULL, "snapshot/snapshot-3", g_prev_doc, g_prev_len));
    }
    return 0;
}

Test(expire, a_claim_below_earliest_is_retried_though_another_leftover_lies_under_it) {
    sc_table *t = table("ex_stall2");
    chain(t, 1, 3);
    sc_table *w = tu_reopen("ex_stall2");
    sc_env env;
    sc_env_init(&env);
    env.now_ms = now_fn;
    env.monotonic_ms = now_fn;
    OK(sc_table_set_env(w, &env));
    sc_file_entry late = tu_file("p", 0, 0, 0, "data/late", 1, NULL, NULL);
    tu_put_data(w, "data/late");
    g_world = t;
    g_phase = 0;
    g_prev_doc = NULL;
    sc_store_set_fault_hook(sc_table_store(w), two_stalls, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, w, "late", 1, SC_KIND_APPEND, 0, &late, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(w), NULL, NULL);
    cr_assert_eq(g_phase, 2);
    cr_assert_eq(r.snapshot_id, 9, "acknowledged at %" PRIu64 " (the claim of 4 lies below EARLIEST 7)", r.snapshot_id);
    sc_table *f = tu_reopen("ex_stall2");
    cr_assert_eq(tu_latest(f), 9);
    sc_snapshot_info *info;
    OK(sc_table_snapshot_info(&info, f, 9));
    cr_assert_str_eq(info->commit_user, "late");
    sc_snapshot_info_free(info);
    sc_file_entry next = tu_file("p", 0, 0, 0, "data/next", 1, NULL, NULL);
    tu_put_data(f, "data/next");
    OK(tu_commit(&r, f, "next", 1, SC_KIND_APPEND, 0, &next, 1, NULL, 0));
    cr_assert_eq(r.snapshot_id, 10);
    check_retained(f);
    free(g_prev_doc);
    sc_table_free(f);
    sc_table_free(w);
    sc_table_free(t);
}

/* ---- reads of a snapshot that an expiration removes meanwhile (docs/protocols.md §13) ---- */

/* Before the `fire_at`-th GET of a manifest list by the hooked handle, other writers land two
 * snapshots and an expiration (retain-min 1, older-than 0) removes everything below the
 * newest: the list about to be read is gone, with its snapshot. */
typedef struct expire_under {
    sc_table *other;
    int next_commit; /* the identifier of job's next commit */
    int gets, fire_at, fired;
} expire_under;

static int expire_before_list_read(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    expire_under *c = p;
    if (c->fired || op != SC_OP_GET || strncmp(key, "manifest/manifest-list-", 23) != 0) return 0;
    if (++c->gets < c->fire_at) return 0;
    c->fired = 1;
    chain(c->other, c->next_commit, 2);
    c->next_commit += 2;
    clock_ms += 1000;
    sc_expire_options o = opts(1, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, c->other, &o));
    return 0;
}

/* A commit reading its base's lists while an expiration removes that base: a new attempt on the
 * latest, never "missing from storage" (one run in 2,331 of a commit next to expire did that). */
Test(expire, a_commit_whose_base_expires_under_its_reads_retries) {
    const char *name = "ex_base_expires";
    sc_table *t = table(name);
    chain(t, 1, 3);
    sc_table *a = tu_reopen(name); /* cold: it reads the base's lists from the store */
    use_clock(a, name);
    expire_under c = {t, 4, 0, 1, 0};
    sc_store_set_fault_hook(sc_table_store(a), expire_before_list_read, &c);
    tu_put_data(a, "data/a1");
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/a1", 1, NULL, NULL);
    sc_commit_result r;
    int rc = tu_commit(&r, a, "a", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0);
    sc_store_set_fault_hook(sc_table_store(a), NULL, NULL);
    cr_assert(c.fired, "the base's list was read");
    cr_assert_eq(rc, 0, "%s: %s", sc_error_name(rc), sc_error_message());
    cr_assert_eq(r.snapshot_id, 6, "committed as %" PRIu64 " on top of the expiration's survivor 5", r.snapshot_id);
    sc_table *fresh = tu_reopen(name);
    sc_file_list *files;
    OK(sc_table_files(&files, fresh, 6));
    cr_assert_eq(files->count, 2, "snapshot 6 holds data/f5 and data/a1, not %zu files", files->count);
    sc_file_list_free(files);
    check_retained(fresh);
    sc_table_free(fresh);
    sc_table_free(a);
    sc_table_free(t);
}

/* Readers: files of the latest, last-committed and fsck read the table again; files of a
 * snapshot asked for by id that expires under the read is "not found", saying so. */
Test(expire, readers_racing_an_expiration_never_report_damage) {
    const char *name = "ex_reader_expires";
    sc_table *t = table(name);
    chain(t, 1, 3);
    for (int round = 0; round < 3; round++) {
        sc_table *r = tu_reopen(name);
        expire_under c = {t, 4 + 2 * round, 0, 1, 0};
        sc_store_set_fault_hook(sc_table_store(r), expire_before_list_read, &c);
        uint64_t asked = 3 + 2 * round; /* the latest before the expiration */
        sc_file_list *files = NULL;
        int rc = round == 0 ? sc_table_files(&files, r, 0) : round == 1 ? sc_table_files(&files, r, asked)
                                                                        : sc_table_fsck(r, NULL, NULL);
        sc_store_set_fault_hook(sc_table_store(r), NULL, NULL);
        cr_assert(c.fired, "round %d: a list was read", round);
        if (round == 1) {
            cr_assert_eq(rc, SC_ENOTFOUND, "files of expired snapshot %" PRIu64 ": %s: %s", asked, sc_error_name(rc),
                         sc_error_message());
            cr_assert(strstr(sc_error_message(), "expired"), "%s", sc_error_message());
        } else {
            cr_assert_eq(rc, 0, "round %d: %s: %s", round, sc_error_name(rc), sc_error_message());
        }
        if (round == 0) {
            cr_assert_eq(files->count, 1, "the latest (5) has one live file, not %zu", files->count);
            cr_assert_str_eq(files->entries[0].file, "data-f5");
        }
        sc_file_list_free(files);
        sc_table_free(r);
    }
    check_retained(t);
    sc_table_free(t);
}

/* Before the hooked handle's first LIST, an expiration (retain-min 1, older-than 0) moves
 * EARLIEST and deletes the snapshots below it. */
static int expire_before_list(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)key;
    (void)call;
    expire_under *c = p;
    if (c->fired || op != SC_OP_LIST) return 0;
    c->fired = 1;
    clock_ms += 1000;
    sc_expire_options o = opts(1, INT32_MAX, 0, 50);
    OK(sc_table_expire(NULL, c->other, &o));
    return 0;
}

/* Discovery without a LATEST hint reads EARLIEST (absent: history starts at 1), then lists the
 * snapshots: an expiration in between leaves the listing starting at 3. That is EARLIEST
 * moved, not "snapshot 1 is missing". */
Test(expire, discovery_that_an_expiration_passes_looks_from_the_new_earliest) {
    const char *name = "ex_discovery_expires";
    sc_table *t = table(name);
    chain(t, 1, 3);
    OK(sc_store_delete(sc_table_store(t), SC_LATEST_HINT_KEY));
    sc_table *r = tu_reopen(name);
    expire_under c = {t, 0, 0, 0, 0};
    sc_store_set_fault_hook(sc_table_store(r), expire_before_list, &c);
    uint64_t latest = 0;
    int rc = sc_table_latest_id(&latest, r);
    sc_store_set_fault_hook(sc_table_store(r), NULL, NULL);
    cr_assert(c.fired, "discovery listed the snapshots");
    cr_assert_eq(rc, 0, "%s: %s", sc_error_name(rc), sc_error_message());
    cr_assert_eq(latest, 3);
    cr_assert_eq(earliest(t), 3, "the expiration ran");
    sc_table_free(r);
    sc_table_free(t);
}

/* ---- Paimon's changelog and index objects (a primary-key table with deletion vectors and a
 * lookup changelog producer written by Paimon 1.4.2: tests/vectors/paimon-1.4.2/index) ---- */

#include "engine/index_state.h" /* sc_index_state_load: reading what the snapshots name */

/* A copy of the golden pk_dv table in a fresh directory, adopted; *dir receives its path. */
static sc_table *golden_pk_dv(char dir[64], const char *options) {
    const char *src = getenv("SC_SOURCE_DIR");
    cr_assert_not_null(src, "SC_SOURCE_DIR is set by ctest");
    snprintf(dir, 64, "/tmp/sc-expire-pk-dv.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp -R '%s/tests/vectors/paimon-1.4.2/index/warehouse/golden.db/pk_dv/.' '%s/'", src, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    if (options) { /* extra table options, into schema-0's "options" */
        snprintf(cmd, sizeof cmd, "sed -i 's/\"options\" : {/\"options\" : { %s,/' '%s/schema/schema-0'", options, dir);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
    }
    sc_store *s;
    OK(sc_store_open(&s, dir));
    cr_assert_eq(sc_table_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_store_free(s);
    return tu_open(dir, (tu_table_opts){0});
}

static void rm_dir(const char *dir) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* What snapshot `id` names of Paimon's objects, read with the state and codec functions. */
typedef struct paimon_objects {
    char keys[64][256]; /* changelog list, its manifests, changelog files; index manifest, index files */
    size_t count;
} paimon_objects;

static void objects_of(paimon_objects *o, sc_table *t, uint64_t id) {
    memset(o, 0, sizeof *o);
    sc_snapshot s;
    OK(sc_table_read_snapshot(&s, NULL, t, id));
    if (s.changelog_manifest_list.name) {
        snprintf(o->keys[o->count++], 256, "manifest/%s", s.changelog_manifest_list.name);
        sc_manifest_file_vec metas = {0};
        OK(sc_state_load_list(&metas, t, &s.changelog_manifest_list));
        for (size_t i = 0; i < metas.count; i++) {
            snprintf(o->keys[o->count++], 256, "manifest/%s", metas.items[i].name);
            sc_entry_vec records = {0};
            OK(sc_state_load_manifest(&records, t, &metas.items[i]));
            for (size_t j = 0; j < records.count; j++) {
                char *k;
                OK(sc_table_file_path(&k, t, &records.items[j].file));
                snprintf(o->keys[o->count++], 256, "%s", k);
                free(k);
            }
            sc_entry_vec_free(&records);
        }
        sc_manifest_file_vec_free(&metas);
    }
    if (s.index_manifest) {
        snprintf(o->keys[o->count++], 256, "manifest/%s", s.index_manifest);
        sc_index_vec v = {0};
        OK(sc_index_state_load(&v, t, s.index_manifest));
        for (size_t i = 0; i < v.count; i++) snprintf(o->keys[o->count++], 256, "index/%s", v.items[i].entry.file);
        sc_index_vec_free(&v);
    }
    cr_assert_lt(o->count, 64);
    sc_snapshot_clear(&s);
}

static int named(const paimon_objects *o, const char *key) {
    for (size_t i = 0; i < o->count; i++)
        if (strcmp(o->keys[i], key) == 0) return 1;
    return 0;
}

/* Paimon's SnapshotDeletion: an expired snapshot's changelog list, manifests and files go; its
 * index manifest and the index files no retained snapshot's index manifest lists go; what the
 * retained snapshot names stays, and the table checks whole (metadata and files). */
Test(expire, paimon_changelog_and_index_objects_follow_paimons_rules) {
    char dir[64];
    sc_table *t = golden_pk_dv(dir, NULL);
    cr_assert_eq(tu_latest(t), 6);
    paimon_objects before[7], kept;
    size_t changelog_files = 0, index_files = 0;
    for (uint64_t id = 1; id <= 6; id++) objects_of(&before[id], t, id);
    objects_of(&kept, t, 6);
    cr_assert_gt(kept.count, 4, "snapshot 6 names a changelog list and an index manifest");
    sc_expire_options o = opts(1, 1, 0, 50);
    sc_expire_result r;
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(r.earliest_after, 6);
    cr_assert_eq(r.skipped, 0, "nothing left for lack of understanding");
    for (uint64_t id = 1; id <= 5; id++)
        for (size_t i = 0; i < before[id].count; i++) {
            const char *k = before[id].keys[i];
            int keep = named(&kept, k);
            cr_assert_eq(present(t, k), keep, "snapshot %" PRIu64 "'s %s: %s", id, k, keep ? "named by snapshot 6, deleted" : "left behind");
            if (id > 1 && named(&before[id - 1], k)) continue; /* carried from the snapshot before: counted there */
            if (!keep && strstr(k, "/changelog-")) changelog_files++;
            if (!keep && strncmp(k, "index/", 6) == 0) index_files++;
        }
    for (size_t i = 0; i < kept.count; i++) cr_assert(present(t, kept.keys[i]), "snapshot 6 lost %s", kept.keys[i]);
    cr_assert_geq(changelog_files, 2, "the changelog files of snapshots 2 and 4");
    cr_assert_eq(index_files, 1, "the deletion vector replaced in snapshot 6");
    check_retained(t);
    sc_data_check_result d;
    cr_assert_eq(sc_table_check_data_files(&d, t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
    rm_dir(dir);
}

/* Paimon keeps the changelog of expired snapshots when its lifecycle is decoupled: refused. */
Test(expire, a_decoupled_changelog_lifecycle_is_refused) {
    char dir[64];
    sc_table *t = golden_pk_dv(dir, "\"changelog.num-retained.min\" : \"20\"");
    sc_expire_options o = opts(1, 1, 0, 50);
    FAILS(SC_EUNSUPPORTED, sc_table_expire(NULL, t, &o));
    cr_assert(strstr(sc_error_message(), "changelog.num-retained"), "%s", sc_error_message());
    cr_assert(present(t, "snapshot/snapshot-1"), "nothing expired");
    sc_table_free(t);
    rm_dir(dir);
    /* Equal to the snapshot options: not decoupled. */
    t = golden_pk_dv(dir, "\"changelog.num-retained.min\" : \"10\", \"changelog.time-retained\" : \"1h\"");
    OK(sc_table_expire(NULL, t, &o));
    cr_assert(!present(t, "snapshot/snapshot-1"));
    sc_table_free(t);
    rm_dir(dir);
}

/* remove-orphans: retained snapshots' changelog files, lists and manifests, index manifests and
 * index files are live; an unreferenced changelog file is an orphan. */
Test(orphans, paimon_changelog_and_index_objects_of_retained_snapshots_are_live) {
    char dir[64];
    sc_table *t = golden_pk_dv(dir, NULL);
    paimon_objects all[7];
    for (uint64_t id = 1; id <= 6; id++) objects_of(&all[id], t, id);
    const char *strays[] = {"dt=2024-01-01/bucket-0/changelog-orphan-0.parquet", /* a changelog file */
                            "manifest/manifest-list-orphan-0",                    /* a changelog manifest list */
                            "manifest/index-manifest-orphan-0",                   /* an index manifest */
                            "index/index-orphan-0",                               /* a deletion vector */
                            "statistics/stat-orphan-0"};
    for (size_t i = 0; i < 5; i++) OK(sc_store_put(sc_table_store(t), NULL, strays[i], TEXT("x")));
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL); /* the storage's mtimes must lie below the cutoff */
    sc_orphans_options oo;
    sc_orphans_options_init(&oo);
    oo.older_than_ms = 1;
    oo.force = 1;
    sc_orphans_result r;
    OK(sc_table_remove_orphans(&r, t, &oo));
    cr_assert_eq(r.data_files_deleted, 1, "only the stray changelog file");
    cr_assert_eq(r.manifests_deleted, 2, "the stray list and index manifest");
    cr_assert_eq(r.index_files_deleted, 1);
    cr_assert_eq(r.other_deleted, 1, "the statistics file");
    for (size_t i = 0; i < 5; i++) cr_assert(!present(t, strays[i]), "%s left behind", strays[i]);
    for (uint64_t id = 1; id <= 6; id++)
        for (size_t i = 0; i < all[id].count; i++) cr_assert(present(t, all[id].keys[i]), "%s deleted", all[id].keys[i]);
    check_retained(t);
    sc_table_free(t);
    rm_dir(dir);
}

/* Paimon's index-file-in-data-file-dir: index files live in the bucket directory of their data
 * files (IndexInDataFileDirPathFactory), not under index/. remove-orphans keeps them while a
 * retained snapshot's index manifest lists them, and the data check finds them there. */
Test(orphans, index_files_in_the_data_file_directory_are_live) {
    char dir[64];
    sc_table *t = golden_pk_dv(dir, "\"index-file-in-data-file-dir\" : \"true\"");
    char moved[16][256];
    size_t n = 0;
    for (uint64_t id = 1; id <= 6; id++) {
        sc_snapshot s;
        OK(sc_table_read_snapshot(&s, NULL, t, id));
        sc_index_vec v = {0};
        if (s.index_manifest) OK(sc_index_state_load(&v, t, s.index_manifest));
        for (size_t i = 0; i < v.count; i++) {
            const sc_index_entry *e = &v.items[i].entry;
            char from[256], *to;
            snprintf(from, sizeof from, "index/%s", e->file);
            sc_file_entry f = {.partition = e->partition, .bucket = e->bucket, .file = e->file};
            OK(sc_table_file_path(&to, t, &f));
            uint8_t *data;
            size_t len;
            if (sc_store_get(sc_table_store(t), &data, &len, NULL, from) == 0) { /* as Paimon would have placed it */
                OK(sc_store_put(sc_table_store(t), NULL, to, data, len));
                OK(sc_store_delete(sc_table_store(t), from));
                free(data);
                cr_assert_lt(n, 16);
                snprintf(moved[n++], 256, "%s", to);
            } else {
                sc_error_clear();
            }
            free(to);
        }
        sc_index_vec_free(&v);
        sc_snapshot_clear(&s);
    }
    cr_assert_gt(n, 0, "the golden table has index files");
    OK(sc_store_put(sc_table_store(t), NULL, "dt=2024-01-01/bucket-0/index-orphan-0", TEXT("x")));
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL); /* the storage's mtimes must lie below the cutoff */
    sc_orphans_options oo;
    sc_orphans_options_init(&oo);
    oo.older_than_ms = 1;
    oo.force = 1;
    sc_orphans_result r;
    OK(sc_table_remove_orphans(&r, t, &oo));
    for (size_t i = 0; i < n; i++) cr_assert(present(t, moved[i]), "live index file %s deleted", moved[i]);
    cr_assert(!present(t, "dt=2024-01-01/bucket-0/index-orphan-0"), "an index file no index manifest lists");
    cr_assert_eq(r.index_files_deleted, 1);
    cr_assert_eq(r.data_files_deleted, 0);
    sc_data_check_result d;
    cr_assert_eq(sc_table_check_data_files(&d, t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
    rm_dir(dir);
}

/* A retained snapshot's index manifest that cannot be read (missing, damaged) stops the run
 * before anything is deleted: the index files it lists are unknown, so none may go. */
Test(orphans, an_unreadable_index_manifest_deletes_nothing) {
    for (int damaged = 0; damaged <= 1; damaged++) {
        char dir[64];
        sc_table *t = golden_pk_dv(dir, NULL);
        sc_snapshot s;
        OK(sc_table_read_snapshot(&s, NULL, t, 6));
        cr_assert_not_null(s.index_manifest);
        char key[256];
        snprintf(key, sizeof key, "manifest/%s", s.index_manifest);
        sc_snapshot_clear(&s);
        if (damaged) OK(sc_store_put(sc_table_store(t), NULL, key, TEXT("Obj\1 not avro")));
        else OK(sc_store_delete(sc_table_store(t), key));
        OK(sc_store_put(sc_table_store(t), NULL, "index/index-orphan-0", TEXT("x")));
        OK(sc_store_put(sc_table_store(t), NULL, "manifest/manifest-list-orphan-0", TEXT("x")));
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
        sc_orphans_options oo;
        sc_orphans_options_init(&oo);
        oo.older_than_ms = 1;
        oo.force = 1;
        int rc = sc_table_remove_orphans(NULL, t, &oo);
        cr_assert(rc == SC_ECORRUPT || rc == SC_ENOTFOUND, "%s: %s", damaged ? "damaged" : "missing", sc_error_message());
        cr_assert(strstr(sc_error_message(), "index-manifest-"), "names the index manifest: %s", sc_error_message());
        cr_assert(present(t, "index/index-orphan-0") && present(t, "manifest/manifest-list-orphan-0"), "nothing deleted");
        sc_error_clear();
        sc_table_free(t);
        rm_dir(dir);
    }
}

/* Paimon's long-lived changelogs (changelog/, a decoupled changelog lifecycle) name objects of
 * expired snapshots that this build does not read: both upkeep runs refuse the table. */
Test(orphans, a_table_with_long_lived_changelogs_is_refused) {
    char dir[64];
    sc_table *t = golden_pk_dv(dir, NULL);
    OK(sc_store_put(sc_table_store(t), NULL, "index/index-orphan-0", TEXT("x")));
    OK(sc_store_put(sc_table_store(t), NULL, "changelog/changelog-1", TEXT("{}")));
    sc_orphans_options oo;
    sc_orphans_options_init(&oo);
    oo.older_than_ms = 0;
    oo.force = 1;
    FAILS(SC_EUNSUPPORTED, sc_table_remove_orphans(NULL, t, &oo));
    cr_assert(strstr(sc_error_message(), "changelog/changelog-1"), "%s", sc_error_message());
    sc_expire_options o = opts(1, 1, 0, 50);
    FAILS(SC_EUNSUPPORTED, sc_table_expire(NULL, t, &o));
    cr_assert(present(t, "index/index-orphan-0") && present(t, "snapshot/snapshot-1"), "nothing deleted");
    sc_table_free(t);
    rm_dir(dir);
}

/* An expired snapshot's statistics file goes unless a retained snapshot names it too. */
Test(expire, paimon_statistics_files_follow_their_snapshots) {
    char dir[64];
    sc_table *t = golden_pk_dv(dir, NULL);
    char cmd[512];
    /* Paimon's snapshots are not sealed: name statistics files in snapshots 1, 5 and 6 (5 and 6 share one). */
    const struct {
        int id;
        const char *name;
    } stats[] = {{1, "stat-old-0"}, {5, "stat-kept-0"}, {6, "stat-kept-0"}};
    for (size_t i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "sed -i 's/\"nextRowId\"/\"statistics\" : \"%s\",\\n  \"nextRowId\"/' '%s/snapshot/snapshot-%d'",
                 stats[i].name, dir, stats[i].id);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
    }
    OK(sc_store_put(sc_table_store(t), NULL, "statistics/stat-old-0", TEXT("{}")));
    OK(sc_store_put(sc_table_store(t), NULL, "statistics/stat-kept-0", TEXT("{}")));
    sc_table *u = tu_open(dir, (tu_table_opts){0});
    sc_expire_options o = opts(1, 1, 0, 50);
    OK(sc_table_expire(NULL, u, &o));
    cr_assert(!present(u, "statistics/stat-old-0"), "the statistics of expired snapshot 1");
    cr_assert(present(u, "statistics/stat-kept-0"), "named by retained snapshot 6 too");
    sc_table_free(u);
    sc_table_free(t);
    rm_dir(dir);
}

/* ---- the same through the public API: checkpoints with changelog and deletion-vector files ---- */

static void put_key(sc_table *t, const char *key) {
    OK(sc_store_put(sc_table_store(t), NULL, key, (const uint8_t *)"0123456789", 10));
}

/* Checkpoint `i`: data/d<i> and its changelog file log/c<i>; with `dv`, a deletion vector of data/d1 in
 * index/dv-<i> (one per bucket: it replaces the previous one, as Paimon's bucketed vectors do). */
static void dv_checkpoint(sc_table *t, int i, int dv) {
    char data[32], log[32], index[32], key[64];
    snprintf(data, sizeof data, "data/d%d", i);
    snprintf(log, sizeof log, "log/c%d", i);
    snprintf(index, sizeof index, "dv-%d", i);
    tu_put_data(t, data);
    tu_put_data(t, log);
    sc_file_entry d = tu_file("p", 0, 0, 0, data, 1, NULL, NULL), c = tu_file("p", 0, 0, 0, log, 1, NULL, NULL);
    c.size = d.size = 10;
    sc_changes *ch;
    OK(sc_changes_new(&ch));
    OK(sc_changes_add(ch, &d));
    OK(sc_changes_add_changelog(ch, &c));
    if (dv) {
        snprintf(key, sizeof key, "index/%s", index);
        put_key(t, key);
        sc_file_entry d1 = tu_file("p", 0, 0, 0, "data/d1", 1, NULL, NULL);
        sc_dv_range range = {d1.file, 1, 8, 1, 1};
        sc_index_entry e = {d1.partition, 0, "DELETION_VECTORS", index, 10, 1, 1, &range, 1, NULL};
        OK(sc_changes_add_index(ch, &e));
    }
    clock_ms += 1000;
    sc_checkpoint_request req = {"job", i, 0, 0, 0, ch, NULL, SC_OVERWRITE_NONE, NULL};
    sc_checkpoint_result r;
    cr_assert_eq(sc_table_commit_checkpoint(&r, t, &req), 0, "checkpoint %d: %s", i, sc_error_message());
    cr_assert_eq(r.append.snapshot_id, (uint64_t)i);
    sc_changes_free(ch);
}

static int log_present(sc_table *t, int i) {
    char f[32];
    snprintf(f, sizeof f, "log/c%d", i);
    return data_present(t, f);
}

Test(expire, changelog_and_deletion_vectors_of_our_checkpoints) {
    sc_table *t = table("ex_ckpt");
    dv_checkpoint(t, 1, 0);
    dv_checkpoint(t, 2, 1);
    dv_checkpoint(t, 3, 1);
    dv_checkpoint(t, 4, 0); /* names snapshot 3's index manifest, unchanged */
    sc_snapshot s2, s3, s4;
    OK(sc_table_read_snapshot(&s2, NULL, t, 2));
    OK(sc_table_read_snapshot(&s3, NULL, t, 3));
    OK(sc_table_read_snapshot(&s4, NULL, t, 4));
    cr_assert(s2.index_manifest && s3.index_manifest && s4.index_manifest);
    cr_assert_str_eq(s4.index_manifest, s3.index_manifest);
    cr_assert_not_null(s2.changelog_manifest_list.name);
    char im2[256], im3[256], cl2[256], cl4[256];
    snprintf(im2, sizeof im2, "manifest/%s", s2.index_manifest);
    snprintf(im3, sizeof im3, "manifest/%s", s3.index_manifest);
    snprintf(cl2, sizeof cl2, "manifest/%s", s2.changelog_manifest_list.name);
    snprintf(cl4, sizeof cl4, "manifest/%s", s4.changelog_manifest_list.name);
    sc_snapshot_clear(&s2);
    sc_snapshot_clear(&s3);
    sc_snapshot_clear(&s4);
    sc_data_check_result d;
    cr_assert_eq(sc_table_check_data_files(&d, t, NULL, NULL), 0, "%s", sc_error_message());
    /* Orphan removal keeps every retained snapshot's changelog and index objects. */
    sc_orphans_options oo;
    sc_orphans_options_init(&oo);
    oo.older_than_ms = 0;
    oo.force = 1;
    put_key(t, "index/dv-lost"); /* the deletion vector of a checkpoint that never completed */
    clock_ms += 10000;
    sc_orphans_result orr;
    OK(sc_table_remove_orphans(&orr, t, &oo));
    cr_assert_eq(orr.data_files_deleted + orr.manifests_deleted, 0, "nothing of ours is an orphan");
    cr_assert_eq(orr.index_files_deleted, 1, "only the stray deletion vector");
    cr_assert(!present(t, "index/dv-lost") && present(t, "index/dv-2") && present(t, "index/dv-3"));
    cr_assert(present(t, im2) && present(t, im3), "the retained snapshots' index manifests");
    clock_ms += 3600 * 1000 * 2;
    sc_expire_options o = opts(1, 1, 0, 50);
    sc_expire_result r;
    OK(sc_table_expire(&r, t, &o));
    cr_assert_eq(r.earliest_after, 4);
    for (int i = 1; i <= 3; i++) cr_assert(!log_present(t, i), "changelog file of expired snapshot %d", i);
    cr_assert(log_present(t, 4), "the retained snapshot's changelog file");
    cr_assert(!present(t, cl2) && present(t, cl4), "changelog lists follow their snapshots");
    cr_assert(!present(t, "index/dv-2"), "replaced in snapshot 3: in no retained index manifest");
    cr_assert(present(t, "index/dv-3"), "live in snapshot 4");
    cr_assert(!present(t, im2) && present(t, im3), "index manifests follow the snapshots naming them");
    check_retained(t);
    cr_assert_eq(sc_table_check_data_files(&d, t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}
