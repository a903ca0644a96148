/*
 * Corpus replay driver: the fuzz targets without libFuzzer, for ctest
 * (fuzz_replay, run in the normal and the ASan builds).
 *
 *   fuzz_replay CORPUS_DIR [--target NAME] [--mutations N] [--seed S]
 *
 * For every target, every file under CORPUS_DIR/<target>/ is fed as is,
 * then every truncation of it (each proper prefix), then N (default 2000)
 * seeded single-byte changes: a random byte, a bit flip, or one of the
 * values decoders trip on (0x00, 0xff, 0x7f, 0x80, '"', '{', a digit).
 * The changes are a fixed function of the seed, the file's name and the
 * round, so a failure reproduces: on an abort or a sanitizer report the
 * driver's last line names the file and the change (SC_FUZZ_VERBOSE=1
 * prints it before every call). Any property violation aborts
 * (fuzz_common.h).
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_common.h"

typedef int (*target_fn)(const uint8_t *, size_t);

static const struct {
    const char *name;
    target_fn fn;
} targets[] = {
    {"manifest", sc_fuzz_manifest},
    {"snapshot", sc_fuzz_snapshot},
    {"schema", sc_fuzz_schema},
    {"row", sc_fuzz_row},
    {"index_manifest", sc_fuzz_index_manifest},
};

static uint64_t rng_state;
static uint64_t rng(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static int verbose;
static const char *current_file;
/* What is being run, for the last words of an abort or a sanitizer report. */
static char current[9000];
static size_t current_len;

static void say_current(void) {
    if (write(2, current, current_len) < 0) return;
}
static void on_abort(int sig) {
    (void)sig;
    say_current();
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
}
/* Provided by the ASan/UBSan runtime when linked with one. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void run(target_fn fn, const uint8_t *data, size_t len, const char *how, size_t a, size_t b) {
    int n = snprintf(current, sizeof current, "fuzz_replay: input %s, %s %zu %zu\n", current_file, how, a, b);
    current_len = n < 0 ? 0 : (size_t)n < sizeof current ? (size_t)n : sizeof current - 1;
    if (verbose) say_current();
    uint8_t *copy = sc_fuzz_copy(data, len); /* exact size: ASan sees reads past the end */
    fn(copy, len);
    free(copy);
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static uint8_t *read_file(const char *path, size_t *out_len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *data = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *grown = realloc(data, cap);
            if (!grown) abort();
            data = grown;
        }
        size_t n = fread(data + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    fclose(f);
    *out_len = len;
    return data;
}

static const uint8_t specials[] = {0x00, 0xff, 0x7f, 0x80, '"', '{', '9', 0x01};

/* Returns the number of target calls, or -1 when the directory is missing or empty. */
static long replay_target(const char *root, const char *name, target_fn fn, long mutations, uint64_t seed) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    DIR *d = opendir(dir);
    if (!d) return -1;
    char **names = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        names = realloc(names, (count + 1) * sizeof *names);
        if (!names || !(names[count] = strdup(e->d_name))) abort();
        count++;
    }
    closedir(d);
    if (count == 0) {
        free(names);
        return -1;
    }
    qsort(names, count, sizeof *names, cmp_names);
    long calls = 0;
    for (size_t i = 0; i < count; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        current_file = path;
        size_t len;
        uint8_t *data = read_file(path, &len);
        if (!data) {
            fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
            exit(2);
        }
        run(fn, data, len, "as is", 0, 0);
        calls++;
        for (size_t cut = 0; cut < len; cut++, calls++) run(fn, data, cut, "truncated to", cut, 0);
        rng_state = (seed ^ fnv1a(names[i])) | 1;
        uint8_t *m = sc_fuzz_copy(data, len);
        for (long r = 0; len && r < mutations; r++, calls++) {
            size_t at = rng() % len;
            uint64_t how = rng();
            uint8_t old = m[at];
            switch (how % 3) {
            case 0: m[at] = (uint8_t)(how >> 8); break;
            case 1: m[at] ^= (uint8_t)(1u << ((how >> 8) % 8)); break;
            default: m[at] = specials[(how >> 8) % sizeof specials]; break;
            }
            run(fn, m, len, "byte changed at/round", at, (size_t)r);
            m[at] = old;
        }
        free(m);
        free(data);
        free(names[i]);
    }
    free(names);
    return calls;
}

int main(int argc, char **argv) {
    const char *root = NULL, *only = NULL;
    long mutations = 2000;
    uint64_t seed = 20240101;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--target") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--mutations") && i + 1 < argc) mutations = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!root && argv[i][0] != '-') root = argv[i];
        else {
            fprintf(stderr, "usage: fuzz_replay CORPUS_DIR [--target NAME] [--mutations N] [--seed S]\n");
            return 2;
        }
    }
    if (!root) {
        fprintf(stderr, "usage: fuzz_replay CORPUS_DIR [--target NAME] [--mutations N] [--seed S]\n");
        return 2;
    }
    verbose = getenv("SC_FUZZ_VERBOSE") != NULL;
    signal(SIGABRT, on_abort);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(say_current);
    int ran = 0;
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        if (only && strcmp(only, targets[t].name) != 0) continue;
        clock_t start = clock();
        long calls = replay_target(root, targets[t].name, targets[t].fn, mutations, seed);
        if (calls < 0) {
            fprintf(stderr, "fuzz_replay: no corpus in %s/%s\n", root, targets[t].name);
            return 1;
        }
        printf("%-9s %7ld inputs  %.1f s\n", targets[t].name, calls, (double)(clock() - start) / CLOCKS_PER_SEC);
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "fuzz_replay: no target named %s\n", only);
        return 2;
    }
    return 0;
}
