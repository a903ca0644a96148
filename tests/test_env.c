/*
 * The environment seam (snapcommit/env.h): a store's, a table's and a mem
 * store's time and randomness come from the sc_env installed on them, and
 * the tracker's TTL default is resolved by the store's configuration.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error_internal.h"
#include "sc_test_assert.h"
#include "sc_test_util.h"
#include "strategy/strategy_tracker.h"

/* A fake environment: a settable wall clock, an elapsed clock that only moves
 * when slept on, recorded sleeps, and counting "random" bytes. */
typedef struct fake {
    int64_t now, elapsed;
    int64_t sleeps[16];
    int nsleeps;
    uint8_t next_byte;
    int random_calls;
} fake;

static int64_t fake_now(void *ctx) { return ((fake *)ctx)->now; }
static int64_t fake_elapsed(void *ctx) { return ((fake *)ctx)->elapsed; }

static void fake_sleep(void *ctx, int64_t ms) {
    fake *f = ctx;
    if (f->nsleeps < 16) f->sleeps[f->nsleeps++] = ms;
    f->elapsed += ms;
}

static int fake_random(void *ctx, void *out, size_t len) {
    fake *f = ctx;
    f->random_calls++;
    for (size_t i = 0; i < len; i++) ((uint8_t *)out)[i] = f->next_byte++;
    return 0;
}

static sc_env fake_env(fake *f, int64_t now) {
    memset(f, 0, sizeof *f);
    f->now = now;
    sc_env e;
    sc_env_init(&e);
    e.ctx = f;
    e.now_ms = fake_now;
    e.monotonic_ms = fake_elapsed;
    e.sleep_ms = fake_sleep;
    e.random_bytes = fake_random;
    return e;
}

static sc_store *mem_store(const char *name) {
    char loc[128];
    snprintf(loc, sizeof loc, "mem://%s", name);
    sc_mem_store_reset(name);
    sc_store *s = NULL;
    OK(sc_store_open(&s, loc));
    return s;
}

static int64_t snapshot_time(sc_table *t, uint64_t id) {
    sc_snapshot_info *info = NULL;
    OK(sc_table_snapshot_info(&info, t, id));
    int64_t ms = info->time_millis;
    sc_snapshot_info_free(info);
    return ms;
}

static int commit_one(sc_table *t, const char *user, int64_t ident, const char *file) {
    sc_file_entry e = tu_file("", 0, 1, 0, file, 1, NULL, NULL);
    return tu_commit(NULL, t, user, ident, SC_KIND_APPEND, 0, &e, 1, NULL, 0);
}

/* Table creation takes its UUID from the store handle's environment: the same
 * seeded bytes give the same table, twice. */
Test(env, table_uuid_comes_from_the_store_env) {
    char first[40] = "";
    for (int run = 0; run < 2; run++) {
        fake f;
        sc_env e = fake_env(&f, 1700000000000);
        sc_store *s = mem_store("env-uuid");
        OK(sc_store_set_env(s, &e));
        OK(tu_create(s, SC_STRATEGY_AUTO));
        cr_assert_gt(f.random_calls, 0, "creation drew no randomness from the environment");
        sc_table *t = NULL;
        OK(sc_table_open(&t, s));
        if (run == 0) snprintf(first, sizeof first, "%s", sc_table_uuid(t));
        else cr_assert_str_eq(sc_table_uuid(t), first, "same seeded bytes, another table UUID");
        sc_table_free(t);
        sc_store_free(s);
    }
}

/* A table starts with its store's environment; sc_table_set_env replaces it,
 * NULL restores the real clock. */
Test(env, snapshot_time_comes_from_the_table_env) {
    fake fs, ft;
    sc_env store_env = fake_env(&fs, 1111111111111);
    sc_env table_env = fake_env(&ft, 2222222222222);
    sc_store *s = mem_store("env-time");
    OK(tu_create(s, SC_STRATEGY_AUTO));
    OK(sc_store_set_env(s, &store_env));
    sc_table *t = NULL;
    OK(sc_table_open(&t, s));
    OK(commit_one(t, "u", 1, "data/a"));
    cr_assert_eq(snapshot_time(t, 1), 1111111111111, "the table did not inherit its store's clock");
    OK(sc_table_set_env(t, &table_env));
    OK(commit_one(t, "u", 2, "data/b"));
    cr_assert_eq(snapshot_time(t, 2), 2222222222222);
    cr_assert_gt(ft.random_calls, 0, "the commit's UUIDs did not come from the table's environment");
    OK(sc_table_set_env(t, NULL));
    int64_t before = sc_now_ms();
    OK(commit_one(t, "u", 3, "data/c"));
    int64_t at = snapshot_time(t, 3);
    cr_assert(at >= before && at <= sc_now_ms(), "NULL must restore the real clock (got %lld)", (long long)at);
    sc_table_free(t);
    sc_store_free(s);
}

/* Lose the first claim of snapshot 1: the engine backs off once. */
static int lose_first_claim(void *ctx, sc_store_op op, const char *key, uint64_t call_index) {
    (void)call_index;
    int *lost = ctx;
    if (op == SC_OP_PUT_IF_ABSENT && strstr(key, "snapshot-") && !*lost) {
        *lost = 1;
        return SC_EEXISTS;
    }
    return 0;
}

/* Backoff waits are slept, jittered and timed through the table's environment:
 * a 60 s wait costs no real time, and the commit's elapsed time is the fake one. */
Test(env, backoff_sleeps_through_the_table_env) {
    fake f;
    sc_env e = fake_env(&f, 1700000000000);
    sc_store *s = mem_store("env-backoff");
    OK(tu_create(s, SC_STRATEGY_AUTO));
    sc_table *t = NULL;
    OK(sc_table_open(&t, s));
    OK(sc_table_set_env(t, &e));
    sc_retry_policy p;
    sc_retry_policy_default(&p);
    p.min_wait_ms = p.max_wait_ms = 60000;
    p.timeout_ms = 0; /* no commit budget: the one wait must be slept, whatever it is */
    sc_table_set_retry_policy(t, &p);
    int lost = 0;
    sc_store_set_fault_hook(s, lose_first_claim, &lost);
    int64_t real_start = sc_monotonic_ms();
    sc_commit_result res;
    sc_file_entry a = tu_file("", 0, 1, 0, "data/a", 1, NULL, NULL);
    OK(tu_commit(&res, t, "u", 1, SC_KIND_APPEND, 0, &a, 1, NULL, 0));
    cr_assert_eq(lost, 1);
    cr_assert_eq(res.lost_claims, 1);
    cr_assert_eq(f.nsleeps, 1, "one backoff wait expected, %d slept through the environment", f.nsleeps);
    /* A lost claim's wait is uniform over 0..min(slot * (writers seen + 1), max_wait) (backoff.h). */
    cr_assert(f.sleeps[0] >= 0 && f.sleeps[0] <= 60000, "wait %lld: within 0..60 s", (long long)f.sleeps[0]);
    cr_assert_eq(res.elapsed_ms, f.sleeps[0], "elapsed time must be the environment's");
    cr_assert_lt(sc_monotonic_ms() - real_start, 10000, "the backoff slept in real time");
    sc_table_free(t);
    sc_store_free(s);
}

/* The mem store's own environment stamps mtimes and serves stalls, for every handle. */
Test(env, mem_store_env_stamps_mtimes_and_stalls) {
    fake f;
    sc_env e = fake_env(&f, 42000);
    sc_store *s = mem_store("env-mem");
    OK(sc_mem_store_set_env("env-mem", &e));
    sc_object_info info;
    OK(sc_store_put(s, &info, "k", TEXT("v")));
    cr_assert_eq(info.mtime_ms, 42000);
    OK(sc_mem_store_arm_fault("env-mem", 0, 1, SC_MEM_FAULT_STALL, 30000));
    int64_t real_start = sc_monotonic_ms();
    OK(sc_store_head(s, &info, "k"));
    cr_assert_eq(f.nsleeps, 1);
    cr_assert_eq(f.sleeps[0], 30000);
    cr_assert_lt(sc_monotonic_ms() - real_start, 10000, "the stall slept in real time");
    sc_mem_store_reset("env-mem");
    OK(sc_store_put(s, &info, "k", TEXT("v")));
    cr_assert_eq(info.mtime_ms, 42000, "the environment must survive a reset");
    OK(sc_mem_store_set_env("env-mem", NULL));
    int64_t before = sc_now_ms();
    OK(sc_store_put(s, &info, "k", TEXT("w")));
    cr_assert(info.mtime_ms >= before && info.mtime_ms <= sc_now_ms(), "NULL must restore the real clock");
    sc_store_free(s);
}

/* Members left NULL are the real ones; an uninitialised environment is refused. */
Test(env, partial_and_uninitialised_envs) {
    sc_store *s = mem_store("env-partial");
    OK(tu_create(s, SC_STRATEGY_AUTO));
    sc_table *t = NULL;
    OK(sc_table_open(&t, s));
    fake f;
    memset(&f, 0, sizeof f);
    f.now = 5555;
    sc_env e;
    sc_env_init(&e);
    e.ctx = &f;
    e.now_ms = fake_now; /* only the wall clock replaced */
    OK(sc_table_set_env(t, &e));
    OK(commit_one(t, "u", 1, "data/a"));
    cr_assert_eq(snapshot_time(t, 1), 5555);
    sc_env bad;
    memset(&bad, 0, sizeof bad);
    FAILS(SC_EINVAL, sc_table_set_env(t, &bad));
    FAILS(SC_EINVAL, sc_store_set_env(s, &bad));
    FAILS(SC_EINVAL, sc_mem_store_set_env("env-partial", &bad));
    FAILS(SC_EINVAL, sc_mem_store_set_env("env-no-such-store", NULL));
    FAILS(SC_EINVAL, sc_table_set_env(NULL, NULL));
    FAILS(SC_EINVAL, sc_store_set_env(NULL, NULL));
    OK(commit_one(t, "u", 2, "data/b"));
    cr_assert_eq(snapshot_time(t, 2), 5555, "a refused environment must leave the installed one");
    sc_table_free(t);
    sc_store_free(s);
}

static char warned[512];
static void capture(void *ctx, sc_log_level level, const char *message) {
    (void)ctx;
    if (level == SC_LOG_WARN) snprintf(warned, sizeof warned, "%s", message);
}

/* SNAPCOMMIT_TRACKER_TTL_MS is the configuration's default (store.c): a bad
 * value is ignored with a warning, and the tracker's own default applies. */
Test(env, tracker_ttl_variable_is_a_config_default) {
    sc_store *s = mem_store("env-ttl");
    OK(tu_create(s, SC_STRATEGY_TRACKER));
    sc_store_free(s);
    setenv("SNAPCOMMIT_TRACKER_TTL_MS", "12345", 1);
    sc_table *t = tu_reopen("env-ttl");
    cr_assert_eq(sc_tracker_ttl_ms(t), 12345);
    sc_table_free(t);
    setenv("SNAPCOMMIT_TRACKER_TTL_MS", "1", 1);
    warned[0] = '\0';
    sc_log_set_handler(capture, NULL);
    t = tu_reopen("env-ttl");
    cr_assert_eq(sc_tracker_ttl_ms(t), SC_TRACKER_DEFAULT_TTL_MS);
    sc_log_set_handler(NULL, NULL);
    cr_assert_str_eq(warned, "ignoring SNAPCOMMIT_TRACKER_TTL_MS=1 (not an integer > 1)");
    cr_assert(!sc_error_has_message(), "the ignored value must not leave an error behind: %s", sc_error_message());
    sc_table_free(t);
    unsetenv("SNAPCOMMIT_TRACKER_TTL_MS");
}
