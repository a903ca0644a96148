/*
 * Store conformance: one suite, every case against every backend.
 *
 * STORE_CASE(name) defines the case body once and registers one Criterion
 * test per entry of `backends`, each on a fresh, empty location: a mkdtemp
 * directory for posix, a uniquely named mem store, a fresh prefix in the
 * bucket of each S3 test server (gofakes3, moto). Cases that depend on a
 * capability assert what the backend claims instead of skipping silently.
 *
 * The S3 entries need scripts/s3-servers.sh start and its environment
 * (eval "$(scripts/s3-servers.sh env)"); without it they FAIL and say so.
 *
 * ATOMIC_STORE_CASE(name) marks a case that assumes conditional writes are
 * atomic (exactly one winner of a race). It runs on the backends that are;
 * on the others (moto checks the condition and writes in separate steps) it
 * is reported as skipped, with the reason, never as passed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/clock.h"
#include "base/env_internal.h"
#include "snapcommit/error.h"
#include "snapcommit/store.h"
#include "snapcommit/table.h"
#include "store/store_backends.h"
#include "store/store_batch.h"
#include "store/store_internal.h"
#include "s3/store_s3.h"

#include "sc_test_assert.h"
#include "sc_test_s3.h"
#include "sc_test_store.h"

/* ---- backends under test ---- */

typedef struct fixture fixture;

typedef struct backend {
    const char *name;
    uint32_t caps; /* exactly what the backend must claim */
    void (*setup)(fixture *fx);
    void (*teardown)(fixture *fx);
    /* posix: leave files as a crashed writer would (NULL when the backend has none). */
    void (*plant_debris)(fixture *fx);
    /* posix: temp files on disk that are not from plant_debris. */
    int (*count_debris)(fixture *fx);
    /* Conditional writes are atomic: of racing writers exactly one wins. */
    int atomic;
    const char *not_atomic_why; /* said in the output where ATOMIC_STORE_CASEs do not run */
    /* The etag is a hash of the bytes (S3's MD5), not a version: the same bytes keep it. */
    int etag_is_content_hash;
    /* How far mtime may stray from the test's clock (file systems tick coarsely, S3 in seconds). */
    int64_t mtime_slack_ms;
    /* gofakes3 may set IsTruncated on a full last page (see check_truncated). */
    int truncated_may_overreport;
    /* What the message of a get of the missing key "missing" must say, besides the code. */
    const char *const *not_found_says;
} backend;

struct fixture {
    const backend *backend;
    char location[256]; /* for sc_store_open */
    char root[128];     /* posix: the directory; mem: the store name; s3: unused */
    sc_store *store;
    const char *missing; /* s3: the server variable that is not set, reported by the test body */
};

static void posix_setup(fixture *fx) {
    snprintf(fx->root, sizeof fx->root, "/tmp/sc-store-test-XXXXXX");
    cr_assert_not_null(mkdtemp(fx->root), "mkdtemp: %s", strerror(errno));
    snprintf(fx->location, sizeof fx->location, "%s", fx->root);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void posix_teardown(fixture *fx) { nftw(fx->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

/* Debris is named ".tmp-planted..." so count_debris can tell it from leaks of the store itself. */
static void posix_plant_debris(fixture *fx) {
    static const char *const dirs[] = {"d", "d/.tmp-planted-dir"};
    static const char *const files[] = {".tmp-planted", "d/.tmp-planted-0123456789abcdef",
                                        "d/.tmp-planted-dir/inside"};
    char path[512];
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(path, sizeof path, "%s/%s", fx->root, dirs[i]);
        cr_assert_eq(mkdir(path, 0777), 0, "%s: %s", path, strerror(errno));
    }
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", fx->root, files[i]);
        write_file(path, "debris");
    }
}

static int debris_found;

static int count_tmp(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag;
    const char *name = path + ftw->base;
    if (strncmp(name, ".tmp-", 5) == 0 && strncmp(name, ".tmp-planted", 12) != 0) debris_found++;
    return 0;
}

static int posix_count_debris(fixture *fx) {
    debris_found = 0;
    cr_assert_eq(nftw(fx->root, count_tmp, 16, FTW_PHYS), 0);
    return debris_found;
}

static void mem_setup(fixture *fx) {
    static int serial;
    snprintf(fx->root, sizeof fx->root, "conformance-%ld-%d", (long)getpid(), ++serial);
    snprintf(fx->location, sizeof fx->location, "mem://%s", fx->root);
}

static void mem_teardown(fixture *fx) { sc_mem_store_reset(fx->root); }

/* A prefix no other test uses, in the servers' bucket; a set-up that asserts would read as a
 * crash, so a missing variable is left for the test body to report. */
static void s3_setup(fixture *fx, tu_s3_server which) {
    if ((fx->missing = tu_s3_missing_var()) != NULL) return;
    tu_s3_use_server(which);
    uint8_t rnd[6];
    char hex[13];
    OK(sc_random_bytes(rnd, sizeof rnd));
    sc_hex_encode(hex, rnd, sizeof rnd);
    snprintf(fx->location, sizeof fx->location, "s3://%s/sc-conformance-%s/table",
             getenv("SC_S3_BUCKET"), hex);
}

static void gofakes3_setup(fixture *fx) { s3_setup(fx, TU_GOFAKES3); }
static void moto_setup(fixture *fx) { s3_setup(fx, TU_MOTO); }

/* What a case wrote stays under its fresh prefix, as in test_store_s3.c: deleting thousands of
 * keys makes moto fail LISTs that run meanwhile (HTTP 500), breaking other users of the servers. */
static void s3_teardown(fixture *fx) { (void)fx; }

static const char *const s3_not_found_says[] = {"NoSuchKey", "/table/missing", NULL};

#define S3_CAPS \
    (SC_CAP_CONDITIONAL_CREATE | SC_CAP_COMPARE_AND_SWAP | SC_CAP_LIST_AFTER_WRITE | SC_CAP_DURABLE | SC_CAP_CONCURRENT)

static const backend backends[] = {
    {"posix", SC_CAP_ATOMIC_NOREPLACE | SC_CAP_LIST_AFTER_WRITE | SC_CAP_DURABLE, posix_setup,
     posix_teardown, posix_plant_debris, posix_count_debris, .atomic = 1, .mtime_slack_ms = 1000},
    {"mem",
     SC_CAP_ATOMIC_NOREPLACE | SC_CAP_CONDITIONAL_CREATE | SC_CAP_COMPARE_AND_SWAP |
         SC_CAP_LIST_AFTER_WRITE | SC_CAP_DURABLE,
     mem_setup, mem_teardown, NULL, NULL, .atomic = 1, .mtime_slack_ms = 1000},
    {"s3", S3_CAPS, gofakes3_setup, s3_teardown, NULL, NULL, .atomic = 1,
     .etag_is_content_hash = 1, .mtime_slack_ms = 2000, .truncated_may_overreport = 1,
     .not_found_says = s3_not_found_says},
    {"s3", S3_CAPS, moto_setup, s3_teardown, NULL, NULL, .atomic = 0,
     .not_atomic_why = "moto checks a write's condition and applies it in separate steps, "
                       "so racing conditional writes may all win",
     .etag_is_content_hash = 1, .mtime_slack_ms = 2000, .not_found_says = s3_not_found_says},
};
enum { POSIX, MEM, GOFAKES3, MOTO };

/* Each test runs in its own process, so one global fixture is enough. */
static fixture the_fixture;

static void fixture_init(const backend *b) {
    the_fixture = (fixture){.backend = b};
    list_truncated_may_overreport = b->truncated_may_overreport;
    b->setup(&the_fixture);
    if (!the_fixture.missing) OK(sc_store_open(&the_fixture.store, the_fixture.location));
}

static void fixture_fini(void) {
    sc_store_free(the_fixture.store);
    the_fixture.backend->teardown(&the_fixture);
}

static void posix_init(void) { fixture_init(&backends[POSIX]); }
static void mem_init(void) { fixture_init(&backends[MEM]); }
static void gofakes3_init(void) { fixture_init(&backends[GOFAKES3]); }
static void moto_init(void) { fixture_init(&backends[MOTO]); }

/* First thing in every case: fail, loudly, when an S3 server is not there; then the case, unless
 * it assumes atomic conditional writes the backend does not have (then skipped, saying why). */
static void run_case(void (*body)(fixture *fx), const char *name, int needs_atomic) {
    if (the_fixture.missing) cr_assert_fail(TU_S3_NOT_RUNNING, the_fixture.missing);
    if (needs_atomic && !the_fixture.backend->atomic)
        cr_skip_test("%s needs atomic conditional writes; not run on this backend: %s", name,
                     the_fixture.backend->not_atomic_why);
    body(&the_fixture);
}

#define STORE_CASE_ON(name, entry, needs_atomic)                                          \
    Test(store, name##_##entry, .init = entry##_init, .fini = fixture_fini) {             \
        run_case(case_##name, #name, needs_atomic);                                       \
    }

#define STORE_CASE_ALL(name, needs_atomic)                                                \
    static void case_##name(fixture *fx);                                                 \
    STORE_CASE_ON(name, posix, needs_atomic)                                              \
    STORE_CASE_ON(name, mem, needs_atomic)                                                \
    STORE_CASE_ON(name, gofakes3, needs_atomic)                                           \
    STORE_CASE_ON(name, moto, needs_atomic)                                               \
    static void case_##name(fixture *fx)

#define STORE_CASE(name) STORE_CASE_ALL(name, 0)
#define ATOMIC_STORE_CASE(name) STORE_CASE_ALL(name, 1)

/* ---- helpers ---- */

/* Deterministic shuffle (xorshift), so failures reproduce. */
static void shuffle(const char **items, size_t n, uint64_t seed) {
    for (size_t i = n; i > 1; i--) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        size_t j = (size_t)(seed % i);
        const char *t = items[i - 1];
        items[i - 1] = items[j];
        items[j] = t;
    }
}

/* ---- get, put, overwrite ---- */

STORE_CASE(caps_and_name) {
    cr_assert_eq(sc_store_caps(fx->store), fx->backend->caps);
    cr_assert_str_eq(sc_store_backend_name(fx->store), fx->backend->name);
}

/* A batch (store/store_batch.h) answers every call as the call alone would, whether its
 * calls went out at once (S3: one thread each) or one by one (posix, mem). */
STORE_CASE(batch_answers_as_single_calls) {
    static const char *const texts[] = {"alpha", "beta-beta"};
    OK(sc_store_put(fx->store, NULL, "batch/a", (const uint8_t *)texts[0], strlen(texts[0])));
    OK(sc_store_put(fx->store, NULL, "batch/b", (const uint8_t *)texts[1], strlen(texts[1])));
    uint64_t rounds = sc_store_rounds(fx->store);
    sc_store_stats before, after;
    sc_store_stats_get(&before, fx->store);
    sc_store_call calls[] = {
        {.op = SC_OP_GET, .key = "batch/a", .max_len = SIZE_MAX},
        {.op = SC_OP_GET, .key = "batch/b", .max_len = 4}, /* larger than accepted */
        {.op = SC_OP_HEAD, .key = "batch/b"},
        {.op = SC_OP_HEAD, .key = "batch/missing"},
        {.op = SC_OP_PUT, .key = "batch/c", .data = (const uint8_t *)"gamma", .len = 5},
        {.op = SC_OP_DELETE, .key = "batch/a"},
        {.op = SC_OP_PUT, .key = "/absolute", .data = (const uint8_t *)"x", .len = 1},
    };
    size_t n = sizeof calls / sizeof calls[0];
    OK(sc_store_batch(fx->store, NULL, calls, n));
    sc_store_stats_get(&after, fx->store);
    uint64_t spent = sc_store_rounds(fx->store) - rounds;
    /* The GET of a and the DELETE of a race in one batch: either order is an answer. */
    cr_assert(calls[0].rc == 0 || calls[0].rc == SC_ENOTFOUND, "%s", calls[0].message);
    if (calls[0].rc == 0) {
        cr_assert_eq(calls[0].out_len, strlen(texts[0]));
        cr_assert_eq(memcmp(calls[0].out_data, texts[0], calls[0].out_len), 0);
    }
    cr_assert_eq(calls[1].rc, SC_ECORRUPT, "%s", calls[1].message);
    cr_assert_null(calls[1].out_data);
    cr_assert(strstr(calls[1].message, "batch/b"), "the message names the object: %s", calls[1].message);
    cr_assert_eq(calls[2].rc, 0, "%s", calls[2].message);
    cr_assert_eq(calls[2].info.size, strlen(texts[1]));
    cr_assert_eq(calls[3].rc, SC_ENOTFOUND);
    cr_assert_eq(calls[4].rc, 0, "%s", calls[4].message);
    cr_assert_eq(calls[5].rc, 0, "%s", calls[5].message);
    cr_assert_eq(calls[6].rc, SC_EINVAL, "an invalid key is refused as a single call would be");
    /* The message travels with the call to this thread. */
    cr_assert_eq(sc_store_call_error(&calls[3]), SC_ENOTFOUND);
    cr_assert(strlen(sc_error_message()) > 0);
    for (size_t i = 0; i < n; i++) sc_store_call_clear(&calls[i]);
    uint8_t *data = NULL;
    size_t len = 0;
    OK(sc_store_get(fx->store, &data, &len, NULL, "batch/c"));
    cr_assert_eq(len, 5);
    free(data);
    FAILS(SC_ENOTFOUND, sc_store_head(fx->store, NULL, "batch/a"));
    /* Counted as single calls are; one round trip when sent at once. */
    cr_assert_eq(after.ops[SC_OP_GET] - before.ops[SC_OP_GET], 2);
    cr_assert_eq(after.ops[SC_OP_HEAD] - before.ops[SC_OP_HEAD], 2);
    cr_assert_eq(after.ops[SC_OP_PUT] - before.ops[SC_OP_PUT], 1, "the invalid key never reaches the backend");
    cr_assert_eq(after.ops[SC_OP_DELETE] - before.ops[SC_OP_DELETE], 1);
    uint64_t expect = (sc_store_caps(fx->store) & SC_CAP_CONCURRENT) ? 1 : 6;
    cr_assert_eq(spent, expect, "%llu round trips", (unsigned long long)spent);
}

STORE_CASE(get_missing) {
    uint8_t *data = (uint8_t *)"sentinel";
    size_t len = 99;
    sc_object_info info;
    FAILS(SC_ENOTFOUND, sc_store_get(fx->store, &data, &len, &info, "missing"));
    cr_assert_null(data);
    cr_assert_eq(len, 0);
    /* S3: the 404 body was read, and the message names the whole key. */
    for (const char *const *say = fx->backend->not_found_says; say && *say; say++)
        cr_assert(strstr(sc_error_message(), *say), "message lacks \"%s\": %s", *say,
                  sc_error_message());
    FAILS(SC_ENOTFOUND, sc_store_head(fx->store, &info, "missing"));
    FAILS(SC_ENOTFOUND, sc_store_get(fx->store, &data, &len, NULL, "no/such/dir/key"));
    /* A key below an object, and a "directory" of other keys, are absent too. */
    put_text(fx->store, "file", "x");
    put_text(fx->store, "dir/child", "y");
    FAILS(SC_ENOTFOUND, sc_store_get(fx->store, &data, &len, NULL, "file/below"));
    FAILS(SC_ENOTFOUND, sc_store_get(fx->store, &data, &len, NULL, "dir"));
    FAILS(SC_ENOTFOUND, sc_store_head(fx->store, &info, "dir"));
    FAILS(SC_ENOTFOUND, sc_store_head(fx->store, &info, "file/below"));
}

STORE_CASE(round_trip) {
    sc_object_info info;
    OK(sc_store_put(fx->store, &info, "small", TEXT("hello")));
    cr_assert_eq(info.size, 5);
    cr_assert_neq(info.etag[0], '\0');
    expect_text(fx->store, "small", "hello");

    OK(sc_store_put(fx->store, &info, "empty", NULL, 0));
    cr_assert_eq(info.size, 0);
    uint8_t *data = (uint8_t *)"x";
    size_t len = 1;
    OK(sc_store_get(fx->store, &data, &len, &info, "empty"));
    cr_assert_eq(len, 0);
    cr_assert_eq(info.size, 0);
    cr_assert_null(data);
    /* Keys that need escaping in a URL, a signature or a file name. */
    static const char *const odd[] = {"sp ace/plus+eq=amp&", "pct%25/dollar$/star*", "caf\xc3\xa9~",
                                      "q?h#/semi;colon:comma,", "t\xe2\x82\xac/(x)'!@"};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        put_text(fx->store, odd[i], odd[i]);
        expect_text(fx->store, odd[i], odd[i]);
        OK(sc_store_head(fx->store, &info, odd[i]));
    }

    size_t big_len = 1 << 20;
    uint8_t *big = malloc(big_len);
    for (size_t i = 0; i < big_len; i++) big[i] = (uint8_t)(i * 2654435761u >> 13);
    OK(sc_store_put(fx->store, NULL, "nested/dirs/big", big, big_len));
    expect_content(fx->store, "nested/dirs/big", big, big_len);
    free(big);
}

/* ---- bounded reads (issue 8: a 300 MB hint was read whole before its check) ---- */

/* Peak resident set of this process, in KiB. */
static long peak_rss_kib(void) {
    struct rusage ru;
    cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
    return ru.ru_maxrss;
}

/*
 * Put `len` bytes at `key` from a child process with its own handle, so that
 * this process never holds the object: its peak RSS then shows what a bounded
 * read of it costs. (Not for mem: a mem store lives in one process.)
 */
static void put_big_from_child(const char *location, const char *key, size_t len) {
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        sc_store *s = NULL;
        uint8_t *big = malloc(len);
        if (!big || sc_store_open(&s, location) != 0) _exit(2);
        memset(big, 'x', len);
        _exit(sc_store_put(s, NULL, key, big, len) == 0 ? 0 : 3);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child put of %zu bytes failed", len);
}

STORE_CASE(get_bounded) {
    uint8_t *data = (uint8_t *)"sentinel";
    size_t len = 99;
    sc_object_info info;
    put_text(fx->store, "b/hint", "12345\n");
    /* At the cap: returned whole. */
    OK(sc_store_get_bounded(fx->store, &data, &len, &info, "b/hint", 6));
    cr_assert_eq(len, 6);
    cr_assert_eq(info.size, 6);
    cr_assert(memcmp(data, "12345\n", 6) == 0);
    free(data);
    /* One byte over: refused as damage, naming the object, its size and the cap; nothing returned. */
    data = (uint8_t *)"sentinel";
    len = 99;
    FAILS(SC_ECORRUPT, sc_store_get_bounded(fx->store, &data, &len, &info, "b/hint", 5));
    cr_assert_null(data);
    cr_assert_eq(len, 0);
    const char *msg = sc_error_message();
    cr_assert(strstr(msg, "b/hint") && strstr(msg, "6 bytes") && strstr(msg, "the 5 "),
              "message lacks the object, its size or the cap: %s", msg);
    /* A cap of 0: an empty object passes, any other does not. */
    OK(sc_store_put(fx->store, NULL, "b/empty", NULL, 0));
    OK(sc_store_get_bounded(fx->store, &data, &len, NULL, "b/empty", 0));
    cr_assert_eq(len, 0);
    FAILS(SC_ECORRUPT, sc_store_get_bounded(fx->store, &data, &len, NULL, "b/hint", 0));
    /* Absent stays absent. */
    FAILS(SC_ENOTFOUND, sc_store_get_bounded(fx->store, &data, &len, NULL, "b/none", 32));

    /* A large object under a small cap is refused without being read: this process's peak
     * RSS must not grow by anything near its size. */
    size_t big = (size_t)48 << 20;
    if (strcmp(fx->backend->name, "mem") == 0) {
        /* The mem store holds its objects in this process: the check is that no copy is made. */
        uint8_t *buf = calloc(1, big);
        cr_assert_not_null(buf);
        OK(sc_store_put(fx->store, NULL, "b/big", buf, big));
        free(buf);
    } else {
        put_big_from_child(fx->location, "b/big", big);
    }
    long before = peak_rss_kib();
    FAILS(SC_ECORRUPT, sc_store_get_bounded(fx->store, &data, &len, NULL, "b/big", 32));
    cr_assert_null(data);
    msg = sc_error_message();
    cr_assert(strstr(msg, "b/big") && strstr(msg, "the 32 "), "message: %s", msg);
    /* posix and mem know the size before reading; S3 knows it from Content-Length. */
    cr_assert(strstr(msg, "50331648 bytes"), "message lacks the size: %s", msg);
    long grown = peak_rss_kib() - before;
    cr_assert_lt(grown, 8 * 1024, "a refused 48 MiB object raised the peak RSS by %ld KiB", grown);
    /* The same object read unbounded still works (and is what the cap saves). */
    OK(sc_store_get(fx->store, &data, &len, NULL, "b/big"));
    cr_assert_eq(len, big);
    free(data);
}

/* Members past a table's version must never be read: each poisoned one fails the test. */
static int poison_get_bounded(void *self, uint8_t **d, size_t *l, sc_object_info *i, const char *k,
                              size_t m) {
    (void)self, (void)d, (void)l, (void)i, (void)k, (void)m;
    cr_assert_fail("get_bounded of a version-1 backend was called");
    return SC_EIO;
}

static int poison_discard(void *self, const char *key) {
    (void)self;
    (void)key;
    cr_assert_fail("discard of a version-2 table was called");
    return SC_EIO;
}

static int poison_put_once(void *self, sc_object_info *i, const char *key, const uint8_t *d,
                           size_t l) {
    (void)self, (void)i, (void)key, (void)d, (void)l;
    cr_assert_fail("put_once of a version-2 table was called");
    return SC_EIO;
}

/* mem://name wrapped through `ops` (the caller's: the handle keeps it) as a table of `version`. */
static sc_store *wrap_mem_as(sc_store_ops *ops, int version, const char *name) {
    const sc_store_ops *mem_ops;
    void *self;
    OK(sc_mem_store_create(&mem_ops, &self, name));
    *ops = *mem_ops;
    ops->version = version;
    if (version < 2) ops->get_bounded = poison_get_bounded;
    if (version < 3) ops->discard = poison_discard, ops->put_once = poison_put_once;
    sc_store *s = NULL;
    OK(sc_store_wrap(&s, ops, self));
    return s;
}

/* A version-1 backend (no get_bounded member) is still accepted; bounded reads of it fall back
 * to get + a length check. */
Test(store, wrap_version1_backend_bounded_fallback) {
    sc_store_ops ops;
    sc_store *s = wrap_mem_as(&ops, 1, "wrap-v1-test");
    put_text(s, "k", "0123456789");
    uint8_t *data = NULL;
    size_t len = 0;
    OK(sc_store_get_bounded(s, &data, &len, NULL, "k", 10));
    cr_assert_eq(len, 10);
    free(data);
    FAILS(SC_ECORRUPT, sc_store_get_bounded(s, &data, &len, NULL, "k", 9));
    cr_assert_null(data);
    cr_assert(strstr(sc_error_message(), "10 bytes") && strstr(sc_error_message(), "the 9 "),
              "%s", sc_error_message());
    sc_store_ops bad_ops = ops;
    bad_ops.version = 0;
    sc_store *bad = NULL;
    FAILS(SC_EINVAL, sc_store_wrap(&bad, &bad_ops, sc_store_backend_self(s)));
    sc_store_free(s);
    sc_mem_store_reset("wrap-v1-test");
}

/* A version-2 table ends at remove_created_dirs: its discard is served by del, its put_once
 * by put. */
Test(store, wrap_version2_backend_fallbacks) {
    sc_store_ops ops;
    sc_store *s = wrap_mem_as(&ops, 2, "wrap-v2-test");
    OK(sc_store_put_once(s, NULL, "k", TEXT("1")));
    expect_text(s, "k", "1");
    OK(sc_store_discard(s, "k"));
    OK(sc_store_discard(s, "k"));
    uint8_t *data = NULL;
    size_t len = 0;
    FAILS(SC_ENOTFOUND, sc_store_get(s, &data, &len, NULL, "k"));
    sc_store_free(s);
    sc_mem_store_reset("wrap-v2-test");
}

/* put_once writes like put (a backend that never sends a put twice serves it with put); on S3
 * it is one request. Its refusal to send again after a lost answer: test_store_s3.c. */
STORE_CASE(put_once) {
    sc_object_info first, second, head;
    sc_store_stats_reset(fx->store);
    OK(sc_store_put_once(fx->store, &first, "o/one", TEXT("version one")));
    OK(sc_store_put_once(fx->store, &second, "o/one", TEXT("v2")));
    expect_text(fx->store, "o/one", "v2");
    cr_assert_eq(second.size, 2);
    cr_assert_str_neq(first.etag, second.etag);
    OK(sc_store_head(fx->store, &head, "o/one"));
    cr_assert_gt(head.mtime_ms, 0);
    sc_store_stats st;
    sc_store_stats_get(&st, fx->store);
    cr_assert_eq(st.ops[SC_OP_PUT], 2, "counted as puts");
    cr_assert_eq(st.bytes_written, strlen("version one") + 2);
    if (strcmp(sc_store_backend_name(fx->store), "s3") == 0) {
        void *s3_self = sc_store_backend_self(fx->store);
        uint64_t before = sc_s3_store_requests_sent(s3_self);
        OK(sc_store_put_once(fx->store, NULL, "o/two", TEXT("2")));
        cr_assert_eq(sc_s3_store_requests_sent(s3_self) - before, 1, "a put_once on S3 is one request");
        expect_text(fx->store, "o/two", "2");
    }
    FAILS(SC_EINVAL, sc_store_put_once(fx->store, NULL, "/bad", TEXT("x")));
    FAILS(SC_EINVAL, sc_store_put_once(fx->store, NULL, "o/x", NULL, 1));
}

STORE_CASE(overwrite) {
    sc_object_info first, second;
    OK(sc_store_put(fx->store, &first, "k", TEXT("version one")));
    OK(sc_store_put(fx->store, &second, "k", TEXT("v2")));
    expect_text(fx->store, "k", "v2");
    cr_assert_eq(second.size, 2);
    cr_assert_str_neq(first.etag, second.etag);
}

STORE_CASE(put_if_absent) {
    sc_object_info created, info;
    OK(sc_store_put_if_absent(fx->store, &created, "claim/1", TEXT("first")));
    FAILS(SC_EEXISTS, sc_store_put_if_absent(fx->store, &info, "claim/1", TEXT("second")));
    expect_text(fx->store, "claim/1", "first");
    OK(sc_store_head(fx->store, &info, "claim/1"));
    cr_assert_str_eq(info.etag, created.etag, "a lost put_if_absent changed the etag");
    FAILS(SC_EEXISTS, sc_store_put_if_absent(fx->store, NULL, "claim/1", NULL, 0));
    expect_text(fx->store, "claim/1", "first");
    /* Empty bodies are claims too. */
    OK(sc_store_put_if_absent(fx->store, NULL, "claim/empty", NULL, 0));
    FAILS(SC_EEXISTS, sc_store_put_if_absent(fx->store, NULL, "claim/empty", NULL, 0));
}

STORE_CASE(put_if_match) {
    if (!(fx->backend->caps & SC_CAP_COMPARE_AND_SWAP)) {
        /* Not a silent skip: a backend without the cap must say so and refuse. */
        cr_assert_eq(sc_store_caps(fx->store) & SC_CAP_COMPARE_AND_SWAP, 0);
        put_text(fx->store, "cas", "v1");
        FAILS(SC_EUNSUPPORTED, sc_store_put_if_match(fx->store, NULL, "cas", NULL, 0, "any"));
        expect_text(fx->store, "cas", "v1");
        return;
    }
    cr_assert_neq(sc_store_caps(fx->store) & SC_CAP_COMPARE_AND_SWAP, 0);
    sc_object_info v1, v2, info;
    OK(sc_store_put(fx->store, &v1, "cas", TEXT("v1")));
    OK(sc_store_put_if_match(fx->store, &v2, "cas", TEXT("v2"), v1.etag));
    cr_assert_str_neq(v2.etag, v1.etag);
    expect_text(fx->store, "cas", "v2");
    FAILS(SC_EMODIFIED, sc_store_put_if_match(fx->store, &info, "cas", TEXT("v3"), v1.etag));
    expect_text(fx->store, "cas", "v2");
    /* gofakes3 answers 412 for a missing key, moto and S3 404: both are "not found". */
    FAILS(SC_ENOTFOUND, sc_store_put_if_match(fx->store, &info, "absent", TEXT("x"), v1.etag));
    FAILS(SC_ENOTFOUND, sc_store_head(fx->store, &info, "absent"));
    if (!fx->backend->etag_is_content_hash) {
        /* A key deleted and created again must not take back an old etag (ABA). */
        OK(sc_store_delete(fx->store, "cas"));
        OK(sc_store_put(fx->store, &info, "cas", TEXT("v2")));
        FAILS(SC_EMODIFIED, sc_store_put_if_match(fx->store, NULL, "cas", TEXT("v4"), v2.etag));
    }
    /* Deleted and created again with other bytes: the old etag no longer matches, the new one does. */
    OK(sc_store_delete(fx->store, "cas"));
    OK(sc_store_put(fx->store, &info, "cas", TEXT("v4")));
    FAILS(SC_EMODIFIED, sc_store_put_if_match(fx->store, NULL, "cas", TEXT("v5"), v2.etag));
    OK(sc_store_put_if_match(fx->store, NULL, "cas", TEXT("v5"), info.etag));
    expect_text(fx->store, "cas", "v5");
}

STORE_CASE(etag_changes_on_every_write) {
    char previous[SC_ETAG_MAX] = "";
    sc_object_info info;
    for (int i = 0; i < 6; i++) {
        /* Same content every time where the etag is a version; where it is a hash of the bytes
         * (S3), other bytes every time (that the same bytes keep it is in test_store_s3.c). */
        char body[16] = "same";
        if (fx->backend->etag_is_content_hash) snprintf(body, sizeof body, "same-%d", i);
        if (i == 0)
            OK(sc_store_put_if_absent(fx->store, &info, "e", TEXT(body)));
        else if (i % 2 == 0 && (fx->backend->caps & SC_CAP_COMPARE_AND_SWAP))
            OK(sc_store_put_if_match(fx->store, &info, "e", TEXT(body), previous));
        else
            OK(sc_store_put(fx->store, &info, "e", TEXT(body)));
        cr_assert_str_neq(info.etag, previous, "write %d kept etag %s", i, previous);
        sc_object_info head;
        OK(sc_store_head(fx->store, &head, "e"));
        cr_assert_str_eq(head.etag, info.etag, "head disagrees with the write's etag");
        snprintf(previous, sizeof previous, "%s", info.etag);
    }
}

STORE_CASE(head_size_and_mtime) {
    static const size_t sizes[] = {0, 1, 4103};
    uint8_t buf[4103];
    memset(buf, 'h', sizeof buf);
    int64_t before = sc_now_ms();
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char key[32];
        snprintf(key, sizeof key, "h/%zu", sizes[i]);
        sc_object_info put_info, info;
        OK(sc_store_put(fx->store, &put_info, key, buf, sizes[i]));
        OK(sc_store_head(fx->store, &info, key));
        cr_assert_eq(info.size, sizes[i]);
        cr_assert_str_eq(info.etag, put_info.etag);
        /* Coarse file system clocks may trail the wall clock by a tick; Last-Modified has
         * one-second resolution. */
        int64_t slack = fx->backend->mtime_slack_ms;
        cr_assert(info.mtime_ms >= before - slack && info.mtime_ms <= sc_now_ms() + slack,
                  "mtime %lld outside [%lld, now]", (long long)info.mtime_ms, (long long)before);
    }
}

/* ---- list ---- */

STORE_CASE(list_bytewise_order) {
    /* Bytewise: '-' (0x2d) < '/' (0x2f) < '0', so a directory walk order would be wrong. */
    const char *sorted[] = {"0",   "A",  "a-", "a/b-", "a/b/c", "a/b/d", "a/bc",
                            "a/c", "a0", "ab", "b",    "z/y",   "~",     "\xc3\xa9"};
    size_t n = sizeof sorted / sizeof *sorted;
    const char *order[sizeof sorted / sizeof *sorted];
    memcpy(order, sorted, sizeof sorted);
    shuffle(order, n, 0x5eed);
    for (size_t i = 0; i < n; i++) put_text(fx->store, order[i], order[i]);
    const char *expected[sizeof sorted / sizeof *sorted + 1];
    memcpy(expected, sorted, sizeof sorted);
    expected[n] = NULL;
    expect_list(fx->store, "", NULL, 1000, 0, expected);
    sc_list_page all;
    OK(sc_store_list_all(fx->store, &all, ""));
    expect_page(&all, expected, "list_all");
    sc_list_page_free(&all);
}

static void put_prefix_keys(sc_store *s) {
    static const char *const keys[] = {
        "snapshot/snapshot-00002", "snapshot/LATEST", "snapshot/snapshot-00001",
        "snapshot/EARLIEST",       "snapshots-x",     "snap/y",
        "snapshot-z",              "manifest/m1",     "a/b/c",
        "a/bc",                    "a/b-",
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) put_text(s, keys[i], keys[i]);
}

STORE_CASE(list_prefix_not_a_directory) {
    put_prefix_keys(fx->store);
    expect_list(fx->store, "snapshot/snap", NULL, 100, 0,
                KEYS("snapshot/snapshot-00001", "snapshot/snapshot-00002"));
    expect_list(fx->store, "snap", NULL, 100, 0,
                KEYS("snap/y", "snapshot-z", "snapshot/EARLIEST", "snapshot/LATEST",
                     "snapshot/snapshot-00001", "snapshot/snapshot-00002", "snapshots-x"));
    expect_list(fx->store, "snapshot/", NULL, 100, 0,
                KEYS("snapshot/EARLIEST", "snapshot/LATEST", "snapshot/snapshot-00001",
                     "snapshot/snapshot-00002"));
    expect_list(fx->store, "a/b", NULL, 100, 0, KEYS("a/b-", "a/b/c", "a/bc"));
    expect_list(fx->store, "a/b/", NULL, 100, 0, KEYS("a/b/c"));
    expect_list(fx->store, "snapshot/LATEST", NULL, 100, 0, KEYS("snapshot/LATEST"));
    expect_list(fx->store, "nope/", NULL, 100, 0, NO_KEYS);
    expect_list(fx->store, "snapshot/zzz", NULL, 100, 0, NO_KEYS);
    expect_list(fx->store, "a/b/c/", NULL, 100, 0, NO_KEYS); /* below an object */
    sc_list_page all;
    OK(sc_store_list_all(fx->store, &all, ""));
    cr_assert_eq(all.count, 11);
    sc_list_page_free(&all);
}

STORE_CASE(list_start_after) {
    put_prefix_keys(fx->store);
    expect_list(fx->store, "snapshot/", "snapshot/LATEST", 100, 0,
                KEYS("snapshot/snapshot-00001", "snapshot/snapshot-00002"));
    expect_list(fx->store, "snapshot/", "snapshot/M", 100, 0, /* not a key itself */
                KEYS("snapshot/snapshot-00001", "snapshot/snapshot-00002"));
    expect_list(fx->store, "snapshot/", "snapshot/snapshot-00002", 100, 0, NO_KEYS);
    expect_list(fx->store, "snapshot/", "a", 100, 0, /* before the prefix */
                KEYS("snapshot/EARLIEST", "snapshot/LATEST", "snapshot/snapshot-00001",
                     "snapshot/snapshot-00002"));
    expect_list(fx->store, "snapshot/", "zzz", 100, 0, NO_KEYS);
    /* Through nested directories: "a/b/" must be entered, "a/b-" is before. */
    expect_list(fx->store, "", "a/b/", 3, 1, KEYS("a/b/c", "a/bc", "manifest/m1"));
    expect_list(fx->store, "", "a/b/c", 100, 0,
                KEYS("a/bc", "manifest/m1", "snap/y", "snapshot-z", "snapshot/EARLIEST",
                     "snapshot/LATEST", "snapshot/snapshot-00001", "snapshot/snapshot-00002",
                     "snapshots-x"));
}

STORE_CASE(list_max_keys_and_truncated) {
    put_prefix_keys(fx->store);
    expect_list(fx->store, "snapshot/", NULL, 2, 1, KEYS("snapshot/EARLIEST", "snapshot/LATEST"));
    /* Exactly the remaining keys: nothing follows, so not truncated. */
    expect_list(fx->store, "snapshot/", "snapshot/LATEST", 2, 0,
                KEYS("snapshot/snapshot-00001", "snapshot/snapshot-00002"));
    expect_list(fx->store, "snapshot/", "snapshot/LATEST", 1, 1, KEYS("snapshot/snapshot-00001"));
    expect_list(fx->store, "snapshot/", NULL, 4, 0,
                KEYS("snapshot/EARLIEST", "snapshot/LATEST", "snapshot/snapshot-00001",
                     "snapshot/snapshot-00002"));
    expect_list(fx->store, "", NULL, 1, 1, KEYS("a/b-"));
    sc_list_page page;
    FAILS(SC_EINVAL, sc_store_list(fx->store, &page, "", NULL, 0));
}

STORE_CASE(list_all_paginates) {
    enum { N = 2500 };
    static char keys[N][32];
    const char *order[N];
    for (int i = 0; i < N; i++) {
        /* Every fifth key one directory deeper: pages must cross directories. */
        snprintf(keys[i], sizeof keys[i], i % 5 ? "page/%05d" : "page/sub/%05d", i);
        order[i] = keys[i];
    }
    shuffle(order, N, 42);
    for (int i = 0; i < N; i++)
        OK(sc_store_put(fx->store, NULL, order[i], TEXT(order[i])));
    put_text(fx->store, "pagf", "outside the prefix");
    sc_store_stats_reset(fx->store);
    sc_list_page all;
    OK(sc_store_list_all(fx->store, &all, "page/"));
    cr_assert_eq(all.count, N);
    cr_assert_eq(all.truncated, 0);
    for (size_t i = 1; i < all.count; i++)
        cr_assert_lt(strcmp(all.keys[i - 1], all.keys[i]), 0, "not ascending at %zu: %s, %s", i,
                     all.keys[i - 1], all.keys[i]);
    cr_assert_str_eq(all.keys[0], "page/00001");
    cr_assert_str_eq(all.keys[N - 1], "page/sub/02495");
    sc_list_page_free(&all);
    sc_store_stats stats;
    sc_store_stats_get(&stats, fx->store);
    cr_assert_eq(stats.ops[SC_OP_LIST], 3, "2,500 keys in pages of 1,000 take 3 lists, took %llu",
                 (unsigned long long)stats.ops[SC_OP_LIST]);
    OK(sc_store_list_all(fx->store, &all, "page/sub/"));
    cr_assert_eq(all.count, N / 5);
    sc_list_page_free(&all);
    OK(sc_store_list_all(fx->store, &all, "nothing/"));
    cr_assert_eq(all.count, 0);
    sc_list_page_free(&all);
}

/* ---- delete ---- */

STORE_CASE(delete) {
    put_text(fx->store, "d/one", "1");
    put_text(fx->store, "d/two", "2");
    OK(sc_store_delete(fx->store, "d/one"));
    uint8_t *data;
    size_t len;
    FAILS(SC_ENOTFOUND, sc_store_get(fx->store, &data, &len, NULL, "d/one"));
    FAILS(SC_ENOTFOUND, sc_store_delete(fx->store, "d/one"));
    FAILS(SC_ENOTFOUND, sc_store_delete(fx->store, "never"));
    FAILS(SC_ENOTFOUND, sc_store_delete(fx->store, "d")); /* a "directory" is not an object */
    expect_text(fx->store, "d/two", "2");
    expect_list(fx->store, "d/", NULL, 10, 0, KEYS("d/two"));
    /* Created again after a delete. */
    OK(sc_store_put_if_absent(fx->store, NULL, "d/one", TEXT("again")));
    expect_text(fx->store, "d/one", "again");
}

/* A cleanup's delete: the key is gone either way, with one request (S3's del looks first). */
STORE_CASE(discard) {
    put_text(fx->store, "x/one", "1");
    put_text(fx->store, "x/two", "2");
    sc_store_stats_reset(fx->store);
    OK(sc_store_discard(fx->store, "x/one"));
    OK(sc_store_discard(fx->store, "x/one")); /* already gone: still done */
    OK(sc_store_discard(fx->store, "never"));
    sc_store_stats st;
    sc_store_stats_get(&st, fx->store);
    cr_assert_eq(st.ops[SC_OP_DELETE], 3);
    cr_assert_eq(st.ops[SC_OP_HEAD] + st.ops[SC_OP_GET] + st.ops[SC_OP_LIST], 0, "a discard reads nothing");
    if (strcmp(sc_store_backend_name(fx->store), "s3") == 0) {
        /* What the server saw: one DELETE each, where del sends a HEAD first. */
        void *s3_self = sc_store_backend_self(fx->store);
        uint64_t before = sc_s3_store_requests_sent(s3_self);
        OK(sc_store_discard(fx->store, "x/two"));
        cr_assert_eq(sc_s3_store_requests_sent(s3_self) - before, 1, "a discard on S3 is one request");
        put_text(fx->store, "x/two", "2");
        before = sc_s3_store_requests_sent(s3_self);
        OK(sc_store_delete(fx->store, "x/two"));
        cr_assert_eq(sc_s3_store_requests_sent(s3_self) - before, 2, "del looks first: HEAD, DELETE");
        put_text(fx->store, "x/two", "2");
    }
    uint8_t *data;
    size_t len;
    FAILS(SC_ENOTFOUND, sc_store_get(fx->store, &data, &len, NULL, "x/one"));
    expect_text(fx->store, "x/two", "2");
    FAILS(SC_EINVAL, sc_store_discard(fx->store, "/bad"));
}

/* ---- keys ---- */

STORE_CASE(invalid_keys_rejected) {
    static const char *const bad[] = {"", "/abs", "a/../b", "a//b", "./x", "a/", ".", "..", "a/."};
    sc_store_stats_reset(fx->store);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *k = bad[i];
        uint8_t *data;
        size_t len;
        sc_object_info info;
        cr_assert_not(sc_store_key_valid(k), "\"%s\" accepted", k);
        FAILS(SC_EINVAL, sc_store_get(fx->store, &data, &len, &info, k));
        FAILS(SC_EINVAL, sc_store_head(fx->store, &info, k));
        FAILS(SC_EINVAL, sc_store_put(fx->store, NULL, k, TEXT("x")));
        FAILS(SC_EINVAL, sc_store_put_if_absent(fx->store, NULL, k, TEXT("x")));
        FAILS(SC_EINVAL, sc_store_put_if_match(fx->store, NULL, k, TEXT("x"), "v1"));
        FAILS(SC_EINVAL, sc_store_delete(fx->store, k));
    }
    FAILS(SC_EINVAL, sc_store_put(fx->store, NULL, NULL, NULL, 0));
    sc_list_page page;
    FAILS(SC_EINVAL, sc_store_list(fx->store, &page, "/abs", NULL, 10));
    FAILS(SC_EINVAL, sc_store_list(fx->store, &page, "../", NULL, 10));
    FAILS(SC_EINVAL, sc_store_list(fx->store, &page, "a//b", NULL, 10));
    sc_store_stats stats;
    sc_store_stats_get(&stats, fx->store);
    for (int op = 0; op < SC_OP_COUNT; op++)
        cr_assert_eq(stats.ops[op], 0, "a rejected %s reached the backend", sc_store_op_name(op));
    /* Nothing was written anywhere, not even outside the root. */
    sc_list_page all;
    OK(sc_store_list_all(fx->store, &all, ""));
    cr_assert_eq(all.count, 0);
    sc_list_page_free(&all);
}

Test(store, key_validity_rules) {
    cr_assert(sc_store_key_valid("a"));
    cr_assert(sc_store_key_valid("a/b.c"));
    cr_assert(sc_store_key_valid("a/.hidden"));
    cr_assert(sc_store_key_valid("..a/b.."));
    cr_assert_not(sc_store_key_valid(NULL));
    char key[SC_STORE_KEY_MAX + 2];
    memset(key, 'k', sizeof key);
    key[SC_STORE_KEY_MAX] = '\0';
    cr_assert(sc_store_key_valid(key), "a key of exactly %d bytes is valid", SC_STORE_KEY_MAX);
    key[SC_STORE_KEY_MAX] = 'k';
    key[SC_STORE_KEY_MAX + 1] = '\0';
    cr_assert_not(sc_store_key_valid(key));
}

STORE_CASE(temp_files_never_listed) {
    if (fx->backend->plant_debris) fx->backend->plant_debris(fx);
    put_text(fx->store, "top", "t");
    put_text(fx->store, "d/real", "r");
    FAILS(SC_EEXISTS, sc_store_put_if_absent(fx->store, NULL, "d/real", TEXT("x")));
    expect_list(fx->store, "", NULL, 100, 0, KEYS("d/real", "top"));
    expect_list(fx->store, "d/", NULL, 100, 0, KEYS("d/real"));
    expect_list(fx->store, "d/.tmp", NULL, 100, 0, NO_KEYS);
    /* Completed and lost writes leave no temp files behind. */
    if (fx->backend->count_debris) cr_assert_eq(fx->backend->count_debris(fx), 0);
}

/* ---- counters ---- */

STORE_CASE(counters) {
    int cas = (fx->backend->caps & SC_CAP_COMPARE_AND_SWAP) != 0;
    sc_store_stats stats;
    sc_object_info info;
    uint8_t *data;
    size_t len;
    sc_list_page page;
    OK(sc_store_put(fx->store, &info, "c/1", TEXT("0123456789")));
    sc_store_stats_reset(fx->store);
    sc_store_stats_get(&stats, fx->store);
    cr_assert_eq(stats.ops[SC_OP_PUT] + stats.bytes_written, 0, "reset did not clear");

    OK(sc_store_put(fx->store, &info, "c/1", TEXT("0123456789")));
    OK(sc_store_put_if_absent(fx->store, NULL, "c/2", TEXT("abcde")));
    FAILS(SC_EEXISTS, sc_store_put_if_absent(fx->store, NULL, "c/2", TEXT("abcde")));
    if (cas) OK(sc_store_put_if_match(fx->store, NULL, "c/1", TEXT("xyz"), info.etag));
    else FAILS(SC_EUNSUPPORTED, sc_store_put_if_match(fx->store, NULL, "c/1", NULL, 0, "e"));
    OK(sc_store_get(fx->store, &data, &len, NULL, "c/2"));
    free(data);
    FAILS(SC_ENOTFOUND, sc_store_get(fx->store, &data, &len, NULL, "c/none"));
    OK(sc_store_head(fx->store, &info, "c/2"));
    OK(sc_store_list(fx->store, &page, "c/", NULL, 10));
    sc_list_page_free(&page);
    OK(sc_store_delete(fx->store, "c/2"));
    FAILS(SC_EINVAL, sc_store_delete(fx->store, "/bad")); /* never reaches the backend */

    sc_store_stats_get(&stats, fx->store);
    cr_assert_eq(stats.ops[SC_OP_PUT], 1);
    cr_assert_eq(stats.ops[SC_OP_PUT_IF_ABSENT], 2);
    cr_assert_eq(stats.ops[SC_OP_PUT_IF_MATCH], (uint64_t)cas);
    cr_assert_eq(stats.ops[SC_OP_GET], 2);
    cr_assert_eq(stats.ops[SC_OP_HEAD], 1);
    cr_assert_eq(stats.ops[SC_OP_LIST], 1);
    cr_assert_eq(stats.ops[SC_OP_DELETE], 1);
    cr_assert_eq(stats.bytes_written, 10 + 5 + (cas ? 3 : 0), "only applied writes count bytes");
    cr_assert_eq(stats.bytes_read, 5);
    sc_store_stats_reset(fx->store);
    sc_store_stats_get(&stats, fx->store);
    for (int op = 0; op < SC_OP_COUNT; op++) cr_assert_eq(stats.ops[op], 0);
    cr_assert_eq(stats.bytes_read + stats.bytes_written, 0);
}

/* ---- fault hook ---- */

typedef struct hook_plan {
    sc_store_op op;     /* the op to hit */
    int verdict;        /* what the hook answers for it */
    int calls;          /* calls seen */
    uint64_t next_index; /* lowest call_index the next call may have */
    char last_key[64];
} hook_plan;

static int hook(void *ctx, sc_store_op op, const char *key, uint64_t call_index) {
    hook_plan *plan = ctx;
    /* Calls made while no hook was set still take an index. */
    cr_assert_geq(call_index, plan->next_index, "call_index %llu went backwards",
                  (unsigned long long)call_index);
    plan->calls++;
    plan->next_index = call_index + 1;
    snprintf(plan->last_key, sizeof plan->last_key, "%s", key);
    return op == plan->op ? plan->verdict : 0;
}

STORE_CASE(fault_hook_fail) {
    hook_plan plan = {.op = SC_OP_PUT, .verdict = SC_EFAULT};
    sc_store_set_fault_hook(fx->store, hook, &plan);
    OK(sc_store_put_if_absent(fx->store, NULL, "f/other", TEXT("x")));
    FAILS(SC_EFAULT, sc_store_put(fx->store, NULL, "f/key", TEXT("x")));
    cr_assert_str_eq(plan.last_key, "f/key");
    cr_assert(strstr(sc_error_message(), "f/key"), "message names the key: %s", sc_error_message());
    uint8_t *data;
    size_t len;
    FAILS(SC_ENOTFOUND, sc_store_get(fx->store, &data, &len, NULL, "f/key"));
    sc_store_stats stats;
    sc_store_stats_get(&stats, fx->store);
    cr_assert_eq(stats.ops[SC_OP_PUT], 0, "a failed-by-hook call never reached the backend");
    cr_assert_eq(stats.bytes_written, 1);
    cr_assert_eq(plan.calls, 3);
    cr_assert_eq(plan.next_index, 3, "call_index counts from 0, one per call");

    plan.op = SC_OP_GET;
    plan.verdict = SC_ETRANSIENT;
    FAILS(SC_ETRANSIENT, sc_store_get(fx->store, &data, &len, NULL, "f/other"));
    cr_assert_null(data);
    /* Removing the hook lets everything through. */
    sc_store_set_fault_hook(fx->store, NULL, NULL);
    OK(sc_store_put(fx->store, NULL, "f/key", TEXT("y")));
    expect_text(fx->store, "f/key", "y");
    cr_assert_eq(plan.calls, 4);
}

STORE_CASE(fault_hook_lose_response) {
    hook_plan plan = {.op = SC_OP_PUT_IF_ABSENT, .verdict = SC_FAULT_LOSE_RESPONSE};
    sc_store_set_fault_hook(fx->store, hook, &plan);
    sc_object_info info;
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(fx->store, &info, "l/claim", TEXT("won")));
    cr_assert_eq(info.etag[0], '\0', "no answer, so no etag");
    /* The write was applied: a retry finds it, a reader sees it. */
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(fx->store, NULL, "l/claim", TEXT("again")));
    plan.op = SC_OP_GET;
    uint8_t *data = (uint8_t *)"sentinel";
    size_t len = 7;
    FAILS(SC_EUNKNOWN, sc_store_get(fx->store, &data, &len, NULL, "l/claim"));
    cr_assert_null(data);
    cr_assert_eq(len, 0);
    plan.op = SC_OP_LIST;
    sc_list_page page;
    FAILS(SC_EUNKNOWN, sc_store_list(fx->store, &page, "l/", NULL, 10));
    cr_assert_eq(page.count, 0);
    cr_assert_null(page.keys);
    plan.op = SC_OP_DELETE;
    sc_store_set_fault_hook(fx->store, NULL, NULL);
    expect_text(fx->store, "l/claim", "won");
    FAILS(SC_EEXISTS, sc_store_put_if_absent(fx->store, NULL, "l/claim", TEXT("x")));
    sc_store_set_fault_hook(fx->store, hook, &plan);
    FAILS(SC_EUNKNOWN, sc_store_delete(fx->store, "l/claim"));
    sc_store_set_fault_hook(fx->store, NULL, NULL);
    FAILS(SC_ENOTFOUND, sc_store_head(fx->store, &info, "l/claim"));
}

/* ---- concurrency ---- */

enum { RACERS = 16, ROUNDS = 50 };

typedef struct race {
    const char *location;
    pthread_barrier_t barrier;
    atomic_int wins[ROUNDS];
    atomic_int winner[ROUNDS];
    atomic_int errors; /* Criterion asserts only on the main thread */
    int cas;                        /* put_if_match from etag[round], else put_if_absent */
    char etag[ROUNDS][SC_ETAG_MAX]; /* cas: the etag every racer starts from */
} race;

typedef struct racer {
    race *race;
    int id;
} racer;

static void *race_thread(void *arg) {
    racer *r = arg;
    race *st = r->race;
    sc_store *store = NULL; /* handles are per thread */
    if (sc_store_open(&store, st->location) != 0) atomic_fetch_add(&st->errors, 1);
    for (int round = 0; round < ROUNDS; round++) {
        char key[32], payload[32];
        snprintf(key, sizeof key, "race/round-%02d", round);
        snprintf(payload, sizeof payload, "thread-%d", r->id);
        pthread_barrier_wait(&st->barrier);
        if (!store) continue;
        int rc = st->cas ? sc_store_put_if_match(store, NULL, key, TEXT(payload), st->etag[round])
                          : sc_store_put_if_absent(store, NULL, key, TEXT(payload));
        if (rc == 0) {
            atomic_fetch_add(&st->wins[round], 1);
            atomic_store(&st->winner[round], r->id);
        } else if (rc != (st->cas ? SC_EMODIFIED : SC_EEXISTS)) {
            fprintf(stderr, "racer %d round %d: %s: %s\n", r->id, round, sc_error_name(rc),
                    sc_error_message());
            atomic_fetch_add(&st->errors, 1);
        }
    }
    sc_store_free(store);
    return NULL;
}

/* RACERS threads, each with its own handle, race on every round's key: exactly one wins. */
static void run_race(fixture *fx, race *state) {
    state->location = fx->location;
    pthread_barrier_init(&state->barrier, NULL, RACERS);
    pthread_t threads[RACERS];
    racer racers[RACERS];
    for (int i = 0; i < RACERS; i++) {
        racers[i] = (racer){state, i};
        cr_assert_eq(pthread_create(&threads[i], NULL, race_thread, &racers[i]), 0);
    }
    for (int i = 0; i < RACERS; i++) pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&state->barrier);
    cr_assert_eq(atomic_load(&state->errors), 0, "racers hit unexpected errors");
    for (int round = 0; round < ROUNDS; round++) {
        cr_assert_eq(atomic_load(&state->wins[round]), 1, "round %d: %d winners", round,
                     atomic_load(&state->wins[round]));
        char key[32], payload[32];
        snprintf(key, sizeof key, "race/round-%02d", round);
        snprintf(payload, sizeof payload, "thread-%d", atomic_load(&state->winner[round]));
        expect_text(fx->store, key, payload);
    }
}

ATOMIC_STORE_CASE(put_if_absent_race_threads) {
    static race state;
    run_race(fx, &state);
}

ATOMIC_STORE_CASE(put_if_match_race_threads) {
    if (!(fx->backend->caps & SC_CAP_COMPARE_AND_SWAP)) {
        /* Not a silent skip: without the cap every racer would be refused. */
        cr_assert_eq(sc_store_caps(fx->store) & SC_CAP_COMPARE_AND_SWAP, 0);
        put_text(fx->store, "race/round-00", "base");
        FAILS(SC_EUNSUPPORTED, sc_store_put_if_match(fx->store, NULL, "race/round-00", NULL, 0, "any"));
        return;
    }
    static race state;
    state.cas = 1;
    for (int round = 0; round < ROUNDS; round++) {
        char key[32];
        sc_object_info info;
        snprintf(key, sizeof key, "race/round-%02d", round);
        OK(sc_store_put(fx->store, &info, key, TEXT("base")));
        snprintf(state.etag[round], SC_ETAG_MAX, "%s", info.etag);
    }
    run_race(fx, &state);
}

STORE_CASE(reopen_sees_contents) {
    put_text(fx->store, "persist/me", "still here");
    sc_store *again = NULL;
    OK(sc_store_open(&again, fx->location));
    expect_text(again, "persist/me", "still here");
    put_text(again, "persist/second", "2");
    sc_store_free(again);
    expect_text(fx->store, "persist/second", "2");
}

/* ---- posix only ---- */

enum { PROC_RACERS = 8, PROC_KEYS = 40 };

typedef struct proc_race {
    atomic_int wins[PROC_KEYS];
    atomic_int winner[PROC_KEYS];
} proc_race;

/* A child: wait for the start signal, race on every key, exit non-zero on any unexpected error. */
static void proc_racer(const char *location, proc_race *shared, int start_fd, int id) {
    char go;
    while (read(start_fd, &go, 1) < 0 && errno == EINTR) {
    }
    sc_store *store = NULL;
    if (sc_store_open(&store, location) != 0) _exit(2);
    int bad = 0;
    for (int k = 0; k < PROC_KEYS; k++) {
        char key[32], payload[32];
        snprintf(key, sizeof key, "snapshot/snapshot-%05d", k);
        snprintf(payload, sizeof payload, "process-%d", id);
        int rc = sc_store_put_if_absent(store, NULL, key, TEXT(payload));
        if (rc == 0) {
            atomic_fetch_add(&shared->wins[k], 1);
            atomic_store(&shared->winner[k], id);
        } else if (rc != SC_EEXISTS) {
            bad = 1;
        }
    }
    sc_store_free(store);
    _exit(bad);
}

Test(store, posix_put_if_absent_race_processes, .init = posix_init, .fini = fixture_fini) {
    proc_race *shared =
        mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(shared, MAP_FAILED);
    memset(shared, 0, sizeof *shared);
    int start[2];
    cr_assert_eq(pipe(start), 0);
    pid_t pids[PROC_RACERS];
    for (int i = 0; i < PROC_RACERS; i++) {
        pids[i] = fork();
        cr_assert_geq(pids[i], 0, "fork: %s", strerror(errno));
        if (pids[i] == 0) {
            close(start[1]);
            proc_racer(the_fixture.location, shared, start[0], i);
        }
    }
    /* Closing the write end releases every child at once (read returns 0). */
    close(start[0]);
    close(start[1]);
    for (int i = 0; i < PROC_RACERS; i++) {
        int status = 0;
        cr_assert_eq(waitpid(pids[i], &status, 0), pids[i]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "racer %d: status %#x", i, status);
    }
    for (int k = 0; k < PROC_KEYS; k++) {
        cr_assert_eq(atomic_load(&shared->wins[k]), 1, "key %d: %d winners", k,
                     atomic_load(&shared->wins[k]));
        char key[32], payload[32];
        snprintf(key, sizeof key, "snapshot/snapshot-%05d", k);
        snprintf(payload, sizeof payload, "process-%d", atomic_load(&shared->winner[k]));
        expect_text(the_fixture.store, key, payload);
    }
    cr_assert_eq(posix_count_debris(&the_fixture), 0, "losers left temp files");
    munmap(shared, sizeof *shared);
}

Test(store, posix_reserved_temp_names, .init = posix_init, .fini = fixture_fini) {
    FAILS(SC_EINVAL, sc_store_put(the_fixture.store, NULL, ".tmp-x", TEXT("x")));
    FAILS(SC_EINVAL, sc_store_put_if_absent(the_fixture.store, NULL, "a/.tmp-x/b", NULL, 0));
    sc_object_info info;
    FAILS(SC_EINVAL, sc_store_head(the_fixture.store, &info, "a/.tmp-x"));
    OK(sc_store_put(the_fixture.store, NULL, "a/.tmpx", TEXT("x")));
}

Test(store, posix_open_forms, .init = posix_init, .fini = fixture_fini) {
    char location[512];
    sc_store *s = NULL;
    /* file:// URL, with missing parents created. */
    snprintf(location, sizeof location, "file://%s/deep/er/root", the_fixture.root);
    OK(sc_store_open(&s, location));
    cr_assert_str_eq(sc_store_backend_name(s), "posix");
    put_text(s, "k", "via file url");
    sc_store_free(s);
    snprintf(location, sizeof location, "%s/deep/er/root/", the_fixture.root);
    OK(sc_store_open(&s, location));
    expect_text(s, "k", "via file url");
    sc_store_free(s);
    /* A relative root stays valid after the process changes directory. */
    char cwd[512];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(the_fixture.root), 0);
    OK(sc_store_open(&s, "relative"));
    cr_assert_eq(chdir("/"), 0);
    put_text(s, "r", "relative");
    sc_store_free(s);
    cr_assert_eq(chdir(cwd), 0);
    snprintf(location, sizeof location, "%s/relative", the_fixture.root);
    OK(sc_store_open(&s, location));
    expect_text(s, "r", "relative");
    sc_store_free(s);
    /* A root that is a file is an I/O error, not a crash. */
    snprintf(location, sizeof location, "%s/plain-file", the_fixture.root);
    write_file(location, "x");
    FAILS(SC_EIO, sc_store_open(&s, location));
    cr_assert_null(s);
}

/* A store opened before its root exists (a reader started before the table's first writer)
 * must see the root once another process creates it, and still create nothing itself. */
Test(store, posix_root_created_later_is_seen, .init = posix_init, .fini = fixture_fini) {
    char location[512];
    snprintf(location, sizeof location, "%s/later/table", the_fixture.root);
    sc_store *early = NULL, *writer = NULL;
    OK(sc_store_open(&early, location));
    uint8_t *data = NULL;
    size_t len = 0;
    sc_object_info info;
    FAILS(SC_ENOTFOUND, sc_store_get(early, &data, &len, NULL, "metadata/table.json"));
    FAILS(SC_ENOTFOUND, sc_store_head(early, &info, "k"));
    sc_list_page page;
    OK(sc_store_list(early, &page, "", NULL, 10));
    cr_assert_eq(page.count, 0);
    sc_list_page_free(&page);
    struct stat st;
    snprintf(location, sizeof location, "%s/later", the_fixture.root);
    cr_assert_neq(stat(location, &st), 0, "reads on a missing root created %s", location);
    /* Another handle (as another process would) creates the root by writing. */
    snprintf(location, sizeof location, "%s/later/table", the_fixture.root);
    OK(sc_store_open(&writer, location));
    put_text(writer, "metadata/table.json", "{}");
    put_text(writer, "k", "v");
    /* The early handle now sees it, by every operation. */
    expect_text(early, "metadata/table.json", "{}");
    OK(sc_store_head(early, &info, "k"));
    cr_assert_eq(info.size, 1);
    OK(sc_store_list(early, &page, "", NULL, 10));
    cr_assert_eq(page.count, 2);
    sc_list_page_free(&page);
    OK(sc_store_delete(early, "k"));
    FAILS(SC_ENOTFOUND, sc_store_get(writer, &data, &len, NULL, "k"));
    sc_store_free(writer);
    sc_store_free(early);

    /* The same for a table (the Flink case: a reader polling before the first job commits). */
    snprintf(location, sizeof location, "%s/later2/t", the_fixture.root);
    OK(sc_store_open(&early, location));
    sc_table *t = NULL;
    FAILS(SC_ENOTABLE, sc_table_open(&t, early));
    OK(sc_store_open(&writer, location));
    OK(sc_table_create(writer, SC_STRATEGY_AUTO));
    OK(sc_table_open(&t, early));
    uint64_t latest = 99;
    OK(sc_table_latest_id(&latest, t));
    cr_assert_eq(latest, 0);
    sc_table_free(t);
    sc_store_free(writer);
    sc_store_free(early);
}

/* ---- mem only: the built-in fault injector ---- */

Test(store, mem_fault_fail_nth, .init = mem_init, .fini = fixture_fini) {
    const char *name = the_fixture.root;
    sc_store *s = the_fixture.store;
    OK(sc_mem_store_arm_fault(name, 1u << SC_OP_PUT, 2, SC_MEM_FAULT_FAIL, 0));
    put_text(s, "a", "1");
    OK(sc_store_put_if_absent(s, NULL, "not-counted", NULL, 0)); /* other op */
    FAILS(SC_EIO, sc_store_put(s, NULL, "b", TEXT("2")));
    sc_object_info info;
    FAILS(SC_ENOTFOUND, sc_store_head(s, &info, "b"));
    put_text(s, "c", "3"); /* one-shot */
    put_text(s, "b", "2");
    /* op_mask 0 counts every op: get, head, then the third call fails. */
    OK(sc_mem_store_arm_fault(name, 0, 3, SC_MEM_FAULT_FAIL, 0));
    expect_text(s, "a", "1");
    OK(sc_store_head(s, &info, "a"));
    FAILS(SC_EIO, sc_store_delete(s, "a"));
    expect_text(s, "a", "1");
}

Test(store, mem_fault_counts_across_handles, .init = mem_init, .fini = fixture_fini) {
    sc_store *other = NULL;
    OK(sc_store_open(&other, the_fixture.location));
    OK(sc_mem_store_arm_fault(the_fixture.location, 1u << SC_OP_PUT_IF_ABSENT, 2,
                              SC_MEM_FAULT_FAIL, 0)); /* "mem://NAME" is accepted too */
    OK(sc_store_put_if_absent(the_fixture.store, NULL, "x", NULL, 0));
    FAILS(SC_EIO, sc_store_put_if_absent(other, NULL, "y", NULL, 0));
    OK(sc_store_put_if_absent(other, NULL, "y", NULL, 0));
    sc_store_free(other);
}

Test(store, mem_fault_lose_response_applies, .init = mem_init, .fini = fixture_fini) {
    sc_store *s = the_fixture.store;
    OK(sc_mem_store_arm_fault(the_fixture.root, 1u << SC_OP_PUT_IF_ABSENT, 1,
                              SC_MEM_FAULT_LOSE_RESPONSE, 0));
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(s, NULL, "snapshot/1", TEXT("mine")));
    expect_text(s, "snapshot/1", "mine");
    FAILS(SC_EEXISTS, sc_store_put_if_absent(s, NULL, "snapshot/1", TEXT("mine")));
    /* A lost CAS also applies. */
    sc_object_info info;
    OK(sc_store_head(s, &info, "snapshot/1"));
    OK(sc_mem_store_arm_fault(the_fixture.root, 1u << SC_OP_PUT_IF_MATCH, 1,
                              SC_MEM_FAULT_LOSE_RESPONSE, 0));
    FAILS(SC_EUNKNOWN, sc_store_put_if_match(s, NULL, "snapshot/1", TEXT("next"), info.etag));
    expect_text(s, "snapshot/1", "next");
    FAILS(SC_EMODIFIED, sc_store_put_if_match(s, NULL, "snapshot/1", TEXT("x"), info.etag));
}

Test(store, mem_fault_stall_delays, .init = mem_init, .fini = fixture_fini) {
    sc_store *s = the_fixture.store;
    put_text(s, "slow", "s");
    OK(sc_mem_store_arm_fault(the_fixture.root, 1u << SC_OP_GET, 1, SC_MEM_FAULT_STALL, 200));
    int64_t start = sc_monotonic_ms();
    expect_text(s, "slow", "s");
    int64_t took = sc_monotonic_ms() - start;
    cr_assert_geq(took, 200, "stalled only %lld ms", (long long)took);
    start = sc_monotonic_ms();
    expect_text(s, "slow", "s");
    cr_assert_lt(sc_monotonic_ms() - start, 200, "a stall is one-shot");
}

Test(store, mem_several_faults_armed, .init = mem_init, .fini = fixture_fini) {
    sc_store *s = the_fixture.store;
    const char *name = the_fixture.root;
    OK(sc_mem_store_arm_fault(name, 1u << SC_OP_PUT, 1, SC_MEM_FAULT_FAIL, 0));
    OK(sc_mem_store_arm_fault(name, 1u << SC_OP_PUT, 2, SC_MEM_FAULT_LOSE_RESPONSE, 0));
    OK(sc_mem_store_arm_fault(name, 1u << SC_OP_GET, 1, SC_MEM_FAULT_FAIL, 0));
    FAILS(SC_EIO, sc_store_put(s, NULL, "k", TEXT("1")));
    FAILS(SC_EUNKNOWN, sc_store_put(s, NULL, "k", TEXT("2")));
    uint8_t *data;
    size_t len;
    FAILS(SC_EIO, sc_store_get(s, &data, &len, NULL, "k"));
    expect_text(s, "k", "2");
    /* Two faults on the same call: FAIL wins over LOSE_RESPONSE, nothing applied. */
    OK(sc_mem_store_arm_fault(name, 1u << SC_OP_PUT, 1, SC_MEM_FAULT_LOSE_RESPONSE, 0));
    OK(sc_mem_store_arm_fault(name, 0, 1, SC_MEM_FAULT_FAIL, 0));
    FAILS(SC_EIO, sc_store_put(s, NULL, "k", TEXT("3")));
    expect_text(s, "k", "2");
}

Test(store, mem_reset_and_arguments, .init = mem_init, .fini = fixture_fini) {
    sc_store *s = the_fixture.store;
    const char *name = the_fixture.root;
    put_text(s, "b", "1");
    put_text(s, "a/x", "2");
    sc_list_page keys;
    OK(sc_mem_store_keys(&keys, name));
    expect_page(&keys, KEYS("a/x", "b"), "sc_mem_store_keys");
    sc_list_page_free(&keys);
    OK(sc_mem_store_arm_fault(name, 0, 1, SC_MEM_FAULT_FAIL, 0));
    sc_mem_store_reset(name);
    expect_list(s, "", NULL, 10, 0, NO_KEYS); /* the fault went with the reset */
    FAILS(SC_EINVAL, sc_mem_store_arm_fault("no-such-store-anywhere", 0, 1, SC_MEM_FAULT_FAIL, 0));
    FAILS(SC_EINVAL, sc_mem_store_arm_fault(name, 0, 0, SC_MEM_FAULT_FAIL, 0));
    FAILS(SC_EINVAL, sc_mem_store_arm_fault(name, 0, 1, SC_MEM_FAULT_NONE, 0));
    FAILS(SC_EINVAL, sc_mem_store_arm_fault(name, 1u << SC_OP_COUNT, 1, SC_MEM_FAULT_FAIL, 0));
    FAILS(SC_EINVAL, sc_mem_store_keys(&keys, "no-such-store-anywhere"));
    sc_mem_store_reset("no-such-store-anywhere"); /* harmless */
}

/* ---- opening and wrapping ---- */

Test(store, open_rejects_bad_locations) {
    sc_store *s = (sc_store *)&s;
    FAILS(SC_EINVAL, sc_store_open(&s, ""));
    cr_assert_null(s);
    FAILS(SC_EINVAL, sc_store_open(&s, "ftp://host/dir"));
    cr_assert(strstr(sc_error_message(), "unsupported location scheme"), "%s", sc_error_message());
    FAILS(SC_EINVAL, sc_store_open(&s, "mem://"));
    FAILS(SC_EINVAL, sc_store_open(&s, "file://relative/dir"));
    FAILS(SC_EINVAL, sc_store_open(&s, "s3://"));
    cr_assert(strstr(sc_error_message(), "bucket"), "%s", sc_error_message());
    cr_assert_null(s);
}

Test(store, wrap_validates_ops) {
    sc_store *s = NULL;
    FAILS(SC_EINVAL, sc_store_wrap(&s, NULL, NULL));
    const sc_store_ops *mem_ops;
    void *self;
    OK(sc_mem_store_create(&mem_ops, &self, "wrap-test"));
    sc_store_ops ops = *mem_ops;
    ops.version = SC_STORE_OPS_VERSION + 1;
    FAILS(SC_EINVAL, sc_store_wrap(&s, &ops, self));
    ops = *mem_ops;
    ops.put_if_match = NULL; /* claims CAS without it */
    FAILS(SC_EINVAL, sc_store_wrap(&s, &ops, self));
    ops.caps &= ~(uint32_t)SC_CAP_COMPARE_AND_SWAP;
    OK(sc_store_wrap(&s, &ops, self));
    FAILS(SC_EUNSUPPORTED, sc_store_put_if_match(s, NULL, "k", NULL, 0, "v1"));
    cr_assert_str_eq(sc_store_op_name(SC_OP_PUT_IF_ABSENT), "put_if_absent");
    cr_assert_str_eq(sc_store_op_name(SC_OP_DELETE), "delete");
    sc_store_free(s);
    sc_store_free(NULL);
    sc_list_page_free(NULL);
}
