/* The tracker strategy (seed 000): claims, races, stalls, helping, fallback, lost responses. */
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <unistd.h>

#include "sc_test_util.h"

#include "base/error_internal.h"
#include "base/hash.h"
#include "store/store_backends.h"
#include "strategy/strategy_tracker.h"
#include "strategy/strategy.h"
#include "base/clock.h"
#include "base/env_internal.h"

/* Short TTL for tests that wait for staleness (fence = TTL / 2). */
#define TEST_TTL_MS 300

/* A fresh tracker table on mem://name, opened; the table owns its store. */
static sc_table *tracker_table(const char *name) {
    return tu_mem_table_with(name, (tu_table_opts){SC_STRATEGY_TRACKER, 1000, 20});
}

/* Open the table at location with the tracker TTL ttl_ms, through the store's configuration
 * (as a deployment sets it); 0 keeps the default. The library's code, as sc_table_open_location. */
static int open_with_ttl(sc_table **out, const char *location, int64_t ttl_ms) {
    sc_store_config cfg;
    sc_store_config_init(&cfg);
    cfg.tracker_ttl_ms = ttl_ms;
    return sc_table_open_location_with_config(out, location, &cfg);
}

/* Another handle on mem://name; ttl 0 keeps the configured TTL. */
static sc_table *open_handle(const char *name, int64_t ttl) {
    char loc[256];
    snprintf(loc, sizeof loc, "mem://%s", name);
    sc_table *t;
    cr_assert_eq(open_with_ttl(&t, loc, ttl), 0, "%s: %s", loc, sc_error_message());
    tu_fast_retries(t, 1000, 20);
    if (ttl) cr_assert_eq(sc_tracker_ttl_ms(t), ttl);
    return t;
}

/* A fresh tracker table on mem://name, opened with the short TTL of the tests that wait for staleness. */
static sc_table *short_ttl_table(const char *name) {
    sc_table_free(tracker_table(name));
    return open_handle(name, TEST_TTL_MS);
}

/* Every snapshot 1..latest read back: ids contiguous, (user, identifier) exactly once, == expected. */
static void check_history(sc_table *t, uint64_t expected_total) {
    uint64_t latest = tu_latest(t);
    cr_assert_eq(latest, expected_total, "latest %llu, expected %llu", (unsigned long long)latest,
                 (unsigned long long)expected_total);
    char (*seen)[96] = calloc(latest + 1, sizeof *seen);
    for (uint64_t id = 1; id <= latest; id++) {
        sc_snapshot_info *info;
        cr_assert_eq(sc_table_snapshot_info(&info, t, id), 0, "snapshot %llu: %s", (unsigned long long)id, sc_error_message());
        snprintf(seen[id], sizeof seen[id], "%s#%lld", info->commit_user, (long long)info->commit_identifier);
        for (uint64_t j = 1; j < id; j++)
            cr_assert(strcmp(seen[j], seen[id]) != 0, "%s committed twice (snapshots %llu and %llu)", seen[id],
                      (unsigned long long)j, (unsigned long long)id);
        sc_snapshot_info_free(info);
    }
    free(seen);
    cr_assert_eq(tu_file_count(t), expected_total);
}

/* ---- plain commits ---- */

Test(tracker, commits_on_mem_and_costs) {
    sc_table *t = tracker_table("tr-mem");
    sc_commit_result r;
    for (int i = 1; i <= 6; i++) {
        cr_assert_eq(tu_commit_one(&r, t, "job", i), 0, "%s", sc_error_message());
        cr_assert_eq(r.snapshot_id, (uint64_t)i);
        cr_assert_eq(r.attempts, 1);
        cr_assert_eq(r.lost_claims, 0);
    }
    /* Requests of the last, uncontended commit (engine + strategy). */
    fprintf(stderr, "tracker uncontended commit (mem, warm handle): GET %llu HEAD %llu PUT %llu PUT_IF_ABSENT %llu LIST %llu DELETE %llu\n",
            (unsigned long long)r.stats.ops[SC_OP_GET], (unsigned long long)r.stats.ops[SC_OP_HEAD],
            (unsigned long long)r.stats.ops[SC_OP_PUT], (unsigned long long)r.stats.ops[SC_OP_PUT_IF_ABSENT],
            (unsigned long long)r.stats.ops[SC_OP_LIST], (unsigned long long)r.stats.ops[SC_OP_DELETE]);
    /* The claim itself: PUT tracker, LIST commit/v/, PUT PRE, LIST, PUT commit file, LIST, PUT(-if-absent) hint. */
    cr_assert_eq(r.stats.ops[SC_OP_LIST], 4, "1 discovery LIST + 3 in the claim");
    cr_assert_eq(r.stats.ops[SC_OP_HEAD], 2, "publication checks snapshot/snapshot-(N-1); the commit looks for a newer schema");
    cr_assert_eq(r.stats.ops[SC_OP_DELETE], 0);
    cr_assert_eq(tu_count_keys("tr-mem", "tracker/", NULL), 6);
    cr_assert_eq(tu_count_keys("tr-mem", "commit/", "COMMIT-HINT"), 6);
    cr_assert_eq(tu_count_keys("tr-mem", "commit/", "/PRE_COMMIT-"), 6);
    cr_assert_eq(tu_count_keys("tr-mem", "snapshot/snapshot-", NULL), 6, "every version published for Paimon's readers");
    check_history(t, 6);
    /* A fresh handle (cold cache) reads the same history. */
    sc_table *u = open_handle("tr-mem", 0);
    sc_store_stats_reset(sc_table_store(u));
    cr_assert_eq(tu_latest(u), 6);
    sc_store_stats st;
    sc_store_stats_get(&st, sc_table_store(u));
    cr_assert_eq(st.ops[SC_OP_LIST], 1);
    cr_assert_eq(st.ops[SC_OP_GET], 1, "latest = one LIST of tracker/ + one GET of the newest hint");
    uint64_t earliest;
    cr_assert_eq(sc_table_earliest_id(&earliest, u), 0);
    cr_assert_eq(earliest, 1);
    cr_assert_eq(tu_commit_one(&r, u, "job", 7), 0, "%s", sc_error_message());
    cr_assert_eq(r.snapshot_id, 7);
    cr_assert_eq(tu_commit_one(&r, u, "job", 7), SC_ECOMMITTED);
    sc_table_free(u);
    sc_table_free(t);
}

Test(tracker, commits_on_posix) {
    char dir[] = "/tmp/sc-tracker-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, dir), 0, "%s", sc_error_message());
    cr_assert_eq(tu_create(s, SC_STRATEGY_TRACKER), 0, "%s", sc_error_message());
    sc_table *t;
    cr_assert_eq(sc_table_open(&t, s), 0, "%s", sc_error_message());
    sc_commit_result r;
    for (int i = 1; i <= 5; i++) {
        cr_assert_eq(tu_commit_one(&r, t, "posix", i), 0, "%s", sc_error_message());
        cr_assert_eq(r.snapshot_id, (uint64_t)i);
    }
    fprintf(stderr, "tracker uncontended commit (posix): GET %llu HEAD %llu PUT %llu PUT_IF_ABSENT %llu LIST %llu\n",
            (unsigned long long)r.stats.ops[SC_OP_GET], (unsigned long long)r.stats.ops[SC_OP_HEAD],
            (unsigned long long)r.stats.ops[SC_OP_PUT], (unsigned long long)r.stats.ops[SC_OP_PUT_IF_ABSENT],
            (unsigned long long)r.stats.ops[SC_OP_LIST]);
    check_history(t, 5);
    sc_table_free(t);
    sc_store_free(s);
    /* Reopen from the location: everything is on disk. */
    cr_assert_eq(sc_table_open_location(&t, dir), 0, "%s", sc_error_message());
    check_history(t, 5);
    sc_table_free(t);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ---- 8 threads x 25 commits on one mem store ---- */

#define RACE_THREADS 8
#define RACE_COMMITS 25

typedef struct racer {
    int index;
    int failures;
    int lost, attempts, unknown;
    char error[256];
} racer;

/* Jitter before every request, so that the threads' claims interleave at every step. */
static int jitter(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)op;
    (void)key;
    unsigned *seed = p;
    *seed = *seed * 1103515245u + 12345u + (unsigned)call;
    usleep((*seed >> 16) % 300);
    return 0;
}

static void *race_body(void *arg) {
    racer *w = arg;
    sc_table *t;
    if (open_with_ttl(&t, "mem://tr-race", TEST_TTL_MS) != 0) {
        snprintf(w->error, sizeof w->error, "open: %s", sc_error_message());
        w->failures++;
        return NULL;
    }
    unsigned seed = (unsigned)w->index * 7919u;
    sc_store_set_fault_hook(sc_table_store(t), jitter, &seed);
    tu_fast_retries(t, 100000, 20);
    char user[16];
    snprintf(user, sizeof user, "w%d", w->index);
    for (int i = 1; i <= RACE_COMMITS; i++) {
        sc_commit_result r;
        int rc = tu_commit_one(&r, t, user, i);
        w->lost += r.lost_claims;
        w->attempts += r.attempts;
        w->unknown += r.unknown_outcomes;
        if (rc) {
            snprintf(w->error, sizeof w->error, "%s#%d: %s", user, i, sc_error_message());
            w->failures++;
        }
    }
    sc_table_free(t);
    return NULL;
}

Test(tracker, race_8_threads_x_25_commits, .timeout = 240) {
    sc_table *t = tracker_table("tr-race");
    pthread_t th[RACE_THREADS];
    racer w[RACE_THREADS];
    int64_t started = sc_monotonic_ms();
    for (int i = 0; i < RACE_THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].index = i + 1;
        cr_assert_eq(pthread_create(&th[i], NULL, race_body, &w[i]), 0);
    }
    int lost = 0, attempts = 0, unknown = 0;
    for (int i = 0; i < RACE_THREADS; i++) {
        pthread_join(th[i], NULL);
        cr_assert_eq(w[i].failures, 0, "writer %d: %s", i + 1, w[i].error);
        lost += w[i].lost;
        attempts += w[i].attempts;
        unknown += w[i].unknown;
    }
    int64_t ms = sc_monotonic_ms() - started;
    check_history(t, RACE_THREADS * RACE_COMMITS);
    fprintf(stderr, "tracker race: %d threads x %d commits = %d snapshots, contiguous, each once; %d claims, %d lost, %d unknown; %lld ms; %d expired sub-versions\n",
            RACE_THREADS, RACE_COMMITS, RACE_THREADS * RACE_COMMITS, attempts, lost, unknown, (long long)ms,
            tu_count_keys("tr-race", "commit/", "EXPIRED-HINT"));
    sc_table_free(t);
}

/* ---- stalls: a client stops for longer than the TTL at one step of its claim ---- */

typedef enum step {
    STEP_TRACKER_PUT, /* PUT tracker/<v> */
    STEP_VERSION_LIST, /* LIST commit/<v>/ */
    STEP_PRE_PUT,     /* PUT .../PRE_COMMIT-<uuid> */
    STEP_FIRST_LIST,  /* LIST commit/<v>/<s>/ (1st) */
    STEP_FILE_PUT,    /* PUT .../COMMIT-<uuid> */
    STEP_FINAL_LIST,  /* LIST commit/<v>/<s>/ (2nd) */
    STEP_HINT_PUT,    /* PUT(-if-absent) commit/<v>/COMMIT-HINT */
    STEP_COUNT
} step;

static const char *const step_names[] = {"PUT tracker", "LIST commit/v/", "PUT PRE_COMMIT", "first LIST",
                                         "PUT commit file", "final LIST", "PUT COMMIT-HINT"};

static int is_put(sc_store_op op) { return op == SC_OP_PUT || op == SC_OP_PUT_IF_ABSENT; }

/* Which claim step a store call is; -1 for anything else. `sub_lists` counts sub-directory listings. */
static int step_of(sc_store_op op, const char *key, int *sub_lists) {
    if (is_put(op) && strncmp(key, "tracker/", 8) == 0) return STEP_TRACKER_PUT;
    if (strncmp(key, "commit/", 7) != 0) return -1;
    const char *rest = key + 7 + 21; /* after commit/<v>/ */
    if (strlen(key) < 28) return -1;
    if (op == SC_OP_LIST && *rest == '\0') return STEP_VERSION_LIST;
    if (is_put(op) && strcmp(rest, "COMMIT-HINT") == 0) return STEP_HINT_PUT;
    if (strlen(rest) < 21 || rest[20] != '/') return -1;
    const char *name = rest + 21;
    if (op == SC_OP_LIST && *name == '\0') return (*sub_lists)++ % 2 == 0 ? STEP_FIRST_LIST : STEP_FINAL_LIST;
    if (is_put(op) && strncmp(name, "PRE_COMMIT-", 11) == 0) return STEP_PRE_PUT;
    if (is_put(op) && strncmp(name, "COMMIT-", 7) == 0) return STEP_FILE_PUT;
    return -1;
}

typedef struct stall_ctx {
    step at;
    int fired;
    int sub_lists;
    unsigned stall_ms;
    const char *store;
    sem_t *started; /* posted when the stall begins */
} stall_ctx;

static int stall_hook(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    stall_ctx *c = p;
    int s = step_of(op, key, &c->sub_lists);
    if (s == (int)c->at && !c->fired) {
        c->fired = 1;
        /* Stall this request on its way to the store: the mem backend's STALL fault sleeps
         * before applying it, exactly like a request held by the network or a paused client. */
        cr_assert_eq(sc_mem_store_arm_fault(c->store, 1u << op, 1, SC_MEM_FAULT_STALL, c->stall_ms), 0);
        sem_post(c->started);
        /* Give the other client a head start only after our request is parked in the store. */
    }
    return 0;
}

typedef struct other_ctx {
    const char *store;
    sem_t *go;
    int rc;
    uint64_t id;
    char error[256];
} other_ctx;

static void *other_body(void *p) {
    other_ctx *o = p;
    sem_wait(o->go);
    sc_sleep_ms(20); /* let the stalled request enter the store's stall first */
    sc_table *t = open_handle(o->store, TEST_TTL_MS);
    sc_commit_result r;
    o->rc = tu_commit_one(&r, t, "B", 1);
    o->id = r.snapshot_id;
    snprintf(o->error, sizeof o->error, "%s", sc_error_message());
    sc_table_free(t);
    return NULL;
}

/* A commits and stalls at `at` for 3 TTLs; B commits meanwhile. Both land exactly once. */
static void stall_scenario(const char *store, step at) {
    sc_table *t = short_ttl_table(store);
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, t, "setup", 1), 0, "%s", sc_error_message());
    sem_t go;
    sem_init(&go, 0, 0);
    stall_ctx c = {at, 0, 0, 3 * TEST_TTL_MS, store, &go};
    other_ctx o = {store, &go, 0, 0, ""};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, other_body, &o), 0);
    sc_store_set_fault_hook(sc_table_store(t), stall_hook, &c);
    int rc = tu_commit_one(&r, t, "A", 1);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    pthread_join(th, NULL);
    cr_assert(c.fired, "the stall at %s never happened", step_names[at]);
    cr_assert_eq(o.rc, 0, "B: %s", o.error);
    cr_assert_eq(rc, 0, "A (stalled at %s): %s", step_names[at], sc_error_message());
    cr_assert_neq(r.snapshot_id, o.id);
    fprintf(stderr, "stall at %-16s: A -> snapshot %llu (%d claims, %d lost, %d unknown), B -> snapshot %llu\n", step_names[at],
            (unsigned long long)r.snapshot_id, r.attempts, r.lost_claims, r.unknown_outcomes, (unsigned long long)o.id);
    check_history(t, 3);
    sem_destroy(&go);
    sc_table_free(t);
}

Test(tracker, stall_at_first_list) { stall_scenario("tr-stall-1", STEP_FIRST_LIST); }
Test(tracker, stall_in_flight_commit_file) { stall_scenario("tr-stall-2", STEP_FILE_PUT); }
Test(tracker, stall_at_final_list) { stall_scenario("tr-stall-3", STEP_FINAL_LIST); }
Test(tracker, stall_before_hint) { stall_scenario("tr-stall-4", STEP_HINT_PUT); }
Test(tracker, stall_in_flight_pre_commit) { stall_scenario("tr-stall-5", STEP_PRE_PUT); }

/* ---- a writer that dies after its commit file: helped, and readers fall back meanwhile ---- */

static int drop_hints(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)p;
    (void)call;
    int sub = 0;
    return step_of(op, key, &sub) == STEP_HINT_PUT ? SC_EIO : 0;
}

Test(tracker, helps_a_complete_pair_left_by_a_dead_writer) {
    sc_table *a = tracker_table("tr-help");
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, a, "A", 1), 0);
    /* A wins version 2 but can never write its hint (it "dies" right after its commit file). */
    sc_store_set_fault_hook(sc_table_store(a), drop_hints, NULL);
    /* The claim is decided once the commit file is publishable, but it is not
     * acknowledged before readers can see it: the outcome is unknown. */
    int rc = tu_commit_one(&r, a, "A", 2);
    cr_assert_eq(rc, SC_EUNKNOWN, "%s", sc_error_name(rc));
    sc_table_free(a);
    cr_assert_eq(tu_count_keys("tr-help", "commit/00000000000000000002/", "COMMIT-HINT"), 0);

    /* A reader falls back one version: 2 is started (tracker/) but has no hint. */
    sc_table *b = open_handle("tr-help", TEST_TTL_MS);
    cr_assert_eq(tu_latest(b), 1);
    /* The next writer publishes A's pair at once (no TTL to wait: it is publishable), then commits 3. */
    cr_assert_eq(tu_commit_one(&r, b, "B", 1), 0, "%s", sc_error_message());
    cr_assert_eq(r.snapshot_id, 3);
    cr_assert_eq(r.lost_claims, 1, "B's first claim (of 2) helped A and was lost");
    cr_assert_eq(tu_count_keys("tr-help", "commit/00000000000000000002/", "COMMIT-HINT"), 1);
    sc_snapshot_info *info;
    cr_assert_eq(sc_table_snapshot_info(&info, b, 2), 0);
    cr_assert_str_eq(info->commit_user, "A");
    cr_assert_eq(info->commit_identifier, 2);
    sc_snapshot_info_free(info);
    check_history(b, 3);
    sc_table_free(b);
}

Test(tracker, reader_falls_back_one_version_and_expires_a_dead_attempt) {
    sc_table *t = short_ttl_table("tr-fallback");
    for (int i = 1; i <= 2; i++) cr_assert_eq(tu_commit_one(NULL, t, "job", i), 0);
    /* A writer started version 3 and died after its PRE_COMMIT. */
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, "mem://tr-fallback"), 0);
    char key[128];
    snprintf(key, sizeof key, "tracker/%020llu", (unsigned long long)(UINT64_MAX - 3));
    cr_assert_eq(sc_store_put(s, NULL, key, (const uint8_t *)"3\n", 2), 0);
    const char *pre = "commit/00000000000000000003/00000000000000000001/PRE_COMMIT-0b5e7e5e-0000-4000-8000-000000000000";
    cr_assert_eq(sc_store_put(s, NULL, pre, (const uint8_t *)"x", 1), 0);
    sc_store_free(s);
    sc_table *u = open_handle("tr-fallback", TEST_TTL_MS);
    cr_assert_eq(tu_latest(u), 2, "version 3 has no COMMIT-HINT: readers see 2");
    sc_snapshot_info *info;
    cr_assert_eq(sc_table_snapshot_info(&info, u, 2), 0);
    sc_snapshot_info_free(info);
    /* A writer waits out the dead attempt's TTL, expires sub-version 1 and commits 3 in sub-version 2. */
    sc_commit_result r;
    int64_t t0 = sc_monotonic_ms();
    cr_assert_eq(tu_commit_one(&r, u, "job", 3), 0, "%s", sc_error_message());
    cr_assert_eq(r.snapshot_id, 3);
    cr_assert_geq(sc_monotonic_ms() - t0, TEST_TTL_MS / 2, "a fresh PRE_COMMIT must not be expired early");
    cr_assert_eq(tu_count_keys("tr-fallback", "commit/00000000000000000003/00000000000000000001/", "EXPIRED-HINT"), 1);
    cr_assert_eq(tu_count_keys("tr-fallback", "commit/00000000000000000003/00000000000000000002/", "/COMMIT-"), 1);
    check_history(u, 3);
    sc_table_free(u);
    sc_table_free(t);
}

/* ---- lost responses and failures at each step of the claim ---- */

typedef struct fault_ctx {
    step at;
    int verdict; /* SC_FAULT_LOSE_RESPONSE or a negative code */
    int fired;
    int sub_lists;
} fault_ctx;

static int fault_hook(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    fault_ctx *c = p;
    int s = step_of(op, key, &c->sub_lists);
    if (s == (int)c->at && !c->fired) {
        c->fired = 1;
        return c->verdict;
    }
    return 0;
}

static void fault_scenario(const char *store, int verdict) {
    for (int at = 0; at < STEP_COUNT; at++) {
        sc_table *t = tracker_table(store);
        sc_commit_result r;
        cr_assert_eq(tu_commit_one(&r, t, "job", 1), 0);
        fault_ctx c = {(step)at, verdict, 0, 0};
        sc_store_set_fault_hook(sc_table_store(t), fault_hook, &c);
        int rc = tu_commit_one(&r, t, "job", 2);
        sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
        cr_assert(c.fired, "fault at %s never fired", step_names[at]);
        if (verdict == SC_FAULT_LOSE_RESPONSE)
            cr_assert_eq(rc, 0, "lost response at %s: %s", step_names[at], sc_error_message());
        else
            cr_assert(rc == 0 || rc == SC_EIO || rc == SC_EUNKNOWN, "failure at %s: %s", step_names[at], sc_error_message());
        int first = rc;
        /* The caller retries the same identifier (as after a failover): never a duplicate. */
        rc = tu_commit_one(&r, t, "job", 2);
        cr_assert(rc == 0 || rc == SC_ECOMMITTED, "retry after %s: %s", step_names[at], sc_error_message());
        cr_assert(first != 0 || rc == SC_ECOMMITTED, "after a success the retry must be filtered");
        cr_assert_eq(tu_commit_one(&r, t, "job", 3), 0, "%s", sc_error_message());
        check_history(t, 3);
        sc_table_free(t);
    }
}

Test(tracker, lost_responses_at_each_step) { fault_scenario("tr-lose", SC_FAULT_LOSE_RESPONSE); }
Test(tracker, failures_at_each_step) { fault_scenario("tr-fail", SC_EIO); }

/* ====================================================================== */
/* Seed 000 as written, as a step machine (one store request per step), so
 * that two or three clients can be interleaved deterministically. Keys follow
 * the seed (under seed/): tracker/<v>.txt, commit/<v>/sub-tracker/<s>.txt,
 * commit/<v>/<s>/{PRE_COMMIT-<id>.txt,<id>.txt,EXPIRED-HINT.txt},
 * commit/<v>/sub-hint/COMMIT-HINT.txt = "<id>.txt@<s>". Like the seed, "now"
 * is the client's own clock (plus `skew_ms`), compared with storage mtimes. */

#define SEED_TTL_MS 30000

typedef struct seed_client {
    sc_store *s;
    char id[SC_UUID_TEXT_LEN + 1];
    int pc;
    uint64_t v, sub;
    int64_t skew_ms;
    int result; /* 0 running, 1 committed, -1 failed */
    char why[96];
} seed_client;

static void seed_init(seed_client *c, const char *store, int64_t skew_ms) {
    memset(c, 0, sizeof *c);
    char loc[64];
    snprintf(loc, sizeof loc, "mem://%s", store);
    cr_assert_eq(sc_store_open(&c->s, loc), 0);
    cr_assert_eq(sc_env_uuid_text(sc_env_default(), c->id), 0);
    c->skew_ms = skew_ms;
}

static int seed_exists(seed_client *c, const char *key) {
    sc_object_info info;
    int rc = sc_store_head(c->s, &info, key);
    cr_assert(rc == 0 || rc == SC_ENOTFOUND);
    return rc == 0;
}

static void seed_put(seed_client *c, const char *key, const char *text) {
    cr_assert_eq(sc_store_put(c->s, NULL, key, (const uint8_t *)text, strlen(text)), 0);
}

static void seed_fail(seed_client *c, const char *why) {
    c->result = -1;
    snprintf(c->why, sizeof c->why, "%s", why);
}

/* Highest number N in keys "<prefix>N.txt". */
static uint64_t seed_max(seed_client *c, const char *prefix) {
    sc_list_page p;
    cr_assert_eq(sc_store_list_all(c->s, &p, prefix), 0);
    uint64_t max = 0;
    for (size_t i = 0; i < p.count; i++) {
        uint64_t n = strtoull(p.keys[i] + strlen(prefix), NULL, 10);
        if (n > max) max = n;
    }
    sc_list_page_free(&p);
    return max;
}

static void seed_step(seed_client *c) {
    char key[256], dir[128], text[128];
    snprintf(dir, sizeof dir, "seed/commit/%llu/%llu/", (unsigned long long)c->v, (unsigned long long)c->sub);
    switch (c->pc) {
    case 0: /* Phase 0: max version from tracker/ */
        c->v = seed_max(c, "seed/tracker/");
        c->pc = 1;
        break;
    case 1: /* ... and move on when it is complete */
        snprintf(key, sizeof key, "seed/commit/%llu/sub-hint/COMMIT-HINT.txt", (unsigned long long)c->v);
        if (seed_exists(c, key)) c->v++;
        c->pc = 2;
        break;
    case 2: /* Phase 0.25 */
        snprintf(key, sizeof key, "seed/tracker/%llu.txt", (unsigned long long)c->v);
        c->pc = seed_exists(c, key) ? 4 : 3;
        break;
    case 3:
        snprintf(key, sizeof key, "seed/tracker/%llu.txt", (unsigned long long)c->v);
        seed_put(c, key, "v");
        c->pc = 4;
        break;
    case 4: /* Phase 0.5: sub-version discovery */
        snprintf(key, sizeof key, "seed/commit/%llu/sub-tracker/", (unsigned long long)c->v);
        c->sub = seed_max(c, key);
        c->pc = 5;
        break;
    case 5:
        snprintf(key, sizeof key, "%sEXPIRED-HINT.txt", dir);
        if (seed_exists(c, key)) c->sub++;
        c->pc = 6;
        break;
    case 6:
        snprintf(key, sizeof key, "seed/commit/%llu/sub-tracker/%llu.txt", (unsigned long long)c->v, (unsigned long long)c->sub);
        if (!seed_exists(c, key)) seed_put(c, key, "s");
        c->pc = 8;
        break;
    case 8: { /* Phase 2: the directory must be empty; analyse what is there */
        sc_list_page p;
        cr_assert_eq(sc_store_list_all(c->s, &p, dir), 0);
        if (p.count == 0) {
            sc_list_page_free(&p);
            c->pc = 10;
            break;
        }
        /* getCommitInfoByCommitGroup: group by id, EXPIRED-HINT ignored */
        char groups[16][64];
        int sizes[16] = {0}, ngroups = 0;
        int64_t latest = 0;
        for (size_t i = 0; i < p.count; i++) {
            sc_object_info info;
            cr_assert_eq(sc_store_head(c->s, &info, p.keys[i]), 0);
            if (info.mtime_ms > latest) latest = info.mtime_ms;
            const char *name = p.keys[i] + strlen(dir);
            if (strcmp(name, "EXPIRED-HINT.txt") == 0) continue;
            if (strncmp(name, "PRE_COMMIT-", 11) == 0) name += 11;
            int g = 0;
            while (g < ngroups && strcmp(groups[g], name) != 0) g++;
            if (g == ngroups) snprintf(groups[ngroups++], 64, "%s", name);
            sizes[g]++;
        }
        sc_list_page_free(&p);
        int singles = 0;
        for (int g = 0; g < ngroups; g++) singles += sizes[g] == 1;
        if (singles == ngroups && ngroups > 1) {
            c->pc = 9; /* write EXPIRED-HINT, then fail */
            break;
        }
        if (sc_now_ms() + c->skew_ms - latest > SEED_TTL_MS) {
            if (ngroups == 1) {
                /* groupedCommitInfo.get(commitFileName).size(): our own id is never in the map */
                seed_fail(c, "NullPointerException in the helper branch");
                break;
            }
            c->pc = 9;
            break;
        }
        seed_fail(c, "Directory not empty!");
        break;
    }
    case 9:
        snprintf(key, sizeof key, "%sEXPIRED-HINT.txt", dir);
        seed_put(c, key, "EXPIRED!");
        seed_fail(c, "Multiple clients detected / expired");
        break;
    case 10: /* Phase 1 */
        snprintf(key, sizeof key, "%sPRE_COMMIT-%s.txt", dir, c->id);
        seed_put(c, key, "pre");
        c->pc = 11;
        break;
    case 11:
    case 13: { /* Phase 1.5 / Phase 4: nothing but our own files */
        sc_list_page p;
        cr_assert_eq(sc_store_list_all(c->s, &p, dir), 0);
        int foreign = 0;
        for (size_t i = 0; i < p.count; i++) {
            const char *name = p.keys[i] + strlen(dir);
            const char *id = strncmp(name, "PRE_COMMIT-", 11) == 0 ? name + 11 : name;
            if (strncmp(id, c->id, SC_UUID_TEXT_LEN) != 0 || (c->pc == 11 && id == name)) foreign = 1;
        }
        sc_list_page_free(&p);
        if (foreign) seed_fail(c, "ConcurrentModificationException");
        else c->pc++;
        break;
    }
    case 12: /* Phase 3: the commit file */
        snprintf(key, sizeof key, "%s%s.txt", dir, c->id);
        seed_put(c, key, c->id);
        c->pc = 13;
        break;
    case 14: /* Phase 5: plain overwrite of the hint */
        snprintf(key, sizeof key, "seed/commit/%llu/sub-hint/COMMIT-HINT.txt", (unsigned long long)c->v);
        snprintf(text, sizeof text, "%s.txt@%llu", c->id, (unsigned long long)c->sub);
        seed_put(c, key, text);
        c->result = 1;
        break;
    default:
        cr_assert_fail("bad pc %d", c->pc);
    }
}

static void seed_run_until(seed_client *c, int pc) {
    while (!c->result && c->pc != pc) seed_step(c);
}

/* The reader of the seed: what version 2 resolves to ("<id>.txt@<s>"). */
static void seed_hint(char *out, size_t cap, const char *store, uint64_t v) {
    sc_store *s;
    char loc[64], key[128];
    snprintf(loc, sizeof loc, "mem://%s", store);
    cr_assert_eq(sc_store_open(&s, loc), 0);
    snprintf(key, sizeof key, "seed/commit/%llu/sub-hint/COMMIT-HINT.txt", (unsigned long long)v);
    uint8_t *data;
    size_t len;
    cr_assert_eq(sc_store_get(s, &data, &len, NULL, key), 0);
    snprintf(out, cap, "%.*s", (int)len, (const char *)data);
    free(data);
    sc_store_free(s);
}

/*
 * Seed 000 as written loses a commit: A passes both checks of version 2, then
 * stalls before its COMMIT-HINT; C's PRE_COMMIT lands after A's final check;
 * B's clock runs TTL ahead of the storage (or, equally, B looks after A has
 * stalled for a TTL): B expires sub-version 0, B' wins sub-version 1 and
 * writes the hint; A wakes and overwrites it. A and B' both reported success,
 * readers see only A: B''s commit is lost.
 */
Test(tracker, seed_as_written_loses_a_commit) {
    sc_mem_store_reset("tr-seed");
    seed_client setup, a, b, b2, c;
    seed_init(&setup, "tr-seed", 0);
    setup.v = 1;
    seed_put(&setup, "seed/tracker/1.txt", "1");
    seed_put(&setup, "seed/commit/1/sub-hint/COMMIT-HINT.txt", "x.txt@0");
    seed_init(&a, "tr-seed", 0);
    seed_init(&c, "tr-seed", 0);
    seed_run_until(&a, 10);
    seed_run_until(&c, 10); /* C found sub-version 0 empty too */
    cr_assert_eq(a.v, 2);
    seed_step(&a);          /* PRE_COMMIT-A */
    seed_step(&a);          /* first check: alone */
    seed_step(&a);          /* commit file A */
    seed_step(&a);          /* final check: alone */
    cr_assert_eq(a.pc, 14, "A passed both checks (%s)", a.why);
    seed_run_until(&c, 99); /* PRE_COMMIT-C lands, C sees A and fails */
    cr_assert_eq(c.result, -1);
    seed_init(&b, "tr-seed", SEED_TTL_MS + 1000); /* clock skew, or a TTL later */
    seed_run_until(&b, 99);
    cr_assert_eq(b.result, -1, "B expires sub-version 0 (%s)", b.why);
    seed_init(&b2, "tr-seed", 0); /* B's retry */
    seed_run_until(&b2, 99);
    cr_assert_eq(b2.result, 1, "B' commits version 2 in sub-version 1 (%s)", b2.why);
    cr_assert_eq(b2.v, 2);
    seed_run_until(&a, 99); /* A wakes and overwrites the hint */
    cr_assert_eq(a.result, 1);
    char hint[128], mine[128];
    seed_hint(hint, sizeof hint, "tr-seed", 2);
    snprintf(mine, sizeof mine, "%s.txt@1", b2.id);
    cr_assert_str_neq(hint, mine, "B' reported success but version 2 now names A: B''s commit is lost");
    fprintf(stderr, "seed 000 as written: A and B' both committed version 2; the hint names %s; B' (%s) is lost\n", hint, b2.id);
    sc_store_free(setup.s);
    sc_store_free(a.s);
    sc_store_free(b.s);
    sc_store_free(b2.s);
    sc_store_free(c.s);
}

/* Seed 000 as written never recovers from a writer that died after PRE_COMMIT:
 * the stale single group takes the helper branch, whose lookup of the
 * caller's own id fails, so nobody ever writes EXPIRED-HINT. */
Test(tracker, seed_as_written_blocks_forever_after_a_crash) {
    sc_mem_store_reset("tr-seed2");
    seed_client setup, dead, b;
    seed_init(&setup, "tr-seed2", 0);
    seed_put(&setup, "seed/tracker/1.txt", "1");
    seed_put(&setup, "seed/commit/1/sub-hint/COMMIT-HINT.txt", "x.txt@0");
    seed_init(&dead, "tr-seed2", 0);
    seed_run_until(&dead, 11); /* PRE_COMMIT written, then the process dies */
    for (int i = 0; i < 5; i++) {
        seed_init(&b, "tr-seed2", (int64_t)(i + 1) * SEED_TTL_MS + 1000); /* ever later */
        seed_run_until(&b, 99);
        cr_assert_eq(b.result, -1);
        cr_assert_str_eq(b.why, "NullPointerException in the helper branch");
        sc_store_free(b.s);
    }
    sc_store_free(setup.s);
    sc_store_free(dead.s);
}

/* The same schedule against our tracker: A passed its checks and stalls before
 * its hint for more than a TTL; a late PRE_COMMIT lands next to its pair; B
 * commits meanwhile. B publishes A's pair (publishable: it landed within the
 * fence) and takes the next version; A's hint write finds the same hint. */
typedef struct ours_ctx {
    int sub_lists;
    int fired;
    char dir[128];
    uint64_t b_id;
    int b_rc;
} ours_ctx;

static int ours_hook(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    ours_ctx *c = p;
    int s = step_of(op, key, &c->sub_lists);
    if (s == STEP_FIRST_LIST) snprintf(c->dir, sizeof c->dir, "%s", key);
    if (s != STEP_HINT_PUT || c->fired) return 0;
    c->fired = 1;
    sc_store *late;
    cr_assert_eq(sc_store_open(&late, "mem://tr-ours"), 0);
    char pre[256];
    snprintf(pre, sizeof pre, "%sPRE_COMMIT-0b5e7e5e-0000-4000-8000-00000000000c", c->dir);
    cr_assert_eq(sc_store_put(late, NULL, pre, (const uint8_t *)"c", 1), 0);
    sc_store_free(late);
    sc_sleep_ms(TEST_TTL_MS + 50); /* A is stalled for more than a TTL */
    sc_table *b = open_handle("tr-ours", TEST_TTL_MS);
    sc_commit_result r;
    c->b_rc = tu_commit_one(&r, b, "B", 1);
    c->b_id = r.snapshot_id;
    sc_table_free(b);
    return 0;
}

Test(tracker, seed_schedule_against_ours_loses_nothing) {
    sc_table *t = short_ttl_table("tr-ours");
    cr_assert_eq(tu_commit_one(NULL, t, "setup", 1), 0);
    ours_ctx c = {0};
    sc_store_set_fault_hook(sc_table_store(t), ours_hook, &c);
    sc_commit_result r;
    int rc = tu_commit_one(&r, t, "A", 1);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert(c.fired);
    cr_assert_eq(rc, 0, "%s", sc_error_message());
    cr_assert_eq(c.b_rc, 0);
    cr_assert_eq(r.snapshot_id, 2);
    cr_assert_eq(c.b_id, 3);
    check_history(t, 3);
    sc_table_free(t);
}

/* ---- a store with nothing but PUT/GET/LIST (no conditional create, no mtime in put answers, like S3) ---- */

static const sc_store_ops *mem_ops_ref;
static sc_store_ops plain_ops;

static int plain_put(void *self, sc_object_info *info, const char *key, const uint8_t *data, size_t len) {
    int rc = mem_ops_ref->put(self, info, key, data, len);
    if (info) info->mtime_ms = 0; /* an S3 PUT answer carries no Last-Modified */
    return rc;
}

static int plain_refuse(void *self, sc_object_info *info, const char *key, const uint8_t *data, size_t len) {
    (void)self;
    (void)info;
    (void)data;
    (void)len;
    return sc_error_set(SC_EUNSUPPORTED, "plain store: no conditional create (%s)", key);
}

/* Called once on the main thread before any racer starts: the ops table is then only read. */
static sc_store *plain_store(const char *name) {
    void *self;
    const sc_store_ops *ops;
    cr_assert_eq(sc_mem_store_create(&ops, &self, name), 0);
    if (plain_ops.version == 0) {
        mem_ops_ref = ops;
        plain_ops = *ops;
        plain_ops.name = "plain";
        plain_ops.caps = SC_CAP_LIST_AFTER_WRITE;
        plain_ops.put = plain_put;
        plain_ops.put_if_absent = plain_refuse;
        plain_ops.put_if_match = NULL;
    }
    sc_store *s;
    cr_assert_eq(sc_store_wrap(&s, &plain_ops, self), 0);
    return s;
}

/* Another writer (`user`, identifier 1) commits once on a plain store over mem `name`, from
 * inside a fault hook: its outcome into *rc, *id and err. */
static void commit_once_elsewhere(const char *name, const char *user, int *rc, uint64_t *id, char *err,
                                  size_t cap) {
    sc_store *st = plain_store(name);
    sc_table *t;
    cr_assert_eq(sc_table_open(&t, st), 0, "%s", sc_error_message());
    tu_fast_retries(t, 1000, 20);
    sc_commit_result r;
    *rc = tu_commit_one(&r, t, user, 1);
    *id = r.snapshot_id;
    snprintf(err, cap, "%s", sc_error_message());
    sc_table_free(t);
    sc_store_free(st);
}

static void *plain_racer(void *arg) {
    racer *w = arg;
    sc_store *s = plain_store("tr-plain");
    sc_table *t;
    if (sc_table_open(&t, s) != 0) {
        w->failures++;
        snprintf(w->error, sizeof w->error, "%s", sc_error_message());
        sc_store_free(s);
        return NULL;
    }
    tu_fast_retries(t, 100000, 20);
    char user[16];
    snprintf(user, sizeof user, "p%d", w->index);
    for (int i = 1; i <= 10; i++) {
        sc_commit_result r;
        int rc = tu_commit_one(&r, t, user, i);
        w->lost += r.lost_claims;
        if (rc) {
            w->failures++;
            snprintf(w->error, sizeof w->error, "%s#%d: %s", user, i, sc_error_message());
        }
    }
    sc_table_free(t);
    sc_store_free(s);
    return NULL;
}

Test(tracker, put_get_list_only_store) {
    /* The racers below wrap their own store (no configuration to carry a TTL): the
     * environment's default gives them the short one. Set before any thread starts. */
    char ttl[32];
    snprintf(ttl, sizeof ttl, "%d", TEST_TTL_MS);
    cr_assert_eq(setenv("SNAPCOMMIT_TRACKER_TTL_MS", ttl, 1), 0);
    sc_mem_store_reset("tr-plain");
    sc_store *s = plain_store("tr-plain");
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), SC_EUNSUPPORTED, "table creation itself needs a conditional create");
    /* Create the table through a capable handle; the claims then run on the plain one. */
    sc_store *m;
    cr_assert_eq(sc_store_open(&m, "mem://tr-plain"), 0);
    cr_assert_eq(tu_create(m, SC_STRATEGY_TRACKER), 0, "%s", sc_error_message());
    sc_store_free(m);
    sc_table *t;
    cr_assert_eq(sc_table_open(&t, s), 0, "%s", sc_error_message());
    cr_assert_eq(sc_strategy_choose(sc_store_caps(s)), SC_STRATEGY_TRACKER);
    sc_commit_result r;
    for (int i = 1; i <= 3; i++) cr_assert_eq(tu_commit_one(&r, t, "solo", i), 0, "%s", sc_error_message());
    fprintf(stderr, "tracker uncontended commit (PUT/GET/LIST-only store): GET %llu HEAD %llu PUT %llu LIST %llu\n",
            (unsigned long long)r.stats.ops[SC_OP_GET], (unsigned long long)r.stats.ops[SC_OP_HEAD],
            (unsigned long long)r.stats.ops[SC_OP_PUT], (unsigned long long)r.stats.ops[SC_OP_LIST]);
    cr_assert_eq(r.stats.ops[SC_OP_HEAD], 4, "the mtimes of PRE_COMMIT and the commit file; publication's predecessor; "
                                             "the next schema");
    cr_assert_eq(r.stats.ops[SC_OP_PUT_IF_ABSENT], 0, "publication too uses plain puts on this store");
    cr_assert_eq(tu_count_keys("tr-plain", "snapshot/snapshot-", NULL), 3);
    sc_table_free(t);
    pthread_t th[4];
    racer w[4];
    for (int i = 0; i < 4; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].index = i + 1;
        cr_assert_eq(pthread_create(&th[i], NULL, plain_racer, &w[i]), 0);
    }
    int lost = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        cr_assert_eq(w[i].failures, 0, "%s", w[i].error);
        lost += w[i].lost;
    }
    cr_assert_eq(sc_table_open(&t, s), 0);
    check_history(t, 43);
    fprintf(stderr, "tracker race on a PUT/GET/LIST-only store: 4 threads x 10 commits + 3, contiguous, each once; %d lost claims\n", lost);
    sc_table_free(t);
    sc_store_free(s);
}

/* The strategy's own requests (cold handle): discovery, reading the latest snapshot, the claim. */
Test(tracker, strategy_requests_per_commit) {
    sc_table *t = tracker_table("tr-cost");
    for (int i = 1; i <= 3; i++) cr_assert_eq(tu_commit_one(NULL, t, "job", i), 0);
    sc_table_free(t);
    t = open_handle("tr-cost", 0);
    sc_store *s = sc_table_store(t);
    sc_store_stats st;
    uint64_t latest;
    uint8_t *doc;
    size_t len;
    sc_store_stats_reset(s);
    cr_assert_eq(sc_strategy_tracker.latest(t, &latest), 0);
    cr_assert_eq(latest, 3);
    cr_assert_eq(sc_strategy_tracker.read(t, &doc, &len, latest), 0);
    sc_store_stats_get(&st, s);
    fprintf(stderr, "tracker discovery + read, cold handle: LIST %llu GET %llu\n", (unsigned long long)st.ops[SC_OP_LIST],
            (unsigned long long)st.ops[SC_OP_GET]);
    cr_assert_eq(st.ops[SC_OP_LIST], 1);
    cr_assert_eq(st.ops[SC_OP_GET], 2);
    free(doc);
    sc_store_stats_reset(s);
    cr_assert_eq(sc_strategy_tracker.claim(t, 4, (const uint8_t *)"{}", 2), 0, "%s", sc_error_message());
    sc_store_stats_get(&st, s);
    fprintf(stderr, "tracker claim, uncontended: PUT %llu PUT_IF_ABSENT %llu LIST %llu GET %llu HEAD %llu\n",
            (unsigned long long)st.ops[SC_OP_PUT], (unsigned long long)st.ops[SC_OP_PUT_IF_ABSENT],
            (unsigned long long)st.ops[SC_OP_LIST], (unsigned long long)st.ops[SC_OP_GET], (unsigned long long)st.ops[SC_OP_HEAD]);
    cr_assert_eq(st.ops[SC_OP_PUT] + st.ops[SC_OP_PUT_IF_ABSENT], 4);
    cr_assert_eq(st.ops[SC_OP_LIST], 3);
    cr_assert_eq(st.ops[SC_OP_GET] + st.ops[SC_OP_HEAD], 0);
    /* Warm handle: the next discovery costs one LIST (the hint and document are cached). */
    sc_store_stats_reset(s);
    cr_assert_eq(sc_strategy_tracker.latest(t, &latest), 0);
    cr_assert_eq(latest, 4);
    cr_assert_eq(sc_strategy_tracker.read(t, &doc, &len, latest), 0);
    cr_assert_eq(len, 2);
    free(doc);
    sc_store_stats_get(&st, s);
    cr_assert_eq(st.ops[SC_OP_LIST] + st.ops[SC_OP_GET], 1);
    sc_table_free(t);
}

/* ---- chaos: stalls longer than the TTL, lost responses and failures, at random, while racing ---- */

typedef struct chaos_ctx {
    unsigned seed;
    int stalls, losses, failures;
} chaos_ctx;

static int chaos_hook(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)key;
    (void)call;
    chaos_ctx *c = p;
    c->seed = c->seed * 1103515245u + 12345u;
    unsigned r = (c->seed >> 16) % 1000;
    usleep((c->seed >> 8) % 200);
    if (r < 8) {
        c->stalls++;
        sc_sleep_ms(TEST_TTL_MS + (r % 3) * TEST_TTL_MS / 2); /* past the TTL, before the request reaches the store */
        return 0;
    }
    if (r < 20 && op != SC_OP_GET && op != SC_OP_HEAD) {
        c->losses++;
        return SC_FAULT_LOSE_RESPONSE;
    }
    if (r < 28) {
        c->failures++;
        return SC_EIO;
    }
    return 0;
}

typedef struct chaos_racer {
    int index, commits;
    chaos_ctx ctx;
    int errors, unknown, retries_of_same;
    char error[256];
} chaos_racer;

static void *chaos_body(void *arg) {
    chaos_racer *w = arg;
    sc_table *t = NULL;
    if (open_with_ttl(&t, "mem://tr-chaos", TEST_TTL_MS) != 0) {
        w->errors++;
        return NULL;
    }
    tu_fast_retries(t, 100000, 20);
    w->ctx.seed = (unsigned)w->index * 104729u;
    sc_store_set_fault_hook(sc_table_store(t), chaos_hook, &w->ctx);
    char user[16];
    snprintf(user, sizeof user, "c%d", w->index);
    for (int i = 1; i <= w->commits; i++) {
        /* Like a committer after a failure: retry the same identifier until it is known committed. */
        for (int tries = 0;; tries++) {
            sc_commit_result r;
            int rc = tu_commit_one(&r, t, user, i);
            if (rc == 0 || rc == SC_ECOMMITTED) break;
            if (rc == SC_EUNKNOWN) w->unknown++;
            w->retries_of_same++;
            if (tries > 200) {
                w->errors++;
                snprintf(w->error, sizeof w->error, "%s#%d: %s", user, i, sc_error_message());
                break;
            }
        }
    }
    sc_table_free(t);
    return NULL;
}

Test(tracker, chaos_race_exactly_once, .timeout = 300) {
    sc_table *t = tracker_table("tr-chaos");
    enum { N = 6, C = 15 };
    pthread_t th[N];
    chaos_racer w[N];
    for (int i = 0; i < N; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].index = i + 1;
        w[i].commits = C;
        cr_assert_eq(pthread_create(&th[i], NULL, chaos_body, &w[i]), 0);
    }
    int stalls = 0, losses = 0, failures = 0, unknown = 0, again = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        cr_assert_eq(w[i].errors, 0, "%s", w[i].error);
        stalls += w[i].ctx.stalls;
        losses += w[i].ctx.losses;
        failures += w[i].ctx.failures;
        unknown += w[i].unknown;
        again += w[i].retries_of_same;
    }
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    check_history(t, N * C);
    fprintf(stderr, "tracker chaos: %d threads x %d commits, contiguous, each once; injected %d stalls > TTL, %d lost responses, %d failures; "
                    "%d commits retried by the caller (%d after SC_EUNKNOWN); %d expired sub-versions\n",
            N, C, stalls, losses, failures, again, unknown, tu_count_keys("tr-chaos", "commit/", "EXPIRED-HINT"));
    sc_table_free(t);
}

/* ---- unknown outcomes: a commit file whose fate the writer cannot see ---- */

typedef struct blind_ctx {
    int sub_lists;
    int phase;   /* 0 before the commit file, 1 after it */
    int outage;  /* fail everything after the commit file (storage unreachable) */
} blind_ctx;

static int blind_hook(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    blind_ctx *c = p;
    int s = step_of(op, key, &c->sub_lists);
    if (c->phase == 0 && s == STEP_FILE_PUT) {
        c->phase = 1;
        return SC_FAULT_LOSE_RESPONSE; /* written, answer lost */
    }
    if (c->phase == 1 && op == SC_OP_HEAD && strstr(key, "/COMMIT-")) {
        c->phase = 2;
        return SC_EIO; /* ... and the look that would tell fails too */
    }
    if (c->phase >= 2 && c->outage) return SC_ETRANSIENT;
    return 0;
}

Test(tracker, unknown_outcome_is_reconciled_by_reading_back) {
    sc_table *t = tracker_table("tr-blind");
    cr_assert_eq(tu_commit_one(NULL, t, "job", 1), 0);
    blind_ctx c = {0};
    sc_store_set_fault_hook(sc_table_store(t), blind_hook, &c);
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, t, "job", 2), 0, "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(r.snapshot_id, 2);
    cr_assert_eq(r.unknown_outcomes, 1);
    cr_assert_geq(r.attempts, 2, "the next attempt published its own pair, then read it back");
    check_history(t, 2);
    sc_table_free(t);
}

Test(tracker, unknown_outcome_is_reconciled_by_the_watermark) {
    sc_table *t = tracker_table("tr-blind2");
    tu_fast_retries(t, 3, 20);
    cr_assert_eq(tu_commit_one(NULL, t, "job", 1), 0);
    blind_ctx c = {0, 0, 1};
    sc_store_set_fault_hook(sc_table_store(t), blind_hook, &c);
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, t, "job", 2), SC_EUNKNOWN, "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    /* Storage is back. Another writer commits: it publishes job#2 first (a publishable pair). */
    sc_table *b = open_handle("tr-blind2", 0);
    cr_assert_eq(tu_commit_one(&r, b, "other", 1), 0, "%s", sc_error_message());
    cr_assert_eq(r.snapshot_id, 3);
    /* The failed-over committer asks the watermark instead of retrying blindly. */
    int64_t last;
    int found;
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "job"), 0);
    cr_assert(found);
    cr_assert_eq(last, 2);
    cr_assert_eq(tu_commit_one(&r, t, "job", 2), SC_ECOMMITTED);
    check_history(t, 3);
    sc_table_free(b);
    sc_table_free(t);
}

/* ---- a PRE_COMMIT withdrawn while a newcomer judges the directory is not a stale one ---- */

/*
 * E (a fresh handle: no storage-time anchor, so no cheap check) finds sub-version 1 of
 * version 2 holding PRE_COMMIT-X alone, writes its probe and lists it. X withdraws its
 * PRE_COMMIT (it lost to someone), and Y, finding the version empty, claims it, writes its
 * commit file and its COMMIT-HINT, all before E's HEAD of PRE_COMMIT-X. An absent
 * PRE_COMMIT is no proof of an attempt older than T: its owner withdrew it within F of
 * sending it, i.e. recently. Read as stale, E expired the directory that held Y's
 * publishable pair, won sub-version 2 and overwrote Y's hint on a store without
 * conditional create: two snapshot documents for version 2, Y's acknowledged commit lost
 * (the S3 race's "parent hash does not match" once someone built version 3 on Y's).
 */
#define WD_STORE "tr-withdrawn"
#define WD_X "0b5e7e5e-0000-4000-8000-0000000000a1"

typedef struct withdrawn_ctx {
    int fired;
    int y_rc;
    uint64_t y_id;
    char y_error[256];
} withdrawn_ctx;

static int withdrawn_hook(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    withdrawn_ctx *c = p;
    if (c->fired || op != SC_OP_HEAD || !strstr(key, "/PRE_COMMIT-" WD_X)) return 0;
    c->fired = 1;
    sc_store *raw;
    cr_assert_eq(sc_store_open(&raw, "mem://" WD_STORE), 0);
    cr_assert_eq(sc_store_delete(raw, key), 0, "X withdraws %s", key);
    sc_store_free(raw);
    commit_once_elsewhere(WD_STORE, "Y", &c->y_rc, &c->y_id, c->y_error, sizeof c->y_error);
    return 0;
}

Test(tracker, withdrawn_pre_commit_is_not_stale) {
    sc_mem_store_reset(WD_STORE);
    sc_store *m;
    cr_assert_eq(sc_store_open(&m, "mem://" WD_STORE), 0);
    cr_assert_eq(tu_create(m, SC_STRATEGY_TRACKER), 0, "%s", sc_error_message());
    sc_table *setup;
    cr_assert_eq(sc_table_open(&setup, m), 0, "%s", sc_error_message());
    cr_assert_eq(tu_commit_one(NULL, setup, "setup", 1), 0, "%s", sc_error_message());
    sc_table_free(setup);
    /* X started version 2 and wrote its PRE_COMMIT in sub-version 1. */
    char key[160];
    snprintf(key, sizeof key, "tracker/%020" PRIu64, UINT64_MAX - 2);
    cr_assert_eq(sc_store_put(m, NULL, key, (const uint8_t *)"2\n", 2), 0);
    snprintf(key, sizeof key, "commit/%020d/%020d/PRE_COMMIT-" WD_X, 2, 1);
    cr_assert_eq(sc_store_put(m, NULL, key, (const uint8_t *)WD_X, strlen(WD_X)), 0);
    sc_store_free(m);

    sc_store *es = plain_store(WD_STORE);
    sc_table *e;
    cr_assert_eq(sc_table_open(&e, es), 0, "%s", sc_error_message());
    tu_fast_retries(e, 1000, 20);
    withdrawn_ctx c = {0};
    sc_store_set_fault_hook(es, withdrawn_hook, &c);
    sc_commit_result r;
    int rc = tu_commit_one(&r, e, "E", 1);
    sc_store_set_fault_hook(es, NULL, NULL);
    cr_assert(c.fired, "E never looked at PRE_COMMIT-X");
    cr_assert_eq(c.y_rc, 0, "Y: %s", c.y_error);
    cr_assert_eq(c.y_id, 2);
    cr_assert_eq(rc, 0, "E: %s", sc_error_message());
    cr_assert_eq(r.snapshot_id, 3, "E took version %llu, which Y had won", (unsigned long long)r.snapshot_id);
    check_history(e, 3);
    sc_table_free(e);
    sc_store_free(es);
}

/* ---- a plain store whose transport sends a plain put twice, as S3's does after a lost answer
 * (the answered copy lands at once, the first one when the test lets it), and put_once once ---- */

#define RS_STORE "tr-resend"
#define RS_HELD 32

/* First copies of the protocol's plain puts under commit/, still in flight. Only the thread
 * that commits through the resending store touches them. */
static struct {
    char key[160];
    uint8_t *data;
    size_t len;
} rs_held[RS_HELD];
static int rs_nheld;

static int resending_put(void *self, sc_object_info *info, const char *key, const uint8_t *data,
                         size_t len) {
    int rc = plain_put(self, info, key, data, len);
    if (rc == 0 && strncmp(key, "commit/", 7) == 0 && rs_nheld < RS_HELD) {
        snprintf(rs_held[rs_nheld].key, sizeof rs_held[rs_nheld].key, "%s", key);
        rs_held[rs_nheld].data = malloc(len ? len : 1);
        cr_assert_not_null(rs_held[rs_nheld].data);
        if (len) memcpy(rs_held[rs_nheld].data, data, len);
        rs_held[rs_nheld++].len = len;
    }
    return rc;
}

/* Land the held first copy of every key starting with `prefix` (a later mtime, same bytes). */
static int land_held(sc_store *raw, const char *prefix) {
    int landed = 0;
    for (int i = 0; i < rs_nheld; i++)
        if (strncmp(rs_held[i].key, prefix, strlen(prefix)) == 0) {
            cr_assert_eq(sc_store_put(raw, NULL, rs_held[i].key, rs_held[i].data, rs_held[i].len), 0);
            landed++;
        }
    return landed;
}

static void free_held(void) {
    for (int i = 0; i < rs_nheld; i++) free(rs_held[i].data);
    rs_nheld = 0;
}

static sc_store *resending_store(const char *name) {
    sc_store_free(plain_store(name)); /* fills plain_ops */
    static sc_store_ops ops;
    ops = plain_ops;
    ops.name = "resending";
    ops.put = resending_put;
    ops.put_once = plain_put; /* one send: nothing held back */
    void *self;
    const sc_store_ops *mem;
    cr_assert_eq(sc_mem_store_create(&mem, &self, name), 0);
    sc_store *s;
    cr_assert_eq(sc_store_wrap(&s, &ops, self), 0);
    return s;
}

/* O judged its pair publishable and stalls past T before its hint; the first copy of its commit
 * file lands then, if its transport sent one. E commits meanwhile. */
typedef struct restamp_ctx {
    int fired;
    int landed;
    int e_rc;
    uint64_t e_id;
    char e_error[256];
} restamp_ctx;

static int restamp_hook(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    restamp_ctx *c = p;
    if (c->fired || op != SC_OP_PUT || !strstr(key, "/COMMIT-HINT")) return 0;
    c->fired = 1;
    sc_sleep_ms(TEST_TTL_MS + 100); /* O stalls before its hint for more than T */
    sc_store *raw;
    cr_assert_eq(sc_store_open(&raw, "mem://" RS_STORE), 0);
    char prefix[128];
    snprintf(prefix, sizeof prefix, "commit/%020d/%020d/COMMIT-", 2, 1);
    c->landed = land_held(raw, prefix);
    sc_store_free(raw);
    commit_once_elsewhere(RS_STORE, "E", &c->e_rc, &c->e_id, c->e_error, sizeof c->e_error);
    return 0;
}

/* A review's schedule (docs/tracker.md §8): a late first copy of a resent commit file re-stamps
 * it dead after its owner judged it publishable; E expires the directory and wins the version,
 * and O's plain-put hint replaces E's: two acknowledged commits at one snapshot. With the
 * PRE_COMMIT and the commit file sent once there is no such copy: E helps O and takes 3. */
Test(tracker, restamped_commit_file_cannot_happen_with_put_once) {
    char ttl[32];
    snprintf(ttl, sizeof ttl, "%d", TEST_TTL_MS);
    cr_assert_eq(setenv("SNAPCOMMIT_TRACKER_TTL_MS", ttl, 1), 0);
    sc_mem_store_reset(RS_STORE);
    sc_store *m;
    cr_assert_eq(sc_store_open(&m, "mem://" RS_STORE), 0);
    cr_assert_eq(tu_create(m, SC_STRATEGY_TRACKER), 0, "%s", sc_error_message());
    sc_table *setup;
    cr_assert_eq(sc_table_open(&setup, m), 0, "%s", sc_error_message());
    cr_assert_eq(tu_commit_one(NULL, setup, "setup", 1), 0, "%s", sc_error_message());
    sc_table_free(setup);
    sc_store_free(m);

    sc_store *os = resending_store(RS_STORE);
    sc_table *o;
    cr_assert_eq(sc_table_open(&o, os), 0, "%s", sc_error_message());
    tu_fast_retries(o, 1000, 20);
    restamp_ctx c = {0};
    sc_store_set_fault_hook(os, restamp_hook, &c);
    sc_commit_result r;
    int rc = tu_commit_one(&r, o, "O", 1);
    sc_store_set_fault_hook(os, NULL, NULL);
    cr_assert(c.fired, "O never wrote its hint");
    cr_assert_eq(c.e_rc, 0, "E: %s", c.e_error);
    cr_assert_eq(rc, 0, "O: %s", sc_error_message());
    cr_assert_neq(r.snapshot_id, c.e_id, "O and E both acknowledged at snapshot %llu (%d late copies of O's "
                  "commit file landed)", (unsigned long long)c.e_id, c.landed);
    cr_assert_eq(r.snapshot_id, 2);
    cr_assert_eq(c.e_id, 3);
    check_history(o, 3);
    free_held();
    sc_table_free(o);
    sc_store_free(os);
}
