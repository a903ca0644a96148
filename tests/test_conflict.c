/*
 * The conflict rules (engine/conflict.c, docs/protocols.md §4), one test per
 * rule and commit kind: deleting a file that is not live, adding a file that
 * is, LSM key ranges overlapping at one level (keys compared in their types:
 * strings, ints with negatives, several fields), a bucket count changed
 * without OVERWRITE, and what a change set may not say about itself. Each
 * rule is checked against the base (the first check) and against what was
 * committed since a base snapshot or a lost claim (the incremental check).
 * Tables of TU_SCHEMA have one STRING key; the others are built here.
 */
#include "sc_test_util.h"

#include <inttypes.h>

/* ---- typed tables and change sets as JSON ---- */

/* One INT primary key, two buckets, unpartitioned. */
#define INT_PK                                                                                             \
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"                 \
    "\"partitionKeys\":[],\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"2\"}}"
/* Partitioned by dt STRING; the trimmed key has two fields, (id INT, name STRING). */
#define MULTI_PK                                                                                           \
    "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"id\",\"type\":\"INT\"},"                 \
    "{\"name\":\"name\",\"type\":\"STRING\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"                         \
    "\"partitionKeys\":[\"dt\"],\"primaryKeys\":[\"dt\",\"id\",\"name\"],\"options\":{\"bucket\":\"2\"}}"

/* Text that outlives the call: a ring of slots, as tu_pool but larger. */
static char *text_slot(void) {
    static char slots[64][1024];
    static size_t next;
    return slots[next++ % 64];
}

/* One entry of a change set; min and max are JSON key values ("5", "[1,\"a\"]"). */
static const char *entry(const char *partition, int bucket, int total, int level, const char *file, const char *min,
                         const char *max) {
    char *s = text_slot();
    snprintf(s, 1024,
             "{\"partition\":\"%s\",\"bucket\":%d,\"totalBuckets\":%d,\"level\":%d,\"file\":\"%s\",\"rows\":1,"
             "\"size\":9,\"minKey\":%s,\"maxKey\":%s}",
             partition, bucket, total, level, file, min, max);
    return s;
}

/* Commit {"add":[adds],"delete":[dels]} (either may be "") on `base` (0: none); the library's code. */
static int commit_json(sc_commit_result *r, sc_table *t, const char *user, int64_t ident, sc_commit_kind kind,
                       uint64_t base, const char *adds, const char *dels) {
    char json[4096];
    snprintf(json, sizeof json, "{\"add\":[%s],\"delete\":[%s]}", adds, dels);
    sc_changes *c = NULL;
    cr_assert_eq(sc_table_parse_changes(&c, t, json, strlen(json)), 0, "%s: %s", json, sc_error_message());
    sc_commit_request req = {user, ident, kind, base, c};
    int rc = sc_table_commit(r, t, &req);
    sc_changes_free(c);
    return rc;
}

#define COMMITS(...) cr_assert_eq(commit_json(__VA_ARGS__), 0, "%s", sc_error_message())

/* The call is a conflict whose message holds every one of the NULL-terminated needles. */
static void conflict_says(int rc, const char *const *needles) {
    cr_assert_eq(rc, SC_ECONFLICT, "%s: %s", sc_error_name(rc), sc_error_message());
    for (size_t i = 0; needles[i]; i++)
        cr_assert(strstr(sc_error_message(), needles[i]), "\"%s\" lacks \"%s\"", sc_error_message(), needles[i]);
}
#define CONFLICT(rc, ...) conflict_says((rc), (const char *const[]){__VA_ARGS__, NULL})

/* ==== deleting a file that is not live ==== */

/* Two compactions of the same files: the second fails, naming file, base and user, and is never retried. */
Test(conflict, delete_not_live_compact_fails_naming_file_base_and_user) {
    sc_table *t = tu_mem_table("c-del");
    sc_file_entry l0[] = {tu_file("dt=1", 0, 1, 0, "data/l0-a", 5, "a", "m"), tu_file("dt=1", 0, 1, 0, "data/l0-b", 5, "c", "z")};
    cr_assert_eq(tu_commit(NULL, t, "writer", 1, SC_KIND_APPEND, 0, l0, 2, NULL, 0), 0);
    sc_file_entry out1 = tu_file("dt=1", 0, 1, 5, "data/c1", 10, "a", "z");
    sc_file_entry out2 = tu_file("dt=1", 0, 1, 5, "data/c2", 10, "a", "z");
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "compact-1", 1, SC_KIND_COMPACT, 0, &out1, 1, l0, 2), 0, "%s", sc_error_message());
    CONFLICT(tu_commit(&r, t, "compact-2", 1, SC_KIND_COMPACT, 0, &out2, 1, l0, 2), "File deletion conflict",
             tu_name("data/l0-a"), "snapshot 2", "compact-1");
    cr_assert_eq(r.attempts, 0, "a conflict is never retried (no claim attempted)");
    cr_assert_eq(tu_latest(t), 2);
    sc_table_free(t);
}

/* An APPEND that also deletes is held to the same rule (INT keys). */
Test(conflict, delete_not_live_append_fails) {
    sc_table *t = tu_schema_table("c-del-append", INT_PK);
    COMMITS(NULL, t, "u", 1, SC_KIND_APPEND, 0, entry("", 0, 0, 0, "a", "1", "5"), "");
    CONFLICT(commit_json(NULL, t, "u", 2, SC_KIND_APPEND, 0, entry("", 0, 0, 0, "b", "1", "5"),
                         entry("", 0, 0, 0, "ghost", "1", "5")),
             "File deletion conflict: ghost (partition \"\", bucket 0, level 0) is not live",
             "snapshot 1 (commit user \"u\", identifier 1, APPEND) is the base");
    cr_assert_eq(tu_latest(t), 1);
    sc_table_free(t);
}

/* OVERWRITE replaces whole partitions: a delete entry only names a partition, live or not. */
Test(conflict, delete_not_live_overwrite_is_allowed) {
    sc_table *t = tu_schema_table("c-del-overwrite", MULTI_PK);
    COMMITS(NULL, t, "u", 1, SC_KIND_APPEND, 0, entry("dt=a", 0, 0, 0, "a", "[1,\"x\"]", "[2,\"x\"]"), "");
    COMMITS(NULL, t, "u", 2, SC_KIND_OVERWRITE, 0, "", entry("dt=a", 0, 0, 0, "ghost", "[1,\"x\"]", "[1,\"x\"]"));
    cr_assert_eq(tu_file_count(t), 0, "the overwrite emptied partition dt=a");
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* The first commit is checked as well: a delete on an empty table names it. */
Test(conflict, delete_on_an_empty_table_compact_fails) {
    sc_table *t = tu_mem_table("c-empty");
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/ghost", 1, NULL, NULL);
    CONFLICT(tu_commit(NULL, t, "u", 1, SC_KIND_COMPACT, 0, NULL, 0, &f, 1), "File deletion conflict",
             "the table is empty");
    cr_assert_eq(tu_latest(t), 0);
    sc_table_free(t);
}

/* With a base snapshot, a file another commit deleted since is named with that snapshot. */
Test(conflict, delete_already_deleted_since_the_base_compact_fails) {
    sc_table *t = tu_mem_table("c-base");
    sc_file_entry l0 = tu_file("p", 0, 1, 0, "data/l0", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "w", 1, SC_KIND_APPEND, 0, &l0, 1, NULL, 0), 0);
    sc_file_entry c1 = tu_file("p", 0, 1, 1, "data/c1", 1, "a", "b");
    cr_assert_eq(tu_commit(NULL, t, "c1", 1, SC_KIND_COMPACT, 1, &c1, 1, &l0, 1), 0, "%s", sc_error_message());
    sc_file_entry c2 = tu_file("p", 0, 1, 1, "data/c2", 1, "x", "y");
    CONFLICT(tu_commit(NULL, t, "c2", 1, SC_KIND_COMPACT, 1, &c2, 1, &l0, 1), "File deletion conflict",
             "already deleted by snapshot 2", "latest is snapshot 2 (commit user \"c1\")");
    sc_table_free(t);
}

/* A base equal to the latest snapshot skips nothing: the first check still runs. */
Test(conflict, base_equal_to_latest_does_not_skip_validation) {
    sc_table *t = tu_mem_table("c-base-trust");
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0);
    cr_assert_eq(tu_commit(NULL, t, "u", 2, SC_KIND_APPEND, 1, &f, 1, NULL, 0), SC_ECONFLICT, "re-add with base = latest");
    sc_file_entry ghost = tu_file("p", 0, 1, 0, "data/ghost", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "u", 2, SC_KIND_COMPACT, 1, NULL, 0, &ghost, 1), SC_ECONFLICT);
    cr_assert_eq(tu_latest(t), 1);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* ==== adding a file that is live ==== */

Test(conflict, add_live_append_fails_and_a_level_move_is_no_re_add) {
    sc_table *t = tu_mem_table("c-add");
    sc_file_entry f = tu_file("dt=1", 0, 0, 0, "data/f1", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "a", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0);
    CONFLICT(tu_commit(NULL, t, "a", 2, SC_KIND_APPEND, 0, &f, 1, NULL, 0), "File addition conflict",
             tu_name("data/f1"), "is already live");
    /* Moving a file between levels (delete + add of the same file) is not a re-add. */
    sc_file_entry up = tu_file("dt=1", 0, 0, 1, "data/f1", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "a", 3, SC_KIND_COMPACT, 0, &up, 1, &f, 1), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* A compaction that adds a live file without deleting it (INT keys). */
Test(conflict, add_live_compact_fails) {
    sc_table *t = tu_schema_table("c-add-compact", INT_PK);
    COMMITS(NULL, t, "u", 1, SC_KIND_APPEND, 0, entry("", 1, 0, 0, "a", "-3", "3"), "");
    CONFLICT(commit_json(NULL, t, "u", 2, SC_KIND_COMPACT, 0, entry("", 1, 0, 0, "a", "-3", "3"), ""),
             "File addition conflict: a (partition \"\", bucket 1, level 0) is already live");
    sc_table_free(t);
}

/* OVERWRITE deletes every live file of the partition first, so adding one of them again is fine. */
Test(conflict, add_live_overwrite_replaces_it) {
    sc_table *t = tu_schema_table("c-add-overwrite", MULTI_PK);
    COMMITS(NULL, t, "u", 1, SC_KIND_APPEND, 0, entry("dt=a", 0, 0, 0, "a", "[1,\"x\"]", "[2,\"x\"]"), "");
    COMMITS(NULL, t, "u", 2, SC_KIND_OVERWRITE, 0, entry("dt=a", 0, 0, 0, "a", "[1,\"x\"]", "[2,\"x\"]"), "");
    cr_assert_eq(tu_file_count(t), 1);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* With a base snapshot, a file another commit added since is named with that snapshot. */
Test(conflict, add_already_added_since_the_base_append_fails) {
    sc_table *t = tu_schema_table("c-add-since", INT_PK);
    COMMITS(NULL, t, "u", 1, SC_KIND_APPEND, 0, entry("", 0, 0, 0, "a", "1", "2"), "");
    COMMITS(NULL, t, "other", 1, SC_KIND_APPEND, 1, entry("", 0, 0, 0, "b", "1", "2"), "");
    CONFLICT(commit_json(NULL, t, "me", 1, SC_KIND_APPEND, 1, entry("", 0, 0, 0, "b", "1", "2"), ""),
             "File addition conflict: b (partition \"\", bucket 0, level 0) was already added by snapshot 2",
             "commit user \"other\"");
    sc_table_free(t);
}

/* ==== LSM: key ranges at one level of one bucket must not overlap ==== */

/* STRING keys; level 0, another bucket and disjoint ranges are fine; touching ranges overlap. */
Test(conflict, lsm_overlap_compact_string_keys) {
    sc_table *t = tu_mem_table("c-lsm");
    sc_file_entry a = tu_file("p", 0, TU_BUCKETS, 1, "data/a", 1, "a", "k");
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_COMPACT, 0, &a, 1, NULL, 0), 0);
    sc_file_entry disjoint = tu_file("p", 0, TU_BUCKETS, 1, "data/b", 1, "l", "z");
    cr_assert_eq(tu_commit(NULL, t, "u", 2, SC_KIND_COMPACT, 0, &disjoint, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_file_entry level0 = tu_file("p", 0, TU_BUCKETS, 0, "data/c", 1, "a", "z");
    cr_assert_eq(tu_commit(NULL, t, "u", 3, SC_KIND_APPEND, 0, &level0, 1, NULL, 0), 0, "level 0 may overlap");
    sc_file_entry other_bucket = tu_file("p", 1, TU_BUCKETS, 1, "data/d", 1, "a", "z");
    cr_assert_eq(tu_commit(NULL, t, "u", 4, SC_KIND_COMPACT, 0, &other_bucket, 1, NULL, 0), 0);
    sc_file_entry touching = tu_file("p", 0, TU_BUCKETS, 1, "data/e", 1, "k", "k"); /* a.max == b.min */
    CONFLICT(tu_commit(NULL, t, "u", 5, SC_KIND_COMPACT, 0, &touching, 1, NULL, 0), "LSM conflict", tu_name("data/e"));
    /* Replacing the overlapped file in the same commit is fine. */
    cr_assert_eq(tu_commit(NULL, t, "u", 6, SC_KIND_COMPACT, 0, &touching, 1, &a, 1), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/*
 * Strings longer than 7 bytes live in the row's variable part: their fixed slot holds offset and
 * length, so the row's bytes order them by length first. Typed, they compare by content.
 */
Test(conflict, lsm_long_string_keys_compare_by_content) {
    sc_table *t = tu_mem_table("c-lsm-long");
    sc_file_entry z = tu_file("p", 0, TU_BUCKETS, 1, "data/z", 1, "zzzzzzzzzz", "zzzzzzzzzzzz");
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_COMPACT, 0, &z, 1, NULL, 0), 0, "%s", sc_error_message());
    /* All below "zzzzzzzzzz" by content; as bytes its 12-byte max is above "aaaaaaaaaaaa". */
    sc_file_entry a = tu_file("p", 0, TU_BUCKETS, 1, "data/a", 1, "aaaaaaaaaaaa", "aaaaaaaaaaaaa");
    cr_assert_eq(tu_commit(NULL, t, "u", 2, SC_KIND_COMPACT, 0, &a, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_file_entry inside = tu_file("p", 0, TU_BUCKETS, 1, "data/inside", 1, "zzzzzzzzzzz", "zzzzzzzzzzz");
    CONFLICT(tu_commit(NULL, t, "u", 3, SC_KIND_COMPACT, 0, &inside, 1, NULL, 0), "LSM conflict",
             tu_name("data/inside"), tu_name("data/z"));
    sc_table_free(t);
}

/*
 * INT keys are compared as Paimon compares them (signed), not as their
 * little-endian bytes: -1 is ff ff ff ff and 1 is 01 00 00 00.
 */
Test(conflict, lsm_overlap_compact_int_keys_in_signed_order) {
    sc_table *t = tu_schema_table("c-lsm-int", INT_PK);
    /* [-1, 1] is a valid range only in the typed order (bytewise its min is above its max). */
    COMMITS(NULL, t, "u", 1, SC_KIND_COMPACT, 0, entry("", 0, 0, 1, "a", "-1", "[1]"), "");
    /* [0, 0] lies inside [-1, 1]. Bytewise 00 00 00 00 sorts before ff ff ff ff and ends
     * below it, so a byte comparison would let this file in next to "a". */
    CONFLICT(commit_json(NULL, t, "u", 2, SC_KIND_COMPACT, 0, entry("", 0, 0, 1, "b", "0", "[0]"), ""), "LSM conflict",
             "a (partition \"\", bucket 0, level 1) [[-1]..[1]]", "b (partition \"\", bucket 0, level 1) [[0]..[0]]");
    /* The same file at level 0 may overlap (Paimon's level 0 holds overlapping runs). */
    COMMITS(NULL, t, "u", 3, SC_KIND_APPEND, 0, entry("", 0, 0, 0, "b", "0", "0"), "");
    cr_assert_eq(tu_latest(t), 2);
    sc_table_free(t);
}

Test(conflict, lsm_int_key_ranges_apart_in_signed_order_do_not_conflict) {
    sc_table *t = tu_schema_table("c-lsm-int-apart", INT_PK);
    /* [1, 255] then [256, 300]: disjoint as numbers. As bytes, 256 (00 01 00 00) sorts before
     * 1 (01 00 00 00) and 300 (2c 01 00 00) is above 1, so bytes would call this an overlap. */
    COMMITS(NULL, t, "u", 1, SC_KIND_COMPACT, 0, entry("", 1, 0, 1, "c", "1", "255"), "");
    COMMITS(NULL, t, "u", 2, SC_KIND_COMPACT, 0, entry("", 1, 0, 1, "d", "256", "300"), "");
    /* Negative ranges below them too: [-300, -256] and [-255, 0]. */
    COMMITS(NULL, t, "u", 3, SC_KIND_COMPACT, 0, entry("", 1, 0, 1, "e", "-300", "-256"), "");
    COMMITS(NULL, t, "u", 4, SC_KIND_COMPACT, 0, entry("", 1, 0, 1, "f", "-255", "0"), "");
    /* And touching ranges (max == min) are an overlap, as in Paimon (compare >= 0). */
    CONFLICT(commit_json(NULL, t, "u", 5, SC_KIND_COMPACT, 0, entry("", 1, 0, 1, "g", "300", "400"), ""),
             "d (partition \"\", bucket 1, level 1) [[256]..[300]]");
    cr_assert_eq(tu_file_count(t), 4);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* (id INT, name STRING): the first field decides, the second breaks ties; negative ids sort first. */
Test(conflict, lsm_overlap_compact_multi_field_keys) {
    sc_table *t = tu_schema_table("c-lsm-multi", MULTI_PK);
    COMMITS(NULL, t, "u", 1, SC_KIND_COMPACT, 0, entry("dt=a", 0, 0, 1, "a", "[1,\"m\"]", "[2,\"c\"]"), "");
    /* (2,"d") is above (2,"c"): disjoint. */
    COMMITS(NULL, t, "u", 2, SC_KIND_COMPACT, 0, entry("dt=a", 0, 0, 1, "b", "[2,\"d\"]", "[5,\"a\"]"), "");
    /* (-5,..)..(-1,..) is below (1,"m") as numbers; as bytes -1 would sort above every positive id. */
    COMMITS(NULL, t, "u", 3, SC_KIND_COMPACT, 0, entry("dt=a", 0, 0, 1, "c", "[-5,\"a\"]", "[-1,\"z\"]"), "");
    /* (1,"a")..(1,"m") ends on a's first key: an overlap decided by the second field. */
    CONFLICT(commit_json(NULL, t, "u", 4, SC_KIND_COMPACT, 0, entry("dt=a", 0, 0, 1, "d", "[1,\"a\"]", "[1,\"m\"]"), ""),
             "LSM conflict", "a (partition \"dt=a\", bucket 0, level 1)", "d (partition \"dt=a\", bucket 0, level 1)");
    /* (1,"a")..(1,"l") ends just below it. */
    COMMITS(NULL, t, "u", 5, SC_KIND_COMPACT, 0, entry("dt=a", 0, 0, 1, "e", "[1,\"a\"]", "[1,\"l\"]"), "");
    /* Another partition has its own runs. */
    COMMITS(NULL, t, "u", 6, SC_KIND_COMPACT, 0, entry("dt=b", 0, 0, 1, "f", "[1,\"a\"]", "[9,\"z\"]"), "");
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* An APPEND may write above level 0 too (a writer's own compaction): the rule holds for it. */
Test(conflict, lsm_overlap_append_fails) {
    sc_table *t = tu_schema_table("c-lsm-append", INT_PK);
    COMMITS(NULL, t, "u", 1, SC_KIND_COMPACT, 0, entry("", 0, 0, 2, "a", "10", "20"), "");
    CONFLICT(commit_json(NULL, t, "u", 2, SC_KIND_APPEND, 0, entry("", 0, 0, 2, "b", "-20", "10"), ""), "LSM conflict",
             "a (partition \"\", bucket 0, level 2) [[10]..[20]]");
    sc_table_free(t);
}

/* OVERWRITE empties the partition first: its files overlap nothing that stays. */
Test(conflict, lsm_overlap_overwrite_replaces_the_run) {
    sc_table *t = tu_schema_table("c-lsm-overwrite", MULTI_PK);
    COMMITS(NULL, t, "u", 1, SC_KIND_COMPACT, 0, entry("dt=a", 0, 0, 1, "a", "[1,\"a\"]", "[9,\"z\"]"), "");
    COMMITS(NULL, t, "u", 2, SC_KIND_OVERWRITE, 0, entry("dt=a", 0, 0, 1, "b", "[2,\"a\"]", "[3,\"a\"]"), "");
    cr_assert_eq(tu_file_count(t), 1);
    sc_table_free(t);
}

/* Two of our own adds overlap each other: a conflict whatever the kind, OVERWRITE included. */
Test(conflict, lsm_overlap_within_one_overwrite_fails) {
    sc_table *t = tu_schema_table("c-lsm-self", INT_PK);
    char adds[2048];
    snprintf(adds, sizeof adds, "%s,%s", entry("", 0, 0, 1, "a", "-10", "0"), entry("", 0, 0, 1, "b", "0", "10"));
    CONFLICT(commit_json(NULL, t, "u", 1, SC_KIND_OVERWRITE, 0, adds, ""), "LSM conflict", "[[-10]..[0]]", "[[0]..[10]]");
    cr_assert_eq(tu_latest(t), 0);
    sc_table_free(t);
}

/* With a base snapshot, a file committed since at the same level is caught. */
Test(conflict, lsm_overlap_since_the_base_compact_fails) {
    sc_table *t = tu_mem_table("c-lsm-base");
    sc_file_entry l0 = tu_file("p", 0, 1, 0, "data/l0", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "w", 1, SC_KIND_APPEND, 0, &l0, 1, NULL, 0), 0);
    sc_file_entry c1 = tu_file("p", 0, 1, 1, "data/c1", 1, "a", "b");
    cr_assert_eq(tu_commit(NULL, t, "c1", 1, SC_KIND_COMPACT, 1, &c1, 1, &l0, 1), 0, "%s", sc_error_message());
    sc_file_entry c3 = tu_file("p", 0, 1, 1, "data/c3", 1, "b", "c");
    CONFLICT(tu_commit(NULL, t, "c3", 1, SC_KIND_COMPACT, 1, &c3, 1, NULL, 0), "LSM conflict",
             "snapshots 2..2 were committed since the base");
    sc_table_free(t);
}

/* Before our first claim, another writer moves data/y up two levels in two commits. */
static int two_level_moves(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    int *fired = ctx;
    (void)call;
    if (op != SC_OP_PUT_IF_ABSENT || strncmp(key, "snapshot/snapshot-", 18) != 0 || (*fired)++) return 0;
    sc_table *other = tu_reopen("c-moved-twice");
    sc_file_entry y0 = tu_file("p", 0, 1, 0, "data/y", 1, "a", "c");
    sc_file_entry y1 = tu_file("p", 0, 1, 1, "data/y", 1, "a", "c");
    sc_file_entry y2 = tu_file("p", 0, 1, 2, "data/y", 1, "a", "c");
    cr_assert_eq(tu_commit(NULL, other, "mover", 1, SC_KIND_COMPACT, 0, &y1, 1, &y0, 1), 0, "%s", sc_error_message());
    cr_assert_eq(tu_commit(NULL, other, "mover", 2, SC_KIND_COMPACT, 0, &y2, 1, &y1, 1), 0, "%s", sc_error_message());
    sc_table_free(other);
    return 0;
}

/*
 * The incremental check after a lost claim counts, per file identity (partition, bucket,
 * name; not level), only the file's last ADD record since our base. Here data/y went level
 * 0 -> 1 -> 2 in two snapshots: level 1 is empty at the latest snapshot, so our level-1 file is no
 * LSM conflict, as the full check agrees. (Bucket counts follow the same rule.)
 */
Test(conflict, lsm_file_moved_twice_since_a_lost_claim_counts_only_its_last_level) {
    sc_table *t = tu_mem_table("c-moved-twice");
    sc_file_entry y0 = tu_file("p", 0, 1, 0, "data/y", 1, "a", "c");
    cr_assert_eq(tu_commit(NULL, t, "w", 1, SC_KIND_APPEND, 0, &y0, 1, NULL, 0), 0, "%s", sc_error_message());
    int fired = 0;
    sc_store_set_fault_hook(sc_table_store(t), two_level_moves, &fired);
    sc_file_entry z1 = tu_file("p", 0, 1, 1, "data/z", 1, "b", "b");
    sc_commit_result r;
    int rc = tu_commit(&r, t, "me", 1, SC_KIND_COMPACT, 0, &z1, 1, NULL, 0);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(fired, 2, "one lost claim (the mover committed twice meanwhile), then the retry");
    cr_assert_eq(rc, 0, "level 1 holds nothing but data/z at snapshot 3, yet: %s: %s", sc_error_name(rc),
                 sc_error_message());
    cr_assert_eq(r.snapshot_id, 4);
    sc_table_free(t);
}

/* ==== bucket counts change only with OVERWRITE ==== */

Test(conflict, bucket_count_change_append_fails_overwrite_may) {
    sc_table *t = tu_mem_table("c-bucket");
    sc_file_entry f4 = tu_file("dt=1", 0, 4, 0, "data/f4", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f4, 1, NULL, 0), 0);
    sc_file_entry f8 = tu_file("dt=1", 1, 8, 0, "data/f8", 1, NULL, NULL);
    CONFLICT(tu_commit(NULL, t, "u", 2, SC_KIND_APPEND, 0, &f8, 1, NULL, 0), "Bucket count conflict",
             "has 4 total buckets", "declares 8");
    sc_file_entry other_part = tu_file("dt=2", 1, 8, 0, "data/g8", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "u", 3, SC_KIND_APPEND, 0, &other_part, 1, NULL, 0), 0);
    /* OVERWRITE replaces the partition's files and may change its bucket count. */
    cr_assert_eq(tu_commit(NULL, t, "u", 4, SC_KIND_OVERWRITE, 0, &f8, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_file_list *l;
    cr_assert_eq(sc_table_files(&l, t, 0), 0);
    cr_assert_eq(l->count, 2);
    for (size_t i = 0; i < l->count; i++) cr_assert_neq(strcmp(l->entries[i].file, tu_name("data/f4")), 0);
    sc_file_list_free(l);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* A compaction's output must keep the partition's count too (multi-field keys). */
Test(conflict, bucket_count_change_compact_fails) {
    sc_table *t = tu_schema_table("c-bucket-compact", MULTI_PK);
    COMMITS(NULL, t, "u", 1, SC_KIND_APPEND, 0, entry("dt=a", 0, 2, 0, "a", "[1,\"a\"]", "[2,\"a\"]"), "");
    CONFLICT(commit_json(NULL, t, "u", 2, SC_KIND_COMPACT, 0, entry("dt=a", 0, 4, 1, "b", "[1,\"a\"]", "[2,\"a\"]"),
                         entry("dt=a", 0, 2, 0, "a", "[1,\"a\"]", "[2,\"a\"]")),
             "Bucket count conflict: partition \"dt=a\" has 2 total buckets (a)", "declares 4");
    sc_table_free(t);
}

/* With a base snapshot, a count another commit declared since is binding. */
Test(conflict, bucket_count_change_since_the_base_append_fails) {
    sc_table *t = tu_schema_table("c-bucket-since", MULTI_PK);
    COMMITS(NULL, t, "u", 1, SC_KIND_APPEND, 0, entry("dt=a", 0, 2, 0, "a", "[1,\"a\"]", "[2,\"a\"]"), "");
    COMMITS(NULL, t, "other", 1, SC_KIND_APPEND, 1, entry("dt=b", 0, 2, 0, "b", "[1,\"a\"]", "[2,\"a\"]"), "");
    CONFLICT(commit_json(NULL, t, "me", 1, SC_KIND_APPEND, 1, entry("dt=b", 3, 4, 0, "c", "[1,\"a\"]", "[2,\"a\"]"), ""),
             "Bucket count conflict: partition \"dt=b\" has 2 total buckets (b)",
             "snapshots 2..2 were committed since the base");
    sc_table_free(t);
}

/* ==== what a change set may not say about itself (SC_EINVAL: the caller's mistake, not a race) ==== */

Test(conflict, change_set_naming_a_file_twice_or_two_counts_is_einval) {
    sc_table *t = tu_schema_table("c-self", INT_PK);
    const char *a = entry("", 0, 0, 0, "a", "1", "2");
    char twice[2048];
    snprintf(twice, sizeof twice, "%s,%s", a, a);
    cr_assert_eq(commit_json(NULL, t, "u", 1, SC_KIND_APPEND, 0, twice, ""), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "changes add a twice"), "%s", sc_error_message());
    COMMITS(NULL, t, "u", 1, SC_KIND_APPEND, 0, a, "");
    cr_assert_eq(commit_json(NULL, t, "u", 2, SC_KIND_COMPACT, 0, "", twice), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "changes delete a twice"), "%s", sc_error_message());
    char counts[2048];
    snprintf(counts, sizeof counts, "%s,%s", entry("", 0, 2, 0, "b", "1", "2"), entry("", 3, 4, 0, "c", "1", "2"));
    cr_assert_eq(commit_json(NULL, t, "u", 2, SC_KIND_OVERWRITE, 0, counts, ""), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "changes declare 2 and 4 total buckets"), "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 1);
    sc_table_free(t);
}

/* ---- index files (engine/conflict.c sc_conflict_check_index / _dv_targets) ---- */

#include "engine/conflict.h"
#include "format/index_entry.h"

/* An unpartitioned INT_PK index entry of `type` in `bucket`, with the vectors of `dv_files` (NULL-terminated). */
static sc_index_entry index_entry(const char *type, int bucket, const char *file, const char *const *dv_files,
                                  sc_dv_range *ranges) {
    size_t n = 0;
    for (; dv_files && dv_files[n]; n++) ranges[n] = (sc_dv_range){dv_files[n], (int32_t)(10 * n), 10, 0, 0};
    /* The unpartitioned row as a decoded index manifest holds it (sc_changes_*_index spell it so too). */
    sc_index_entry e = {.partition = {sc_empty_row, SC_EMPTY_ROW_LEN}, .bucket = bucket, .index_type = type, .file = file, .size = 1, .rows = (int64_t)n,
                        .has_dv_ranges = n > 0, .dv_ranges = n ? ranges : NULL, .dv_range_count = n};
    return e;
}

Test(conflict, index_delete_not_live_fails_naming_the_index_file) {
    sc_table *t = tu_schema_table("c-index-del", INT_PK);
    sc_dv_range ra[1], rb[1];
    sc_index_vec live = {0};
    sc_index_entry live_e = index_entry("HASH", 0, "index-live", NULL, ra);
    cr_assert_eq(sc_index_vec_push(&live, SC_ENTRY_ADD, &live_e), 0);
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    sc_index_entry gone = index_entry("HASH", 0, "index-gone", NULL, rb);
    cr_assert_eq(sc_changes_delete_index(c, &live_e), 0);
    cr_assert_eq(sc_conflict_check_index(t, &live, c), 0, "%s", sc_error_message());
    cr_assert_eq(sc_changes_delete_index(c, &gone), 0);
    cr_assert_eq(sc_conflict_check_index(t, &live, c), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "index file index-gone (HASH, partition \"\", bucket 0) is deleted by this commit but is not live"),
              "%s", sc_error_message());
    sc_changes_free(c);
    sc_index_vec_free(&live);
    sc_table_free(t);
}

Test(conflict, a_deletion_vector_of_a_data_file_not_live_after_the_commit_fails) {
    sc_table *t = tu_schema_table("c-index-dv", INT_PK);
    COMMITS(NULL, t, "w", 1, SC_KIND_APPEND, 0, entry("", 0, 2, 0, "data-1", "1", "1"), "");
    sc_snapshot latest;
    cr_assert_eq(sc_table_read_snapshot(&latest, NULL, t, 1), 0);
    sc_dv_range r[2];
    static const char *const live_file[] = {"data-1", NULL}, *const new_file[] = {"data-2", NULL};
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    sc_index_entry ok = index_entry("DELETION_VECTORS", 0, "index-1", live_file, r);
    cr_assert_eq(sc_changes_add_index(c, &ok), 0);
    cr_assert_eq(sc_conflict_check_dv_targets(t, &latest, c), 0, "%s", sc_error_message());
    /* The same data file deleted by the commit itself: not live after it. */
    char json[512];
    snprintf(json, sizeof json, "{\"delete\":[%s]}", entry("", 0, 2, 0, "data-1", "1", "1"));
    sc_changes *parsed = NULL;
    cr_assert_eq(sc_table_parse_changes(&parsed, t, json, strlen(json)), 0, "%s", sc_error_message());
    cr_assert_eq(sc_changes_add_index(parsed, &ok), 0);
    cr_assert_eq(sc_conflict_check_dv_targets(t, &latest, parsed), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "data file data-1, which is not live"), "%s", sc_error_message());
    /* A data file never added (nor by this commit). */
    sc_changes *c2;
    cr_assert_eq(sc_changes_new(&c2), 0);
    sc_dv_range r2[2];
    sc_index_entry bad = index_entry("DELETION_VECTORS", 0, "index-2", new_file, r2);
    cr_assert_eq(sc_changes_add_index(c2, &bad), 0);
    cr_assert_eq(sc_conflict_check_dv_targets(t, &latest, c2), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "data-2"), "%s", sc_error_message());
    sc_changes_free(c);
    sc_changes_free(c2);
    sc_changes_free(parsed);
    sc_snapshot_clear(&latest);
    sc_table_free(t);
}

#define UNAWARE_TABLE                                                                                      \
    "{\"fields\":[{\"name\":\"v\",\"type\":\"BIGINT\"}],\"partitionKeys\":[],\"primaryKeys\":[],"           \
    "\"options\":{\"bucket\":\"-1\"}}"

Test(conflict, a_second_deletion_vector_for_one_data_file_fails_on_a_bucket_unaware_table) {
    sc_table *t = tu_schema_table("c-index-unaware", UNAWARE_TABLE);
    sc_dv_range r1[2], r2[2], r3[2];
    static const char *const f1[] = {"data-1", NULL};
    sc_index_vec live = {0};
    sc_index_entry held = index_entry("DELETION_VECTORS", 0, "index-1", f1, r1);
    cr_assert_eq(sc_index_vec_push(&live, SC_ENTRY_ADD, &held), 0);
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    sc_index_entry second = index_entry("DELETION_VECTORS", 0, "index-2", f1, r2);
    cr_assert_eq(sc_changes_add_index(c, &second), 0);
    cr_assert_eq(sc_conflict_check_index(t, &live, c), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "deletion vector of data file data-1, which live index file index-1"), "%s",
              sc_error_message());
    /* Replacing it (deleting index-1 in the same commit) is no conflict; re-adding its name is. */
    cr_assert_eq(sc_changes_delete_index(c, &held), 0);
    cr_assert_eq(sc_conflict_check_index(t, &live, c), 0, "%s", sc_error_message());
    sc_changes *again;
    cr_assert_eq(sc_changes_new(&again), 0);
    static const char *const f3[] = {"data-3", NULL};
    sc_index_entry same_name = index_entry("DELETION_VECTORS", 0, "index-1", f3, r3);
    cr_assert_eq(sc_changes_add_index(again, &same_name), 0);
    cr_assert_eq(sc_conflict_check_index(t, &live, again), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "a live index file has that name"), "%s", sc_error_message());
    sc_changes_free(c);
    sc_changes_free(again);
    sc_index_vec_free(&live);
    sc_table_free(t);
}
