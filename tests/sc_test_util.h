/* Shared helpers for the Criterion suites. */
#ifndef SC_TEST_UTIL_H
#define SC_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapcommit/snapcommit.h"
#include "base/buf.h"
#include "format/binary_row.h"
#include "store/store_backends.h" /* sc_mem_store_keys */

static inline sc_bytes tu_bytes(const char *s) {
    return (sc_bytes){(const uint8_t *)s, s ? strlen(s) : 0};
}

/*
 * The schema of every test table (tu_create): partitioned by a STRING, with a
 * one-field STRING key after the partition field, two buckets. tu_file's
 * partition and key strings are values of those fields.
 */
#define TU_SCHEMA                                                                                          \
    "{\"fields\":[{\"name\":\"part\",\"type\":\"STRING\"},{\"name\":\"k\",\"type\":\"STRING\"},"           \
    "{\"name\":\"v\",\"type\":\"BIGINT\"}],\"partitionKeys\":[\"part\"],\"primaryKeys\":[\"part\",\"k\"],"      \
    "\"options\":{\"bucket\":\"2\"}}"
#define TU_BUCKETS 2

/* Create a test table (TU_SCHEMA) in `store`; returns the library code. */
static inline int tu_create(sc_store *store, sc_strategy_kind strategy) {
    return sc_table_create_with_schema(store, strategy, TU_SCHEMA, strlen(TU_SCHEMA));
}

/*
 * Bytes that must outlive the entry they are put in: a ring of slots per
 * thread, far more than any test holds at once (entries are copied by
 * sc_changes_add).
 */
#define TU_POOL_SLOTS 4096
static inline uint8_t *tu_pool(size_t len) {
    static _Thread_local uint8_t slots[TU_POOL_SLOTS][160];
    static _Thread_local size_t next;
    cr_assert(len <= sizeof slots[0], "test value of %zu bytes is too long for the pool", len);
    return slots[next++ % TU_POOL_SLOTS];
}

/* A serialized BinaryRow of one STRING (a partition or key of TU_SCHEMA), from the pool. */
static inline sc_bytes tu_string_row(const char *value) {
    static const sc_data_type string_type = {SC_TYPE_VARCHAR, 1, SC_TYPE_MAX_LENGTH, 0, 0, NULL};
    sc_datum d = {0};
    d.bytes = (const uint8_t *)value;
    d.len = strlen(value);
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_row_encode(&b, &string_type, &d, 1), 0);
    uint8_t *slot = tu_pool(b.len);
    memcpy(slot, b.data, b.len);
    sc_bytes out = {slot, b.len};
    sc_buf_free(&b);
    return out;
}

/* A data file's name: tests write "data/a" for readability; a Paimon entry names
 * the file alone (its directory follows from partition and bucket), so "/" is "-". */
static inline const char *tu_name(const char *file) {
    size_t n = strlen(file);
    char *slot = (char *)tu_pool(n + 1);
    for (size_t i = 0; i <= n; i++) slot[i] = file[i] == '/' ? '-' : file[i];
    return slot;
}

/* A file entry of a TU_SCHEMA table: partition and keys are STRING values; min/max NULL is a
 * file holding one key, its own name (distinct files never overlap). total 0 = the table's. */
static inline sc_file_entry tu_file(const char *partition, int bucket, int total, int level,
                                    const char *file, long rows, const char *min, const char *max) {
    const char *name = tu_name(file);
    sc_file_entry e = {.partition = tu_string_row(partition), .bucket = bucket, .total_buckets = total, .level = level,
                       .file = name, .rows = rows, .size = rows * 100,
                       .min_key = tu_string_row(min ? min : name), .max_key = tu_string_row(max ? max : name)};
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
    cr_assert_eq(tu_create(s, o.strategy), 0, "%s: %s", location, sc_error_message());
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

/* A table of `schema` (Paimon schema JSON; NULL: none) on a fresh mem://name, opened with fast retries. */
static inline sc_table *tu_schema_table(const char *name, const char *schema) {
    char loc[128];
    snprintf(loc, sizeof loc, "mem://%s", name);
    sc_mem_store_reset(name);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, loc), 0);
    cr_assert_eq(sc_table_create_with_schema(s, SC_STRATEGY_AUTO, schema, schema ? strlen(schema) : 0), 0, "%s",
                 sc_error_message());
    sc_store_free(s);
    return tu_open(loc, (tu_table_opts){0});
}

/* The store key of a TU_SCHEMA data file in partition "p", bucket 0 (the caller frees it). */
static inline char *tu_data_key(sc_table *t, const char *file) {
    sc_file_entry e = tu_file("p", 0, 0, 0, file, 1, NULL, NULL);
    char *path;
    cr_assert_eq(sc_table_file_path(&path, t, &e), 0, "%s", sc_error_message());
    return path;
}

/* Write (10 bytes) or delete the data file `file` of tu_data_key. */
static inline void tu_put_data(sc_table *t, const char *file) {
    char *k = tu_data_key(t, file);
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, k, (const uint8_t *)"0123456789", 10), 0, "%s", sc_error_message());
    free(k);
}
static inline void tu_drop_data(sc_table *t, const char *file) {
    char *k = tu_data_key(t, file);
    cr_assert_eq(sc_store_delete(sc_table_store(t), k), 0, "%s", sc_error_message());
    free(k);
}

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
    for (char *p = name; *p; p++) if (*p == '/') *p = '-'; /* not tu_file: worker threads call this */
    static const uint8_t p_row[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 'p', 0, 0, 0, 0, 0, 0, 0x81};
    uint8_t key[24] = {0, 0, 0, 1};
    sc_file_entry f = {.partition = {p_row, sizeof p_row}, .total_buckets = TU_BUCKETS, .file = name, .rows = 1, .size = 100};
    size_t n = strlen(name);
    if (n > 7) n = 7; /* the key: the name's first 7 bytes inline (a key per file is all a test needs) */
    memcpy(key + 12, name, n);
    key[19] = (uint8_t)(0x80 | n);
    f.min_key = f.max_key = (sc_bytes){key, 20};
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
        for (size_t i = 0; i < l->count; i++) seen |= strcmp(l->entries[i].file, tu_name(second)) == 0;
        sc_file_list_free(l);
        cr_assert(seen, "%s is not among the files", second);
        cr_assert(rc == 0 || rc == SC_EUNKNOWN, "fault %d at op %d: visible commit reported %s", kind, n,
                  sc_error_name(rc));
    }
    sc_table_free(t);
}

#endif
