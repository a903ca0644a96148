/* Shared helpers for the Criterion suites. */
#ifndef SC_TEST_UTIL_H
#define SC_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapcommit/snapcommit.h"

static inline sc_bytes tu_bytes(const char *s) {
    return (sc_bytes){(const uint8_t *)s, s ? strlen(s) : 0};
}

/* A file entry; min/max NULL = no keys. */
static inline sc_file_entry tu_file(const char *partition, int bucket, int total, int level,
                                    const char *file, long rows, const char *min, const char *max) {
    sc_file_entry e = {tu_bytes(partition), bucket, total, level, file, rows, rows * 100,
                       min ? tu_bytes(min) : (sc_bytes){NULL, 0}, max ? tu_bytes(max) : (sc_bytes){NULL, 0}};
    return e;
}

/* A fresh mem-backed table; the returned table owns its store. */
static inline sc_table *tu_mem_table(const char *name) {
    char loc[256];
    snprintf(loc, sizeof loc, "mem://%s", name);
    sc_mem_store_reset(name);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, loc), 0, "%s", sc_error_message());
    cr_assert_eq(sc_table_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_store_free(s);
    sc_table *t;
    cr_assert_eq(sc_table_open_location(&t, loc), 0, "%s", sc_error_message());
    sc_retry_policy p;
    sc_retry_policy_default(&p);
    p.min_wait_ms = 1;
    p.max_wait_ms = 5;
    sc_table_set_retry_policy(t, &p);
    return t;
}

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

#endif
