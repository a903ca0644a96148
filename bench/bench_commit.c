/*
 * bench_commit — the native half of scripts/bench.sh (issue 11; docs/performance.md).
 * A program, not a test: it measures and prints, it asserts nothing about speed.
 *
 *   bench_commit floor DIR N
 *       the durable claim floor: write a temp file + fsync + renameat2(RENAME_NOREPLACE)
 *       + fsync(dir), N times.
 *   bench_commit single LOCATION [--ages 10,1000,5000] [--commits K] [--compactions M]
 *                       [--cli PATH] [--cli-commits C] [--filter-reps R] [--fast-seed 0|1]
 *       one table, aged step by step: at each age (snapshots before the measurement) it
 *       times K 5-file appends into one partition and M compactions that delete 10 live
 *       files and add one, all through one long-lived handle (a streaming committer),
 *       then the replay filter, then C appends through the CLI (a fresh process each).
 *       On a local table one durable-floor claim (see floor) precedes each timed append, in
 *       LOCATION.floor, for a floor ratio under the same disk conditions.
 *       Change sets are prepared before the clock starts; only sc_table_commit is timed.
 *       --fast-seed 1: age the table through a non-durable write path, then syncfs() (local
 *       tables; see seed_store): seeding is not timed, the timed commits are unchanged.
 *   bench_commit race LOCATION --writers W --commits C [--cli PATH] [--proxy PID:FILE]
 *       W forked processes, each with its own handle and commit user, released together,
 *       each committing C 5-file appends into the same partition. --cli: each writer commits
 *       through the CLI instead, a fresh process per commit.
 *   bench_commit rtt LOCATION [--age 10] [--commits K] [--filter-reps R] [--cli PATH]
 *                    [--cli-commits C] [--proxy PID:FILE]
 *       round trips (issue 20), meant to run through bench/latency_proxy.py: at age A, K appends
 *       and R replay checks through one long-lived handle, then C CLI appends. --proxy: the
 *       proxy's pid and the file its stdout goes to, for its request counts (see proxy_requests).
 *   bench_commit big LOCATION [--live 1000000] [--delete 1000] [--partitions 10] [--fast-seed 0|1]
 *       a table with N live files (10,000-file appends spread over P partitions), then a fresh
 *       process commits one compaction deleting M files of partition p000: time and peak RSS.
 *       --fast-seed 1: load the table as single's seeding does.
 *
 * LOCATION is a directory (a new one: the table is created there) or s3://bucket/prefix.
 * Output: one "R <key> <value>" line per figure (keys in docs/performance.md), read by
 * bench/report.py; everything else goes to stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "snapcommit/snapcommit.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

extern char **environ;

/* The table every benchmark line uses; bench/paimon creates the same one in Paimon. */
static const char SCHEMA[] =
    "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"id\",\"type\":\"BIGINT\"},"
    "{\"name\":\"v\",\"type\":\"STRING\"}],\"partitionKeys\":[\"dt\"],\"options\":{\"bucket\":\"-1\"}}";
static const char PARTITION[] = "dt=2024-01-01";
#define FILES_PER_APPEND 5
#define FILES_PER_COMPACTION 10

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void die_sc(const char *what) {
    fprintf(stderr, "bench_commit: %s: %s\n", what, sc_error_message());
    exit(1);
}

/* Key prefix for the single-writer lines: "sc" (local) or e.g. "s3"; the CLI's lines get
 * "<prefix>_cli" ("cli" for the local run). */
static const char *g_prefix = "sc";

static void result(const char *key, double value) {
    if (strcmp(g_prefix, "sc") != 0 && !strncmp(key, "sc.", 3)) printf("R %s.%s %.6g\n", g_prefix, key + 3, value);
    else if (strcmp(g_prefix, "sc") != 0 && !strncmp(key, "cli.", 4)) printf("R %s_cli.%s %.6g\n", g_prefix, key + 4, value);
    else printf("R %s %.6g\n", key, value);
    fflush(stdout);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of v[0..n) (sorted in place). */
static double pct(double *v, int n, double p) {
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)(p / 100.0 * n + 0.999999) - 1;
    if (k < 0) k = 0;
    if (k >= n) k = n - 1;
    return v[k];
}

static double mean(const double *v, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i];
    return n ? s / n : 0;
}

/* ---------------------------------------------------------------- floor */

static void floor_once(const char *dir, int dfd, int i, const char *payload, size_t len) {
    char tmp[8300], dst[8300];
    snprintf(tmp, sizeof tmp, "%s/.tmp-%d", dir, i);
    snprintf(dst, sizeof dst, "%s/claim-%d", dir, i);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) die("open");
    if (write(fd, payload, len) != (ssize_t)len) die("write");
    if (fsync(fd) != 0) die("fsync");
    close(fd);
    if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_NOREPLACE) != 0) die("renameat2");
    if (fsync(dfd) != 0) die("fsync dir");
}

static int cmd_floor(const char *dir, int n) {
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) die("mkdir floor");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd < 0) die("open floor dir");
    char payload[900]; /* about a snapshot document's size */
    memset(payload, 'x', sizeof payload);
    double *t = calloc((size_t)n, sizeof *t);
    if (!t) die("calloc");
    double t_all = now_ms();
    for (int i = 0; i < n; i++) {
        double t0 = now_ms();
        floor_once(dir, dfd, i, payload, sizeof payload);
        t[i] = now_ms() - t0;
    }
    t_all = now_ms() - t_all;
    result("floor.per_s", 1e3 * n / t_all);
    result("floor.p50_ms", pct(t, n, 50));
    close(dfd);
    free(t);
    return 0;
}

/* ---------------------------------------------------------------- change sets */

/* A growing list of live file names (oldest first) that compactions take from. */
typedef struct names {
    char **v;
    size_t head, len, cap;
} names;

static void names_push(names *l, const char *s) {
    if (l->len == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) die("realloc");
    }
    l->v[l->len++] = strdup(s);
}

static size_t names_live(const names *l) { return l->len - l->head; }

static void entry_json(char *buf, size_t cap, const char *file) {
    snprintf(buf, cap,
             "{\"partition\":\"%s\",\"bucket\":0,\"totalBuckets\":-1,\"level\":0,\"file\":\"%s\","
             "\"rows\":100,\"size\":4096,\"minSeq\":0,\"maxSeq\":99}",
             PARTITION, file);
}

/* Change-set JSON of an append of FILES_PER_APPEND new files named <prefix>-<n>-<j>.parquet. */
static char *append_json(const char *prefix, long n, names *live) {
    size_t cap = 512 * (FILES_PER_APPEND + 1);
    char *j = malloc(cap), e[512], f[128];
    if (!j) die("malloc");
    strcpy(j, "{\"add\":[");
    for (int k = 0; k < FILES_PER_APPEND; k++) {
        snprintf(f, sizeof f, "%s-%ld-%d.parquet", prefix, n, k);
        entry_json(e, sizeof e, f);
        if (k) strcat(j, ",");
        strcat(j, e);
        if (live) names_push(live, f);
    }
    strcat(j, "]}");
    return j;
}

/* Change-set JSON of a compaction: delete the FILES_PER_COMPACTION oldest live files, add one. */
static char *compact_json(long n, names *live) {
    size_t cap = 512 * (FILES_PER_COMPACTION + 2);
    char *j = malloc(cap), e[512], f[128];
    if (!j) die("malloc");
    strcpy(j, "{\"delete\":[");
    for (int k = 0; k < FILES_PER_COMPACTION; k++) {
        entry_json(e, sizeof e, live->v[live->head]);
        free(live->v[live->head]);
        live->v[live->head++] = NULL;
        if (k) strcat(j, ",");
        strcat(j, e);
    }
    snprintf(f, sizeof f, "compacted-%ld.parquet", n);
    entry_json(e, sizeof e, f);
    strcat(j, "],\"add\":[");
    strcat(j, e);
    strcat(j, "]}");
    names_push(live, f);
    return j;
}

static sc_changes *parse(sc_table *t, const char *json) {
    sc_changes *c;
    if (sc_table_parse_changes(&c, t, json, strlen(json)) != 0) die_sc("parse changes");
    return c;
}

static void commit_or_die(sc_commit_result *r, sc_table *t, const char *user, int64_t id, sc_commit_kind kind,
                          sc_changes *c) {
    sc_commit_request req = {user, id, kind, 0, c};
    if (sc_table_commit(r, t, &req) != 0) die_sc("commit");
}

static uint64_t reads_of(const sc_store_stats *s) {
    return s->ops[SC_OP_GET] + s->ops[SC_OP_HEAD] + s->ops[SC_OP_LIST];
}

static uint64_t ops_of(const sc_store_stats *s) {
    uint64_t n = 0;
    for (int op = 0; op < SC_OP_COUNT; op++) n += s->ops[op];
    return n;
}

/* Store operations inside the claim window of the winning attempt (goal 3: at most 2), when the
 * engine counts them: table.h defines SC_COMMIT_RESULT_HAS_WINDOW next to the field. Without it
 * the figure is not printed and the report says "not measured". */
#ifdef SC_COMMIT_RESULT_HAS_WINDOW
#define HAS_WINDOW 1
static double window_ops_of(const sc_commit_result *r) { return (double)ops_of(&r->window_stats); }
#else
#define HAS_WINDOW 0
static double window_ops_of(const sc_commit_result *r) {
    (void)r;
    return -1;
}
#endif

/* ---------------------------------------------------------------- fast seeding */

/*
 * Seeding (aging a table to 1,000 or 5,000 snapshots, loading 10^6 files) is not timed, but
 * through the posix store every seeding commit pays its fsyncs: most of a full run's wall time.
 * With --fast-seed the table is opened through this wrapper around the posix store. While
 * `fast` is set (seeding only), writes go through the store's non-durable hint path (temp file +
 * rename, no fsync) and put_if_absent checks for the key first (one seeding writer, so nothing
 * can slip in between); afterwards one syncfs() makes everything durable before anything is
 * timed. While `fast` is clear every operation is the posix store's own, so the timed commits,
 * their durability and their request counts are those of a plain posix table.
 */
typedef struct seed_store {
    sc_store *inner;
    int fast;
    int dir_fd; /* the table's directory, for syncfs */
} seed_store;

static int ss_get(void *self, uint8_t **d, size_t *n, sc_object_info *i, const char *k) {
    return sc_store_get(((seed_store *)self)->inner, d, n, i, k);
}
static int ss_get_bounded(void *self, uint8_t **d, size_t *n, sc_object_info *i, const char *k, size_t max) {
    return sc_store_get_bounded(((seed_store *)self)->inner, d, n, i, k, max);
}
static int ss_head(void *self, sc_object_info *i, const char *k) {
    return sc_store_head(((seed_store *)self)->inner, i, k);
}
static int ss_put(void *self, sc_object_info *i, const char *k, const uint8_t *d, size_t n) {
    seed_store *s = self;
    if (!s->fast) return sc_store_put(s->inner, i, k, d, n);
    int rc = sc_store_put_hint(s->inner, k, d, n);
    return rc || !i ? rc : sc_store_head(s->inner, i, k);
}
static int ss_put_if_absent(void *self, sc_object_info *i, const char *k, const uint8_t *d, size_t n) {
    seed_store *s = self;
    if (!s->fast) return sc_store_put_if_absent(s->inner, i, k, d, n);
    sc_object_info tmp;
    int rc = sc_store_head(s->inner, &tmp, k);
    if (rc == 0) return sc_backend_error(SC_EEXISTS, "seeding: %s exists", k);
    if (rc != SC_ENOTFOUND) return rc;
    return ss_put(self, i, k, d, n);
}
static int ss_list(void *self, sc_list_page *o, const char *prefix, const char *after, size_t max) {
    return sc_store_list(((seed_store *)self)->inner, o, prefix, after, max);
}
static int ss_del(void *self, const char *k) { return sc_store_delete(((seed_store *)self)->inner, k); }
static int ss_sync(void *self) { return sc_store_sync(((seed_store *)self)->inner); }
static int ss_put_hint(void *self, const char *k, const uint8_t *d, size_t n) {
    return sc_store_put_hint(((seed_store *)self)->inner, k, d, n);
}
static void ss_close(void *self) {
    seed_store *s = self;
    sc_store_free(s->inner);
    if (s->dir_fd >= 0) close(s->dir_fd);
    free(s);
}

static sc_store_ops g_seed_ops = {
    .version = SC_STORE_OPS_VERSION, .name = "posix", .get = ss_get, .head = ss_head, .put = ss_put,
    .put_if_absent = ss_put_if_absent, .list = ss_list, .del = ss_del, .close = ss_close, .sync = ss_sync,
    .put_hint = ss_put_hint, .get_bounded = ss_get_bounded,
};

/* Open the (created) table at a local `location` through a seed_store; *out_seed to flip `fast`.
 * The returned store is freed (with the inner one) by sc_store_free after the table. */
static sc_table *open_seeding(sc_store **out_store, seed_store **out_seed, const char *location) {
    seed_store *s = calloc(1, sizeof *s);
    if (!s) die("calloc");
    if (sc_store_open(&s->inner, location) != 0) die_sc("store open");
    s->dir_fd = open(location, O_RDONLY | O_DIRECTORY);
    if (s->dir_fd < 0) die("open table dir");
    g_seed_ops.caps = sc_store_caps(s->inner);
    if (sc_store_wrap(out_store, &g_seed_ops, s) != 0) die_sc("store wrap");
    sc_table *t;
    if (sc_table_open(&t, *out_store) != 0) die_sc("open");
    *out_seed = s;
    return t;
}

static void seeding(seed_store *s, int on) {
    if (!s) return;
    if (!on && syncfs(s->dir_fd) != 0) die("syncfs"); /* everything seeded is durable before timing */
    s->fast = on;
}

static sc_table *create_and_open(const char *location) {
    sc_store *store;
    if (sc_store_open(&store, location) != 0) die_sc("store open");
    if (sc_table_create_with_schema(store, SC_STRATEGY_AUTO, SCHEMA, strlen(SCHEMA)) != 0) die_sc("create");
    sc_store_free(store);
    sc_table *t;
    if (sc_table_open_location(&t, location) != 0) die_sc("open");
    return t;
}

/* ---------------------------------------------------------------- single writer */

typedef struct single_opts {
    const char *location;
    long ages[16];
    int n_ages;
    int commits, compactions, cli_commits, filter_reps;
    int fast_seed; /* seed through seed_store (local tables) */
    const char *cli;
} single_opts;

/* Run the CLI once: snapcommit commit LOC --user U --identifier N --changes FILE --stats --json.
 * Its stdout (the JSON line) goes to out[cap]; *exit_code its exit status (-1: killed).
 * Returns wall time in ms. */
static double cli_run(const char *cli, const char *loc, const char *user, long id, const char *file, char *out,
                      size_t cap, int *exit_code) {
    char ids[32];
    snprintf(ids, sizeof ids, "%ld", id);
    char *argv[] = {(char *)cli, "commit", (char *)loc, "--user", (char *)user, "--identifier", ids,
                    "--changes", (char *)file, "--stats", "--json", NULL};
    int p[2];
    if (pipe(p) != 0) die("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    pid_t pid;
    double t0 = now_ms();
    if (posix_spawn(&pid, cli, &fa, NULL, argv, environ) != 0) die("posix_spawn");
    close(p[1]);
    size_t n = 0;
    ssize_t k;
    while ((k = read(p[0], out + n, cap - 1 - n)) > 0) n += (size_t)k;
    out[n] = 0;
    close(p[0]);
    int st;
    if (waitpid(pid, &st, 0) < 0) die("waitpid");
    double dt = now_ms() - t0;
    posix_spawn_file_actions_destroy(&fa);
    *exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return dt;
}

/* The CLI's --json "stats" object: the sum of its operation counts (bytes and round trips left out), -1 if absent. */
static double cli_requests(const char *json) {
    const char *s = strstr(json, "\"stats\":{");
    if (!s) return -1;
    double total = 0;
    for (s += 9; *s && *s != '}';) {
        const char *colon = strchr(s, ':');
        if (!colon) break;
        if (strncmp(s, "\"bytes", 6) != 0 && strncmp(s, "\"roundTrips", 11) != 0) total += atof(colon + 1);
        s = colon + 1;
        while (*s && *s != ',' && *s != '}') s++;
        if (*s == ',') s++;
    }
    return total;
}

/* One CLI commit that must succeed. Returns wall time in ms; *gets / *bytes from its --json stats. */
static double cli_commit(const char *cli, const char *loc, const char *user, long id, const char *file,
                         double *gets, double *bytes, double *requests) {
    char out[4096];
    int code;
    double dt = cli_run(cli, loc, user, id, file, out, sizeof out, &code);
    if (code != 0) {
        fprintf(stderr, "bench_commit: CLI commit failed: %s\n", out);
        exit(1);
    }
    const char *g = strstr(out, "\"get\":"), *b = strstr(out, "\"bytesRead\":");
    *gets = g ? atof(g + 6) : -1;
    *bytes = b ? atof(b + 12) : -1;
    if (requests) *requests = cli_requests(out);
    return dt;
}

static int cmd_single(const single_opts *o) {
    sc_table *t = create_and_open(o->location);
    sc_store *seed_outer = NULL;
    seed_store *seed = NULL;
    if (o->fast_seed && strncmp(o->location, "s3://", 5) != 0) {
        sc_table_free(t);
        t = open_seeding(&seed_outer, &seed, o->location);
    }
    names live = {0};
    sc_commit_result r;
    long age = 0, seed_n = 0, bench_id = 0, compact_id = 0, cli_id = 0;
    /* The first snapshot belongs to a user that never commits again: the replay filter of a job that
     * restarts after a long pause (Paimon walks the history back to it). */
    {
        char *j = append_json("early", 1, &live);
        sc_changes *c = parse(t, j);
        commit_or_die(&r, t, "early", 1, SC_KIND_APPEND, c);
        sc_changes_free(c);
        free(j);
        age = 1;
    }
    int maxn = o->commits > o->compactions ? o->commits : o->compactions;
    if (o->cli_commits > maxn) maxn = o->cli_commits;
    if (o->filter_reps > maxn) maxn = o->filter_reps;
    double *lat = calloc((size_t)maxn, sizeof *lat), *get = calloc((size_t)maxn, sizeof *get),
           *rd = calloc((size_t)maxn, sizeof *rd), *byt = calloc((size_t)maxn, sizeof *byt),
           *req = calloc((size_t)maxn, sizeof *req), *win = calloc((size_t)maxn, sizeof *win);
    sc_changes **cs = calloc((size_t)maxn, sizeof *cs);
    double *flr = calloc((size_t)maxn, sizeof *flr);
    if (!lat || !get || !rd || !byt || !req || !win || !flr || !cs) die("calloc");
    /* On a local table, the durable floor is measured interleaved with the appends, in
     * <LOCATION>.floor, so that the ratio compares both under the same disk conditions. */
    char floor_dir[4200], floor_payload[900];
    int floor_fd = -1;
    long floor_n = 0;
    memset(floor_payload, 'x', sizeof floor_payload);
    if (strncmp(o->location, "s3://", 5) != 0) {
        snprintf(floor_dir, sizeof floor_dir, "%s.floor", o->location);
        if (mkdir(floor_dir, 0755) != 0) die("mkdir floor");
        floor_fd = open(floor_dir, O_RDONLY | O_DIRECTORY);
        if (floor_fd < 0) die("open floor dir");
    }
    char key[128], dir[4200];
    snprintf(dir, sizeof dir, "/tmp/sc-bench-cli.%d", (int)getpid());
    if (o->cli && mkdir(dir, 0755) != 0) die("mkdir cli dir");

    for (int a = 0; a < o->n_ages; a++) {
        long target = o->ages[a];
        double tp = now_ms();
        long from = age;
        seeding(seed, 1);
        while (age < target) {
            char *j = append_json("seed", ++seed_n, &live);
            sc_changes *c = parse(t, j);
            commit_or_die(&r, t, "seed", seed_n, SC_KIND_APPEND, c);
            sc_changes_free(c);
            free(j);
            age++;
        }
        seeding(seed, 0);
        fprintf(stderr, "bench_commit: aged %ld -> %ld in %.1f s (%zu live files)\n", from, age,
                (now_ms() - tp) / 1e3, names_live(&live));
        long label = target;

        /* appends */
        for (int i = 0; i < o->commits; i++) {
            char *j = append_json("bench", bench_id + 1 + i, &live);
            cs[i] = parse(t, j);
            free(j);
        }
        for (int i = 0; i < o->commits; i++) {
            if (floor_fd >= 0) { /* one floor claim before each commit: both see the same disk */
                double f0 = now_ms();
                floor_once(floor_dir, floor_fd, (int)floor_n++, floor_payload, sizeof floor_payload);
                flr[i] = now_ms() - f0;
            }
            double t0 = now_ms();
            commit_or_die(&r, t, "bench", ++bench_id, SC_KIND_APPEND, cs[i]);
            lat[i] = now_ms() - t0;
            get[i] = (double)r.stats.ops[SC_OP_GET];
            rd[i] = (double)reads_of(&r.stats);
            req[i] = (double)ops_of(&r.stats);
            win[i] = window_ops_of(&r);
            byt[i] = (double)r.stats.bytes_read;
            sc_changes_free(cs[i]);
        }
        age += o->commits;
        if (floor_fd >= 0) {
            snprintf(key, sizeof key, "sc.floor.age%ld.per_s", label);
            result(key, 1e3 / mean(flr, o->commits));
        }
        snprintf(key, sizeof key, "sc.append.age%ld.p50_ms", label);
        result(key, pct(lat, o->commits, 50));
        snprintf(key, sizeof key, "sc.append.age%ld.p99_ms", label);
        result(key, pct(lat, o->commits, 99));
        snprintf(key, sizeof key, "sc.append.age%ld.per_s", label);
        result(key, 1e3 / mean(lat, o->commits));
        snprintf(key, sizeof key, "sc.append.age%ld.gets", label);
        result(key, mean(get, o->commits));
        snprintf(key, sizeof key, "sc.append.age%ld.reads", label);
        result(key, mean(rd, o->commits));
        snprintf(key, sizeof key, "sc.append.age%ld.bytes_read", label);
        result(key, mean(byt, o->commits));
        snprintf(key, sizeof key, "sc.append.age%ld.requests", label);
        result(key, mean(req, o->commits));
        if (HAS_WINDOW) {
            snprintf(key, sizeof key, "sc.append.age%ld.window_requests", label);
            result(key, mean(win, o->commits));
            snprintf(key, sizeof key, "sc.append.age%ld.window_requests_max", label);
            result(key, pct(win, o->commits, 100));
        }
        snprintf(key, sizeof key, "sc.live_files.age%ld", label);
        result(key, (double)names_live(&live));

        /* compactions: 10 deleted, 1 added, the oldest live files first */
        int nc = o->compactions;
        if ((size_t)nc * FILES_PER_COMPACTION > names_live(&live)) nc = (int)(names_live(&live) / FILES_PER_COMPACTION);
        for (int i = 0; i < nc; i++) {
            char *j = compact_json(compact_id + 1 + i, &live);
            cs[i] = parse(t, j);
            free(j);
        }
        for (int i = 0; i < nc; i++) {
            double t0 = now_ms();
            commit_or_die(&r, t, "compactor", ++compact_id, SC_KIND_COMPACT, cs[i]);
            lat[i] = now_ms() - t0;
            get[i] = (double)r.stats.ops[SC_OP_GET];
            byt[i] = (double)r.stats.bytes_read;
            sc_changes_free(cs[i]);
        }
        age += nc;
        snprintf(key, sizeof key, "sc.compact.age%ld.p50_ms", label);
        result(key, pct(lat, nc, 50));
        snprintf(key, sizeof key, "sc.compact.age%ld.p99_ms", label);
        result(key, pct(lat, nc, 99));
        snprintf(key, sizeof key, "sc.compact.age%ld.gets", label);
        result(key, mean(get, nc));
        snprintf(key, sizeof key, "sc.compact.age%ld.bytes_read", label);
        result(key, mean(byt, nc));

        /* replay filter of the user whose only commit is snapshot 1 (a fresh handle each time:
         * what a restarting job does) and of the streaming user (through its own handle) */
        for (int i = 0; i < o->filter_reps; i++) {
            sc_table *f;
            if (sc_table_open_location(&f, o->location) != 0) die_sc("open for filter");
            int64_t ids[3] = {1, 2, 3};
            size_t kept;
            double t0 = now_ms();
            if (sc_table_filter_committed(ids, &kept, f, "early", ids, 3) != 0) die_sc("filter");
            lat[i] = now_ms() - t0;
            if (kept != 2) {
                fprintf(stderr, "bench_commit: filter kept %zu of 3, expected 2\n", kept);
                return 1;
            }
            sc_table_free(f);
        }
        snprintf(key, sizeof key, "sc.filter.age%ld.p50_ms", label);
        result(key, pct(lat, o->filter_reps, 50));

        /* the CLI: a fresh process per commit */
        if (o->cli) {
            char file[4400];
            for (int i = 0; i < o->cli_commits; i++) {
                char *j = append_json("cli", cli_id + 1 + i, &live);
                snprintf(file, sizeof file, "%s/c-%ld.json", dir, cli_id + 1 + i);
                FILE *fp = fopen(file, "w");
                if (!fp || fputs(j, fp) < 0 || fclose(fp) != 0) die("write change set");
                free(j);
            }
            for (int i = 0; i < o->cli_commits; i++) {
                cli_id++;
                snprintf(file, sizeof file, "%s/c-%ld.json", dir, cli_id);
                lat[i] = cli_commit(o->cli, o->location, "cli", cli_id, file, &get[i], &byt[i], NULL);
                unlink(file);
            }
            age += o->cli_commits;
            snprintf(key, sizeof key, "cli.append.age%ld.p50_ms", label);
            result(key, pct(lat, o->cli_commits, 50));
            snprintf(key, sizeof key, "cli.append.age%ld.per_s", label);
            result(key, 1e3 / mean(lat, o->cli_commits));
            snprintf(key, sizeof key, "cli.append.age%ld.gets", label);
            result(key, mean(get, o->cli_commits));
            snprintf(key, sizeof key, "cli.append.age%ld.bytes_read", label);
            result(key, mean(byt, o->cli_commits));
        }
    }
    if (o->cli) rmdir(dir);
    for (size_t i = live.head; i < live.len; i++) free(live.v[i]);
    free(live.v);
    free(lat);
    free(get);
    free(rd);
    free(byt);
    free(req);
    free(win);
    free(flr);
    free(cs);
    if (floor_fd >= 0) close(floor_fd);
    sc_table_free(t);
    sc_store_free(seed_outer);
    return 0;
}

/* ---------------------------------------------------------------- race */

typedef struct race_rec {
    int committed, gave_up, lost, max_lost;
    double ops, window_ops, max_ms;
} race_rec;

static void race_child(const char *loc, int w, int commits, int go_fd, int ready_fd, int out_fd) {
    sc_table *t;
    if (sc_table_open_location(&t, loc) != 0) die_sc("race open");
    char user[32], pre[32];
    snprintf(user, sizeof user, "writer-%d", w);
    snprintf(pre, sizeof pre, "w%d", w);
    sc_changes **cs = calloc((size_t)commits, sizeof *cs);
    if (!cs) die("calloc");
    for (int i = 0; i < commits; i++) {
        char *j = append_json(pre, i + 1, NULL);
        cs[i] = parse(t, j);
        free(j);
    }
    char b = 'r';
    if (write(ready_fd, &b, 1) != 1) die("write ready");
    close(ready_fd);
    if (read(go_fd, &b, 1) < 0) die("read go"); /* returns 0 when the parent closes its end */
    race_rec rec = {0};
    for (int i = 0; i < commits; i++) {
        sc_commit_result r;
        memset(&r, 0, sizeof r);
        sc_commit_request req = {user, i + 1, SC_KIND_APPEND, 0, cs[i]};
        double t0 = now_ms();
        int rc = sc_table_commit(&r, t, &req);
        double dt = now_ms() - t0;
        if (rc == 0) rec.committed++;
        else if (rc == SC_ERETRIES || rc == SC_ETIMEOUT) {
            rec.gave_up++;
            fprintf(stderr, "bench_commit: writer %d commit %d gave up after %.0f ms: %s\n", w, i + 1, dt,
                    sc_error_message());
        } else die_sc("race commit");
        rec.lost += r.lost_claims;
        if (r.lost_claims > rec.max_lost) rec.max_lost = r.lost_claims;
        rec.ops += (double)ops_of(&r.stats);
        if (rc == 0) rec.window_ops += window_ops_of(&r);
        if (dt > rec.max_ms) rec.max_ms = dt;
        sc_changes_free(cs[i]);
    }
    if (write(out_fd, &rec, sizeof rec) != (ssize_t)sizeof rec) die("write result");
    free(cs);
    sc_table_free(t);
    exit(0);
}

/* The latency proxy in front of the S3 server (bench/latency_proxy.py), when one is named with
 * --proxy PID:FILE: on SIGUSR1 it appends "requests N connections C ..." to its stdout, which
 * scripts/bench.sh sends to FILE. Its counts take in everything a process sends, the opening of a
 * table included, which sc_commit_result.stats does not. */
typedef struct proxy {
    pid_t pid; /* 0: no proxy */
    const char *out;
} proxy;

static int parse_proxy(proxy *p, const char *arg) {
    char *end;
    long pid = strtol(arg, &end, 10);
    if (pid <= 0 || *end != ':' || !end[1]) return -1;
    p->pid = (pid_t)pid;
    p->out = end + 1;
    return 0;
}

/* Lines in the proxy's output file; *last its last line (truncated to cap). */
static int proxy_lines(const proxy *p, char *last, size_t cap) {
    FILE *f = fopen(p->out, "r");
    if (!f) die("open proxy output");
    char line[512];
    int n = 0;
    last[0] = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        snprintf(last, cap, "%s", line);
    }
    fclose(f);
    return n;
}

/* The proxy's counts so far: requests (returned; -1 without a proxy) and *connections. */
static double proxy_requests(const proxy *p, double *connections) {
    *connections = -1;
    if (!p->pid) return -1;
    char last[512];
    int before = proxy_lines(p, last, sizeof last);
    if (kill(p->pid, SIGUSR1) != 0) die("signal the latency proxy");
    for (int i = 0; i < 2000; i++) { /* it answers within milliseconds; 10 s is a dead proxy */
        struct timespec ts = {0, 5 * 1000 * 1000};
        if (proxy_lines(p, last, sizeof last) > before) {
            double req = -1;
            if (sscanf(last, "requests %lf connections %lf", &req, connections) != 2) break;
            return req;
        }
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "bench_commit: no count from the latency proxy (pid %d, %s)\n", (int)p->pid, p->out);
    exit(1);
}

/* A race writer that commits through the CLI, a fresh process per commit (exit 5: gave up). */
static void race_child_cli(const char *cli, const char *loc, int w, int commits, int go_fd, int ready_fd,
                           int out_fd) {
    char user[32], pre[32], dir[64], file[128];
    snprintf(user, sizeof user, "writer-%d", w);
    snprintf(pre, sizeof pre, "w%d", w);
    snprintf(dir, sizeof dir, "/tmp/sc-bench-race.%d", (int)getpid());
    if (mkdir(dir, 0755) != 0) die("mkdir race dir");
    for (int i = 0; i < commits; i++) {
        char *j = append_json(pre, i + 1, NULL);
        snprintf(file, sizeof file, "%s/c-%d.json", dir, i + 1);
        FILE *fp = fopen(file, "w");
        if (!fp || fputs(j, fp) < 0 || fclose(fp) != 0) die("write change set");
        free(j);
    }
    char b = 'r';
    if (write(ready_fd, &b, 1) != 1) die("write ready");
    close(ready_fd);
    if (read(go_fd, &b, 1) < 0) die("read go");
    race_rec rec = {0};
    for (int i = 0; i < commits; i++) {
        char out[4096];
        int code;
        snprintf(file, sizeof file, "%s/c-%d.json", dir, i + 1);
        double dt = cli_run(cli, loc, user, i + 1, file, out, sizeof out, &code);
        unlink(file);
        if (code == 0) rec.committed++;
        else if (code == 5) {
            rec.gave_up++;
            fprintf(stderr, "bench_commit: CLI writer %d commit %d gave up after %.0f ms: %s\n", w, i + 1, dt, out);
        } else {
            fprintf(stderr, "bench_commit: CLI writer %d commit %d failed (exit %d): %s\n", w, i + 1, code, out);
            exit(1);
        }
        const char *l = strstr(out, "\"lostClaims\":");
        int lost = l ? atoi(l + 13) : 0;
        rec.lost += lost;
        if (lost > rec.max_lost) rec.max_lost = lost;
        double req = cli_requests(out);
        if (req > 0) rec.ops += req;
        if (dt > rec.max_ms) rec.max_ms = dt;
    }
    rmdir(dir);
    if (write(out_fd, &rec, sizeof rec) != (ssize_t)sizeof rec) die("write result");
    exit(0);
}

/* W writers, C API handles or (cli) CLI processes. */
static int cmd_race(const char *loc, int writers, int commits, const char *prefix, const char *cli,
                    const proxy *px) {
    sc_table *t = create_and_open(loc);
    {
        char *j = append_json("seed", 1, NULL);
        sc_changes *c = parse(t, j);
        sc_commit_result r;
        commit_or_die(&r, t, "seed", 1, SC_KIND_APPEND, c);
        sc_changes_free(c);
        free(j);
    }
    sc_table_free(t);
    int go[2], res[2], ready[2];
    if (pipe(go) || pipe(res) || pipe(ready)) die("pipe");
    pid_t *pids = calloc((size_t)writers, sizeof *pids);
    if (!pids) die("calloc");
    fflush(NULL);
    for (int w = 0; w < writers; w++) {
        pid_t p = fork();
        if (p < 0) die("fork");
        if (p == 0) {
            close(go[1]);
            close(res[0]);
            close(ready[0]);
            if (cli) race_child_cli(cli, loc, w, commits, go[0], ready[1], res[1]);
            race_child(loc, w, commits, go[0], ready[1], res[1]);
        }
        pids[w] = p;
    }
    close(go[0]);
    close(res[1]);
    close(ready[1]);
    /* Wait until every writer has opened its handle and prepared its change sets. */
    char b;
    for (int w = 0; w < writers; w++)
        if (read(ready[0], &b, 1) != 1) die("read ready");
    close(ready[0]);
    double conns0, req0 = proxy_requests(px, &conns0);
    double t0 = now_ms();
    close(go[1]); /* release every writer at once */
    race_rec all = {0}, rec;
    int got = 0;
    while (read(res[0], &rec, sizeof rec) == (ssize_t)sizeof rec) {
        all.committed += rec.committed;
        all.gave_up += rec.gave_up;
        all.lost += rec.lost;
        if (rec.max_lost > all.max_lost) all.max_lost = rec.max_lost;
        all.ops += rec.ops;
        all.window_ops += rec.window_ops;
        if (rec.max_ms > all.max_ms) all.max_ms = rec.max_ms;
        got++;
    }
    double wall = now_ms() - t0;
    double conns1, req1 = proxy_requests(px, &conns1);
    for (int w = 0; w < writers; w++) {
        int st;
        waitpid(pids[w], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "bench_commit: writer %d failed\n", w);
            return 1;
        }
    }
    if (got != writers) return 1;
    /* Every commit should have made exactly one snapshot after the seed's: a difference is a bug,
     * reported as a figure (and on stderr) so that the rest of the run goes on. */
    uint64_t latest = 0;
    if (sc_table_open_location(&t, loc) != 0 || sc_table_latest_id(&latest, t) != 0) die_sc("race check");
    sc_table_free(t);
    if (latest != 1 + (uint64_t)all.committed)
        fprintf(stderr, "bench_commit: race made %d commits but the latest snapshot is %" PRIu64 "\n", all.committed,
                latest);
    char key[128];
#define RACE(name, v)                                           \
    do {                                                        \
        snprintf(key, sizeof key, "%s.%s", prefix, name);       \
        result(key, v);                                         \
    } while (0)
    RACE("snapshots_missing", 1.0 + all.committed - (double)latest); /* 0 unless a commit was lost or doubled */
    RACE("committed", all.committed);
    RACE("gave_up", all.gave_up);
    RACE("lost_claims", all.lost);
    RACE("max_lost_one_commit", all.max_lost);
    RACE("per_s", 1e3 * all.committed / wall);
    RACE("requests_per_commit", all.committed ? all.ops / all.committed : 0);
    if (HAS_WINDOW && !cli) RACE("window_requests_per_commit", all.committed ? all.window_ops / all.committed : 0);
    if (px->pid && all.committed) {
        RACE("proxy_requests_per_commit", (req1 - req0) / all.committed);
        RACE("proxy_connections_per_commit", (conns1 - conns0) / all.committed);
    }
    RACE("max_commit_ms", all.max_ms);
#undef RACE
    free(pids);
    return 0;
}

/* ---------------------------------------------------------------- round trips (issue 20) */

typedef struct rtt_opts {
    const char *location, *prefix, *cli;
    int commits, filter_reps, cli_commits;
    long age; /* snapshots before the measurement */
    proxy px;
} rtt_opts;

static uint64_t table_ops(sc_table *t) {
    sc_store_stats st;
    sc_store_stats_get(&st, sc_table_store(t));
    return ops_of(&st);
}

/*
 * What one request of latency D costs a commit (run through bench/latency_proxy.py, which holds
 * every request D ms): wall times here divided by D are the round trips on the critical path.
 * At table age `age`, through one long-lived handle (warm: it has committed before): K appends,
 * then R replay checks of the streaming user (sc_table_filter_committed), then C CLI appends, a
 * fresh process each. Requests: the library's own counts, and the proxy's when it is named.
 */
static int cmd_rtt(const rtt_opts *o) {
    sc_table *t = create_and_open(o->location);
    names live = {0};
    sc_commit_result r;
    long id = 0;
    for (long a = 0; a < o->age; a++) { /* the ageing commits warm the handle as well */
        char *j = append_json("seed", a + 1, &live);
        sc_changes *c = parse(t, j);
        commit_or_die(&r, t, "seed", a + 1, SC_KIND_APPEND, c);
        sc_changes_free(c);
        free(j);
    }
    int maxn = o->commits > o->filter_reps ? o->commits : o->filter_reps;
    if (o->cli_commits > maxn) maxn = o->cli_commits;
    double *lat = calloc((size_t)maxn, sizeof *lat), *req = calloc((size_t)maxn, sizeof *req);
    sc_changes **cs = calloc((size_t)maxn, sizeof *cs);
    if (!lat || !req || !cs) die("calloc");
    char key[128];
#define RTT(name, v)                                          \
    do {                                                      \
        snprintf(key, sizeof key, "%s.%s", o->prefix, name);  \
        result(key, v);                                       \
    } while (0)

    /* warm appends */
    for (int i = 0; i < o->commits; i++) {
        char *j = append_json("bench", i + 1, &live);
        cs[i] = parse(t, j);
        free(j);
    }
    double c0, p0 = proxy_requests(&o->px, &c0);
    for (int i = 0; i < o->commits; i++) {
        double t0 = now_ms();
        commit_or_die(&r, t, "bench", ++id, SC_KIND_APPEND, cs[i]);
        lat[i] = now_ms() - t0;
        req[i] = (double)ops_of(&r.stats);
        sc_changes_free(cs[i]);
    }
    double c1, p1 = proxy_requests(&o->px, &c1);
    RTT("append.requests", mean(req, o->commits));
    RTT("append.p50_ms", pct(lat, o->commits, 50));
    RTT("append.p90_ms", pct(lat, o->commits, 90));
    if (o->px.pid) {
        RTT("append.proxy_requests", (p1 - p0) / o->commits);
        RTT("append.proxy_connections", (c1 - c0) / o->commits);
    }

    /* warm replay checks: the streaming user, through the same handle */
    for (int i = 0; i < o->filter_reps; i++) {
        int64_t ids[3] = {id - 1, id, id + 1};
        size_t kept;
        uint64_t n0 = table_ops(t);
        double t0 = now_ms();
        if (sc_table_filter_committed(ids, &kept, t, "bench", ids, 3) != 0) die_sc("filter");
        lat[i] = now_ms() - t0;
        req[i] = (double)(table_ops(t) - n0);
        if (kept != 1) {
            fprintf(stderr, "bench_commit: filter kept %zu of 3, expected 1\n", kept);
            return 1;
        }
    }
    p0 = proxy_requests(&o->px, &c0);
    RTT("filter.requests", mean(req, o->filter_reps));
    RTT("filter.p50_ms", pct(lat, o->filter_reps, 50));
    if (o->px.pid) RTT("filter.proxy_requests", (p0 - p1) / o->filter_reps);

    /* fresh CLI appends */
    if (o->cli && o->cli_commits > 0) {
        char dir[64], file[128];
        snprintf(dir, sizeof dir, "/tmp/sc-bench-rtt.%d", (int)getpid());
        if (mkdir(dir, 0755) != 0) die("mkdir cli dir");
        for (int i = 0; i < o->cli_commits; i++) {
            char *j = append_json("cli", i + 1, &live);
            snprintf(file, sizeof file, "%s/c-%d.json", dir, i + 1);
            FILE *fp = fopen(file, "w");
            if (!fp || fputs(j, fp) < 0 || fclose(fp) != 0) die("write change set");
            free(j);
        }
        p0 = proxy_requests(&o->px, &c0);
        for (int i = 0; i < o->cli_commits; i++) {
            double gets, bytes;
            snprintf(file, sizeof file, "%s/c-%d.json", dir, i + 1);
            lat[i] = cli_commit(o->cli, o->location, "cli", i + 1, file, &gets, &bytes, &req[i]);
            unlink(file);
        }
        p1 = proxy_requests(&o->px, &c1);
        rmdir(dir);
        RTT("cli.requests", mean(req, o->cli_commits));
        RTT("cli.p50_ms", pct(lat, o->cli_commits, 50));
        if (o->px.pid) {
            RTT("cli.proxy_requests", (p1 - p0) / o->cli_commits);
            RTT("cli.proxy_connections", (c1 - c0) / o->cli_commits);
        }
    }
#undef RTT
    for (size_t i = live.head; i < live.len; i++) free(live.v[i]);
    free(live.v);
    free(lat);
    free(req);
    free(cs);
    sc_table_free(t);
    return 0;
}

/* ---------------------------------------------------------------- big compaction (goal 4) */

/* Change-set JSON: `count` entries named <prefix>-<from+k>.parquet in partition dt=p<part>. */
static char *many_json(const char *verb, const char *prefix, long from, long count, int part, const char *also) {
    size_t cap = (size_t)(count + 2) * 200 + (also ? strlen(also) : 0) + 64, n = 0;
    char *j = malloc(cap);
    if (!j) die("malloc");
    n += (size_t)snprintf(j + n, cap - n, "{\"%s\":[", verb);
    for (long k = 0; k < count; k++)
        n += (size_t)snprintf(j + n, cap - n,
                              "%s{\"partition\":\"dt=p%03d\",\"bucket\":0,\"totalBuckets\":-1,\"level\":0,"
                              "\"file\":\"%s-%ld.parquet\",\"rows\":100,\"size\":4096}",
                              k ? "," : "", part, prefix, from + k);
    n += (size_t)snprintf(j + n, cap - n, "]%s}", also ? also : "");
    return j;
}

static double hwm_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) v = atof(line + 6);
    if (f) fclose(f);
    return v;
}

/* In a fresh process (spawned by cmd_big): open, prepare, time one compaction of `del` files. */
static int cmd_big_commit(const char *loc, long del) {
    sc_table *t;
    if (sc_table_open_location(&t, loc) != 0) die_sc("open");
    char add[300];
    snprintf(add, sizeof add,
             ",\"add\":[{\"partition\":\"dt=p000\",\"bucket\":0,\"totalBuckets\":-1,\"level\":1,"
             "\"file\":\"big-compacted.parquet\",\"rows\":100000,\"size\":409600000}]");
    char *j = many_json("delete", "big-0", 0, del, 0, add);
    sc_changes *c = parse(t, j);
    free(j);
    double before = hwm_kib(), t0 = now_ms();
    sc_commit_result r;
    commit_or_die(&r, t, "big-compactor", 1, SC_KIND_COMPACT, c);
    double dt = now_ms() - t0;
    result("big.compact_ms", dt);
    result("big.peak_rss_mib", hwm_kib() / 1024.0);
    result("big.rss_before_commit_mib", before / 1024.0);
    result("big.requests", (double)ops_of(&r.stats));
    sc_changes_free(c);
    sc_table_free(t);
    return 0;
}

static int cmd_big(const char *loc, long live, long del, int parts, int fast_seed) {
    sc_table *t = create_and_open(loc);
    sc_store *seed_outer = NULL;
    seed_store *seed = NULL;
    if (fast_seed && strncmp(loc, "s3://", 5) != 0) {
        sc_table_free(t);
        t = open_seeding(&seed_outer, &seed, loc);
    }
    seeding(seed, 1);
    const long per_commit = 10000;
    long per_part = live / parts, done = 0;
    double t0 = now_ms();
    for (int p = 0; p < parts; p++)
        for (long k = 0; k < per_part; k += per_commit) {
            long n = per_part - k < per_commit ? per_part - k : per_commit;
            char pre[32];
            snprintf(pre, sizeof pre, "big-%d", p);
            char *j = many_json("add", pre, k, n, p, NULL);
            sc_changes *c = parse(t, j);
            free(j);
            sc_commit_result r;
            commit_or_die(&r, t, "big-loader", ++done, SC_KIND_APPEND, c);
            sc_changes_free(c);
        }
    seeding(seed, 0);
    fprintf(stderr, "bench_commit: %ld live files in %d partitions, %ld commits, %.1f s\n", per_part * parts, parts,
            done, (now_ms() - t0) / 1e3);
    sc_table_free(t);
    sc_store_free(seed_outer);
    result("big.live_files", (double)(per_part * parts));
    fflush(stdout);
    char dels[32];
    snprintf(dels, sizeof dels, "%ld", del);
    char *argv[] = {"bench_commit", "big-commit", (char *)loc, dels, NULL};
    pid_t pid;
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) != 0) die("posix_spawn");
    int st;
    if (waitpid(pid, &st, 0) < 0) die("waitpid");
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* ---------------------------------------------------------------- main */

static void usage(void) {
    fprintf(stderr,
            "usage: bench_commit floor DIR N\n"
            "       bench_commit single LOCATION [--ages 10,1000,5000] [--commits K] [--compactions M]\n"
            "                    [--cli PATH] [--cli-commits C] [--filter-reps R] [--prefix KEY]\n"
            "                    [--fast-seed 0|1]\n"
            "       bench_commit race LOCATION --writers W --commits C [--prefix KEY] [--cli PATH]\n"
            "                    [--proxy PID:FILE]\n"
            "       bench_commit rtt LOCATION [--age A] [--commits K] [--filter-reps R] [--cli PATH]\n"
            "                    [--cli-commits C] [--prefix KEY] [--proxy PID:FILE]\n"
            "       bench_commit big LOCATION [--live N] [--delete M] [--partitions P] [--fast-seed 0|1]\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 3) usage();
    if (!strcmp(argv[1], "floor")) {
        if (argc != 4) usage();
        return cmd_floor(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 300);
    }
    if (!strcmp(argv[1], "single")) {
        single_opts o = {.location = argv[2], .commits = 100, .compactions = 50, .cli_commits = 20, .filter_reps = 20};
        const char *ages = "10,1000,5000";
        for (int i = 3; i < argc; i++) {
            if (i + 1 >= argc) usage();
            if (!strcmp(argv[i], "--ages")) ages = argv[++i];
            else if (!strcmp(argv[i], "--commits")) o.commits = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--compactions")) o.compactions = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--cli")) o.cli = argv[++i];
            else if (!strcmp(argv[i], "--cli-commits")) o.cli_commits = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--filter-reps")) o.filter_reps = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--prefix")) g_prefix = argv[++i];
            else if (!strcmp(argv[i], "--fast-seed")) o.fast_seed = atoi(argv[++i]);
            else usage();
        }
        for (const char *p = ages; *p && o.n_ages < 16;) {
            o.ages[o.n_ages++] = strtol(p, (char **)&p, 10);
            if (*p == ',') p++;
            else if (*p) usage();
        }
        if (o.commits < 1 || o.compactions < 0 || o.cli_commits < 0 || o.filter_reps < 1) usage();
        return cmd_single(&o);
    }
    if (!strcmp(argv[1], "race")) {
        int writers = 0, commits = 0;
        const char *prefix = NULL, *cli = NULL;
        proxy px = {0};
        for (int i = 3; i < argc; i++) {
            if (i + 1 >= argc) usage();
            if (!strcmp(argv[i], "--writers")) writers = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--commits")) commits = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--prefix")) prefix = argv[++i];
            else if (!strcmp(argv[i], "--cli")) cli = argv[++i];
            else if (!strcmp(argv[i], "--proxy")) {
                if (parse_proxy(&px, argv[++i]) != 0) usage();
            } else usage();
        }
        if (writers < 1 || commits < 1) usage();
        char def[64];
        snprintf(def, sizeof def, "sc.race%dx%d", writers, commits);
        return cmd_race(argv[2], writers, commits, prefix ? prefix : def, cli, &px);
    }
    if (!strcmp(argv[1], "rtt")) {
        rtt_opts o = {.location = argv[2], .prefix = "rtt", .commits = 30, .filter_reps = 20, .cli_commits = 10,
                      .age = 10};
        for (int i = 3; i < argc; i++) {
            if (i + 1 >= argc) usage();
            if (!strcmp(argv[i], "--age")) o.age = atol(argv[++i]);
            else if (!strcmp(argv[i], "--commits")) o.commits = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--filter-reps")) o.filter_reps = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--cli")) o.cli = argv[++i];
            else if (!strcmp(argv[i], "--cli-commits")) o.cli_commits = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--prefix")) o.prefix = argv[++i];
            else if (!strcmp(argv[i], "--proxy")) {
                if (parse_proxy(&o.px, argv[++i]) != 0) usage();
            } else usage();
        }
        if (o.age < 1 || o.commits < 1 || o.filter_reps < 1 || o.cli_commits < 0) usage();
        return cmd_rtt(&o);
    }
    if (!strcmp(argv[1], "big")) {
        long live = 1000000, del = 1000;
        int parts = 10, fast_seed = 0;
        for (int i = 3; i < argc; i++) {
            if (i + 1 >= argc) usage();
            if (!strcmp(argv[i], "--live")) live = atol(argv[++i]);
            else if (!strcmp(argv[i], "--delete")) del = atol(argv[++i]);
            else if (!strcmp(argv[i], "--partitions")) parts = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--fast-seed")) fast_seed = atoi(argv[++i]);
            else usage();
        }
        if (parts < 1 || parts > 999 || live < parts || del < 1 || del > live / parts) usage();
        return cmd_big(argv[2], live, del, parts, fast_seed);
    }
    if (!strcmp(argv[1], "big-commit")) {
        if (argc != 4) usage();
        return cmd_big_commit(argv[2], atol(argv[3]));
    }
    usage();
    return 2;
}
