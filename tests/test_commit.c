/* The commit engine: replays rejected, lost claims, unknown outcomes (the replay rule itself: test_replay.c; the conflict rules: test_conflict.c). */
#include "sc_test_util.h"

#include "base/backoff.h"

Test(commit, appends_get_contiguous_ids_and_totals) {
    sc_table *t = tu_mem_table("c-append");
    for (int i = 1; i <= 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "data/f%d", i);
        sc_file_entry f = tu_file("dt=1", 0, 1, 0, name, 10 * i, NULL, NULL);
        sc_commit_result r;
        cr_assert_eq(tu_commit(&r, t, "job", i, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
        cr_assert_eq(r.snapshot_id, (uint64_t)i);
        cr_assert_eq(r.attempts, 1);
    }
    sc_snapshot_info *info;
    cr_assert_eq(sc_table_snapshot_info(&info, t, 5), 0);
    cr_assert_eq(info->total_record_count, 150);
    cr_assert_eq(info->delta_record_count, 50);
    cr_assert_eq(info->file_count, 5);
    cr_assert_eq(strlen(info->parent_hash), 64);
    sc_snapshot_info_free(info);
    cr_assert_eq(tu_file_count(t), 5);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

Test(commit, replay_is_filtered_and_leaves_nothing) {
    sc_table *t = tu_mem_table("c-replay");
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/a", 1, NULL, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "job", 7, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0);
    int objects = tu_count_keys("c-replay", "", NULL);
    sc_file_entry g = tu_file("p", 0, 0, 0, "data/b", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, t, "job", 7, SC_KIND_APPEND, 0, &g, 1, NULL, 0), SC_ECOMMITTED);
    cr_assert_eq(r.existing_snapshot, 1);
    /* The delta (manifest and list) is written before the base is read, so a replay
     * found there deletes it again: nothing is claimed and nothing is left. */
    cr_assert_eq(r.stats.ops[SC_OP_PUT_IF_ABSENT], 0, "a filtered replay must claim nothing");
    cr_assert_eq(r.stats.ops[SC_OP_PUT], 2, "only the delta written before the base was read");
    cr_assert_eq(r.stats.ops[SC_OP_DELETE], 2, "and deleted again");
    cr_assert_eq(tu_count_keys("c-replay", "", NULL), objects, "a filtered replay must leave nothing behind");
    cr_assert(strstr(sc_error_message(), "already committed identifier 7"), "%s", sc_error_message());
    /* A lower identifier from the same user is not above the watermark: rejected too. */
    cr_assert_eq(tu_commit(&r, t, "job", 3, SC_KIND_APPEND, 0, &g, 1, NULL, 0), SC_ECOMMITTED);
    cr_assert(strstr(sc_error_message(), "not above the watermark"), "%s", sc_error_message());
    /* Another user is independent. */
    cr_assert_eq(tu_commit(&r, t, "other", 3, SC_KIND_APPEND, 0, &g, 1, NULL, 0), 0);
    cr_assert_eq(tu_latest(t), 2);
    sc_table_free(t);
}

Test(commit, invalid_requests_are_rejected) {
    sc_table *t = tu_mem_table("c-invalid");
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/a", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), SC_EINVAL);
    cr_assert_eq(tu_commit(NULL, t, "u", -1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), SC_EINVAL);
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    /* A Paimon entry names the file alone: no directory part, so no way out of its bucket directory. */
    sc_file_entry bad = tu_file("p", 0, 0, 0, "escape", 1, NULL, NULL);
    const char *names[] = {"../escape", "/abs/path", "a/b", "..", "."};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        bad.file = names[i];
        cr_assert_eq(sc_changes_add(c, &bad), SC_EINVAL, "%s accepted", names[i]);
        cr_assert(strstr(sc_error_message(), "file \""), "%s", sc_error_message());
    }
    cr_assert_eq(sc_changes_add_count(c), 0);
    bad.file = "..escape"; /* dots inside a name are just a name */
    cr_assert_eq(sc_changes_add(c, &bad), 0, "%s", sc_error_message());
    sc_changes_free(c);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 5, &f, 1, NULL, 0), SC_EINVAL, "base beyond latest");
    cr_assert_eq(tu_latest(t), 0);
    sc_table_free(t);
}

/* Partition and key bytes that do not decode as BinaryRows of the schema are the caller's mistake:
 * SC_EINVAL naming the entry and the field (not the decoders' ECORRUPT / ELIMIT, which say the
 * table is damaged), and nothing is committed. */
Test(commit, undecodable_partition_or_key_is_einval) {
    sc_table *t = tu_mem_table("c-undecodable");
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/a", 1, NULL, NULL);
    f.partition = tu_bytes("dt=1"); /* text, not a BinaryRow: its "arity" is huge */
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), SC_EINVAL, "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "add[0] (data-a)") && strstr(sc_error_message(), "partition"), "%s",
              sc_error_message());
    f = tu_file("p", 0, 0, 0, "data/a", 1, NULL, NULL);
    f.partition = tu_bytes("12345678"); /* arity 0x31323334 */
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), SC_EINVAL, "%s", sc_error_message());
    f = tu_file("p", 0, 0, 0, "data/a", 1, NULL, NULL);
    f.max_key = tu_bytes("\0\0\0\1"); /* arity 1 without its fixed part */
    f.max_key.len = 4;
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), SC_EINVAL, "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "max_key"), "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 0);
    sc_table_free(t);
}

/* ---- lost claims and unknown outcomes ---- */

typedef struct race_ctx {
    const char *store_name;
    int fired;
    int remaining;          /* how many claims to steal */
    const sc_file_entry *steal_delete; /* what the intruder deletes */
} race_ctx;

/* Before our claim, another writer (its own handle on the same store) commits first. */
static int intruder(void *vctx, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    race_ctx *ctx = vctx;
    if (op != SC_OP_PUT_IF_ABSENT || strncmp(key, "snapshot/snapshot-", 18) != 0 || ctx->remaining == 0) return 0;
    ctx->remaining--;
    sc_table *other = tu_reopen(ctx->store_name);
    char name[32];
    snprintf(name, sizeof name, "data/intruder-%d", ctx->fired);
    sc_file_entry f = tu_file("p", 0, 1, 0, name, 1, NULL, NULL);
    int rc = tu_commit(NULL, other, "intruder", ++ctx->fired, ctx->steal_delete ? SC_KIND_COMPACT : SC_KIND_APPEND, 0,
                       &f, 1, ctx->steal_delete, ctx->steal_delete ? 1 : 0);
    cr_assert_eq(rc, 0, "%s", sc_error_message());
    sc_table_free(other);
    return 0;
}

Test(claim, lost_claim_of_an_append_is_retried) {
    sc_table *t = tu_mem_table("c-lost");
    race_ctx ctx = {"c-lost", 0, 3, NULL};
    sc_store_set_fault_hook(sc_table_store(t), intruder, &ctx);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/mine", 1, NULL, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.lost_claims, 3);
    cr_assert_eq(r.attempts, 4);
    cr_assert_eq(r.snapshot_id, 4);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(tu_file_count(t), 4);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

Test(claim, retry_rechecks_conflicts_against_the_winner) {
    sc_table *t = tu_mem_table("c-recheck");
    sc_file_entry l0 = tu_file("p", 0, 1, 0, "data/l0", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "w", 1, SC_KIND_APPEND, 0, &l0, 1, NULL, 0), 0);
    race_ctx ctx = {"c-recheck", 0, 1, &l0}; /* the intruder compacts the same file first */
    sc_store_set_fault_hook(sc_table_store(t), intruder, &ctx);
    sc_file_entry out = tu_file("p", 0, 1, 1, "data/mine", 1, NULL, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "me", 1, SC_KIND_COMPACT, 0, &out, 1, &l0, 1), SC_ECONFLICT);
    cr_assert_eq(r.lost_claims, 1);
    cr_assert(strstr(sc_error_message(), "already deleted by snapshot 2"), "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    /* Nothing of the failed commit stays behind. */
    cr_assert_eq(tu_latest(t), 2);
    sc_table_free(t);
}

static int always_taken(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)ctx, (void)call;
    return op == SC_OP_PUT_IF_ABSENT && strncmp(key, "snapshot/snapshot-", 18) == 0 ? SC_EEXISTS : 0;
}

Test(claim, retries_are_bounded_by_count_and_timeout) {
    sc_table *t = tu_mem_table("c-exhaust");
    sc_retry_policy p = {3, 1, 2, 0};
    sc_table_set_retry_policy(t, &p);
    sc_store_set_fault_hook(sc_table_store(t), always_taken, NULL);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), SC_ERETRIES);
    cr_assert_eq(r.attempts, 4, "max_retries 3 = 4 attempts");
    sc_retry_policy slow = {1000, 20, 20, 60};
    sc_table_set_retry_policy(t, &slow);
    cr_assert_eq(tu_commit(&r, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), SC_ETIMEOUT);
    cr_assert_lt(r.attempts, 10);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(tu_latest(t), 0);
    sc_table_free(t);
}

Test(claim, backoff_policy_defaults_and_doubling_after_unknown_outcomes) {
    sc_retry_policy p;
    sc_retry_policy_default(&p);
    cr_assert_eq(p.max_retries, SC_RETRY_UNBOUNDED, "no count limit by default");
    cr_assert_eq(p.min_wait_ms, 10);
    cr_assert_eq(p.max_wait_ms, 10000);
    cr_assert_eq(p.timeout_ms, 60000, "the commit budget");
    cr_assert_eq(sc_backoff_wait_ms(&p, 0, 0), 10);
    cr_assert_eq(sc_backoff_wait_ms(&p, 1, 0), 20);
    cr_assert_eq(sc_backoff_wait_ms(&p, 5, 0), 320);
    cr_assert_eq(sc_backoff_wait_ms(&p, 10, 0), 10000);
    cr_assert_eq(sc_backoff_wait_ms(&p, 60, 0), 10000);
    for (uint32_t r = 0; r < 5000; r += 7) {
        int64_t w = sc_backoff_wait_ms(&p, 3, r);
        cr_assert(w >= 80 && w <= 96, "retry 3 waits 80 ms + 0..20 %%, got %ld", (long)w);
        int64_t cap = sc_backoff_wait_ms(&p, 20, r);
        cr_assert(cap >= 10000 && cap <= 12000);
    }
}

/* After a lost claim: the losers spread over one slot (the claim window, at least min_wait) per
 * writer seen, and ours; older losers come back sooner (the span divided by the claims lost);
 * never above max_wait. */
Test(claim, lost_claim_waits_scale_with_contention_and_shrink_for_older_losers) {
    sc_retry_policy p;
    sc_retry_policy_default(&p);
    int64_t most[4] = {0};
    for (uint32_t r = 0; r < 50000; r += 7) {
        int64_t w[4] = {sc_backoff_lost_wait_ms(&p, 1, 1, 0, r), sc_backoff_lost_wait_ms(&p, 1, 7, 30, r),
                        sc_backoff_lost_wait_ms(&p, 8, 7, 30, r), sc_backoff_lost_wait_ms(&p, 1, UINT64_MAX, 30, r)};
        int64_t limit[4] = {20, 240, 30, 10000};
        for (int i = 0; i < 4; i++) {
            cr_assert(w[i] >= 0 && w[i] <= limit[i], "case %d: %ld above %ld", i, (long)w[i], (long)limit[i]);
            if (w[i] > most[i]) most[i] = w[i];
        }
    }
    for (int i = 0; i < 4; i++) cr_assert_gt(most[i], 0, "case %d: the waits spread", i);
    cr_assert_eq(most[1], 240, "7 others seen, a 30 ms window: 8 slots of 30 ms");
    cr_assert_eq(most[2], 30, "the eighth loss of the same: an eighth of that");
    cr_assert_eq(sc_backoff_lost_wait_ms(&p, 1, 1, 0, 15), 15, "min_wait is the smallest slot: 0..20 ms");
    sc_retry_policy zero = {SC_RETRY_UNBOUNDED, 0, 0, 0};
    cr_assert_eq(sc_backoff_lost_wait_ms(&zero, 1, 5, 0, 12345), 0);
}

Test(claim, lost_response_of_a_winning_claim_is_reconciled) {
    sc_table *t = tu_mem_table("c-unknown-won");
    cr_assert_eq(sc_mem_store_arm_fault("c-unknown-won", 1u << SC_OP_PUT_IF_ABSENT, 1, SC_MEM_FAULT_LOSE_RESPONSE, 0), 0);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.unknown_outcomes, 1);
    cr_assert_eq(r.snapshot_id, 1);
    cr_assert_eq(tu_latest(t), 1, "the commit must not be written twice");
    cr_assert_eq(tu_file_count(t), 1);
    sc_table_free(t);
}

static int lose_request(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    int *left = ctx;
    (void)call;
    if (op == SC_OP_PUT_IF_ABSENT && strncmp(key, "snapshot/", 9) == 0 && *left > 0) {
        (*left)--;
        return SC_EUNKNOWN; /* the request never reached storage, but we cannot know */
    }
    return 0;
}

Test(claim, lost_request_is_reconciled_then_retried) {
    sc_table *t = tu_mem_table("c-unknown-lost");
    int left = 2;
    sc_store_set_fault_hook(sc_table_store(t), lose_request, &left);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.unknown_outcomes, 2);
    cr_assert_eq(r.attempts, 3);
    cr_assert_eq(r.snapshot_id, 1);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(tu_latest(t), 1);
    sc_table_free(t);
}

static int always_unknown(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)ctx, (void)call;
    return op == SC_OP_PUT_IF_ABSENT && strncmp(key, "snapshot/", 9) == 0 ? SC_EUNKNOWN : 0;
}

Test(claim, unreconciled_outcome_is_reported_as_unknown) {
    sc_table *t = tu_mem_table("c-unknown-final");
    sc_retry_policy p = {2, 1, 1, 0};
    sc_table_set_retry_policy(t, &p);
    sc_store_set_fault_hook(sc_table_store(t), always_unknown, NULL);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), SC_EUNKNOWN);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    sc_table_free(t);
}

/* ---- the mem backend failing each store operation of a commit in turn ---- */

Test(faults, each_store_operation_fails_in_turn) {
    static const sc_mem_fault kinds[] = {SC_MEM_FAULT_FAIL, SC_MEM_FAULT_LOSE_RESPONSE};
    for (size_t k = 0; k < 2; k++) {
        for (int n = 1;; n++) {
            char name[64];
            snprintf(name, sizeof name, "c-fault-%zu", k);
            sc_table *t = tu_mem_table(name);
            sc_file_entry first = tu_file("p", 0, 1, 0, "data/first", 1, NULL, NULL);
            cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &first, 1, NULL, 0), 0);
            cr_assert_eq(sc_mem_store_arm_fault(name, 0, (uint64_t)n, kinds[k], 0), 0);
            sc_file_entry second = tu_file("p", 0, 1, 0, "data/second", 1, NULL, NULL);
            sc_commit_result r;
            int rc = tu_commit(&r, t, "u", 2, SC_KIND_APPEND, 0, &second, 1, NULL, 0);
            sc_table_free(t);
            sc_mem_store_reset(name); /* disarms a fault that did not fire */
            /* Re-run to learn whether the fault fired: ops this commit issued. */
            uint64_t ops = 0;
            for (int op = 0; op < SC_OP_COUNT; op++) ops += r.stats.ops[op];
            if ((uint64_t)n > ops) break; /* the fault never fired: every op has been covered */
            /* Rebuild the faulted state to check it (the reset above discarded it). */
            sc_table *t2 = tu_mem_table(name);
            cr_assert_eq(tu_commit(NULL, t2, "u", 1, SC_KIND_APPEND, 0, &first, 1, NULL, 0), 0);
            cr_assert_eq(sc_mem_store_arm_fault(name, 0, (uint64_t)n, kinds[k], 0), 0);
            int rc2 = tu_commit(NULL, t2, "u", 2, SC_KIND_APPEND, 0, &second, 1, NULL, 0);
            sc_table_free(t2);
            cr_assert_eq(rc, rc2, "fault runs must be deterministic");
            tu_check_whole_or_nothing(name, rc2, (int)kinds[k], n, "data/second");
            sc_mem_store_reset(name);
            cr_assert_lt(n, 200, "a commit should not need 200 store operations");
        }
    }
}

/* Manifests are merged once the base list grows; state stays exact. */
Test(commit, manifest_lists_are_merged_when_long) {
    sc_table *t = tu_mem_table("c-merge");
    for (int i = 1; i <= 45; i++) {
        char name[32], part[16];
        snprintf(name, sizeof name, "data/f%d", i);
        snprintf(part, sizeof part, "dt=%d", i % 5);
        sc_file_entry f = tu_file(part, 0, 1, 0, name, 1, NULL, NULL);
        cr_assert_eq(tu_commit(NULL, t, "u", i, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
        if (i % 3 == 0) {
            sc_file_entry g = tu_file(part, 0, 1, 1, name, 1, NULL, NULL);
            cr_assert_eq(tu_commit(NULL, t, "c", i, SC_KIND_COMPACT, 0, &g, 1, &f, 1), 0, "%s", sc_error_message());
        }
    }
    cr_assert_eq(tu_file_count(t), 45);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

Test(commit, deletes_are_recorded_as_stored_not_as_given) {
    sc_table *t = tu_mem_table("c-del-rows");
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 10, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0);
    sc_file_entry lie = tu_file("p", 0, 1, 3, "data/f", 1000000, NULL, NULL); /* wrong rows and level */
    cr_assert_eq(tu_commit(NULL, t, "u", 2, SC_KIND_COMPACT, 0, NULL, 0, &lie, 1), 0, "%s", sc_error_message());
    sc_snapshot_info *info;
    cr_assert_eq(sc_table_snapshot_info(&info, t, 2), 0, "%s", sc_error_message());
    cr_assert_eq(info->total_record_count, 0);
    cr_assert_eq(info->delta_record_count, -10);
    sc_snapshot_info_free(info);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* ---- record counts, commit users, unknown outcomes, files moved twice ---- */

/* A file entry with an explicit row count (tu_file computes size = rows * 100). */
static sc_file_entry rows_file(const char *file, int64_t rows) {
    sc_file_entry e = tu_file("p", 0, 1, 0, file, 0, NULL, NULL);
    e.rows = rows;
    e.size = 1;
    return e;
}

/*
 * Rows up to INT64_MAX are accepted per file, so two ordinary commits could sum the table's
 * record count past INT64_MAX. A snapshot with a negative total would be claimed and then be
 * unreadable (the decoder rejects it), failing every later read and commit: the engine must
 * refuse such a commit before claiming, and the table must stay usable.
 */
Test(commit, record_count_overflow_is_refused_and_the_table_stays_readable) {
    sc_table *t = tu_mem_table("c-overflow");
    sc_file_entry big = rows_file("data/big", INT64_MAX);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &big, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_file_entry one = rows_file("data/one", 1);
    int rc = tu_commit(NULL, t, "u", 2, SC_KIND_APPEND, 0, &one, 1, NULL, 0);
    cr_assert_eq(rc, SC_EINVAL, "a commit whose record count would overflow is refused: %s", sc_error_name(rc));
    uint64_t latest = tu_latest(t);
    sc_snapshot_info *info = NULL;
    int read = sc_table_snapshot_info(&info, t, latest);
    cr_assert_eq(read, 0, "commit returned %s, and now the latest snapshot %lu is unreadable: %s", sc_error_name(rc),
                 (unsigned long)latest, sc_error_message());
    sc_snapshot_info_free(info);
    /* The table stays usable: removing the huge file makes room again. */
    sc_file_entry next = rows_file("data/next", 1);
    cr_assert_eq(tu_commit(NULL, t, "u", 3, SC_KIND_COMPACT, 0, &next, 1, &big, 1), 0,
                 "later commits must still work: %s", sc_error_message());
    sc_table_free(t);
}

/*
 * A commit user that is not valid UTF-8 (JNI passes raw bytes; the CLI takes argv as is) is the
 * caller's error: SC_EINVAL before anything is written, not an out-of-memory report from the JSON
 * encoder after the manifests are already stored.
 */
Test(commit, non_utf8_commit_user_is_einval_before_anything_is_written) {
    sc_table *t = tu_mem_table("c-utf8");
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    sc_commit_result r;
    int rc = tu_commit(&r, t, "job-\xff\xfe", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0);
    cr_assert_eq(rc, SC_EINVAL, "got %s: %s", sc_error_name(rc), sc_error_message());
    cr_assert_eq(r.stats.ops[SC_OP_PUT], 0, "an invalid request must be rejected before writing");
    sc_table_free(t);
}

/* Claims of snapshot/…: the first is lost in flight (unknown), the second fails for sure. */
static int unknown_then_eio(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    int *n = ctx;
    (void)call;
    if (op != SC_OP_PUT_IF_ABSENT || strncmp(key, "snapshot/snapshot-", 18) != 0) return 0;
    return (*n)++ == 0 ? SC_EUNKNOWN : SC_EIO;
}

/*
 * A claim that fails for sure after an earlier claim of the same call had an unknown outcome:
 * the code is SC_EUNKNOWN, and the message must say the outcome is unknown too, not describe the
 * later I/O error (an operator reading it would conclude nothing was committed).
 */
Test(claim, unknown_outcome_then_io_error_is_reported_as_unknown) {
    sc_table *t = tu_mem_table("c-unknown-msg");
    int n = 0;
    sc_store_set_fault_hook(sc_table_store(t), unknown_then_eio, &n);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    int rc = tu_commit(NULL, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0);
    cr_assert_eq(rc, SC_EUNKNOWN, "%s", sc_error_name(rc));
    const char *m = sc_error_message();
    cr_assert(strstr(m, "unreconciled") || strstr(m, "unknown"),
              "SC_EUNKNOWN returned, but the message describes another failure: %s", m);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    sc_table_free(t);
}

static int claims_unknown(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)ctx, (void)call;
    return op == SC_OP_PUT_IF_ABSENT && strncmp(key, "snapshot/snapshot-", 18) == 0 ? SC_EUNKNOWN : 0;
}

/*
 * When the commit timeout ends a commit whose claim is still undecided, the message must name
 * the snapshot whose claim is undecided, not read like the plain timeout that means "nothing was
 * committed" (docs/protocols.md).
 */
Test(claim, unknown_outcome_at_timeout_names_the_undecided_snapshot) {
    sc_table *t = tu_mem_table("c-unknown-timeout");
    sc_retry_policy p = {1000, 20, 20, 30};
    sc_table_set_retry_policy(t, &p);
    sc_store_set_fault_hook(sc_table_store(t), claims_unknown, NULL);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    int rc = tu_commit(NULL, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0);
    cr_assert_eq(rc, SC_EUNKNOWN, "%s", sc_error_name(rc));
    const char *m = sc_error_message();
    cr_assert(strstr(m, "snapshot 1") && (strstr(m, "unknown") || strstr(m, "reconcil")),
              "SC_EUNKNOWN returned with a message that does not say the claim of snapshot 1 is undecided: %s", m);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    sc_table_free(t);
}

/* Another writer wins the claim of every id A tries, `left` times in a row. */
typedef struct rival_ctx {
    const char *name;
    int left;
    int won;
} rival_ctx;

static int rival_wins(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    rival_ctx *c = p;
    if (c->left <= 0 || op != SC_OP_PUT_IF_ABSENT || strncmp(key, "snapshot/snapshot-", 18) != 0) return 0;
    c->left--;
    sc_table *other = tu_reopen(c->name);
    char file[32];
    snprintf(file, sizeof file, "data/rival-%d", c->won + 1);
    sc_file_entry e = tu_file("p", 0, 1, 0, file, 1, NULL, NULL);
    if (tu_commit(NULL, other, "rival", c->won + 1, SC_KIND_APPEND, 0, &e, 1, NULL, 0) == 0) c->won++;
    sc_table_free(other);
    return 0;
}

/* The default policy bounds a commit by its budget, not by a count: 15 claims lost in a row
 * (the old default gave up after 11) and the commit still lands, on top of every winner. */
Test(claim, default_policy_outlasts_a_long_run_of_lost_claims) {
    const char *name = "c-outlast";
    sc_table *t = tu_mem_table(name);
    sc_retry_policy p;
    sc_retry_policy_default(&p);
    sc_table_set_retry_policy(t, &p);
    rival_ctx c = {.name = name, .left = 15};
    sc_store_set_fault_hook(sc_table_store(t), rival_wins, &c);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/mine", 1, NULL, NULL);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(c.won, 15);
    cr_assert_eq(r.lost_claims, 15);
    cr_assert_eq(r.snapshot_id, 16);
    cr_assert_eq(tu_file_count(t), 16);
    /* an explicit count is still honoured */
    p.max_retries = 3;
    sc_table_set_retry_policy(t, &p);
    c.left = 10;
    sc_store_set_fault_hook(sc_table_store(t), rival_wins, &c);
    sc_file_entry g = tu_file("p", 0, 1, 0, "data/mine-2", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, t, "me", 2, SC_KIND_APPEND, 0, &g, 1, NULL, 0), SC_ERETRIES);
    cr_assert(strstr(sc_error_message(), "gave up after 4 lost claims"), "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* A rival that lands `per_read` commits whenever the watched handle GETs a manifest list
 * (that is, inside its claim window), until `left` runs out. */
typedef struct window_rival {
    const char *name;
    int left;
    int won;
} window_rival;

static int rival_in_window(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    window_rival *c = p;
    if (c->left <= 0 || op != SC_OP_GET || strncmp(key, "manifest/manifest-list-", 23) != 0) return 0;
    c->left--;
    sc_table *other = tu_reopen(c->name);
    char file[32];
    snprintf(file, sizeof file, "data/wrival-%d", c->won + 1);
    sc_file_entry e = tu_file("p", 0, 1, 0, file, 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, other, "wrival", c->won + 1, SC_KIND_APPEND, 0, &e, 1, NULL, 0), 0, "%s",
                 sc_error_message());
    c->won++;
    sc_table_free(other);
    return 0;
}

static int64_t stale_clock;
static int64_t stale_elapsed(void *ctx) {
    (void)ctx;
    return stale_clock += 1000; /* every look at the clock costs a virtual second */
}
static void stale_sleep(void *ctx, int64_t ms) {
    (void)ctx;
    if (ms > 0) stale_clock += ms;
}

/* An attempt that finds N+1 taken before writing starts again at once (no lost claim, no
 * wait); under a rival that lands a commit in every window it must still stop at its budget,
 * not loop for as long as the rival keeps winning. */
Test(claim, attempts_restarted_on_a_taken_base_are_bounded_by_the_budget) {
    const char *name = "c-stale-budget";
    sc_table *t = tu_mem_table(name);
    sc_file_entry seed = tu_file("p", 0, 1, 0, "data/seed", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "seed", 1, SC_KIND_APPEND, 0, &seed, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_table_free(t);
    t = tu_reopen(name); /* cold: its first window reads the lists */
    sc_env env;
    sc_env_init(&env);
    env.monotonic_ms = stale_elapsed;
    env.sleep_ms = stale_sleep;
    cr_assert_eq(sc_table_set_env(t, &env), 0, "%s", sc_error_message());
    sc_retry_policy p;
    sc_retry_policy_default(&p);
    p.timeout_ms = 20000;
    sc_table_set_retry_policy(t, &p);
    window_rival c = {.name = name, .left = 400};
    sc_store_set_fault_hook(sc_table_store(t), rival_in_window, &c);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/mine", 1, NULL, NULL);
    sc_commit_result r;
    int rc = tu_commit(&r, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(rc, SC_ETIMEOUT, "rc %d after %d attempts, %lld ms of a 20000 ms budget (rival landed %d): %s",
                 rc, r.attempts, (long long)r.elapsed_ms, c.won, sc_error_message());
    cr_assert_lt(r.attempts, 40, "%d attempts", r.attempts);
    cr_assert_gt(c.left, 0, "the commit gave up while the rival was still winning");
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* ---- loser first, from the winner's side (commit.c, yield_to_losers) ---- */

typedef struct yield_clock {
    int64_t now;
    int sleeps;
    int64_t slept;
} yield_clock;

static int64_t yield_now(void *ctx) { return ((yield_clock *)ctx)->now; }
static void yield_sleep(void *ctx, int64_t ms) {
    yield_clock *c = ctx;
    c->sleeps++;
    c->slept += ms;
    c->now += ms;
}

/* A fixed sequence (UUIDs must still differ), so that the yield's draw is the same every run. */
static int yield_random(void *ctx, void *out, size_t len) {
    (void)ctx;
    static uint64_t state = 88172645463325252ull;
    uint8_t *p = out;
    for (size_t i = 0; i < len; i++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        p[i] = (uint8_t)(state >> 24);
    }
    return 0;
}

static sc_table *yield_handle(const char *name, yield_clock *c) {
    sc_table *t = tu_reopen(name);
    sc_env e;
    sc_env_init(&e);
    e.ctx = c;
    e.monotonic_ms = yield_now;
    e.now_ms = yield_now;
    e.sleep_ms = yield_sleep;
    e.random_bytes = yield_random;
    cr_assert_eq(sc_table_set_env(t, &e), 0, "%s", sc_error_message());
    return t;
}

Test(claim, a_winner_racing_others_yields_once_and_a_lone_or_periodic_writer_never_waits) {
    sc_table *setup = tu_mem_table("yield");
    sc_table_free(setup);
    yield_clock ca = {.now = 1000000}, cb = {.now = 1000000};
    sc_table *a = yield_handle("yield", &ca), *b = yield_handle("yield", &cb);
    sc_commit_result r;
    /* Alone, back to back: nobody to yield to. */
    for (int i = 1; i <= 3; i++) cr_assert_eq(tu_commit_one(&r, a, "a", i), 0, "%s", sc_error_message());
    cr_assert_eq(ca.sleeps, 0, "a lone writer never waits");
    /* b commits between two commits of a, 10 ms apart: a races b, and its next commit yields. */
    cr_assert_eq(tu_commit_one(&r, b, "b", 1), 0, "%s", sc_error_message());
    ca.now += 10;
    cr_assert_eq(tu_commit_one(&r, a, "a", 4), 0, "%s", sc_error_message());
    cr_assert_eq(ca.sleeps, 0, "the wait is owed, not yet taken");
    cr_assert_eq(tu_commit_one(&r, a, "a", 5), 0, "%s", sc_error_message());
    cr_assert_eq(ca.sleeps, 1, "one wait, before the next commit");
    cr_assert_gt(ca.slept, 0);
    cr_assert_leq(ca.slept, 10000, "within max_wait");
    /* Taking turns a checkpoint apart (more than a second between a's commits): no wait. */
    int before = ca.sleeps;
    for (int i = 6; i <= 8; i++) {
        cr_assert_eq(tu_commit_one(&r, b, "b", i), 0, "%s", sc_error_message());
        ca.now += 5000;
        cr_assert_eq(tu_commit_one(&r, a, "a", i), 0, "%s", sc_error_message());
    }
    cr_assert_eq(ca.sleeps, before, "periodic writers taking turns never wait");
    sc_table_free(a);
    sc_table_free(b);
}
