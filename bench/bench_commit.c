/*
 * bench_commit — single-writer local commit throughput next to the raw durable
 * claim floor, both measured in the same run on the same file system.
 *
 *   floor:  write a temp file + fsync + renameat2(RENAME_NOREPLACE) + fsync(dir)
 *   commit: sc_table_commit of a one-file APPEND on the posix store (rename strategy)
 *
 * Usage: bench_commit [DIR] [COMMITS]   (default: a new directory under /tmp, 300)
 * Reports rates and the ratio commit/floor; it asserts nothing about speed.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "snapcommit/snapcommit.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

/* One durable no-replace publish of `len` bytes: the least a durable claim can cost. */
static void floor_once(const char *dir, int dfd, int i, const char *payload, size_t len) {
    char tmp[8300], dst[8300];
    snprintf(tmp, sizeof tmp, "%s/.tmp-%d", dir, i);
    snprintf(dst, sizeof dst, "%s/claim-%020d", dir, i);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) die("open");
    if (write(fd, payload, len) != (ssize_t)len) die("write");
    if (fsync(fd) != 0) die("fsync");
    close(fd);
    if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_NOREPLACE) != 0) die("renameat2");
    if (fsync(dfd) != 0) die("fsync dir");
}

int main(int argc, char **argv) {
    char base[4096];
    if (argc > 1) snprintf(base, sizeof base, "%s", argv[1]);
    else {
        snprintf(base, sizeof base, "/tmp/sc-bench.XXXXXX");
        if (!mkdtemp(base)) die("mkdtemp");
    }
    int n = argc > 2 ? atoi(argv[2]) : 300;
    if (n <= 0) n = 300;

    char floor_dir[4200], table_dir[4200];
    snprintf(floor_dir, sizeof floor_dir, "%s/floor", base);
    snprintf(table_dir, sizeof table_dir, "%s/table", base);
    mkdir(base, 0755);
    if (mkdir(floor_dir, 0755) != 0) die("mkdir floor");
    int dfd = open(floor_dir, O_RDONLY | O_DIRECTORY);
    if (dfd < 0) die("open floor dir");
    char payload[900];
    memset(payload, 'x', sizeof payload); /* about a snapshot document's size */

    sc_store *store;
    sc_table *t;
    if (sc_store_open(&store, table_dir) || sc_table_create(store, SC_STRATEGY_RENAME) || sc_table_open(&t, store)) {
        fprintf(stderr, "bench_commit: %s\n", sc_error_message());
        return 1;
    }
    sc_changes *c[1];
    sc_commit_result r;
    uint64_t ops_total = 0, puts = 0, reads = 0;
    double floor_s = 0, commit_s = 0;
    /* Interleave the two in blocks so both see the same disk conditions. */
    const int block = 25;
    for (int done = 0; done < n; done += block) {
        double t0 = now_s();
        for (int i = done; i < done + block && i < n; i++) floor_once(floor_dir, dfd, i, payload, sizeof payload);
        floor_s += now_s() - t0;
        t0 = now_s();
        for (int i = done; i < done + block && i < n; i++) {
            char file[64];
            snprintf(file, sizeof file, "data-f-%d", i);
            sc_file_entry e = {.file = file, .rows = 100, .size = 4096};
            sc_changes_new(&c[0]);
            sc_changes_add(c[0], &e);
            sc_commit_request req = {"bench", i + 1, SC_KIND_APPEND, 0, c[0]};
            if (sc_table_commit(&r, t, &req) != 0) {
                fprintf(stderr, "bench_commit: commit %d: %s\n", i, sc_error_message());
                return 1;
            }
            sc_changes_free(c[0]);
            for (int op = 0; op < SC_OP_COUNT; op++) ops_total += r.stats.ops[op];
            puts += r.stats.ops[SC_OP_PUT] + r.stats.ops[SC_OP_PUT_IF_ABSENT];
            reads += r.stats.ops[SC_OP_GET] + r.stats.ops[SC_OP_HEAD] + r.stats.ops[SC_OP_LIST];
        }
        commit_s += now_s() - t0;
    }
    double floor_rate = n / floor_s, commit_rate = n / commit_s;
    printf("bench_commit: %d iterations each, in %s\n", n, base);
    printf("  durable claim floor : %8.0f claims/s  (%.3f ms each)\n", floor_rate, 1e3 * floor_s / n);
    printf("  snapcommit commits  : %8.0f commits/s (%.3f ms each)\n", commit_rate, 1e3 * commit_s / n);
    printf("  ratio commit/floor  : %.2f  (store ops per commit: %.1f, of which writes %.1f, reads %.1f)\n",
           commit_rate / floor_rate, (double)ops_total / n, (double)puts / n, (double)reads / n);
    sc_table_free(t);
    sc_store_free(store);
    close(dfd);
    return 0;
}
