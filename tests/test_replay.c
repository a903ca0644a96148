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
#include "format/watermark_archive.h"
#include "strategy/strategy.h"
#include "snapcommit/upkeep.h"

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

/* The user's watermark identifier on top of `s` (no archive: no table needed), or -1. */
static int64_t inline_ident(const sc_snapshot *s, const char *user) {
    sc_watermark w;
    int found;
    cr_assert_eq(sc_replay_lookup(&w, &found, NULL, s, user), 0, "%s", sc_error_message());
    return found ? w.identifier : -1;
}

Test(replay, the_watermark_is_looked_up_per_user_in_the_latest_snapshot) {
    sc_snapshot s;
    table_of(&s, 3, 1, 1);
    sc_watermark w;
    int found = 1;
    cr_assert_eq(sc_replay_lookup(&w, &found, NULL, NULL, "user-00001"), 0);
    cr_assert_eq(found, 0, "an empty table has no watermarks");
    cr_assert_eq(inline_ident(&s, "user-00001"), 1);
    cr_assert_eq(inline_ident(&s, "user-0000"), -1, "no prefix match");
    cr_assert_eq(inline_ident(&s, "nobody"), -1);
    sc_snapshot_clear(&s);
}

/* ---- the check before a commit ---- */

Test(replay, check_rejects_a_replay_and_names_its_snapshot) {
    sc_snapshot s = {0};
    cr_assert_eq(sc_replay_next_watermarks(&s, NULL, NULL, "job", 7, 3), 0);
    uint64_t existing = 99;
    cr_assert_eq(sc_replay_check(&existing, NULL, &s, "job", 7), SC_ECOMMITTED);
    cr_assert_eq(existing, 3, "a replay names the snapshot that committed it");
    cr_assert(strstr(sc_error_message(), "already committed identifier 7 (snapshot 3)"), "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "a replay"), "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "\"job\""), "%s", sc_error_message());
    existing = 99;
    cr_assert_eq(sc_replay_check(&existing, NULL, &s, "job", 3), SC_ECOMMITTED);
    cr_assert_eq(existing, 0, "below the watermark is committed, but not by a snapshot we can name");
    cr_assert(strstr(sc_error_message(), "not above the watermark"), "%s", sc_error_message());
    existing = 99;
    cr_assert_eq(sc_replay_check(&existing, NULL, &s, "job", 8), 0);
    cr_assert_eq(existing, 0);
    cr_assert_eq(sc_replay_check(&existing, NULL, &s, "other", 1), 0, "users are independent");
    cr_assert_eq(sc_replay_check(&existing, NULL, NULL, "job", 0), 0, "an empty table holds no commit");
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

/* ---- the watermarks of a new snapshot ---- */

Test(replay, watermark_update_sets_the_user_and_copies_the_others) {
    sc_snapshot prev = {0}, next = {0};
    cr_assert_eq(sc_replay_next_watermarks(&prev, NULL, NULL, "b", 1, 1), 0);
    cr_assert_eq(prev.watermark_count, 1, "the first snapshot holds only its committer");
    sc_snapshot tmp = {0};
    cr_assert_eq(sc_replay_next_watermarks(&tmp, NULL, &prev, "c", 2, 2), 0);
    sc_snapshot_clear(&prev);
    prev = tmp;
    cr_assert_eq(sc_replay_next_watermarks(&next, NULL, &prev, "a", 3, 3), 0);
    cr_assert_eq(next.watermark_count, 3);
    cr_assert_str_eq(next.watermarks[0].user, "a", "sorted by user, whatever the commit order");
    cr_assert_str_eq(next.watermarks[1].user, "b");
    cr_assert_str_eq(next.watermarks[2].user, "c");
    /* The user's own entry is replaced, not added twice; setting again frees the old table. */
    cr_assert_eq(sc_replay_next_watermarks(&next, NULL, &prev, "b", 9, 4), 0);
    cr_assert_eq(next.watermark_count, 2);
    cr_assert_eq(inline_ident(&next, "b"), 9);
    cr_assert_eq(sc_snapshot_watermark(&next, "b")->snapshot_id, 4);
    cr_assert_eq(inline_ident(&next, "c"), 2, "other users keep their watermark");
    cr_assert_null(next.watermark_archive.name, "nothing archived below the inline bound");
    /* next owns its strings: it outlives prev. */
    sc_snapshot_clear(&prev);
    cr_assert_str_eq(next.watermarks[1].user, "c");
    sc_snapshot_clear(&next);
}

/* ---- the inline bound and the archive (the policy lives in replay.c, not in the codecs) ---- */

/* How many objects lie under metadata/watermarks/. */
static size_t archive_objects(sc_table *t) {
    sc_list_page page;
    cr_assert_eq(sc_store_list_all(sc_table_store(t), &page, SC_WATERMARK_ARCHIVE_DIR), 0, "%s", sc_error_message());
    size_t n = page.count;
    sc_list_page_free(&page);
    return n;
}

/* Advance `s` by one commit of (user, ident) as snapshot s->id + 1, through the table's store. */
static void step(sc_table *t, sc_snapshot *s, const char *user, int64_t ident) {
    sc_snapshot next = {0};
    next.id = s->id + 1;
    cr_assert_eq(sc_replay_next_watermarks(&next, t, s->id ? s : NULL, user, ident, next.id), 0, "%s", sc_error_message());
    sc_snapshot_clear(s);
    *s = next;
}

Test(replay, inline_table_is_bounded_and_nobody_is_forgotten) {
    sc_table *t = tu_mem_table("r-bounded");
    sc_snapshot s = {0};
    enum { USERS = 2000 };
    for (int i = 0; i < USERS; i++) {
        char user[16];
        snprintf(user, sizeof user, "user-%05d", i);
        step(t, &s, user, 1000 + i);
        cr_assert_leq(s.watermark_count, SC_WATERMARK_INLINE_USERS);
    }
    cr_assert_not_null(s.watermark_archive.name);
    /* Rewritten once per INLINE/2 users gone quiet, not per commit. */
    size_t writes = archive_objects(t);
    cr_assert_geq(writes, (USERS - SC_WATERMARK_INLINE_USERS) / (SC_WATERMARK_INLINE_USERS / 2));
    cr_assert_leq(writes, (USERS - SC_WATERMARK_INLINE_USERS) / (SC_WATERMARK_INLINE_USERS / 2) + 1);
    for (size_t k = 1; k < s.watermark_count; k++) cr_assert_lt(strcmp(s.watermarks[k - 1].user, s.watermarks[k].user), 0);
    /* Every user, inline or archived, with its identifier and snapshot (through a fresh
     * handle, so the archive is read from the store, not the writer's cache). */
    sc_table *fresh = tu_reopen("r-bounded");
    for (int i = 0; i < USERS; i++) {
        char user[16];
        snprintf(user, sizeof user, "user-%05d", i);
        sc_watermark w;
        int found = 0;
        cr_assert_eq(sc_replay_lookup(&w, &found, fresh, &s, user), 0, "%s", sc_error_message());
        cr_assert(found, "%s was forgotten", user);
        cr_assert_eq(w.identifier, 1000 + i);
        cr_assert_eq(w.snapshot_id, (uint64_t)i + 1);
    }
    /* The first users are archived, the last ones inline. */
    cr_assert_null(sc_snapshot_watermark(&s, "user-00000"));
    cr_assert_not_null(sc_snapshot_watermark(&s, "user-01999"));
    char keys[SC_REPLAY_MAX_OBJECTS][SC_WATERMARK_ARCHIVE_KEY_MAX];
    cr_assert_eq(sc_replay_snapshot_objects(keys, SC_REPLAY_MAX_OBJECTS, &s), 1);
    cr_assert(strncmp(keys[0], "metadata/watermarks/watermarks-", 31) == 0, "%s", keys[0]);
    cr_assert_eq(strlen(keys[0]), 31 + 64);
    sc_table_free(fresh);
    sc_snapshot_clear(&s);
    sc_table_free(t);
}

Test(replay, moving_out_keeps_the_most_recent_and_the_committer) {
    sc_table *t = tu_mem_table("r-recent");
    sc_snapshot prev, next = {0};
    /* user-00000 committed last, user-00255 first: recency, not name, decides. */
    table_of(&prev, SC_WATERMARK_INLINE_USERS, SC_WATERMARK_INLINE_USERS + 1, -1);
    prev.id = SC_WATERMARK_INLINE_USERS + 1;
    cr_assert_eq(sc_replay_next_watermarks(&next, t, &prev, "new", 1, prev.id + 1), 0, "%s", sc_error_message());
    next.id = prev.id + 1;
    cr_assert_eq(next.watermark_count, SC_WATERMARK_INLINE_USERS / 2);
    cr_assert_not_null(sc_snapshot_watermark(&next, "new"));
    cr_assert_not_null(sc_snapshot_watermark(&next, "user-00000"));
    cr_assert_null(sc_snapshot_watermark(&next, "user-00255"), "its last commit is the oldest");
    sc_watermark w;
    int found;
    cr_assert_eq(sc_replay_lookup(&w, &found, t, &next, "user-00255"), 0, "%s", sc_error_message());
    cr_assert(found, "moved to the archive, not forgotten");
    cr_assert_eq(w.identifier, 255);
    sc_snapshot_clear(&prev);
    sc_snapshot_clear(&next);
    sc_table_free(t);
}

Test(replay, a_known_user_at_the_bound_moves_nobody) {
    sc_table *t = tu_mem_table("r-known");
    sc_snapshot prev, next = {0};
    table_of(&prev, SC_WATERMARK_INLINE_USERS, 1, 1);
    prev.id = SC_WATERMARK_INLINE_USERS;
    cr_assert_eq(sc_replay_next_watermarks(&next, t, &prev, "user-00100", 5000, prev.id + 1), 0);
    cr_assert_eq(next.watermark_count, SC_WATERMARK_INLINE_USERS);
    cr_assert_null(next.watermark_archive.name);
    cr_assert_eq(archive_objects(t), 0, "no archive written");
    cr_assert_eq(inline_ident(&next, "user-00100"), 5000);
    sc_snapshot_clear(&prev);
    sc_snapshot_clear(&next);
    sc_table_free(t);
}

Test(replay, a_full_table_from_before_the_archive_moves_out_whole) {
    /* Snapshots written before the archive existed hold up to 1,024 users inline. */
    sc_table *t = tu_mem_table("r-legacy");
    sc_snapshot prev, next = {0};
    table_of(&prev, SC_WATERMARK_MAX_USERS, 1, 1);
    prev.id = SC_WATERMARK_MAX_USERS;
    cr_assert_eq(sc_replay_next_watermarks(&next, t, &prev, "new", 1, prev.id + 1), 0, "%s", sc_error_message());
    next.id = prev.id + 1;
    cr_assert_eq(next.watermark_count, SC_WATERMARK_INLINE_USERS / 2);
    for (size_t i = 0; i < prev.watermark_count; i++) {
        sc_watermark w;
        int found;
        cr_assert_eq(sc_replay_lookup(&w, &found, t, &next, prev.watermarks[i].user), 0, "%s", sc_error_message());
        cr_assert(found, "%s was forgotten", prev.watermarks[i].user);
        cr_assert_eq(w.identifier, prev.watermarks[i].identifier);
    }
    sc_snapshot_clear(&prev);
    sc_snapshot_clear(&next);
    sc_table_free(t);
}

Test(replay, an_archived_user_returning_goes_inline_and_the_archive_drops_it_on_rewrite) {
    sc_table *t = tu_mem_table("r-return");
    t->watermark_inline_users = 4; /* keep 2 inline after each move */
    sc_snapshot s = {0};
    step(t, &s, "a", 1);
    step(t, &s, "b", 1);
    step(t, &s, "c", 1);
    step(t, &s, "d", 1);
    step(t, &s, "e", 1); /* 5 > 4: a, b, c move out */
    cr_assert_eq(s.watermark_count, 2);
    cr_assert_null(sc_snapshot_watermark(&s, "a"));
    /* a returns: its check reads the archive, then it is inline again. */
    uint64_t existing = 0;
    cr_assert_eq(sc_replay_check(&existing, t, &s, "a", 1), SC_ECOMMITTED);
    cr_assert_eq(existing, 1);
    step(t, &s, "a", 2);
    cr_assert_eq(inline_ident(&s, "a"), 2);
    step(t, &s, "f", 1);
    step(t, &s, "g", 1); /* moves out again: a's newer watermark replaces its archived one */
    sc_watermark w;
    int found;
    cr_assert_eq(sc_replay_lookup(&w, &found, t, &s, "a"), 0, "%s", sc_error_message());
    cr_assert(found);
    cr_assert_eq(w.identifier, 2, "a watermark never goes down");
    cr_assert_eq(w.snapshot_id, 6);
    for (const char *const *u = (const char *const[]){"b", "c", "d", "e", "f", "g", NULL}; *u; u++) {
        cr_assert_eq(sc_replay_lookup(&w, &found, t, &s, *u), 0, "%s", sc_error_message());
        cr_assert(found, "%s was forgotten", *u);
    }
    sc_snapshot_clear(&s);
    sc_table_free(t);
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

/* ---- exactly-once however many users commit (issue: a watermark evicted after 1,024 others) ---- */

/* One APPEND of one new file by (user, ident); returns the library code. */
static int commit_new_file(sc_commit_result *r, sc_table *t, const char *user, int64_t ident) {
    char name[64];
    snprintf(name, sizeof name, "data/%s-%lld", user, (long long)ident);
    sc_file_entry f = tu_file("p", 0, 0, 0, name, 1, NULL, NULL);
    return tu_commit(r, t, user, ident, SC_KIND_APPEND, 0, &f, 1, NULL, 0);
}

/* U commits, then `others` other users commit once each: the table's state for the tests below. */
static sc_table *table_after_others(const char *name, int others) {
    sc_table *t = tu_mem_table(name);
    sc_commit_result r;
    cr_assert_eq(commit_new_file(&r, t, "U", 41), 0, "%s", sc_error_message());
    cr_assert_eq(r.snapshot_id, 1);
    for (int i = 0; i < others; i++) {
        char user[32];
        snprintf(user, sizeof user, "other-%04d", i);
        cr_assert_eq(commit_new_file(NULL, t, user, 1), 0, "%s: %s", user, sc_error_message());
    }
    return t;
}

Test(replay, a_replay_after_2000_other_users_is_still_filtered, .timeout = 120) {
    sc_table *t = table_after_others("r-2000", 2000);
    cr_assert_eq(tu_latest(t), 2001);
    /* Through a fresh handle too: nothing comes from the writer's cache. */
    sc_table *fresh = tu_reopen("r-2000");
    sc_table *handles[] = {t, fresh};
    for (int h = 0; h < 2; h++) {
        sc_commit_result r;
        cr_assert_eq(commit_new_file(&r, handles[h], "U", 41), SC_ECOMMITTED, "the replay committed twice");
        cr_assert_eq(r.existing_snapshot, 1, "names the snapshot holding U's commit");
        cr_assert_eq(commit_new_file(&r, handles[h], "U", 40), SC_ECOMMITTED, "below the watermark");
        int64_t last = 0;
        int found = 0;
        cr_assert_eq(sc_table_last_committed(&last, &found, handles[h], "U"), 0, "%s", sc_error_message());
        cr_assert(found);
        cr_assert_eq(last, 41);
        int64_t ids[] = {40, 41, 42}, kept[3];
        size_t n = 0;
        cr_assert_eq(sc_table_filter_committed(kept, &n, handles[h], "U", ids, 3), 0, "%s", sc_error_message());
        cr_assert_eq(n, 1);
        cr_assert_eq(kept[0], 42);
    }
    cr_assert_eq(tu_latest(t), 2001, "nothing was written by the replays");
    /* The latest snapshot stays small: the bound, not the users ever seen, sizes it. */
    sc_snapshot s;
    uint8_t *doc;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(t), &doc, &len, NULL, "snapshot/snapshot-2001"), 0);
    free(doc);
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, 2001), 0, "%s", sc_error_message());
    cr_assert_leq(s.watermark_count, SC_WATERMARK_INLINE_USERS);
    cr_assert_lt(len, 32u << 10, "snapshot 2001 is %zu bytes", len);
    cr_assert_not_null(s.watermark_archive.name);
    sc_snapshot_clear(&s);
    /* U's next identifier still commits, and fsck checks the archives. */
    sc_commit_result r;
    cr_assert_eq(commit_new_file(&r, t, "U", 42), 0, "%s", sc_error_message());
    cr_assert_eq(r.snapshot_id, 2002);
    cr_assert_eq(sc_table_fsck(fresh, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(fresh);
    sc_table_free(t);
}

/* The archive key the latest snapshot of the table names. */
static void latest_archive_key(char key[SC_WATERMARK_ARCHIVE_KEY_MAX], sc_table *t) {
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, tu_latest(t)), 0, "%s", sc_error_message());
    char keys[1][SC_WATERMARK_ARCHIVE_KEY_MAX];
    cr_assert_eq(sc_replay_snapshot_objects(keys, 1, &s), 1, "snapshot %" PRIu64 " has no archive", s.id);
    strcpy(key, keys[0]);
    sc_snapshot_clear(&s);
}

/* Every question about U on a fresh handle fails with `want`, its message naming `key`; nothing is written. */
static void u_fails_closed(const char *name, const char *key, int want, const char *what) {
    sc_table *t = tu_reopen(name);
    uint64_t before = tu_latest(t);
    int64_t last;
    int found = 0;
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "U"), want, "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), key), "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), what), "%s", sc_error_message());
    cr_assert_not(found, "never \"not committed\" on a broken archive");
    int64_t ids[] = {41};
    size_t n = 9;
    cr_assert_eq(sc_table_filter_committed(ids, &n, t, "U", ids, 1), want);
    cr_assert_eq(n, 9, "no answer");
    sc_commit_result r;
    cr_assert_eq(commit_new_file(&r, t, "U", 41), want, "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), before, "nothing committed");
    if (want == SC_ECORRUPT) {
        cr_assert_eq(sc_table_fsck(t, NULL, NULL), SC_ECORRUPT, "fsck must see it");
        cr_assert(strstr(sc_error_message(), key), "%s", sc_error_message());
    }
    /* A user that is inline needs no archive. */
    cr_assert_eq(commit_new_file(&r, t, "other-0299", 1), SC_ECOMMITTED, "%s", sc_error_message());
    sc_table_free(t);
}

Test(replay, a_missing_archive_fails_closed) {
    sc_table *t = table_after_others("r-missing", 300);
    char key[SC_WATERMARK_ARCHIVE_KEY_MAX];
    latest_archive_key(key, t);
    cr_assert_eq(sc_store_delete(sc_table_store(t), key), 0);
    u_fails_closed("r-missing", key, SC_ECORRUPT, "is missing");
    sc_table_free(t);
}

Test(replay, a_damaged_or_truncated_archive_fails_closed) {
    sc_table *t = table_after_others("r-damaged", 300);
    char key[SC_WATERMARK_ARCHIVE_KEY_MAX];
    latest_archive_key(key, t);
    uint8_t *data;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(t), &data, &len, NULL, key), 0);
    data[len / 2] ^= 0x01; /* one bit */
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, data, len), 0);
    u_fails_closed("r-damaged", key, SC_ECORRUPT, "do not hash to its name");
    data[len / 2] ^= 0x01;
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, data, len - 17), 0); /* the last entry cut off */
    u_fails_closed("r-damaged", key, SC_ECORRUPT, "truncated");
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, data, len), 0); /* repaired: answers again */
    sc_table *fresh = tu_reopen("r-damaged");
    cr_assert_eq(commit_new_file(NULL, fresh, "U", 41), SC_ECOMMITTED, "%s", sc_error_message());
    cr_assert_eq(sc_table_fsck(fresh, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(fresh);
    free(data);
    sc_table_free(t);
}

static int fail_archive_reads(void *ctx, sc_store_op op, const char *key, uint64_t call_index) {
    (void)ctx;
    (void)call_index;
    return op == SC_OP_GET && strncmp(key, SC_WATERMARK_ARCHIVE_DIR, strlen(SC_WATERMARK_ARCHIVE_DIR)) == 0 ? SC_EIO : 0;
}

Test(replay, an_unreadable_archive_is_the_store_error_never_not_committed) {
    sc_table *t = table_after_others("r-unreadable", 300);
    sc_table_free(t);
    t = tu_reopen("r-unreadable");
    sc_store_set_fault_hook(sc_table_store(t), fail_archive_reads, NULL);
    int64_t last;
    int found = 0;
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "U"), SC_EIO, "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "watermark archive"), "%s", sc_error_message());
    uint64_t before = tu_latest(t);
    cr_assert_eq(commit_new_file(NULL, t, "U", 41), SC_EIO, "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), before);
    sc_table_free(t);
}

Test(replay, a_paimon_snapshot_on_top_still_finds_the_archive) {
    sc_table *t = table_after_others("r-foreign-archive", 300);
    sc_snapshot below;
    uint64_t latest = tu_latest(t);
    cr_assert_eq(sc_table_read_snapshot(&below, NULL, t, latest), 0);
    put_paimon_snapshot(t, latest + 1, "paimon-job", 3, &below);
    put_paimon_snapshot(t, latest + 2, "U", 7, &below); /* Paimon's API does not filter: lower than 41 */
    sc_snapshot_clear(&below);
    sc_table *fresh = tu_reopen("r-foreign-archive");
    sc_commit_result r;
    cr_assert_eq(commit_new_file(&r, fresh, "U", 41), SC_ECOMMITTED, "%s", sc_error_message());
    cr_assert_eq(r.existing_snapshot, 1);
    int64_t last;
    int found;
    cr_assert_eq(sc_table_last_committed(&last, &found, fresh, "U"), 0, "%s", sc_error_message());
    cr_assert_eq(last, 41, "the archived watermark is not lowered by Paimon's commit");
    cr_assert_eq(commit_new_file(&r, fresh, "paimon-job", 3), SC_ECOMMITTED);
    cr_assert_eq(commit_new_file(&r, fresh, "other-0000", 2), 0, "%s", sc_error_message());
    cr_assert_eq(r.snapshot_id, latest + 3);
    cr_assert_eq(commit_new_file(&r, fresh, "U", 41), SC_ECOMMITTED, "and after ours on top again");
    /* (No fsck here: these hand-made Paimon snapshots name lists of an older state.) */
    sc_table_free(fresh);
    sc_table_free(t);
}

/* ---- the table format version that protects the archive ---- */

static int table_format(const char *name) {
    char loc[64];
    snprintf(loc, sizeof loc, "mem://%s", name);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, loc), 0);
    uint8_t *data = NULL;
    size_t len = 0;
    cr_assert_eq(sc_store_get_bounded(s, &data, &len, NULL, SC_TABLE_META_KEY, SC_TABLE_META_MAX_BYTES), 0, "%s",
                 sc_error_message());
    sc_table_meta m;
    cr_assert_eq(sc_table_meta_decode(&m, data, len), 0, "%s", sc_error_message());
    free(data);
    sc_store_free(s);
    return m.format_version;
}

/* Rewrite metadata/table.json as a build of format 2 created it. */
static void make_format_2(const char *name) {
    char loc[64];
    snprintf(loc, sizeof loc, "mem://%s", name);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, loc), 0);
    uint8_t *data = NULL;
    size_t len = 0;
    cr_assert_eq(sc_store_get_bounded(s, &data, &len, NULL, SC_TABLE_META_KEY, SC_TABLE_META_MAX_BYTES), 0);
    sc_table_meta m;
    cr_assert_eq(sc_table_meta_decode(&m, data, len), 0);
    free(data);
    m.format_version = 2;
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_table_meta_encode(&b, &m), 0);
    cr_assert_eq(sc_store_put(s, NULL, SC_TABLE_META_KEY, b.data, b.len), 0);
    sc_buf_free(&b);
    sc_store_free(s);
}

Test(replay, a_format_2_table_is_read_and_raised_to_3_before_its_first_archive) {
    sc_table *t = tu_mem_table("r-format");
    cr_assert_eq(table_format("r-format"), SC_FORMAT_VERSION, "new tables are created at the current format");
    sc_table_free(t);
    make_format_2("r-format");
    t = tu_reopen("r-format");
    t->watermark_inline_users = 2;
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, t, "a", 1), 0, "%s", sc_error_message());
    cr_assert_eq(tu_commit_one(&r, t, "b", 1), 0, "%s", sc_error_message());
    cr_assert_eq(table_format("r-format"), 2, "no archive yet: the table stays at 2");
    cr_assert_eq(tu_commit_one(&r, t, "c", 1), 0, "%s", sc_error_message()); /* 3 users > 2: an archive */
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, r.snapshot_id), 0);
    cr_assert_not_null(s.watermark_archive.name, "the third user made an archive");
    sc_snapshot_clear(&s);
    cr_assert_eq(table_format("r-format"), 3, "raised before the first snapshot naming an archive");
    /* Everyone is still filtered through a fresh handle of this build. */
    sc_table_free(t);
    t = tu_reopen("r-format");
    cr_assert_eq(tu_commit_one(&r, t, "a", 1), SC_ECOMMITTED);
    cr_assert_eq(tu_commit_one(&r, t, "c", 1), SC_ECOMMITTED);
    sc_table_free(t);
}

/* Before the reader's GET of `at`, another handle commits as "other" and expires down to `keep`. */
typedef struct expire_in_walk {
    const char *name, *at;
    int fired;
    uint64_t keep;
} expire_in_walk;

static int commit_and_expire_before(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    expire_in_walk *c = p;
    if (c->fired || op != SC_OP_GET || !key || strcmp(key, c->at) != 0) return 0;
    c->fired = 1;
    sc_table *o = tu_reopen(c->name);
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/o", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, o, "other", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_expire_options eo;
    sc_expire_options_init(&eo);
    eo.retain_min = 1;
    eo.retain_max = (int)c->keep;
    eo.older_than_ms = 0;
    cr_assert_eq(sc_table_expire(NULL, o, &eo), 0, "%s", sc_error_message());
    sc_table_free(o);
    return 0;
}

/*
 * Ours (5) at 1, Paimon's at 2 and 3. While a reader of latest 3 walks back over Paimon's
 * snapshots to ours, "other" commits 4 and an expiration keeps 3..4: the walk finds 2 gone.
 * That shows 3 is no longer the latest (expiration keeps the newest of ours below the latest it
 * saw): the reader reads the latest again, and never answers that "ours" never committed.
 */
Test(replay, a_walk_over_paimon_snapshots_cut_by_an_expiration_keeps_the_watermark) {
    const char *name = "r-walk-cut";
    sc_table *t = tu_mem_table(name);
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/a", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "ours", 5, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0);
    sc_snapshot s1;
    cr_assert_eq(sc_table_read_snapshot(&s1, NULL, t, 1), 0);
    put_paimon_snapshot(t, 2, "paimon-job", 7, &s1);
    put_paimon_snapshot(t, 3, "paimon-job", 8, &s1);
    sc_snapshot_clear(&s1);
    sc_table *r = tu_reopen(name);
    expire_in_walk c = {name, "snapshot/snapshot-2", 0, 2};
    sc_store_set_fault_hook(sc_table_store(r), commit_and_expire_before, &c);
    int64_t last = -1;
    int found = 0;
    int rc = sc_table_last_committed(&last, &found, r, "ours");
    sc_store_set_fault_hook(sc_table_store(r), NULL, NULL);
    cr_assert(c.fired, "the walk read snapshot 2");
    /* Read again from the new latest (4, other's, carrying every watermark of ours). */
    cr_assert(rc == 0 && found && last == 5, "rc %s, found %d, last %" PRId64 ": %s", sc_error_name(rc), found, last,
              sc_error_message());
    sc_table_free(r);
    sc_table_free(t);
}
