/*
 * head and tracker publish every won snapshot for Paimon's readers
 * (issue 10, item 7): snapshot/snapshot-<id> holds the authority's bytes,
 * published in id order, then LATEST (and EARLIEST). A failed publication
 * does not fail the commit; the next commit or fsck repairs it; something
 * foreign at snapshot-<id> is never overwritten and fsck names it.
 */
#include "sc_test_util.h"
#include "sc_test_assert.h"

#include "store/store_backends.h"
#include "strategy/strategy.h"

static const sc_strategy_kind kinds[] = {SC_STRATEGY_HEAD, SC_STRATEGY_TRACKER};
static const char *kind_name(sc_strategy_kind k) { return k == SC_STRATEGY_HEAD ? "head" : "tracker"; }

static sc_table *table_of(const char *name, sc_strategy_kind kind) {
    return tu_mem_table_with(name, (tu_table_opts){kind, 10, 5});
}

static void commit_n(sc_table *t, int from, int to) {
    for (int i = from; i <= to; i++) {
        sc_commit_result r;
        cr_assert_eq(tu_commit_one(&r, t, "job", i), 0, "%s", sc_error_message());
        cr_assert_eq(r.snapshot_id, (uint64_t)i);
    }
}

/* *out_len = SIZE_MAX when absent. */
static uint8_t *get_key(sc_table *t, const char *key, size_t *out_len) {
    uint8_t *data = NULL;
    int rc = sc_store_get(sc_table_store(t), &data, out_len, NULL, key);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        *out_len = SIZE_MAX;
        return NULL;
    }
    cr_assert_eq(rc, 0, "%s: %s", key, sc_error_message());
    return data;
}

static int published(sc_table *t, uint64_t id) {
    char key[64];
    size_t len;
    sc_snapshot_key(key, id);
    uint8_t *data = get_key(t, key, &len);
    free(data);
    return len != SIZE_MAX;
}

/* snapshot/snapshot-<id> holds exactly the authority's bytes of snapshot id. */
static void assert_published(sc_table *t, uint64_t id) {
    char key[64];
    size_t len, want_len;
    uint8_t *want;
    sc_snapshot_key(key, id);
    cr_assert_eq(t->strategy->read(t, &want, &want_len, id), 0, "%s", sc_error_message());
    uint8_t *have = get_key(t, key, &len);
    cr_assert_neq(len, SIZE_MAX, "%s: %s is not published", kind_name(t->meta.strategy), key);
    cr_assert(len == want_len && memcmp(have, want, len) == 0, "%s: %s differs from the authority's bytes",
              kind_name(t->meta.strategy), key);
    free(have);
    free(want);
}

static void assert_hint(sc_table *t, const char *key, const char *text) {
    size_t len;
    uint8_t *data = get_key(t, key, &len);
    cr_assert_neq(len, SIZE_MAX, "%s missing", key);
    cr_assert(len == strlen(text) && memcmp(data, text, len) == 0, "%s holds \"%.*s\", not \"%s\"", key, (int)len,
              (const char *)data, text);
    free(data);
}

static void put_text(sc_table *t, const char *key, const char *text) {
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, (const uint8_t *)text, strlen(text)), 0, "%s",
                 sc_error_message());
}

static void del_published(sc_table *t, uint64_t id) {
    char key[64];
    sc_snapshot_key(key, id);
    cr_assert_eq(sc_store_delete(sc_table_store(t), key), 0, "%s", sc_error_message());
}

Test(publish, every_snapshot_is_published_with_the_authoritys_bytes) {
    for (size_t k = 0; k < 2; k++) {
        char name[32];
        snprintf(name, sizeof name, "pub-all-%zu", k);
        sc_table *t = table_of(name, kinds[k]);
        commit_n(t, 1, 12);
        for (uint64_t id = 1; id <= 12; id++) assert_published(t, id);
        assert_hint(t, "snapshot/LATEST", "12");
        assert_hint(t, "snapshot/EARLIEST", "1");
        cr_assert_eq(tu_count_keys(name, "snapshot/", NULL), 14, "12 snapshots and 2 hints, nothing else");
        cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
        sc_table_free(t);
    }
}

/* The order in which snapshot/snapshot-* objects are created. */
typedef struct order_ctx {
    char keys[8][64];
    int n;
    const char *fail_key; /* fail writes of this key with SC_EIO */
} order_ctx;

static int record_order(void *p, sc_store_op op, const char *key, uint64_t call_index) {
    (void)call_index;
    order_ctx *c = p;
    if (op != SC_OP_PUT && op != SC_OP_PUT_IF_ABSENT) return 0;
    if (strncmp(key, "snapshot/snapshot-", 18) != 0) return 0;
    if (c->fail_key && strcmp(key, c->fail_key) == 0) return SC_EIO;
    if (c->n < 8) snprintf(c->keys[c->n++], 64, "%s", key);
    return 0;
}

/* A crash between claims and their publication: the next commit publishes the missing
 * predecessors first, lowest first, so that a reader never sees N without N-1. */
Test(publish, crash_before_publication_is_repaired_in_id_order) {
    for (size_t k = 0; k < 2; k++) {
        char name[32];
        snprintf(name, sizeof name, "pub-crash-%zu", k);
        sc_table *t = table_of(name, kinds[k]);
        commit_n(t, 1, 4);
        del_published(t, 3);
        del_published(t, 4);
        order_ctx c = {0};
        sc_store_set_fault_hook(sc_table_store(t), record_order, &c);
        commit_n(t, 5, 5);
        sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
        cr_assert_eq(c.n, 3, "%s: 3 publications, saw %d", kind_name(kinds[k]), c.n);
        cr_assert_str_eq(c.keys[0], "snapshot/snapshot-3");
        cr_assert_str_eq(c.keys[1], "snapshot/snapshot-4");
        cr_assert_str_eq(c.keys[2], "snapshot/snapshot-5");
        for (uint64_t id = 1; id <= 5; id++) assert_published(t, id);
        assert_hint(t, "snapshot/LATEST", "5");
        sc_table_free(t);
    }
}

/* A publication failure after a won claim does not fail the commit; fsck republishes. */
Test(publish, failed_publication_keeps_the_commit_and_fsck_repairs_it) {
    for (size_t k = 0; k < 2; k++) {
        char name[32];
        snprintf(name, sizeof name, "pub-fail-%zu", k);
        sc_table *t = table_of(name, kinds[k]);
        commit_n(t, 1, 2);
        order_ctx c = {.fail_key = "snapshot/snapshot-3"};
        sc_store_set_fault_hook(sc_table_store(t), record_order, &c);
        commit_n(t, 3, 3); /* asserts success: the claim decided it */
        sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
        cr_assert_eq(tu_latest(t), 3, "the authority has snapshot 3");
        cr_assert_not(published(t, 3));
        assert_hint(t, "snapshot/LATEST", "2"); /* readers of the published view see 2, consistently */
        cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
        assert_published(t, 3);
        /* Hints Paimon's readers need: fsck rewrites a missing or damaged one. */
        cr_assert_eq(sc_store_delete(sc_table_store(t), "snapshot/EARLIEST"), 0);
        put_text(t, "snapshot/LATEST", "x");
        cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
        assert_hint(t, "snapshot/LATEST", "3");
        assert_hint(t, "snapshot/EARLIEST", "1");
        sc_table_free(t);
    }
}

/* Something foreign where snapshot N is published: never overwritten; the commit (decided by
 * the authority) succeeds; fsck names the object. */
Test(publish, foreign_object_at_the_published_key) {
    for (size_t k = 0; k < 2; k++) {
        char name[32];
        snprintf(name, sizeof name, "pub-foreign-%zu", k);
        sc_table *t = table_of(name, kinds[k]);
        commit_n(t, 1, 2);
        put_text(t, "snapshot/snapshot-3", "{\"not\":\"ours\"}");
        commit_n(t, 3, 3);
        size_t len;
        uint8_t *data = get_key(t, "snapshot/snapshot-3", &len);
        cr_assert(len == 14 && memcmp(data, "{\"not\":\"ours\"}", 14) == 0, "the foreign object was overwritten");
        free(data);
        assert_hint(t, "snapshot/LATEST", "2");
        CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot/snapshot-3: holds other bytes than snapshot 3");
        sc_table_free(t);
    }
}

/* Published above the authority: a rolled-back authority, or another writer. */
Test(publish, published_above_the_authority_is_damage) {
    for (size_t k = 0; k < 2; k++) {
        char name[32];
        snprintf(name, sizeof name, "pub-above-%zu", k);
        sc_table *t = table_of(name, kinds[k]);
        commit_n(t, 1, 3);
        put_text(t, "snapshot/snapshot-9", "{}");
        CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot/snapshot-9: published, but");
        cr_assert_eq(sc_store_delete(sc_table_store(t), "snapshot/snapshot-9"), 0);
        put_text(t, "snapshot/LATEST", "7");
        CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot/LATEST names snapshot 7");
        sc_table_free(t);
    }
}

/* Tables from before publication (nothing published): a commit copies at most 16 predecessors;
 * beyond that it publishes nothing (no gap for readers) and fsck publishes the rest. */
Test(publish, long_unpublished_history_is_left_to_fsck) {
    sc_table *t = table_of("pub-long", SC_STRATEGY_HEAD);
    commit_n(t, 1, 20);
    for (uint64_t id = 1; id <= 20; id++) del_published(t, id);
    commit_n(t, 21, 21);
    for (uint64_t id = 1; id <= 21; id++) cr_assert_not(published(t, id), "snapshot %llu published past the bound", (unsigned long long)id);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    for (uint64_t id = 1; id <= 21; id++) assert_published(t, id);
    assert_hint(t, "snapshot/LATEST", "21");
    sc_table_free(t);
}
