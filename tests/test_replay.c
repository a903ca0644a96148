/*
 * The replay rule (replay.h): identifiers strictly increase per commit user;
 * an identifier <= the user's watermark is already committed. The check
 * before a commit, the filter, the watermark table of a new snapshot and its
 * eviction policy. (That a commit rejected as a replay writes nothing is the
 * commit engine's: test_commit.c.)
 */
#include "sc_test_util.h"

#include <inttypes.h>

#include "base/error_internal.h"
#include "engine/replay.h"
#include "engine/state.h"

/* A snapshot whose watermark table holds `n` users "user-00000".. (sorted by
 * name), user i with identifier i and last snapshot snap_base + i * snap_step. */
static void table_of(sc_snapshot *s, size_t n, int64_t snap_base, int64_t snap_step) {
    memset(s, 0, sizeof *s);
    s->watermarks = calloc(n ? n : 1, sizeof *s->watermarks);
    cr_assert_not_null(s->watermarks);
    for (size_t i = 0; i < n; i++) {
        char user[32];
        snprintf(user, sizeof user, "user-%05zu", i);
        s->watermarks[i].user = strdup(user);
        s->watermarks[i].identifier = (int64_t)i;
        s->watermarks[i].snapshot_id = (uint64_t)(snap_base + (int64_t)i * snap_step);
    }
    s->watermark_count = n;
}

/* ---- the rule ---- */

Test(replay, an_identifier_at_or_below_the_watermark_is_committed) {
    sc_watermark w = {"job", 5, 3};
    cr_assert_eq(sc_replay_committed(NULL, 0), 0, "a user without watermark has committed nothing");
    cr_assert_eq(sc_replay_committed(NULL, INT64_MAX), 0);
    cr_assert_eq(sc_replay_committed(&w, 0), 1);
    cr_assert_eq(sc_replay_committed(&w, 4), 1, "below the watermark: committed (identifiers only grow)");
    cr_assert_eq(sc_replay_committed(&w, 5), 1, "the watermark itself: a replay");
    cr_assert_eq(sc_replay_committed(&w, 6), 0);
    cr_assert_eq(sc_replay_committed(&w, INT64_MAX), 0);
}

Test(replay, the_watermark_is_looked_up_per_user_in_the_latest_snapshot) {
    sc_snapshot s;
    table_of(&s, 3, 1, 1);
    cr_assert_null(sc_replay_watermark(NULL, "user-00001"), "an empty table has no watermarks");
    cr_assert_eq(sc_replay_watermark(&s, "user-00001")->identifier, 1);
    cr_assert_null(sc_replay_watermark(&s, "user-0000"), "no prefix match");
    cr_assert_null(sc_replay_watermark(&s, "nobody"));
    sc_snapshot_clear(&s);
}

/* ---- the check before a commit ---- */

Test(replay, check_rejects_a_replay_and_names_its_snapshot) {
    sc_snapshot s = {0};
    cr_assert_eq(sc_replay_set_watermarks(&s, NULL, "job", 7, 3), 0);
    uint64_t existing = 99;
    cr_assert_eq(sc_replay_check(&existing, &s, "job", 7), SC_ECOMMITTED);
    cr_assert_eq(existing, 3, "a replay names the snapshot that committed it");
    cr_assert(strstr(sc_error_message(), "already committed identifier 7 (snapshot 3)"), "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "a replay"), "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "\"job\""), "%s", sc_error_message());
    existing = 99;
    cr_assert_eq(sc_replay_check(&existing, &s, "job", 3), SC_ECOMMITTED);
    cr_assert_eq(existing, 0, "below the watermark is committed, but not by a snapshot we can name");
    cr_assert(strstr(sc_error_message(), "not above the watermark"), "%s", sc_error_message());
    existing = 99;
    cr_assert_eq(sc_replay_check(&existing, &s, "job", 8), 0);
    cr_assert_eq(existing, 0);
    cr_assert_eq(sc_replay_check(&existing, &s, "other", 1), 0, "users are independent");
    cr_assert_eq(sc_replay_check(&existing, NULL, "job", 0), 0, "an empty table holds no commit");
    sc_snapshot_clear(&s);
}

/* ---- the filter ---- */

Test(replay, filter_keeps_uncommitted_identifiers_in_input_order) {
    sc_watermark w = {"job", 5, 2};
    int64_t ids[] = {9, 3, 6, 5, 7}, kept[5];
    cr_assert_eq(sc_replay_filter(kept, &w, ids, 5), 3);
    cr_assert_eq(kept[0], 9);
    cr_assert_eq(kept[1], 6);
    cr_assert_eq(kept[2], 7);
    cr_assert_eq(sc_replay_filter(kept, NULL, ids, 5), 5, "no watermark: nothing is committed");
    for (int i = 0; i < 5; i++) cr_assert_eq(kept[i], ids[i]);
    cr_assert_eq(sc_replay_filter(kept, &w, ids, 0), 0);
    /* In place, as the JNI layer and the simulation use it. */
    cr_assert_eq(sc_replay_filter(ids, &w, ids, 5), 3);
    cr_assert_eq(ids[0], 9);
    cr_assert_eq(ids[1], 6);
    cr_assert_eq(ids[2], 7);
}

/* ---- the table-level questions ---- */

Test(replay, filter_and_last_committed) {
    sc_table *t = tu_mem_table("c-filter");
    int64_t last;
    int found = 1;
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "job"), 0);
    cr_assert_eq(found, 0);
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/a", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "job", 5, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0);
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "job"), 0);
    cr_assert_eq(found, 1);
    cr_assert_eq(last, 5);
    int64_t ids[] = {3, 5, 6, 9}, kept[4];
    size_t n;
    cr_assert_eq(sc_table_filter_committed(kept, &n, t, "job", ids, 4), 0);
    cr_assert_eq(n, 2);
    cr_assert_eq(kept[0], 6);
    cr_assert_eq(kept[1], 9);
    cr_assert_eq(sc_table_filter_committed(kept, &n, t, "nobody", ids, 4), 0);
    cr_assert_eq(n, 4);
    sc_table_free(t);
}

Test(replay, filter_reads_do_not_grow_with_history) {
    sc_table *t = tu_mem_table("c-filter-cost");
    uint64_t reads_at[2];
    int round = 0;
    for (int i = 1; i <= 60; i++) {
        char name[32];
        snprintf(name, sizeof name, "data/f%d", i);
        sc_file_entry f = tu_file("p", 0, 0, 0, name, 1, NULL, NULL);
        cr_assert_eq(tu_commit(NULL, t, i % 2 ? "a" : "b", i, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0);
        if (i == 6 || i == 60) {
            sc_store_stats_reset(sc_table_store(t));
            int64_t ids[] = {1, 100}, kept[2];
            size_t n;
            cr_assert_eq(sc_table_filter_committed(kept, &n, t, "a", ids, 2), 0);
            sc_store_stats s;
            sc_store_stats_get(&s, sc_table_store(t));
            reads_at[round++] = s.ops[SC_OP_GET] + s.ops[SC_OP_HEAD] + s.ops[SC_OP_LIST];
        }
    }
    cr_assert_eq(reads_at[0], reads_at[1], "filtering cost %lu reads at 6 snapshots but %lu at 60",
                 (unsigned long)reads_at[0], (unsigned long)reads_at[1]);
    cr_assert_leq(reads_at[1], 4);
    sc_table_free(t);
}

Test(replay, table_level_questions_need_a_user_and_work_on_an_empty_table) {
    sc_table *t = tu_mem_table("r-empty");
    int64_t last = 42, ids[] = {1, 2}, kept[2];
    int found = 1;
    size_t n = 9;
    cr_assert_eq(sc_table_last_committed(&last, &found, t, ""), SC_EINVAL);
    cr_assert_eq(found, 0, "no answer is never \"found\"");
    cr_assert_eq(sc_table_filter_committed(kept, &n, t, "", ids, 2), SC_EINVAL);
    cr_assert_eq(sc_table_filter_committed(kept, &n, t, NULL, ids, 2), SC_EINVAL);
    cr_assert_eq(sc_table_filter_committed(kept, &n, t, "job", ids, 2), 0);
    cr_assert_eq(n, 2, "a table without snapshots has committed nothing");
    cr_assert_eq(kept[0], 1);
    cr_assert_eq(kept[1], 2);
    sc_table_free(t);
}

/* ---- the watermark table of a new snapshot ---- */

Test(replay, watermark_update_sets_the_user_and_copies_the_others) {
    sc_snapshot prev = {0}, next = {0};
    cr_assert_eq(sc_replay_set_watermarks(&prev, NULL, "b", 1, 1), 0);
    cr_assert_eq(prev.watermark_count, 1, "the first snapshot holds only its committer");
    sc_snapshot tmp = {0};
    cr_assert_eq(sc_replay_set_watermarks(&tmp, &prev, "c", 2, 2), 0);
    sc_snapshot_clear(&prev);
    prev = tmp;
    cr_assert_eq(sc_replay_set_watermarks(&next, &prev, "a", 3, 3), 0);
    cr_assert_eq(next.watermark_count, 3);
    cr_assert_str_eq(next.watermarks[0].user, "a", "sorted by user, whatever the commit order");
    cr_assert_str_eq(next.watermarks[1].user, "b");
    cr_assert_str_eq(next.watermarks[2].user, "c");
    /* The user's own entry is replaced, not added twice; setting again frees the old table. */
    cr_assert_eq(sc_replay_set_watermarks(&next, &prev, "b", 9, 4), 0);
    cr_assert_eq(next.watermark_count, 2);
    cr_assert_eq(sc_replay_watermark(&next, "b")->identifier, 9);
    cr_assert_eq(sc_replay_watermark(&next, "b")->snapshot_id, 4);
    cr_assert_eq(sc_replay_watermark(&next, "c")->identifier, 2, "other users keep their watermark");
    /* next owns its strings: it outlives prev. */
    sc_snapshot_clear(&prev);
    cr_assert_str_eq(next.watermarks[1].user, "c");
    sc_snapshot_clear(&next);
}

/* ---- eviction (the policy lives in replay.c, not in the codec) ---- */

Test(replay, watermark_table_is_bounded) {
    sc_snapshot s = {0}, next = {0};
    for (int i = 0; i < SC_WATERMARK_MAX_USERS + 10; i++) {
        char user[16];
        snprintf(user, sizeof user, "user-%05d", i);
        cr_assert_eq(sc_replay_set_watermarks(&next, &s, user, i, (uint64_t)i + 1), 0);
        for (size_t k = 0; k < s.watermark_count; k++) free(s.watermarks[k].user);
        free(s.watermarks);
        s.watermarks = next.watermarks;
        s.watermark_count = next.watermark_count;
        next.watermarks = NULL;
        next.watermark_count = 0;
    }
    cr_assert_eq(s.watermark_count, SC_WATERMARK_MAX_USERS);
    cr_assert_null(sc_snapshot_watermark(&s, "user-00000"), "the least recently committed user goes first");
    cr_assert_not_null(sc_snapshot_watermark(&s, "user-01033"));
    for (size_t k = 1; k < s.watermark_count; k++)
        cr_assert_lt(strcmp(s.watermarks[k - 1].user, s.watermarks[k].user), 0);
    for (size_t k = 0; k < s.watermark_count; k++) free(s.watermarks[k].user);
    free(s.watermarks);
}

Test(replay, eviction_forgets_the_oldest_commit_not_the_first_name) {
    sc_snapshot prev, next = {0};
    /* user-00000 committed last, user-01023 first. */
    table_of(&prev, SC_WATERMARK_MAX_USERS, SC_WATERMARK_MAX_USERS + 1, -1);
    cr_assert_eq(sc_replay_set_watermarks(&next, &prev, "new", 1, SC_WATERMARK_MAX_USERS + 2), 0);
    cr_assert_eq(next.watermark_count, SC_WATERMARK_MAX_USERS);
    cr_assert_null(sc_replay_watermark(&next, "user-01023"), "its last commit is the oldest");
    cr_assert_not_null(sc_replay_watermark(&next, "user-00000"));
    cr_assert_not_null(sc_replay_watermark(&next, "user-01022"));
    cr_assert_not_null(sc_replay_watermark(&next, "new"));
    sc_snapshot_clear(&prev);
    sc_snapshot_clear(&next);
}

Test(replay, a_known_user_at_capacity_evicts_nobody) {
    sc_snapshot prev, next = {0};
    table_of(&prev, SC_WATERMARK_MAX_USERS, 1, 1);
    cr_assert_eq(sc_replay_set_watermarks(&next, &prev, "user-00500", 5000, SC_WATERMARK_MAX_USERS + 1), 0);
    cr_assert_eq(next.watermark_count, SC_WATERMARK_MAX_USERS);
    for (size_t i = 0; i < prev.watermark_count; i++)
        cr_assert_not_null(sc_replay_watermark(&next, prev.watermarks[i].user), "%s was forgotten", prev.watermarks[i].user);
    cr_assert_eq(sc_replay_watermark(&next, "user-00500")->identifier, 5000);
    sc_snapshot_clear(&prev);
    sc_snapshot_clear(&next);
}

Test(replay, the_committing_user_is_never_the_one_evicted) {
    sc_snapshot prev, next = {0};
    table_of(&prev, SC_WATERMARK_MAX_USERS, 100, 1);
    /* Even with a snapshot id older than everyone's, room is made before it goes in. */
    cr_assert_eq(sc_replay_set_watermarks(&next, &prev, "late", 1, 50), 0);
    cr_assert_eq(next.watermark_count, SC_WATERMARK_MAX_USERS);
    cr_assert_not_null(sc_replay_watermark(&next, "late"));
    cr_assert_null(sc_replay_watermark(&next, "user-00000"));
    sc_snapshot_clear(&prev);
    sc_snapshot_clear(&next);
}

Test(replay, the_codec_never_evicts) {
    /* A table above the bound is refused by the codec, not trimmed behind the policy's back. */
    sc_snapshot s;
    table_of(&s, SC_WATERMARK_MAX_USERS + 1, 1, 1);
    s.id = SC_WATERMARK_MAX_USERS + 1;
    strcpy(s.table_uuid, "0b7e8c1e-4d4e-4a9a-8f0e-2b7d52a2f0a1");
    strcpy(s.commit_uuid, "9f1c3a77-52c1-4e0f-bb0e-6b7f9e6d3c55");
    s.commit_user = strdup("user-00000");
    s.has_parent = 1;
    s.base_manifest_list.name = strdup("manifest-list-a-0");
    s.delta_manifest_list.name = strdup("manifest-list-b-0");
    sc_buf b = SC_BUF_INIT;
    cr_assert_neq(sc_snapshot_encode(&b, &s), 0, "%zu watermarks encoded", s.watermark_count);
    cr_assert_eq(s.watermark_count, SC_WATERMARK_MAX_USERS + 1, "the codec left the table as given");
    sc_buf_free(&b);
    /* At the bound it round-trips whole. */
    free(s.watermarks[SC_WATERMARK_MAX_USERS].user);
    s.watermark_count = SC_WATERMARK_MAX_USERS;
    cr_assert_eq(sc_snapshot_encode(&b, &s), 0, "%s", sc_error_message());
    sc_snapshot d;
    cr_assert_eq(sc_snapshot_decode(&d, b.data, b.len, "snap"), 0, "%s", sc_error_message());
    cr_assert_eq(d.watermark_count, SC_WATERMARK_MAX_USERS);
    sc_snapshot_clear(&d);
    sc_buf_free(&b);
    sc_snapshot_clear(&s);
}

/*
 * A snapshot Paimon's own committer wrote on top of ours (no snapcommit
 * properties, no watermark table): its (commitUser, commitIdentifier) counts
 * as committed, our users' watermarks survive it, and our next snapshot
 * carries both. Paimon's batch identifier (Long.MAX_VALUE) is no watermark.
 */
static void put_paimon_snapshot(sc_table *t, uint64_t id, const char *user, int64_t ident, const sc_snapshot *below) {
    char key[64], doc[1024];
    sc_snapshot_key(key, id);
    int n = snprintf(doc, sizeof doc,
                     "{\n  \"version\" : 3,\n  \"id\" : %" PRIu64 ",\n  \"schemaId\" : 0,\n"
                     "  \"baseManifestList\" : \"%s\",\n  \"deltaManifestList\" : \"%s\",\n"
                     "  \"commitUser\" : \"%s\",\n  \"commitIdentifier\" : %" PRId64 ",\n  \"commitKind\" : \"APPEND\",\n"
                     "  \"timeMillis\" : 1796090098758,\n  \"totalRecordCount\" : %" PRId64 ",\n  \"deltaRecordCount\" : 0,\n"
                     "  \"nextRowId\" : 0\n}",
                     /* Snapshot 1's base list is empty and its delta holds everything: as Paimon
                      * would, name that as the base and an empty list as the delta. */
                     id, below->delta_manifest_list.name, below->base_manifest_list.name, user, ident,
                     below->total_record_count);
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, (const uint8_t *)doc, (size_t)n), 0, "%s", sc_error_message());
}

Test(replay, paimon_written_snapshots_count_as_commits) {
    sc_table *t = tu_mem_table("c-foreign");
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/a", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "ours", 5, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0);
    sc_snapshot s1;
    cr_assert_eq(sc_table_read_snapshot(&s1, NULL, t, 1), 0);
    /* Paimon commits twice: a streaming commit (identifier 7), then a batch commit. */
    put_paimon_snapshot(t, 2, "paimon-job", 7, &s1);
    put_paimon_snapshot(t, 3, "paimon-batch", INT64_MAX, &s1);
    sc_snapshot_clear(&s1);
    int64_t last;
    int found;
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "paimon-job"), 0, "%s", sc_error_message());
    cr_assert(found);
    cr_assert_eq(last, 7);
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "ours"), 0);
    cr_assert(found);
    cr_assert_eq(last, 5);
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "paimon-batch"), 0);
    cr_assert_not(found, "a batch commit's identifier is not a checkpoint watermark");
    /* A replay of Paimon's commit under its user is filtered; ours goes on top. */
    sc_file_entry g = tu_file("p", 0, 0, 0, "data/b", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "paimon-job", 7, SC_KIND_APPEND, 0, &g, 1, NULL, 0), SC_ECOMMITTED);
    sc_commit_result r;
    cr_assert_eq(tu_commit(&r, t, "ours", 6, SC_KIND_APPEND, 0, &g, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.snapshot_id, 4);
    sc_snapshot s4;
    cr_assert_eq(sc_table_read_snapshot(&s4, NULL, t, 4), 0);
    cr_assert_not(s4.foreign);
    cr_assert_eq(s4.file_count, 2, "the file count is derived across Paimon's snapshot");
    cr_assert_eq(sc_snapshot_watermark(&s4, "paimon-job")->identifier, 7);
    cr_assert_eq(sc_snapshot_watermark(&s4, "ours")->identifier, 6);
    sc_snapshot_clear(&s4);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}
