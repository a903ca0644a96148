/* Shared helpers for the Criterion suites. */
#ifndef SC_TEST_UTIL_H
#define SC_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapcommit/snapcommit.h"
#include "store/store_backends.h" /* sc_mem_store_keys */

static inline sc_bytes tu_bytes(const char *s) {
    return (sc_bytes){(const uint8_t *)s, s ? strlen(s) : 0};
}

/* A file entry; min/max NULL = no keys. */
static inline sc_file_entry tu_file(const char *partition, int bucket, int total, int level,
                                    const char *file, long rows, const char *min, const char *max) {
    sc_file_entry e = {.partition = tu_bytes(partition), .bucket = bucket, .total_buckets = total, .level = level,
                       .file = file, .rows = rows, .size = rows * 100,
                       .min_key = min ? tu_bytes(min) : (sc_bytes){NULL, 0}, .max_key = max ? tu_bytes(max) : (sc_bytes){NULL, 0}};
    return e;
}

/* Fast retries for tests: waits of 1..max_wait_ms, at most max_retries (0: the library's default).
 * Asserts nothing, so worker threads may call it. */
static inline void tu_fast_retries(sc_table *t, int max_retries, int max_wait_ms) {
    sc_retry_policy p;
    sc_retry_policy_default(&p);
    if (max_retries) p.max_retries = max_retries;
    p.min_wait_ms = 1;
    p.max_wait_ms = max_wait_ms;
    sc_table_set_retry_policy(t, &p);
}

/* How a test table is made; zero fields take the defaults. */
typedef struct tu_table_opts {
    sc_strategy_kind strategy; /* SC_STRATEGY_AUTO: chosen from the store's capabilities */
    int max_retries;           /* 0: the library's default */
    int max_wait_ms;           /* 0: 5 ms */
} tu_table_opts;

/* Another handle on the table at location, with the fast retries of o. */
static inline sc_table *tu_open(const char *location, tu_table_opts o) {
    sc_table *t;
    cr_assert_eq(sc_table_open_location(&t, location), 0, "%s: %s", location, sc_error_message());
    tu_fast_retries(t, o.max_retries, o.max_wait_ms ? o.max_wait_ms : 5);
    return t;
}

/* The one table fixture: a table created at location (a mem:// store is emptied first) and opened;
 * a strategy other than AUTO is checked on the opened handle. The table owns its store. */
static inline sc_table *tu_table_at(const char *location, tu_table_opts o) {
    if (strncmp(location, "mem://", 6) == 0) sc_mem_store_reset(location + 6);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, location), 0, "%s: %s", location, sc_error_message());
    cr_assert_eq(sc_table_create(s, o.strategy), 0, "%s: %s", location, sc_error_message());
    sc_store_free(s);
    sc_table *t = tu_open(location, o);
    if (o.strategy != SC_STRATEGY_AUTO) cr_assert_eq(sc_table_strategy(t), o.strategy);
    return t;
}

/* A fresh table on mem://name. */
static inline sc_table *tu_mem_table_with(const char *name, tu_table_opts o) {
    char loc[256];
    snprintf(loc, sizeof loc, "mem://%s", name);
    return tu_table_at(loc, o);
}

static inline sc_table *tu_mem_table(const char *name) { return tu_mem_table_with(name, (tu_table_opts){0}); }

/* Another handle on mem://name, with the library's retry policy. */
static inline sc_table *tu_reopen(const char *name) {
    char loc[256];
    snprintf(loc, sizeof loc, "mem://%s", name);
    sc_table *t;
    cr_assert_eq(sc_table_open_location(&t, loc), 0, "%s", sc_error_message());
    return t;
}

/* Commit adds/deletes; returns the library code. */
static inline int tu_commit(sc_commit_result *res, sc_table *t, const char *user, int64_t ident,
                            sc_commit_kind kind, uint64_t base, const sc_file_entry *adds, size_t nadds,
                            const sc_file_entry *dels, size_t ndels) {
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    for (size_t i = 0; i < nadds; i++) cr_assert_eq(sc_changes_add(c, &adds[i]), 0, "%s", sc_error_message());
    for (size_t i = 0; i < ndels; i++) cr_assert_eq(sc_changes_delete(c, &dels[i]), 0, "%s", sc_error_message());
    sc_commit_request req = {user, ident, kind, base, c};
    int rc = sc_table_commit(res, t, &req);
    sc_changes_free(c);
    return rc;
}

static inline uint64_t tu_latest(sc_table *t) {
    uint64_t id = 0;
    cr_assert_eq(sc_table_latest_id(&id, t), 0, "%s", sc_error_message());
    return id;
}

static inline size_t tu_file_count(sc_table *t) {
    sc_file_list *l;
    cr_assert_eq(sc_table_files(&l, t, 0), 0, "%s", sc_error_message());
    size_t n = l->count;
    sc_file_list_free(l);
    return n;
}

/* Commit one file, data/<user>-<ident> in partition "p"; returns the library code and asserts
 * nothing, so worker threads may call it. */
static inline int tu_commit_one(sc_commit_result *r, sc_table *t, const char *user, int64_t ident) {
    char name[96];
    snprintf(name, sizeof name, "data/%s-%lld", user, (long long)ident);
    sc_changes *c;
    if (sc_changes_new(&c) != 0) return SC_ENOMEM;
    sc_file_entry f = tu_file("p", 0, 1, 0, name, 1, NULL, NULL);
    int rc = sc_changes_add(c, &f);
    sc_commit_request req = {user, ident, SC_KIND_APPEND, 0, c};
    if (!rc) rc = sc_table_commit(r, t, &req);
    sc_changes_free(c);
    return rc;
}

/* Keys of the mem store `store` under prefix (and containing `contains`, unless NULL). */
static inline int tu_count_keys(const char *store, const char *prefix, const char *contains) {
    sc_list_page page;
    cr_assert_eq(sc_mem_store_keys(&page, store), 0);
    int n = 0;
    for (size_t i = 0; i < page.count; i++)
        if (strncmp(page.keys[i], prefix, strlen(prefix)) == 0 && (!contains || strstr(page.keys[i], contains))) n++;
    sc_list_page_free(&page);
    return n;
}

/*
 * After a commit adding `second` to the one-file table mem://name returned rc with fault `kind`
 * armed at store operation n: the table is whole, and the commit is either absent (and rc says so)
 * or complete (and rc is success or an unknown outcome).
 */
static inline void tu_check_whole_or_nothing(const char *name, int rc, int kind, int n, const char *second) {
    sc_table *t = tu_reopen(name);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "fault %d at op %d left a damaged table: %s", kind, n,
                 sc_error_message());
    uint64_t latest = tu_latest(t);
    size_t files = tu_file_count(t);
    cr_assert(latest == 1 || latest == 2, "latest %lu", (unsigned long)latest);
    if (latest == 1) {
        cr_assert_eq(files, 1, "unchanged table must keep its one file");
        cr_assert_neq(rc, 0, "fault %d at op %d: a commit that reports success must be visible", kind, n);
    } else {
        cr_assert_eq(files, 2, "a visible commit must be complete");
        sc_file_list *l;
        cr_assert_eq(sc_table_files(&l, t, 0), 0);
        int seen = 0;
        for (size_t i = 0; i < l->count; i++) seen |= strcmp(l->entries[i].file, second) == 0;
        sc_file_list_free(l);
        cr_assert(seen, "%s is not among the files", second);
        cr_assert(rc == 0 || rc == SC_EUNKNOWN, "fault %d at op %d: visible commit reported %s", kind, n,
                  sc_error_name(rc));
    }
    sc_table_free(t);
}

#endif
