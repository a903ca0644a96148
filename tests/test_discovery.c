/*
 * Discovery that cannot be fooled (issue 8): damaged or oddly shaped
 * histories are SC_ECORRUPT for discovery, reads, commits and fsck alike,
 * on the mem store (conditional, head, tracker) and the posix store (rename).
 * Snapshot keys are Paimon's unpadded snapshot/snapshot-<id> (issue 10), so
 * discovery probes from the hint with HEADs instead of listing in key order.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_test_util.h"
#include "sc_test_assert.h"
#include "format/snapshot.h"
#include "store/store_backends.h"
#include "strategy/strategy.h"

static sc_table *mem_table(const char *name, sc_strategy_kind kind) {
    return tu_mem_table_with(name, (tu_table_opts){kind, 3, 2});
}

/* Commit snapshots 1..n (user u, identifiers 1..n, one file each). */
static void fill(sc_table *t, int n) {
    for (int i = 1; i <= n; i++) {
        char name[32];
        snprintf(name, sizeof name, "data/f%d", i);
        sc_file_entry e = tu_file("dt=1", 0, 4, 0, name, 10, NULL, NULL);
        sc_commit_result res;
        cr_assert_eq(tu_commit(&res, t, "u", i, SC_KIND_APPEND, 0, &e, 1, NULL, 0), 0, "%s", sc_error_message());
        cr_assert_eq(res.snapshot_id, (uint64_t)i);
    }
}

/* Commit snapshots from..to (user u, identifiers = ids). */
static void fill_from(sc_table *t, int from, int to) {
    for (int i = from; i <= to; i++) {
        char name[32];
        snprintf(name, sizeof name, "data/f%d", i);
        sc_file_entry e = tu_file("dt=1", 0, 4, 0, name, 10, NULL, NULL);
        sc_commit_result res;
        cr_assert_eq(tu_commit(&res, t, "u", i, SC_KIND_APPEND, 0, &e, 1, NULL, 0), 0, "%s", sc_error_message());
        cr_assert_eq(res.snapshot_id, (uint64_t)i);
    }
}

static int try_commit(sc_table *t, const char *file) {
    sc_file_entry e = tu_file("dt=1", 0, 4, 0, file, 10, NULL, NULL);
    sc_commit_result res;
    return tu_commit(&res, t, "v", 1, SC_KIND_APPEND, 0, &e, 1, NULL, 0);
}

static void del_snapshot(sc_table *t, uint64_t id) {
    char key[64];
    sc_snapshot_key(key, id);
    cr_assert_eq(sc_store_delete(sc_table_store(t), key), 0, "%s", sc_error_message());
}

static void put_text(sc_table *t, const char *key, const char *text) {
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, (const uint8_t *)text, strlen(text)), 0, "%s",
                 sc_error_message());
}

static int has_key(sc_table *t, uint64_t id) {
    char key[64];
    sc_snapshot_key(key, id);
    sc_object_info info;
    int rc = sc_store_head(sc_table_store(t), &info, key);
    sc_error_clear();
    return rc == 0;
}

/* Every read, a commit and fsck refuse the table; the commit writes no snapshot. */
static void all_refuse(sc_table *t, const char *needle, uint64_t next_id) {
    uint64_t id;
    int64_t ident;
    int found;
    sc_file_list *files = NULL;
    CORRUPT(sc_table_latest_id(&id, t), needle);
    CORRUPT(sc_table_files(&files, t, 0), needle);
    CORRUPT(sc_table_last_committed(&ident, &found, t, "u"), needle);
    CORRUPT(try_commit(t, "data/new"), needle);
    cr_assert_not(has_key(t, next_id), "a commit claimed snapshot %llu on a damaged table", (unsigned long long)next_id);
    CORRUPT(sc_table_fsck(t, NULL, NULL), needle);
}

Test(discovery, gap_with_lagging_hint) {
    sc_table *t = mem_table("disc-gap", SC_STRATEGY_CONDITIONAL);
    fill(t, 5);
    put_text(t, "snapshot/LATEST", "1\n");
    del_snapshot(t, 3);
    all_refuse(t, "snapshot 3 is missing", 3);
    sc_table_free(t);
}

/* A hint at the top of the id space: probing past it would wrap to 0 and 1. */
Test(discovery, hint_at_the_largest_id_names_a_missing_snapshot) {
    sc_table *t = mem_table("disc-max", SC_STRATEGY_CONDITIONAL);
    fill(t, 2);
    put_text(t, "snapshot/LATEST", "18446744073709551615");
    all_refuse(t, "snapshot 18446744073709551615 named by snapshot/LATEST is missing", 3);
    sc_table_free(t);
}

Test(discovery, newest_lost_while_hint_names_it) {
    sc_table *t = mem_table("disc-lost", SC_STRATEGY_CONDITIONAL);
    fill(t, 3);
    del_snapshot(t, 3);
    all_refuse(t, "snapshot 3 named by snapshot/LATEST is missing", 3);
    sc_table_free(t);
}

Test(discovery, whole_history_gone) {
    sc_table *t = mem_table("disc-gone", SC_STRATEGY_CONDITIONAL);
    fill(t, 2);
    del_snapshot(t, 1);
    del_snapshot(t, 2);
    cr_assert_eq(sc_store_delete(sc_table_store(t), "snapshot/LATEST"), 0);
    cr_assert_eq(sc_store_delete(sc_table_store(t), "snapshot/EARLIEST"), 0);
    all_refuse(t, "metadata/history", 1);
    uint64_t id;
    CORRUPT(sc_table_earliest_id(&id, t), "metadata/history");
    sc_table_free(t);
}

Test(discovery, first_snapshots_deleted) {
    sc_table *t = mem_table("disc-first", SC_STRATEGY_CONDITIONAL);
    fill(t, 4);
    del_snapshot(t, 1);
    del_snapshot(t, 2);
    uint64_t id;
    CORRUPT(sc_table_earliest_id(&id, t), "snapshot 1 is missing");
    CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot 1 is missing");
    /* Without EARLIEST the rule is the same: history starts at 1. */
    cr_assert_eq(sc_store_delete(sc_table_store(t), "snapshot/EARLIEST"), 0);
    CORRUPT(sc_table_earliest_id(&id, t), "snapshot 1 is missing");
    /* ... and a lost LATEST makes discovery list from the start, which must be 1. */
    cr_assert_eq(sc_store_delete(sc_table_store(t), "snapshot/LATEST"), 0);
    CORRUPT(sc_table_latest_id(&id, t), "snapshot 1 is missing");
    /* EARLIEST moved forward (as expiration will) makes 3 the start again. */
    put_text(t, "snapshot/EARLIEST", "3\n");
    cr_assert_eq(sc_table_earliest_id(&id, t), 0, "%s", sc_error_message());
    cr_assert_eq(id, 3);
    cr_assert_eq(tu_latest(t), 4);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

Test(discovery, damaged_hints) {
    sc_table *t = mem_table("disc-hint", SC_STRATEGY_CONDITIONAL);
    fill(t, 3);
    static const char *bad[] = {"-1\n", "18446744073709551616\n", "0\n", " 3\n", "3x\n", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        put_text(t, "snapshot/LATEST", bad[i]);
        CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot/LATEST: damaged hint");
        cr_assert_eq(tu_latest(t), 3, "hint \"%s\" must be ignored by discovery", bad[i]);
    }
    /* Ignored but verified: with the hint unusable the whole chain is checked. */
    del_snapshot(t, 2);
    uint64_t id;
    CORRUPT(sc_table_latest_id(&id, t), "snapshot 2 is missing");
    uint64_t v;
    cr_assert_eq(sc_hint_parse(&v, (const uint8_t *)"18446744073709551615\n", 21), 0);
    cr_assert_eq(v, UINT64_MAX);
    cr_assert_neq(sc_hint_parse(&v, (const uint8_t *)"-1", 2), 0);
    sc_table_free(t);
}

Test(discovery, keys_are_paimon_names_parsed_strictly) {
    char key[64];
    sc_snapshot_key(key, 7);
    cr_assert_str_eq(key, "snapshot/snapshot-7");
    sc_snapshot_key(key, UINT64_MAX);
    cr_assert_str_eq(key, "snapshot/snapshot-18446744073709551615");
    uint64_t id = 0;
    cr_assert_eq(sc_snapshot_key_parse(&id, key), 0);
    cr_assert_eq(id, UINT64_MAX);
    cr_assert_eq(sc_snapshot_key_parse(&id, "snapshot/snapshot-1"), 0);
    cr_assert_eq(id, 1);
    cr_assert_eq(sc_snapshot_key_parse(&id, "snapshot/snapshot-1234567890"), 0);
    cr_assert_eq(id, 1234567890);
    static const char *bad[] = {
        "snapshot/snapshot-",                       /* no digits */
        "snapshot/snapshot-0",                      /* ids start at 1 */
        "snapshot/snapshot-07",                     /* a second name for 7 */
        "snapshot/snapshot-00000000000000000007",   /* the old padded name */
        "snapshot/snapshot-7x",
        "snapshot/snapshot--7",
        "snapshot/snapshot-+7",
        "snapshot/snapshot-7/x",
        "snapshot/snapshot-18446744073709551616",   /* 2^64: does not fit */
        "snapshot/snapshot-99999999999999999999",
        "snapshot/snapshot-123456789012345678901",  /* 21 digits */
        "snapshot/LATEST",
        "snapshots/snapshot-7",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        id = 42;
        cr_assert_eq(sc_snapshot_key_parse(&id, bad[i]), SC_EINVAL, "%s must not parse", bad[i]);
        cr_assert_eq(id, 42, "%s: the id is left alone", bad[i]);
    }
}

static char *get_text(sc_table *t, const char *key) {
    uint8_t *data = NULL;
    size_t len = 0;
    cr_assert_eq(sc_store_get(sc_table_store(t), &data, &len, NULL, key), 0, "%s: %s", key, sc_error_message());
    char *text = malloc(len + 1);
    cr_assert_not_null(text);
    memcpy(text, data, len);
    text[len] = 0;
    free(data);
    return text;
}

/* Paimon writes hints as the bare id; snapcommit does the same, and still reads "N\n". */
Test(discovery, hints_are_written_as_paimon_writes_them) {
    sc_table *t = mem_table("disc-hint-bytes", SC_STRATEGY_CONDITIONAL);
    fill(t, 12);
    char *latest = get_text(t, "snapshot/LATEST"), *earliest = get_text(t, "snapshot/EARLIEST");
    cr_assert_str_eq(latest, "12");
    cr_assert_str_eq(earliest, "1");
    free(latest);
    free(earliest);
    put_text(t, "snapshot/LATEST", "12\n"); /* a table written before issue 10 */
    cr_assert_eq(tu_latest(t), 12);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    /* 10, 11, 12 sort before 2 in a LIST: discovery without a hint sorts numerically. */
    cr_assert_eq(sc_store_delete(sc_table_store(t), "snapshot/LATEST"), 0);
    cr_assert_eq(tu_latest(t), 12);
    fill_from(t, 13, 13);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

Test(discovery, stray_key_under_snapshot_prefix) {
    sc_table *t = mem_table("disc-stray", SC_STRATEGY_CONDITIONAL);
    fill(t, 2);
    put_text(t, "snapshot/snapshot-3/x", "junk");
    uint64_t id;
    /* A current hint needs no listing, so only fsck and a hint-less discovery meet it. */
    cr_assert_eq(tu_latest(t), 2);
    CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot/snapshot-3/x: not a snapshot name");
    cr_assert_eq(sc_store_delete(sc_table_store(t), "snapshot/LATEST"), 0);
    CORRUPT(sc_table_latest_id(&id, t), "not a snapshot name");
    sc_table_free(t);
    /* A second name for an id (a leading zero) is damage too, never skipped. */
    t = mem_table("disc-stray0", SC_STRATEGY_CONDITIONAL);
    fill(t, 2);
    put_text(t, "snapshot/snapshot-02", "junk");
    CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot/snapshot-02: not a snapshot name");
    sc_table_free(t);
}

/* A gap right above a lagging hint: LATEST = 2, snapshot 3 lost, 4 and 5 there. One HEAD more
 * (of hint+2) stops the commit from claiming 3 and burying the loss. */
Test(discovery, gap_right_above_lagging_hint) {
    sc_table *t = mem_table("disc-gap-above", SC_STRATEGY_CONDITIONAL);
    fill(t, 5);
    put_text(t, "snapshot/LATEST", "2");
    del_snapshot(t, 3);
    uint64_t id;
    CORRUPT(sc_table_latest_id(&id, t), "snapshot 3 is missing: the chain jumps over it to snapshot 4");
    all_refuse(t, "snapshot 3 is missing", 3);
    sc_table_free(t);
    /* The same above a lagging hint that must first probe forward (LATEST = 1, 2 present). */
    t = mem_table("disc-gap-above2", SC_STRATEGY_CONDITIONAL);
    fill(t, 6);
    put_text(t, "snapshot/LATEST", "1");
    del_snapshot(t, 4);
    CORRUPT(sc_table_latest_id(&id, t), "snapshot 4 is missing: the chain jumps over it to snapshot 5");
    all_refuse(t, "snapshot 4 is missing", 4);
    sc_table_free(t);
}

/* A stalled claim that landed on an expired id leaves its snapshot below EARLIEST, and its
 * committer may still write LATEST = that id: the ids above it up to EARLIEST are expired, not
 * lost. Discovery lists again from EARLIEST; a gap above EARLIEST is still damage. */
Test(discovery, hint_at_a_leftover_below_earliest) {
    sc_table *t = mem_table("disc-leftover", SC_STRATEGY_CONDITIONAL);
    fill(t, 6);
    put_text(t, "snapshot/EARLIEST", "5");
    del_snapshot(t, 1);
    del_snapshot(t, 2);
    del_snapshot(t, 4);
    put_text(t, "snapshot/LATEST", "3");
    uint64_t id;
    cr_assert_eq(sc_table_latest_id(&id, t), 0, "%s", sc_error_message());
    cr_assert_eq(id, 6);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(try_commit(t, "data/new"), 0, "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 7);
    sc_table_free(t);
    /* The same leftover with snapshot 6 lost above EARLIEST = 5: still refused. */
    t = mem_table("disc-leftover-gap", SC_STRATEGY_CONDITIONAL);
    fill(t, 7);
    put_text(t, "snapshot/EARLIEST", "5");
    del_snapshot(t, 1);
    del_snapshot(t, 2);
    del_snapshot(t, 4);
    del_snapshot(t, 6);
    put_text(t, "snapshot/LATEST", "3");
    all_refuse(t, "snapshot 6 is missing", 6);
    sc_table_free(t);
}

/* The documented residual (protocols.md failure table): two or more lost right above a lagging
 * hint look like the end of history to a commit's O(1) discovery; fsck lists and finds them. */
Test(discovery, two_missing_above_lagging_hint_found_by_fsck) {
    sc_table *t = mem_table("disc-gap2", SC_STRATEGY_CONDITIONAL);
    fill(t, 6);
    put_text(t, "snapshot/LATEST", "2");
    del_snapshot(t, 3);
    del_snapshot(t, 4);
    cr_assert_eq(tu_latest(t), 2, "the residual limit: discovery stops at the hint");
    CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot 3 is missing: the chain jumps from 2 to 5");
    sc_table_free(t);
}

/* A hint lagging by more than the probes reach falls back to the full listing, sorted numerically. */
Test(discovery, far_lagging_hint_lists_everything) {
    sc_table *t = mem_table("disc-far", SC_STRATEGY_CONDITIONAL);
    fill(t, 30);
    put_text(t, "snapshot/LATEST", "3");
    sc_store_stats_reset(sc_table_store(t));
    cr_assert_eq(tu_latest(t), 30);
    sc_store_stats st;
    sc_store_stats_get(&st, sc_table_store(t));
    cr_assert_eq(st.ops[SC_OP_LIST], 1, "one page of 30 keys");
    /* ... and a gap far above it is still found. */
    del_snapshot(t, 21);
    uint64_t id;
    CORRUPT(sc_table_latest_id(&id, t), "snapshot 21 is missing: the chain jumps over it to snapshot 22");
    CORRUPT(try_commit(t, "data/new"), "snapshot 21 is missing");
    cr_assert_not(has_key(t, 21));
    sc_table_free(t);
}

/* Store operations of a fresh discovery plus the read of the latest snapshot, on a fresh handle. */
static uint64_t fresh_discovery_ops(const char *name, int n, sc_store_stats *out) {
    sc_table *t = mem_table(name, SC_STRATEGY_CONDITIONAL);
    fill(t, n);
    sc_table_free(t);
    t = tu_reopen(name);
    sc_store_stats_reset(sc_table_store(t));
    sc_snapshot_info *info = NULL;
    cr_assert_eq(tu_latest(t), (uint64_t)n);
    cr_assert_eq(sc_table_snapshot_info(&info, t, (uint64_t)n), 0, "%s", sc_error_message());
    cr_assert_eq(info->id, (uint64_t)n);
    sc_snapshot_info_free(info);
    sc_store_stats_get(out, sc_table_store(t));
    uint64_t total = 0;
    for (int op = 0; op < SC_OP_COUNT; op++) total += out->ops[op];
    sc_table_free(t);
    return total;
}

/* O(1) whatever the table's age: GET LATEST, HEAD n+1, HEAD n+2, GET snapshot n (which is the read). */
Test(discovery, current_hint_costs_the_same_at_5_and_2000_snapshots, .timeout = 120) {
    sc_store_stats small, big;
    uint64_t at5 = fresh_discovery_ops("disc-cost5", 5, &small);
    uint64_t at2000 = fresh_discovery_ops("disc-cost2000", 2000, &big);
    fprintf(stderr, "fresh discovery + read of the latest snapshot: %llu requests at 5 snapshots, %llu at 2000\n",
            (unsigned long long)at5, (unsigned long long)at2000);
    cr_assert_eq(at5, 4);
    cr_assert_eq(at2000, at5);
    for (const sc_store_stats *st = &small;; st = &big) {
        cr_assert_eq(st->ops[SC_OP_GET], 2);
        cr_assert_eq(st->ops[SC_OP_HEAD], 2);
        cr_assert_eq(st->ops[SC_OP_LIST], 0);
        if (st == &big) break;
    }
}

/* A commit landing between the hint read and the probes is no damage: HEAD n+1 sees nothing,
 * then snapshots n+1 and n+2 land, HEAD n+2 sees one; the second look at n+1 finds it. */
typedef struct race_ctx {
    const char *name;
    char trigger[64];
    int fired;
} race_ctx;

static int commit_two_on_probe(void *p, sc_store_op op, const char *key, uint64_t call_index) {
    (void)call_index;
    race_ctx *c = p;
    if (c->fired || op != SC_OP_HEAD || strcmp(key, c->trigger) != 0) return 0;
    c->fired = 1;
    sc_table *other = tu_reopen(c->name);
    for (int i = 0; i < 2; i++) {
        char file[32];
        snprintf(file, sizeof file, "data/other%d", i);
        sc_file_entry e = tu_file("dt=1", 0, 4, 0, file, 10, NULL, NULL);
        int rc = tu_commit(NULL, other, "other", i + 1, SC_KIND_APPEND, 0, &e, 1, NULL, 0);
        if (rc) fprintf(stderr, "racing commit failed: %s\n", sc_error_message());
    }
    sc_table_free(other);
    return 0;
}

Test(discovery, commit_between_hint_and_probes_is_not_damage) {
    sc_table *t = mem_table("disc-race", SC_STRATEGY_CONDITIONAL);
    fill(t, 3);
    /* A handle that did not claim snapshot 3 itself: it probes n+1 and n+2. */
    sc_table *r = tu_reopen("disc-race");
    race_ctx c = {.name = "disc-race"};
    sc_snapshot_key(c.trigger, 5); /* the HEAD of hint+2 */
    sc_store_set_fault_hook(sc_table_store(r), commit_two_on_probe, &c);
    uint64_t id = 0;
    cr_assert_eq(sc_table_latest_id(&id, r), 0, "%s", sc_error_message());
    cr_assert(c.fired);
    cr_assert_eq(id, 5);
    sc_store_set_fault_hook(sc_table_store(r), NULL, NULL);
    cr_assert_eq(sc_table_fsck(r, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(r);
    sc_table_free(t);
}

/* head and tracker: a lost head record / tracker/ is not a new table. */
Test(discovery, head_record_lost) {
    sc_table *t = mem_table("disc-head", SC_STRATEGY_HEAD);
    fill(t, 2);
    cr_assert_eq(sc_store_delete(sc_table_store(t), "head/CURRENT"), 0);
    /* A fresh handle (a new process) has not seen the head: only the marker tells. */
    sc_table_free(t);
    t = tu_reopen("disc-head");
    uint64_t id;
    CORRUPT(sc_table_latest_id(&id, t), "metadata/history");
    CORRUPT(try_commit(t, "data/new"), "metadata/history");
    CORRUPT(sc_table_fsck(t, NULL, NULL), "metadata/history");
    sc_table_free(t);
}

Test(discovery, tracker_history_lost) {
    sc_table *t = mem_table("disc-tracker", SC_STRATEGY_TRACKER);
    fill(t, 2);
    sc_list_page page;
    cr_assert_eq(sc_store_list_all(sc_table_store(t), &page, "tracker/"), 0);
    for (size_t i = 0; i < page.count; i++) cr_assert_eq(sc_store_delete(sc_table_store(t), page.keys[i]), 0);
    sc_list_page_free(&page);
    uint64_t id;
    CORRUPT(sc_table_latest_id(&id, t), "metadata/history");
    CORRUPT(try_commit(t, "data/new"), "metadata/history");
    sc_table_free(t);
}

Test(discovery, new_table_is_empty_not_corrupt) {
    sc_table *t = mem_table("disc-new", SC_STRATEGY_CONDITIONAL);
    uint64_t id = 9;
    cr_assert_eq(sc_table_latest_id(&id, t), 0, "%s", sc_error_message());
    cr_assert_eq(id, 0);
    cr_assert_eq(sc_table_earliest_id(&id, t), 0, "%s", sc_error_message());
    cr_assert_eq(id, 0);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    fill(t, 1);
    sc_object_info info;
    cr_assert_eq(sc_store_head(sc_table_store(t), &info, "metadata/history"), 0, "snapshot 1 writes the marker");
    sc_table_free(t);
}

/*
 * Finding the earliest snapshot without snapshot/EARLIEST lists one key at a time from the start
 * of "snapshot/snapshot-". A stray key of 64 bytes or more that sorts first there (on S3, say an
 * operator's "snapshot/snapshot-0-backup-…") must be stepped over whole: a continuation key cut
 * short sorts before it, and the listing would return the same key forever.
 */
Test(discovery, earliest_is_found_past_a_long_stray_key, .timeout = 10) {
    sc_table *t = tu_mem_table("d-long-stray");
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_store *s = sc_table_store(t);
    /* '-' sorts before '0': this key comes first under the prefix. 80 bytes long. */
    const char *stray = "snapshot/snapshot-0-copied-by-an-operator-before-a-restore-not-a-snapshot-xyz";
    cr_assert_geq(strlen(stray), 64);
    cr_assert_eq(sc_store_put(s, NULL, stray, (const uint8_t *)"x", 1), 0, "%s", sc_error_message());
    cr_assert_eq(sc_store_delete(s, "snapshot/EARLIEST"), 0, "%s", sc_error_message());
    uint64_t earliest = 0;
    cr_assert_eq(sc_table_earliest_id(&earliest, t), 0, "%s", sc_error_message());
    cr_assert_eq(earliest, 1);
    sc_table_free(t);
}

/* ---- posix: odd object types, and read-only opens ---- */

static char root[256];

static void posix_setup(void) {
    snprintf(root, sizeof root, "/tmp/sc-disc-%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    cr_assert_eq(system(cmd), 0);
}

static void posix_teardown(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
}

static sc_table *posix_table(int n) {
    char loc[300];
    snprintf(loc, sizeof loc, "%s/t", root);
    sc_table *t = tu_table_at(loc, (tu_table_opts){SC_STRATEGY_AUTO, 2, 2});
    fill(t, n);
    return t;
}

static void path_of(char *out, size_t cap, const char *key) { snprintf(out, cap, "%s/t/%s", root, key); }

Test(discovery_posix, fifo_at_hint_refused_without_blocking, .init = posix_setup, .fini = posix_teardown, .timeout = 20) {
    sc_table *t = posix_table(2);
    char p[512];
    path_of(p, sizeof p, "snapshot/LATEST");
    cr_assert_eq(unlink(p), 0);
    cr_assert_eq(mkfifo(p, 0666), 0);
    all_refuse(t, "is a FIFO", 3);
    sc_table_free(t);
}

Test(discovery_posix, fifo_at_table_json, .init = posix_setup, .fini = posix_teardown, .timeout = 20) {
    sc_table *t = posix_table(1);
    sc_table_free(t);
    char p[512], loc[300];
    path_of(p, sizeof p, "metadata/table.json");
    cr_assert_eq(unlink(p), 0);
    cr_assert_eq(mkfifo(p, 0666), 0);
    snprintf(loc, sizeof loc, "%s/t", root);
    cr_assert_eq(sc_table_open_location(&t, loc), SC_ECORRUPT, "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "table.json: is a FIFO"), "%s", sc_error_message());
}

Test(discovery_posix, directory_at_next_snapshot, .init = posix_setup, .fini = posix_teardown, .timeout = 20) {
    sc_table *t = posix_table(2);
    char p[512], key[64];
    sc_snapshot_key(key, 3);
    path_of(p, sizeof p, key);
    cr_assert_eq(mkdir(p, 0777), 0);
    /* Not "lost claims" (SC_ERETRIES): there is no competitor. */
    CORRUPT(try_commit(t, "data/new"), "is an empty directory");
    CORRUPT(sc_table_fsck(t, NULL, NULL), "is an empty directory");
    sc_table_free(t);
}

Test(discovery_posix, snapshot_dir_replaced_by_file, .init = posix_setup, .fini = posix_teardown, .timeout = 20) {
    sc_table *t = posix_table(2);
    char cmd[1200], p[512];
    path_of(p, sizeof p, "snapshot");
    snprintf(cmd, sizeof cmd, "rm -rf %s && echo junk > %s", p, p);
    cr_assert_eq(system(cmd), 0);
    all_refuse(t, "metadata/history", 1);
    sc_table_free(t);
}

Test(discovery_posix, read_open_creates_nothing, .init = posix_setup, .fini = posix_teardown) {
    char loc[300];
    snprintf(loc, sizeof loc, "%s/missing/deep/t", root);
    sc_table *t = NULL;
    cr_assert_eq(sc_table_open_location(&t, loc), SC_ENOTABLE, "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "does not exist"), "%s", sc_error_message());
    struct stat st;
    cr_assert_neq(stat(root, &st), 0, "opening for reading created %s", root);
    /* The store reads as empty, and its first write creates the root. */
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, loc), 0, "%s", sc_error_message());
    sc_list_page page;
    cr_assert_eq(sc_store_list(s, &page, "", NULL, 10), 0);
    cr_assert_eq(page.count, 0);
    sc_list_page_free(&page);
    cr_assert_neq(stat(root, &st), 0);
    cr_assert_eq(sc_store_put(s, NULL, "k", (const uint8_t *)"v", 1), 0, "%s", sc_error_message());
    cr_assert_eq(stat(loc, &st), 0);
    sc_store_free(s);
}

/* A Paimon table snapcommit has not adopted (schema-0, no table.json): an ordinary open refuses it
 * naming adoption; SC_OPEN_READ_UNADOPTED reads it and the handle refuses every write. */
Test(discovery, unadopted_paimon_table_opens_for_reading_only) {
    const char *name = "disc-unadopted";
    sc_mem_store_reset(name);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, "mem://disc-unadopted"), 0);
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    cr_assert_eq(sc_store_delete(s, "metadata/table.json"), 0); /* what Paimon's own writer leaves */
    sc_table *t = NULL;
    cr_assert_eq(sc_table_open(&t, s), SC_ENOTABLE);
    cr_assert(strstr(sc_error_message(), "snapcommit has not adopted"), "%s", sc_error_message());
    cr_assert_eq(sc_table_open_with_flags(&t, s, 0x2u), SC_EINVAL, "an unknown flag");
    cr_assert_eq(sc_table_open_with_flags(&t, s, SC_OPEN_READ_UNADOPTED), 0, "%s", sc_error_message());
    cr_assert_eq(sc_table_strategy(t), SC_STRATEGY_AUTO);
    cr_assert_str_eq(sc_table_uuid(t), "");
    cr_assert_eq(tu_latest(t), 0);
    sc_store_stats before;
    sc_store_stats_get(&before, s);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), SC_ENOTABLE);
    cr_assert(strstr(sc_error_message(), "snapcommit has not adopted"), "%s", sc_error_message());
    cr_assert_eq(sc_table_expire(NULL, t, NULL), SC_ENOTABLE, "%s", sc_error_message());
    cr_assert_eq(sc_table_remove_orphans(NULL, t, NULL), SC_ENOTABLE, "%s", sc_error_message());
    sc_store_stats after;
    sc_store_stats_get(&after, s);
    for (int op = 0; op < SC_OP_COUNT; op++)
        if (op == SC_OP_PUT || op == SC_OP_PUT_IF_ABSENT || op == SC_OP_PUT_IF_MATCH || op == SC_OP_DELETE)
            cr_assert_eq(after.ops[op], before.ops[op], "the handle wrote (%s)", sc_store_op_name((sc_store_op)op));
    sc_table_free(t);
    /* Adopted (init without a schema), the same table opens as any other. */
    cr_assert_eq(sc_table_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    cr_assert_eq(sc_table_open(&t, s), 0, "%s", sc_error_message());
    cr_assert_neq(sc_table_strategy(t), SC_STRATEGY_AUTO);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_table_free(t);
    sc_store_free(s);
    sc_mem_store_reset(name);
}

/* ---- discovery from a lagging hint on a concurrent store while an expiration runs ---- */

/* A store that passes everything to a mem store but declares SC_CAP_CONCURRENT: batches
 * run one by one in orders drawn by the handle's randomness (a fault hook is set). */
typedef struct cw_store { sc_store *inner; } cw_store;
static int cw_getb(void *s, uint8_t **d, size_t *n, sc_object_info *i, const char *k, size_t m) {
    return sc_store_get_bounded(((cw_store *)s)->inner, d, n, i, k, m);
}
static int cw_get(void *s, uint8_t **d, size_t *n, sc_object_info *i, const char *k) {
    return sc_store_get(((cw_store *)s)->inner, d, n, i, k);
}
static int cw_head(void *s, sc_object_info *i, const char *k) { return sc_store_head(((cw_store *)s)->inner, i, k); }
static int cw_put(void *s, sc_object_info *i, const char *k, const uint8_t *d, size_t n) {
    return sc_store_put(((cw_store *)s)->inner, i, k, d, n);
}
static int cw_pia(void *s, sc_object_info *i, const char *k, const uint8_t *d, size_t n) {
    return sc_store_put_if_absent(((cw_store *)s)->inner, i, k, d, n);
}
static int cw_pim(void *s, sc_object_info *i, const char *k, const uint8_t *d, size_t n, const char *e) {
    return sc_store_put_if_match(((cw_store *)s)->inner, i, k, d, n, e);
}
static int cw_list(void *s, sc_list_page *o, const char *p, const char *a, size_t m) {
    return sc_store_list(((cw_store *)s)->inner, o, p, a, m);
}
static int cw_del(void *s, const char *k) { return sc_store_delete(((cw_store *)s)->inner, k); }
static int cw_hint(void *s, const char *k, const uint8_t *d, size_t n) { return sc_store_put_hint(((cw_store *)s)->inner, k, d, n); }
static void cw_close(void *s) { sc_store_free(((cw_store *)s)->inner); free(s); }

/*
 * An expiration as expire.c runs it (EARLIEST := 7, then snapshots 1..6 deleted oldest
 * first), run by the fault hook at the first HEAD of one of `trigger` — but only when the
 * looks of `before` came first (the order that would hide it); otherwise that table's
 * order is unfavourable and the next one is drawn.
 */
typedef struct exp_ctx {
    sc_store *plain;
    const char *before[2]; /* "GET snapshot/..." or "HEAD snapshot/..." (NULL: none) */
    const char *trigger[2];
    int seen[2], fired, unfavourable;
} exp_ctx;

static int expire_between(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    exp_ctx *c = p;
    char look[96];
    snprintf(look, sizeof look, "%s %s", op == SC_OP_GET ? "GET" : op == SC_OP_HEAD ? "HEAD" : "-", key);
    for (int i = 0; i < 2; i++)
        if (c->before[i] && strcmp(look, c->before[i]) == 0) c->seen[i] = 1;
    if (c->fired || op != SC_OP_HEAD || (strcmp(key, c->trigger[0]) && strcmp(key, c->trigger[1]))) return 0;
    c->fired = 1;
    if (!c->seen[0] || (c->before[1] && !c->seen[1])) {
        c->unfavourable = 1;
        return 0;
    }
    sc_store_put(c->plain, NULL, "snapshot/EARLIEST", (const uint8_t *)"7", 1);
    for (int i = 1; i <= 6; i++) {
        char k[64];
        sc_snapshot_key(k, (uint64_t)i);
        sc_store_delete(c->plain, k);
    }
    return 0;
}

/*
 * A reader's sc_table_latest_id on snapshots 1..8 with LATEST = 2, on a store that declares
 * SC_CAP_CONCURRENT (its batches then run one by one in orders drawn from the handle's
 * randomness, a fault hook being set), while `c`'s expiration runs between the batch's looks:
 * the latest must come out as 8, never as a snapshot the expiration removed. Up to 60 tables,
 * until one draws the order that matters (at least one must).
 */
static void expect_latest_through_expiration(const char *prefix, int keep_guess, exp_ctx proto) {
    int stale = 0, tried = 0;
    for (int attempt = 0; attempt < 60 && !stale; attempt++) {
        char name[64];
        snprintf(name, sizeof name, "%s-%d", prefix, attempt);
        sc_table *w = mem_table(name, SC_STRATEGY_CONDITIONAL);
        fill(w, 8);
        sc_table_free(w);
        char loc[128];
        snprintf(loc, sizeof loc, "mem://%s", name);
        cw_store *cw = calloc(1, sizeof *cw);
        cr_assert_eq(sc_store_open(&cw->inner, loc), 0);
        static sc_store_ops ops;
        ops = (sc_store_ops){.version = SC_STORE_OPS_VERSION, .name = "cw", .get = cw_get, .head = cw_head, .put = cw_put,
                             .put_if_absent = cw_pia, .put_if_match = cw_pim, .list = cw_list, .del = cw_del,
                             .close = cw_close, .put_hint = cw_hint, .get_bounded = cw_getb};
        ops.caps = sc_store_caps(cw->inner) | SC_CAP_CONCURRENT;
        sc_store *st;
        cr_assert_eq(sc_store_wrap(&st, &ops, cw), 0);
        cr_assert_eq(sc_store_put(st, NULL, "snapshot/LATEST", (const uint8_t *)"2", 1), 0); /* a lagging hint */
        sc_table *r;
        cr_assert_eq(sc_table_open(&r, st), 0, "%s", sc_error_message());
        if (!keep_guess) sc_strategy_forget_found(r); /* as past the open's 2 s: no guess */
        exp_ctx c = proto;
        cr_assert_eq(sc_store_open(&c.plain, loc), 0);
        sc_store_set_fault_hook(st, expire_between, &c);
        uint64_t id = 0;
        int rc = sc_table_latest_id(&id, r);
        if (c.fired && !c.unfavourable) {
            tried++;
            cr_log_info("%s, table %d: rc %d, latest %llu (8 at the call's start)", prefix, attempt, rc,
                        (unsigned long long)id);
            if (rc == 0 && id < 8) stale = 1;
        }
        sc_store_set_fault_hook(st, NULL, NULL);
        sc_table_free(r);
        sc_store_free(st);
        sc_store_free(c.plain);
    }
    cr_assert(tried > 0, "no favourable order drawn");
    cr_assert(!stale, "discovery returned a snapshot below EARLIEST, older than the latest at call start");
}

/*
 * Discovery from LATEST = 2 by a reader without a guess, the expiration between the GETs of
 * 2 and 3 and the HEADs of 4 and 5: the batch alone would take 3 for the latest (3 there, 4
 * and 5 absent). The look at 3 after the batch finds it gone, and discovery goes on to 8.
 */
Test(discovery, a_batched_probe_never_reports_a_snapshot_an_expiration_removed) {
    expect_latest_through_expiration("exp-probe", 0,
                                     (exp_ctx){.before = {"GET snapshot/snapshot-2", "GET snapshot/snapshot-3"},
                                               .trigger = {"snapshot/snapshot-4", "snapshot/snapshot-5"}});
}

/*
 * A reader right after the open, its guess the snapshot LATEST named (2), the expiration
 * between HEAD 2 and the HEADs of 3 and 4: the guess's looks alone would confirm 2. The look
 * at 2 after them finds it gone, and discovery goes on to 8.
 */
Test(discovery, a_reader_never_confirms_a_guess_an_expiration_removed) {
    expect_latest_through_expiration("exp-guess", 1,
                                     (exp_ctx){.before = {"HEAD snapshot/snapshot-2", NULL},
                                               .trigger = {"snapshot/snapshot-3", "snapshot/snapshot-4"}});
}
