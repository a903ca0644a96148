/* What every snapshot we write names (its schema), and one Paimon checkpoint committed as
 * its append and compact snapshots (sc_table_commit_checkpoint). */
#include "sc_test_util.h"

#include "engine/state.h"
#include "format/table_schema.h"

/* schema/schema-<id> as a copy of the table's schema-0 with that id: what an ALTER TABLE leaves. */
static void add_schema(sc_table *t, int64_t id) {
    char key[64];
    sc_schema_key(key, 0);
    uint8_t *data;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(t), &data, &len, NULL, key), 0, "%s", sc_error_message());
    sc_table_schema s;
    cr_assert_eq(sc_schema_decode(&s, data, len, key), 0, "%s", sc_error_message());
    free(data);
    s.id = id;
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_schema_encode(&b, &s), 0);
    sc_schema_key(key, id);
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, b.data, b.len), 0, "%s", sc_error_message());
    sc_buf_free(&b);
    sc_schema_clear(&s);
}

static int64_t snapshot_schema(sc_table *t, uint64_t id) {
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, id), 0, "%s", sc_error_message());
    int64_t v = s.schema_id;
    sc_snapshot_clear(&s);
    return v;
}

Test(schema_id, every_snapshot_names_the_latest_schema) {
    sc_table *t = tu_mem_table("ck-schema");
    sc_commit_result r;
    sc_file_entry a = tu_file("dt=1", 0, 0, 0, "data/a", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, t, "job", 1, SC_KIND_APPEND, 0, &a, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(snapshot_schema(t, 1), 0);
    /* An ALTER TABLE while this handle lives: its next commit sees it. */
    add_schema(t, 1);
    sc_file_entry b = tu_file("dt=1", 0, 0, 0, "data/b", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, t, "job", 2, SC_KIND_APPEND, 0, &b, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(snapshot_schema(t, 2), 1);
    /* Two more before a fresh handle opens: its first commit names the highest. */
    add_schema(t, 2);
    add_schema(t, 3);
    sc_table *fresh = tu_reopen("ck-schema");
    sc_file_entry c = tu_file("dt=1", 0, 0, 0, "data/c", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, fresh, "job", 3, SC_KIND_APPEND, 0, &c, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(snapshot_schema(fresh, 3), 3);
    /* Several since the last look: the highest, not just the next. */
    add_schema(t, 4);
    add_schema(t, 5);
    sc_file_entry d = tu_file("dt=1", 0, 0, 0, "data/d", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, fresh, "job", 4, SC_KIND_APPEND, 0, &d, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(snapshot_schema(fresh, 4), 5);
    cr_assert_eq(sc_table_fsck(fresh, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(fresh);
    sc_table_free(t);
}

/* Paimon's row tracking (row-tracking.enabled, data-evolution tables): its commit assigns each new
 * file a first row id and carries the snapshot's nextRowId; a commit of ours would drop both and
 * Paimon's next commit hand out the same row ids again. Refused, nothing written. */
#define ROW_TRACKING                                                                                        \
    "{\"fields\":[{\"name\":\"v\",\"type\":\"BIGINT\"}],\"partitionKeys\":[],\"primaryKeys\":[],"         \
    "\"options\":{\"bucket\":\"-1\",\"row-tracking.enabled\":\"true\"}}"

Test(schema_id, a_row_tracking_table_is_refused) {
    sc_table *t = tu_schema_table("ck-row-tracking", ROW_TRACKING);
    sc_file_entry a = {.partition = {sc_empty_row, SC_EMPTY_ROW_LEN}, .total_buckets = -1, .file = "data-r1", .rows = 3, .size = 9};
    cr_assert_eq(tu_commit(NULL, t, "job", 1, SC_KIND_APPEND, 0, &a, 1, NULL, 0), SC_EUNSUPPORTED);
    cr_assert(strstr(sc_error_message(), "row-tracking.enabled"), "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 0, "nothing committed");
    sc_table_free(t);
}

/* ---- one checkpoint = its append part, then its compact part ---- */

static sc_changes *changes_of(const sc_file_entry *adds, size_t nadds, const sc_file_entry *dels, size_t ndels,
                              const sc_file_entry *logs, size_t nlogs) {
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    for (size_t i = 0; i < nadds; i++) cr_assert_eq(sc_changes_add(c, &adds[i]), 0, "%s", sc_error_message());
    for (size_t i = 0; i < ndels; i++) cr_assert_eq(sc_changes_delete(c, &dels[i]), 0, "%s", sc_error_message());
    for (size_t i = 0; i < nlogs; i++) cr_assert_eq(sc_changes_add_changelog(c, &logs[i]), 0, "%s", sc_error_message());
    return c;
}

static sc_snapshot read_snap(sc_table *t, uint64_t id) {
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, id), 0, "%s", sc_error_message());
    return s;
}

static int checkpoint(sc_checkpoint_result *r, sc_table *t, const char *user, int64_t ident, sc_changes *append,
                      sc_changes *compact, int has_wm, int64_t wm) {
    sc_checkpoint_request req = {user, ident, 0, has_wm, wm, append, compact, SC_OVERWRITE_NONE, NULL};
    return sc_table_commit_checkpoint(r, t, &req);
}

/* A table with data/l0-a and data/l0-b at level 0 (snapshot 1), for a checkpoint that compacts them. */
static sc_table *two_file_table(const char *name, sc_file_entry l0[2]) {
    sc_table *t = tu_mem_table(name);
    l0[0] = tu_file("dt=1", 0, 0, 0, "data/l0-a", 3, "a", "b");
    l0[1] = tu_file("dt=1", 0, 0, 0, "data/l0-b", 4, "c", "d");
    cr_assert_eq(tu_commit(NULL, t, "seed", 1, SC_KIND_APPEND, 0, l0, 2, NULL, 0), 0, "%s", sc_error_message());
    return t;
}

/* The common checkpoint: two_file_table, then an append part adding data/new and a compact part
 * merging data/l0-a and data/l0-b into data/l1 (level 1). */
typedef struct ck_fixture {
    sc_table *t;
    sc_file_entry l0[2];
    sc_changes *append, *compact;
} ck_fixture;

static sc_table *ck_fixture_open(ck_fixture *f, const char *name) {
    f->t = two_file_table(name, f->l0);
    sc_file_entry fresh = tu_file("dt=1", 0, 0, 0, "data/new", 5, "e", "e");
    sc_file_entry l1 = tu_file("dt=1", 0, 0, 1, "data/l1", 7, "a", "d");
    f->append = changes_of(&fresh, 1, NULL, 0, NULL, 0);
    f->compact = changes_of(&l1, 1, f->l0, 2, NULL, 0);
    return f->t;
}

static void ck_fixture_close(ck_fixture *f) {
    sc_changes_free(f->append);
    sc_changes_free(f->compact);
    sc_table_free(f->t);
}

Test(checkpoint, append_then_compact_are_two_snapshots_of_one_identifier) {
    ck_fixture f;
    sc_table *t = ck_fixture_open(&f, "ck-two");
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, t, "job", 7, f.append, f.compact, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.append.snapshot_id, 2);
    cr_assert_eq(r.append_kind, SC_KIND_APPEND);
    cr_assert_eq(r.compact.snapshot_id, 3);
    sc_snapshot a = read_snap(t, 2), c = read_snap(t, 3);
    cr_assert_eq(a.commit_kind, SC_KIND_APPEND);
    cr_assert_eq(c.commit_kind, SC_KIND_COMPACT);
    cr_assert_eq(a.commit_identifier, 7);
    cr_assert_eq(c.commit_identifier, 7);
    cr_assert_str_eq(a.commit_user, "job");
    cr_assert_str_eq(c.commit_user, "job");
    cr_assert_str_neq(a.commit_uuid, c.commit_uuid, "one commit UUID per part");
    cr_assert_eq(a.delta_record_count, 5);
    cr_assert_eq(a.total_record_count, 12);
    cr_assert_eq(c.delta_record_count, 0, "7 rows added, 3 + 4 deleted");
    cr_assert_eq(c.total_record_count, 12);
    cr_assert_null(a.changelog_manifest_list.name, "no changelog: no list");
    cr_assert_not(a.has_changelog_record_count);
    cr_assert_not(a.has_watermark);
    sc_snapshot_clear(&a);
    sc_snapshot_clear(&c);
    cr_assert_eq(tu_file_count(t), 2, "data/new and data/l1");
    /* The whole checkpoint again (a restarted job): nothing is written. */
    int before = tu_count_keys("ck-two", "", NULL);
    cr_assert_eq(checkpoint(&r, t, "job", 7, f.append, f.compact, 0, 0), SC_ECOMMITTED);
    cr_assert_eq(r.append.existing_snapshot, 3, "the user's watermark names the compact part");
    cr_assert_eq(tu_count_keys("ck-two", "", NULL), before, "a replay writes nothing");
    cr_assert_eq(tu_latest(t), 3);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    ck_fixture_close(&f);
}

Test(checkpoint, a_landed_append_part_filters_the_whole_checkpoint) {
    ck_fixture f;
    sc_table *t = ck_fixture_open(&f, "ck-filter");
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, t, "job", 7, f.append, NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.append.snapshot_id, 2);
    cr_assert_eq(r.compact.snapshot_id, 0, "an empty part writes nothing");
    /* The job died before its compact part; its replay is filtered whole, as Paimon's. */
    cr_assert_eq(checkpoint(&r, t, "job", 7, f.append, f.compact, 0, 0), SC_ECOMMITTED);
    cr_assert_eq(r.append.snapshot_id, 0);
    cr_assert_eq(r.compact.snapshot_id, 0);
    cr_assert_eq(tu_latest(t), 2);
    /* A checkpoint of only a compact part after the append landed in this call is not a replay;
     * one alone, on an identifier already committed, is. */
    cr_assert_eq(checkpoint(&r, t, "job", 7, NULL, f.compact, 0, 0), SC_ECOMMITTED);
    cr_assert_eq(checkpoint(&r, t, "job", 8, NULL, f.compact, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.compact.snapshot_id, 3);
    cr_assert_eq(checkpoint(&r, t, "job", 9, NULL, NULL, 0, 0), 0, "both parts empty: nothing to do");
    cr_assert_eq(tu_latest(t), 3);
    ck_fixture_close(&f);
}

Test(checkpoint, an_append_part_that_deletes_is_labelled_overwrite_but_replaces_nothing) {
    sc_table *t = tu_mem_table("ck-promote");
    sc_file_entry seed[2] = {tu_file("dt=1", 0, 0, 0, "data/x", 2, "a", "a"), tu_file("dt=1", 0, 0, 0, "data/y", 3, "b", "b")};
    cr_assert_eq(tu_commit(NULL, t, "seed", 1, SC_KIND_APPEND, 0, seed, 2, NULL, 0), 0, "%s", sc_error_message());
    sc_file_entry fresh = tu_file("dt=1", 0, 0, 0, "data/z", 1, "c", "c");
    sc_changes *append = changes_of(&fresh, 1, &seed[0], 1, NULL, 0);
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, t, "job", 1, append, NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.append_kind, SC_KIND_OVERWRITE);
    sc_snapshot s = read_snap(t, 2);
    cr_assert_eq(s.commit_kind, SC_KIND_OVERWRITE);
    cr_assert_eq(s.delta_record_count, -1);
    cr_assert_eq(s.total_record_count, 4);
    sc_snapshot_clear(&s);
    /* data/y, in the same partition, stays: an OVERWRITE of sc_table_commit would have dropped it. */
    cr_assert_eq(tu_file_count(t), 2);
    /* Without a delete (or deletion vectors), an APPEND. */
    sc_file_entry more = tu_file("dt=1", 0, 0, 0, "data/w", 1, "d", "d");
    sc_changes *plain = changes_of(&more, 1, NULL, 0, NULL, 0);
    cr_assert_eq(checkpoint(&r, t, "job", 2, plain, NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.append_kind, SC_KIND_APPEND);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(append);
    sc_changes_free(plain);
    sc_table_free(t);
}

Test(checkpoint, changelog_files_get_their_own_manifest_list_and_count) {
    sc_file_entry l0[2];
    sc_table *t = two_file_table("ck-log", l0);
    sc_file_entry fresh = tu_file("dt=1", 0, 0, 0, "data/new", 5, "e", "e");
    sc_file_entry logs[2] = {tu_file("dt=1", 0, 0, 0, "changelog-1", 6, "e", "e"),
                             tu_file("dt=1", 0, 0, 0, "changelog-2", 2, "e", "e")};
    sc_file_entry l1 = tu_file("dt=1", 0, 0, 1, "data/l1", 7, "a", "d");
    sc_file_entry clog = tu_file("dt=1", 0, 0, 0, "changelog-3", 9, "a", "d");
    sc_changes *append = changes_of(&fresh, 1, NULL, 0, logs, 2);
    sc_changes *compact = changes_of(&l1, 1, l0, 2, &clog, 1);
    sc_checkpoint_result r;
    int lists = tu_count_keys("ck-log", "manifest/manifest-list-", NULL);
    cr_assert_eq(checkpoint(&r, t, "job", 1, append, compact, 0, 0), 0, "%s", sc_error_message());
    /* Per part: delta list, base list, changelog list. */
    cr_assert_eq(tu_count_keys("ck-log", "manifest/manifest-list-", NULL), lists + 6);
    sc_snapshot a = read_snap(t, 2), c = read_snap(t, 3);
    cr_assert_not_null(a.changelog_manifest_list.name);
    cr_assert(a.has_changelog_record_count);
    cr_assert_eq(a.changelog_record_count, 8);
    cr_assert_eq(a.delta_record_count, 5, "changelog rows are not data rows");
    cr_assert_not_null(c.changelog_manifest_list.name);
    cr_assert_eq(c.changelog_record_count, 9);
    /* The list names one manifest of ADD records: the changelog files. */
    sc_manifest_file_vec metas = {0};
    cr_assert_eq(sc_state_load_list(&metas, t, &a.changelog_manifest_list), 0, "%s", sc_error_message());
    cr_assert_eq(metas.count, 1);
    sc_entry_vec recs = {0};
    cr_assert_eq(sc_state_load_manifest(&recs, t, &metas.items[0]), 0, "%s", sc_error_message());
    cr_assert_eq(recs.count, 2);
    cr_assert_eq(recs.items[0].kind, SC_ENTRY_ADD);
    cr_assert_str_eq(recs.items[0].file.file, "changelog-1");
    sc_entry_vec_free(&recs);
    sc_manifest_file_vec_free(&metas);
    sc_snapshot_clear(&a);
    sc_snapshot_clear(&c);
    cr_assert_eq(tu_file_count(t), 2, "changelog files are not data files");
    /* The next snapshot without changelog names none (a changelog is a snapshot's own). */
    sc_file_entry more = tu_file("dt=1", 0, 0, 0, "data/more", 1, "f", "f");
    cr_assert_eq(tu_commit(NULL, t, "job", 2, SC_KIND_APPEND, 0, &more, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_snapshot n = read_snap(t, 4);
    cr_assert_null(n.changelog_manifest_list.name);
    cr_assert_not(n.has_changelog_record_count);
    sc_snapshot_clear(&n);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(append);
    sc_changes_free(compact);
    sc_table_free(t);
}

Test(checkpoint, the_watermark_only_moves_forward) {
    sc_table *t = tu_mem_table("ck-wm");
    sc_checkpoint_result r;
    sc_file_entry f[4] = {tu_file("dt=1", 0, 0, 0, "data/1", 1, "a", "a"), tu_file("dt=1", 0, 0, 0, "data/2", 1, "b", "b"),
                          tu_file("dt=1", 0, 0, 0, "data/3", 1, "c", "c"), tu_file("dt=1", 0, 0, 0, "data/4", 1, "d", "d")};
    sc_changes *c[4];
    for (int i = 0; i < 4; i++) c[i] = changes_of(&f[i], 1, NULL, 0, NULL, 0);
    cr_assert_eq(checkpoint(&r, t, "job", 1, c[0], NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(checkpoint(&r, t, "job", 2, c[1], NULL, 1, 500), 0, "%s", sc_error_message());
    cr_assert_eq(checkpoint(&r, t, "job", 3, c[2], NULL, 1, 300), 0, "%s", sc_error_message());
    cr_assert_eq(checkpoint(&r, t, "job", 4, c[3], NULL, 0, 0), 0, "%s", sc_error_message());
    sc_snapshot s1 = read_snap(t, 1), s2 = read_snap(t, 2), s3 = read_snap(t, 3), s4 = read_snap(t, 4);
    cr_assert_not(s1.has_watermark, "neither has one: absent");
    cr_assert(s2.has_watermark);
    cr_assert_eq(s2.watermark, 500);
    cr_assert_eq(s3.watermark, 500, "max(previous, this checkpoint's)");
    cr_assert(s4.has_watermark);
    cr_assert_eq(s4.watermark, 500, "carried without one");
    sc_snapshot_clear(&s1);
    sc_snapshot_clear(&s2);
    sc_snapshot_clear(&s3);
    sc_snapshot_clear(&s4);
    for (int i = 0; i < 4; i++) sc_changes_free(c[i]);
    sc_table_free(t);
}

/* ---- lost claims and unknown outcomes of either part ---- */

typedef struct steal_ctx {
    const char *store_name;
    uint64_t steal_claim; /* steal the claim of this snapshot id (once) */
    int fired;
} steal_ctx;

/* Before our claim of steal_claim, another writer commits that id first. */
static int steal(void *vctx, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    steal_ctx *ctx = vctx;
    char want[64];
    snprintf(want, sizeof want, "snapshot/snapshot-%llu", (unsigned long long)ctx->steal_claim);
    if (op != SC_OP_PUT_IF_ABSENT || strcmp(key, want) != 0 || ctx->fired) return 0;
    ctx->fired = 1;
    sc_table *other = tu_reopen(ctx->store_name);
    sc_file_entry f = tu_file("dt=2", 0, 0, 0, "data/other", 1, "z", "z");
    cr_assert_eq(tu_commit(NULL, other, "other", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_table_free(other);
    return 0;
}

static void lost_claim_of_part(const char *name, uint64_t id) {
    ck_fixture f;
    sc_table *t = ck_fixture_open(&f, name);
    tu_fast_retries(t, 0, 2);
    steal_ctx ctx = {name, id, 0};
    sc_store_set_fault_hook(sc_table_store(t), steal, &ctx);
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, t, "job", 3, f.append, f.compact, 1, 42), 0, "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert(ctx.fired);
    cr_assert_eq(r.append.lost_claims + r.compact.lost_claims, 1);
    cr_assert_eq(id == 2 ? r.append.lost_claims : r.compact.lost_claims, 1);
    cr_assert_eq(r.append.snapshot_id, id == 2 ? 3 : 2);
    cr_assert_eq(r.compact.snapshot_id, 4);
    sc_snapshot c = read_snap(t, 4);
    cr_assert_eq(c.commit_kind, SC_KIND_COMPACT);
    cr_assert_eq(c.commit_identifier, 3);
    cr_assert_eq(c.watermark, 42);
    sc_snapshot_clear(&c);
    cr_assert_eq(tu_file_count(t), 3, "new, l1 and the other writer's");
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    ck_fixture_close(&f);
}

Test(checkpoint, a_lost_claim_of_the_append_part_is_retried) { lost_claim_of_part("ck-lost-a", 2); }
Test(checkpoint, a_lost_claim_of_the_compact_part_is_retried) { lost_claim_of_part("ck-lost-c", 3); }

Test(checkpoint, an_unknown_outcome_of_the_compact_claim_is_reconciled) {
    ck_fixture f;
    sc_table *t = ck_fixture_open(&f, "ck-unknown");
    /* The second claim from now (the compact part's) lands, and its answer is lost. */
    cr_assert_eq(sc_mem_store_arm_fault("ck-unknown", 1u << SC_OP_PUT_IF_ABSENT, 2, SC_MEM_FAULT_LOSE_RESPONSE, 0), 0);
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, t, "job", 3, f.append, f.compact, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.append.unknown_outcomes, 0);
    cr_assert_eq(r.compact.unknown_outcomes, 1);
    cr_assert_eq(r.compact.snapshot_id, 3);
    cr_assert_eq(tu_latest(t), 3, "the compact part must not be written twice");
    cr_assert_eq(tu_file_count(t), 2);
    ck_fixture_close(&f);
}

/* ---- the checkpoint JSON (docs/format.md §8) ---- */

#include "format/changes.h"

Test(checkpoint_json, parses_both_parts_sections_and_watermark) {
    sc_table *t = tu_mem_table("ck-json");
    const char *json =
        "{\"add\":[{\"partition\":\"part=a\",\"bucket\":0,\"level\":0,\"file\":\"data-1.parquet\",\"rows\":3,\"size\":9,"
        "\"minKey\":[\"k1\"],\"maxKey\":[\"k2\"],\"deleteRowCount\":1,\"fileSource\":\"APPEND\",\"creationTime\":1700000000000}],"
        " \"changelog\":[{\"partition\":\"part=a\",\"bucket\":0,\"level\":0,\"file\":\"changelog-1.parquet\",\"rows\":3,"
        "\"size\":9,\"minKey\":[\"k1\"],\"maxKey\":[\"k2\"]}],"
        " \"index\":{\"add\":[{\"partition\":\"part=a\",\"bucket\":0,\"type\":\"DELETION_VECTORS\",\"file\":\"index-u-0\","
        "\"size\":40,\"rows\":1,\"dv\":[{\"file\":\"data-0.parquet\",\"offset\":1,\"length\":22,\"cardinality\":3}]}],"
        "  \"delete\":[{\"partition\":\"part=a\",\"bucket\":0,\"type\":\"DELETION_VECTORS\",\"file\":\"index-t-0\",\"size\":30,"
        "\"rows\":1,\"externalPath\":\"s3://b/x\"}]},"
        " \"compact\":{\"add\":[{\"partition\":\"part=a\",\"bucket\":0,\"level\":1,\"file\":\"data-2.parquet\",\"rows\":3,"
        "\"size\":9,\"minKey\":[\"k1\"],\"maxKey\":[\"k2\"],\"fileSource\":\"COMPACT\"}],"
        "  \"delete\":[{\"partition\":\"part=a\",\"bucket\":0,\"level\":0,\"file\":\"data-0.parquet\",\"rows\":3,\"size\":9}],"
        "  \"index\":{\"delete\":[{\"partition\":\"part=a\",\"bucket\":0,\"type\":\"DELETION_VECTORS\",\"file\":\"index-u-0\","
        "\"size\":40,\"rows\":1}]}},"
        " \"watermark\":1234}";
    sc_changes *a, *c;
    int has_wm;
    int64_t wm;
    cr_assert_eq(sc_table_parse_checkpoint(&a, &c, &has_wm, &wm, t, json, strlen(json)), 0, "%s", sc_error_message());
    cr_assert(has_wm);
    cr_assert_eq(wm, 1234);
    cr_assert_eq(sc_changes_add_count(a), 1);
    cr_assert_eq(sc_changes_changelog_count(a), 1);
    cr_assert_eq(sc_changes_index_add_count(a), 1);
    cr_assert_eq(sc_changes_index_delete_count(a), 1);
    cr_assert_eq(sc_changes_add_count(c), 1);
    cr_assert_eq(sc_changes_delete_count(c), 1);
    cr_assert_eq(sc_changes_index_delete_count(c), 1);
    const sc_file_entry *f = &a->adds.items[0].file;
    cr_assert(f->has_delete_row_count && f->delete_row_count == 1);
    cr_assert(f->has_file_source && f->file_source == 0);
    cr_assert(f->has_creation_time && f->creation_time_millis == 1700000000000LL);
    cr_assert_eq(c->adds.items[0].file.file_source, 1);
    const sc_index_entry *ix = &a->index_adds.items[0].entry;
    cr_assert_str_eq(ix->index_type, "DELETION_VECTORS");
    cr_assert_str_eq(ix->file, "index-u-0");
    cr_assert_eq(ix->size, 40);
    cr_assert(ix->has_dv_ranges);
    cr_assert_eq(ix->dv_range_count, 1);
    cr_assert_str_eq(ix->dv_ranges[0].data_file, "data-0.parquet");
    cr_assert_eq(ix->dv_ranges[0].length, 22);
    cr_assert(ix->dv_ranges[0].has_cardinality && ix->dv_ranges[0].cardinality == 3);
    cr_assert_str_eq(a->index_deletes.items[0].entry.external_path, "s3://b/x");
    sc_changes_free(a);
    sc_changes_free(c);
    /* Neither part given: both empty, never NULL. */
    cr_assert_eq(sc_table_parse_checkpoint(&a, &c, &has_wm, &wm, t, "{}", 2), 0, "%s", sc_error_message());
    cr_assert(a && c);
    cr_assert_not(has_wm);
    sc_changes_free(a);
    sc_changes_free(c);
    sc_table_free(t);
}

Test(checkpoint_json, refuses_what_does_not_belong) {
    sc_table *t = tu_mem_table("ck-json-bad");
    static const struct {
        const char *json, *message;
    } bad[] = {
        {"{\"compact\":{\"compact\":{}}}", "unknown key \"compact\" in \"compact\""},
        {"{\"compact\":{\"watermark\":1}}", "unknown key \"watermark\" in \"compact\""},
        {"{\"index\":{\"changelog\":[]}}", "unknown key \"changelog\" in \"index\""},
        {"{\"watermark\":\"soon\"}", "\"watermark\" must be an integer"},
        {"{\"watermark\":1,\"watermark\":2}", "duplicate object key \"watermark\""},
        {"{\"index\":{\"add\":[{\"partition\":\"part=a\",\"bucket\":0,\"type\":\"HASH\",\"file\":\"i\",\"size\":1}]}}",
         "index.add[0].rows is required"},
        {"{\"compact\":{\"index\":{\"add\":[{\"partition\":\"part=a\",\"bucket\":0,\"type\":\"HASH\",\"file\":\"i\","
         "\"size\":1,\"rows\":1,\"dv\":[{\"file\":\"d\",\"offset\":-1,\"length\":1}]}]}}}",
         "compact.index.add[0].dv[0] needs \"offset\""},
        {"{\"add\":[{\"partition\":\"part=a\",\"bucket\":0,\"level\":0,\"file\":\"f\",\"rows\":1,\"size\":1,"
         "\"fileSource\":\"FLINK\"}]}",
         "add[0].fileSource must be"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sc_changes *a = (sc_changes *)1, *c = (sc_changes *)1;
        int has_wm = 7;
        int64_t wm = 7;
        cr_assert_eq(sc_table_parse_checkpoint(&a, &c, &has_wm, &wm, t, bad[i].json, strlen(bad[i].json)), SC_EINVAL,
                     "%s", bad[i].json);
        cr_assert(strstr(sc_error_message(), bad[i].message), "%s: %s", bad[i].json, sc_error_message());
        cr_assert_null(a);
        cr_assert_null(c);
    }
    /* sc_table_parse_changes reads changelog and index sections, but a checkpoint's own keys are refused there. */
    sc_changes *one;
    cr_assert_eq(sc_table_parse_changes(&one, t, "{\"watermark\":1}", 15), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "unknown key \"watermark\""), "%s", sc_error_message());
    const char *log = "{\"changelog\":[{\"partition\":\"part=a\",\"bucket\":0,\"level\":0,\"file\":\"c\",\"rows\":1,\"size\":1}]}";
    cr_assert_eq(sc_table_parse_changes(&one, t, log, strlen(log)), 0, "%s", sc_error_message());
    cr_assert_eq(sc_changes_changelog_count(one), 1);
    sc_changes_free(one);
    /* Entries of nested lists count against the entry limit before any is decoded. */
    size_t n = SC_CHANGES_MAX_ENTRIES + 1;
    char *big = malloc(n * 3 + 64);
    size_t at = (size_t)sprintf(big, "{\"compact\":{\"index\":{\"add\":[");
    for (size_t i = 0; i < n; i++) at += (size_t)sprintf(big + at, "%s{}", i ? "," : "");
    at += (size_t)sprintf(big + at, "]}}}");
    sc_changes *a, *c;
    cr_assert_eq(sc_table_parse_checkpoint(&a, &c, NULL, NULL, t, big, at), SC_ELIMIT, "%s", sc_error_message());
    free(big);
    sc_table_free(t);
}

/* ---- index files: carried by name, combined, replaced, checked ---- */

#include "engine/index_state.h"

static sc_index_entry dv_entry(const char *partition, int bucket, const char *file, const sc_dv_range *ranges, size_t n) {
    sc_index_entry e = {.partition = tu_string_row(partition), .bucket = bucket, .index_type = "DELETION_VECTORS",
                        .file = file, .size = 40, .rows = (int64_t)n, .has_dv_ranges = 1, .dv_ranges = ranges,
                        .dv_range_count = n};
    return e;
}

/* The live index files snapshot `id` names (its index manifest), as "file@bucket" sorted by file. */
static size_t index_files(sc_table *t, uint64_t id, char out[][64], size_t cap) {
    sc_snapshot s = read_snap(t, id);
    sc_index_vec v = {0};
    if (s.index_manifest) cr_assert_eq(sc_index_state_load(&v, t, s.index_manifest), 0, "%s", sc_error_message());
    cr_assert_leq(v.count, cap);
    for (size_t i = 0; i < v.count; i++)
        snprintf(out[i], 64, "%s@%d", v.items[i].entry.file, (int)v.items[i].entry.bucket);
    qsort(out, v.count, sizeof out[0], (int (*)(const void *, const void *))strcmp);
    size_t n = v.count;
    sc_index_vec_free(&v);
    sc_snapshot_clear(&s);
    return n;
}

/* two_file_table plus data/b1 in bucket 1 (snapshot 2): vectors of two buckets. */
static sc_table *two_bucket_table(const char *name, sc_file_entry l0[2], sc_file_entry *b1) {
    sc_table *t = two_file_table(name, l0); /* data-l0-a, data-l0-b in dt=1 bucket 0 */
    *b1 = tu_file("dt=1", 1, 0, 0, "data/b1", 2, "x", "x");
    cr_assert_eq(tu_commit(NULL, t, "seed", 2, SC_KIND_APPEND, 0, b1, 1, NULL, 0), 0, "%s", sc_error_message());
    return t;
}

static sc_changes *index_changes(const sc_index_entry *adds, size_t nadds, const sc_index_entry *dels, size_t ndels) {
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    for (size_t i = 0; i < nadds; i++) cr_assert_eq(sc_changes_add_index(c, &adds[i]), 0, "%s", sc_error_message());
    for (size_t i = 0; i < ndels; i++) cr_assert_eq(sc_changes_delete_index(c, &dels[i]), 0, "%s", sc_error_message());
    return c;
}

Test(index, deletion_vectors_are_combined_by_bucket_replaced_and_carried_by_name) {
    sc_file_entry l0[2], b1;
    sc_table *t = two_bucket_table("ck-index", l0, &b1);
    sc_dv_range ra = {"data-l0-a", 1, 10, 1, 1}, rb1 = {"data-b1", 1, 10, 1, 1}, rab[2] = {{"data-l0-a", 1, 10, 1, 1}, {"data-l0-b", 11, 10, 1, 2}};
    sc_index_entry dv0 = dv_entry("dt=1", 0, "index-dv0", &ra, 1), dv1 = dv_entry("dt=1", 1, "index-dv1", &rb1, 1);
    sc_changes *a1 = index_changes(&dv0, 1, NULL, 0);
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, t, "job", 1, a1, NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.append_kind, SC_KIND_OVERWRITE, "deletion vectors: Paimon labels the append part OVERWRITE");
    cr_assert_eq(r.append.snapshot_id, 3);
    char names[8][64];
    cr_assert_eq(index_files(t, 3, names, 8), 1);
    cr_assert_str_eq(names[0], "index-dv0@0");
    /* Another bucket: combined with the first. */
    sc_changes *a2 = index_changes(&dv1, 1, NULL, 0);
    cr_assert_eq(checkpoint(&r, t, "job", 2, a2, NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.append.stats.ops[SC_OP_GET], 2, "GET LATEST and EARLIEST: the index manifest this handle wrote is not read back");
    cr_assert_eq(index_files(t, 4, names, 8), 2);
    cr_assert_str_eq(names[0], "index-dv0@0");
    cr_assert_str_eq(names[1], "index-dv1@1");
    /* A new file for bucket 0 replaces the old one (deleted here, as Paimon's writer does). */
    sc_index_entry dv0b = dv_entry("dt=1", 0, "index-dv0b", rab, 2);
    sc_changes *a3 = index_changes(&dv0b, 1, &dv0, 1);
    cr_assert_eq(checkpoint(&r, t, "job", 3, a3, NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(index_files(t, 5, names, 8), 2);
    cr_assert_str_eq(names[0], "index-dv0b@0");
    cr_assert_str_eq(names[1], "index-dv1@1");
    /* A commit touching no index file names the same index manifest, writing and reading none. */
    int manifests = tu_count_keys("ck-index", "manifest/index-manifest-", NULL);
    sc_file_entry more = tu_file("dt=1", 0, 0, 0, "data/more", 1, "m", "m");
    sc_commit_result plain;
    cr_assert_eq(tu_commit(&plain, t, "job", 4, SC_KIND_APPEND, 0, &more, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_snapshot s5 = read_snap(t, 5), s6 = read_snap(t, 6);
    cr_assert_str_eq(s6.index_manifest, s5.index_manifest);
    sc_snapshot_clear(&s5);
    sc_snapshot_clear(&s6);
    cr_assert_eq(tu_count_keys("ck-index", "manifest/index-manifest-", NULL), manifests);
    cr_assert_eq(plain.stats.ops[SC_OP_GET], 2, "GET LATEST and EARLIEST, as without an index");
    /* Deleting an index file that is no longer live (replaced above): a conflict naming it. */
    sc_changes *stale = index_changes(&dv0b, 1, &dv0, 1);
    cr_assert_eq(checkpoint(&r, t, "job", 5, stale, NULL, 0, 0), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "index-dv0 "), "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "not live"), "%s", sc_error_message());
    /* A vector of a data file the compact part of another commit removed: a conflict. */
    sc_file_entry l1 = tu_file("dt=1", 1, 0, 1, "data/b1-l1", 2, "x", "x");
    cr_assert_eq(tu_commit(NULL, t, "compactor", 1, SC_KIND_COMPACT, 0, &l1, 1, &b1, 1), 0, "%s", sc_error_message());
    sc_dv_range rb1b = {"data-b1", 1, 12, 1, 2};
    sc_index_entry dv1b = dv_entry("dt=1", 1, "index-dv1b", &rb1b, 1);
    sc_changes *gone = index_changes(&dv1b, 1, &dv1, 1);
    cr_assert_eq(checkpoint(&r, t, "job", 6, gone, NULL, 0, 0), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "data-b1"), "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 7, "nothing written by the refused commits");
    cr_assert_eq(tu_count_keys("ck-index", "manifest/index-manifest-", NULL), manifests, "their index manifests removed");
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(a1);
    sc_changes_free(a2);
    sc_changes_free(a3);
    sc_changes_free(stale);
    sc_changes_free(gone);
    sc_table_free(t);
}

/* Before our claim of snapshot 3, another writer commits a deletion vector of bucket 1. */
static int steal_with_index(void *vctx, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    steal_ctx *ctx = vctx;
    if (op != SC_OP_PUT_IF_ABSENT || strcmp(key, "snapshot/snapshot-3") != 0 || ctx->fired) return 0;
    ctx->fired = 1;
    sc_table *other = tu_reopen(ctx->store_name);
    sc_dv_range rb1 = {"data-b1", 1, 10, 1, 1};
    sc_index_entry dv1 = dv_entry("dt=1", 1, "index-dv1", &rb1, 1);
    sc_changes *c = index_changes(&dv1, 1, NULL, 0);
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, other, "other", 1, c, NULL, 0, 0), 0, "%s", sc_error_message());
    sc_changes_free(c);
    sc_table_free(other);
    return 0;
}

Test(index, an_index_manifest_rebuilt_after_a_lost_claim_leaves_no_orphan) {
    sc_file_entry l0[2], b1;
    sc_table *t = two_bucket_table("ck-index-lost", l0, &b1);
    tu_fast_retries(t, 0, 2);
    steal_ctx ctx = {"ck-index-lost", 3, 0};
    sc_store_set_fault_hook(sc_table_store(t), steal_with_index, &ctx);
    sc_dv_range ra = {"data-l0-a", 1, 10, 1, 1};
    sc_index_entry dv0 = dv_entry("dt=1", 0, "index-dv0", &ra, 1);
    sc_changes *a = index_changes(&dv0, 1, NULL, 0);
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, t, "job", 1, a, NULL, 0, 0), 0, "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert(ctx.fired);
    cr_assert_eq(r.append.lost_claims, 1);
    cr_assert_eq(r.append.snapshot_id, 4);
    char names[8][64];
    cr_assert_eq(index_files(t, 4, names, 8), 2, "the other writer's vector combined with ours");
    /* The other writer's and ours: the one built on snapshot 2 for the lost claim is gone. */
    cr_assert_eq(tu_count_keys("ck-index-lost", "manifest/index-manifest-", NULL), 2);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(a);
    sc_table_free(t);
}

Test(index, an_overwrite_drops_the_index_files_of_the_partitions_it_replaces) {
    sc_table *t = tu_mem_table("ck-index-ow");
    sc_file_entry f[2] = {tu_file("dt=1", 0, 0, 0, "data/p1", 2, "a", "a"), tu_file("dt=2", 0, 0, 0, "data/p2", 2, "b", "b")};
    cr_assert_eq(tu_commit(NULL, t, "seed", 1, SC_KIND_APPEND, 0, f, 2, NULL, 0), 0, "%s", sc_error_message());
    sc_dv_range r1 = {"data-p1", 1, 10, 0, 0}, r2 = {"data-p2", 1, 10, 0, 0};
    sc_index_entry dv[2] = {dv_entry("dt=1", 0, "index-p1", &r1, 1), dv_entry("dt=2", 0, "index-p2", &r2, 1)};
    sc_changes *c = index_changes(dv, 2, NULL, 0);
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, t, "job", 1, c, NULL, 0, 0), 0, "%s", sc_error_message());
    sc_file_entry fresh = tu_file("dt=1", 0, 0, 0, "data/p1-new", 1, "c", "c");
    cr_assert_eq(tu_commit(NULL, t, "job", 2, SC_KIND_OVERWRITE, 0, &fresh, 1, NULL, 0), 0, "%s", sc_error_message());
    char names[4][64];
    cr_assert_eq(index_files(t, 3, names, 4), 1, "dt=1's vectors went with its files");
    cr_assert_str_eq(names[0], "index-p2@0");
    sc_changes_free(c);
    sc_table_free(t);
}

#define UNAWARE                                                                                            \
    "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"             \
    "\"partitionKeys\":[\"dt\"],\"primaryKeys\":[],\"options\":{\"bucket\":\"-1\"}}"

/* A bucket-unaware table with data-u1 and data-u2 in partition 1 (snapshot 1). */
static sc_table *unaware_table(const char *name, sc_file_entry f[2]) {
    sc_table *t = tu_schema_table(name, UNAWARE);
    f[0] = (sc_file_entry){.partition = tu_string_row("1"), .total_buckets = -1, .file = "data-u1", .rows = 3, .size = 9};
    f[1] = (sc_file_entry){.partition = tu_string_row("1"), .total_buckets = -1, .file = "data-u2", .rows = 3, .size = 9};
    cr_assert_eq(tu_commit(NULL, t, "seed", 1, SC_KIND_APPEND, 0, f, 2, NULL, 0), 0, "%s", sc_error_message());
    return t;
}

Test(index, unaware_deletion_vectors_are_keyed_by_file_name) {
    sc_file_entry f[2];
    sc_table *t = unaware_table("ck-index-unaware", f);
    sc_dv_range r1 = {"data-u1", 1, 10, 0, 0}, r2 = {"data-u2", 1, 10, 0, 0};
    sc_index_entry a = dv_entry("1", 0, "index-a", &r1, 1), b = dv_entry("1", 0, "index-b", &r2, 1);
    sc_checkpoint_result r;
    sc_changes *c1 = index_changes(&a, 1, NULL, 0), *c2 = index_changes(&b, 1, NULL, 0);
    cr_assert_eq(checkpoint(&r, t, "job", 1, c1, NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(checkpoint(&r, t, "job", 2, c2, NULL, 0, 0), 0, "%s", sc_error_message());
    char names[4][64];
    cr_assert_eq(index_files(t, 3, names, 4), 2, "same bucket, other file: both live (no bucket slots here)");
    /* A second vector for data-u1 while index-a holds one: a conflict. */
    sc_dv_range r1b = {"data-u1", 1, 12, 0, 0};
    sc_index_entry a2 = dv_entry("1", 0, "index-a2", &r1b, 1);
    sc_changes *c3 = index_changes(&a2, 1, NULL, 0);
    cr_assert_eq(checkpoint(&r, t, "job", 3, c3, NULL, 0, 0), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "data-u1"), "%s", sc_error_message());
    sc_changes_free(c1);
    sc_changes_free(c2);
    sc_changes_free(c3);
    sc_table_free(t);
}

/* Paimon's ConflictDetection (bucket-unaware deletion vectors): a data file deleted while a live
 * vector marks rows of it deleted must have that vector's index file deleted in the same commit,
 * or whatever replaces the file (a compaction planned before the vector) brings those rows back. */
Test(index, deleting_a_data_file_whose_live_deletion_vector_stays_is_a_conflict) {
    sc_file_entry f[2];
    sc_table *t = unaware_table("ck-index-unaware-del", f);
    sc_dv_range r1 = {"data-u1", 1, 10, 0, 0};
    sc_index_entry a = dv_entry("1", 0, "index-a", &r1, 1);
    sc_changes *c1 = index_changes(&a, 1, NULL, 0);
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, t, "deleter", 1, c1, NULL, 0, 0), 0, "%s", sc_error_message());
    /* A compaction of both files planned before index-a existed: it does not delete index-a. */
    sc_file_entry merged = {.partition = tu_string_row("1"), .total_buckets = -1, .file = "data-c", .rows = 6, .size = 9};
    sc_changes *blind = changes_of(&merged, 1, f, 2, NULL, 0);
    cr_assert_eq(checkpoint(&r, t, "compactor", 1, NULL, blind, 0, 0), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "data-u1"), "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "index-a"), "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 2, "nothing committed");
    /* The same compaction deleting index-a with the file: no conflict, and index-a is gone. */
    sc_changes *aware = changes_of(&merged, 1, f, 2, NULL, 0);
    cr_assert_eq(sc_changes_delete_index(aware, &a), 0, "%s", sc_error_message());
    cr_assert_eq(checkpoint(&r, t, "compactor", 2, NULL, aware, 0, 0), 0, "%s", sc_error_message());
    char names[4][64];
    cr_assert_eq(index_files(t, 3, names, 4), 0);
    sc_changes_free(c1);
    sc_changes_free(blind);
    sc_changes_free(aware);
    sc_table_free(t);
}

Test(checkpoint, sc_table_commit_honours_a_change_sets_changelog_and_index_sections) {
    sc_table *t = tu_mem_table("ck-plain-sections");
    sc_file_entry f = tu_file("dt=1", 0, 0, 0, "data/f", 4, "a", "a");
    sc_file_entry log = tu_file("dt=1", 0, 0, 0, "changelog-f", 4, "a", "a");
    sc_changes *c = changes_of(&f, 1, NULL, 0, &log, 1);
    sc_dv_range r = {"data-f", 1, 10, 0, 0};
    sc_index_entry dv = dv_entry("dt=1", 0, "index-f", &r, 1);
    cr_assert_eq(sc_changes_add_index(c, &dv), 0);
    sc_commit_request req = {"job", 1, SC_KIND_APPEND, 0, c};
    cr_assert_eq(sc_table_commit(NULL, t, &req), 0, "%s", sc_error_message());
    sc_snapshot s = read_snap(t, 1);
    cr_assert_eq(s.commit_kind, SC_KIND_APPEND, "sc_table_commit keeps the caller's kind");
    cr_assert_not_null(s.changelog_manifest_list.name);
    cr_assert_eq(s.changelog_record_count, 4);
    cr_assert_not_null(s.index_manifest);
    sc_snapshot_clear(&s);
    char names[2][64];
    cr_assert_eq(index_files(t, 1, names, 2), 1);
    sc_changes_free(c);
    sc_table_free(t);
}

Test(checkpoint, statistics_are_carried_while_they_name_the_latest_schema) {
    sc_table *t = tu_mem_table("ck-stats");
    sc_file_entry f[3] = {tu_file("dt=1", 0, 0, 0, "data/1", 1, "a", "a"), tu_file("dt=1", 0, 0, 0, "data/2", 1, "b", "b"),
                          tu_file("dt=1", 0, 0, 0, "data/3", 1, "c", "c")};
    cr_assert_eq(tu_commit(NULL, t, "job", 1, SC_KIND_APPEND, 0, &f[0], 1, NULL, 0), 0, "%s", sc_error_message());
    sc_table_free(t);
    /* Snapshot 1 as an ANALYZE would leave it: naming a statistics file of schema 0. */
    sc_table *w = tu_reopen("ck-stats");
    sc_snapshot s = read_snap(w, 1);
    s.statistics = strdup("stat-0d3c-0");
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_snapshot_encode(&b, &s), 0, "%s", sc_error_message());
    char key[64];
    sc_snapshot_key(key, 1);
    cr_assert_eq(sc_store_put(sc_table_store(w), NULL, key, b.data, b.len), 0);
    sc_buf_free(&b);
    sc_snapshot_clear(&s);
    sc_table_free(w);
    sc_table *t2 = tu_reopen("ck-stats");
    cr_assert_eq(tu_commit(NULL, t2, "job", 2, SC_KIND_APPEND, 0, &f[1], 1, NULL, 0), 0, "%s", sc_error_message());
    sc_snapshot s2 = read_snap(t2, 2);
    cr_assert_str_eq(s2.statistics, "stat-0d3c-0", "same schema: carried");
    sc_snapshot_clear(&s2);
    add_schema(t2, 1);
    cr_assert_eq(tu_commit(NULL, t2, "job", 3, SC_KIND_APPEND, 0, &f[2], 1, NULL, 0), 0, "%s", sc_error_message());
    sc_snapshot s3 = read_snap(t2, 3);
    cr_assert_eq(s3.schema_id, 1);
    cr_assert_null(s3.statistics, "computed with an older schema: dropped, as Paimon does");
    sc_snapshot_clear(&s3);
    sc_table_free(t2);
}

/* ---- dynamic-bucket primary-key tables (Paimon's HASH_DYNAMIC: bucket -1 with a primary key) ---- */

#define DYNAMIC                                                                                            \
    "{\"fields\":[{\"name\":\"part\",\"type\":\"STRING\"},{\"name\":\"k\",\"type\":\"STRING\"},"           \
    "{\"name\":\"v\",\"type\":\"BIGINT\"}],\"partitionKeys\":[\"part\"],\"primaryKeys\":[\"part\",\"k\"],"      \
    "\"options\":{\"bucket\":\"-1\"}}"

static sc_index_entry hash_entry(const char *partition, int bucket, const char *file, long rows) {
    sc_index_entry e = {.partition = tu_string_row(partition), .bucket = bucket, .index_type = "HASH", .file = file,
                        .size = rows * 4, .rows = rows};
    return e;
}

Test(dynamic_bucket, files_in_any_bucket_with_total_buckets_minus_one_and_hash_index_replaced_per_bucket) {
    sc_table *t = tu_schema_table("ck-dynamic", DYNAMIC);
    /* Paimon's HashBucketAssigner puts keys in buckets 0, 1, 2...; every file says _TOTAL_BUCKETS -1. */
    sc_file_entry f[3] = {tu_file("1", 0, -1, 0, "data/d0", 3, "a", "c"), tu_file("1", 1, -1, 0, "data/d1", 3, "d", "f"),
                          tu_file("1", 2, 0, 0, "data/d2", 1, "g", "g")}; /* 0: the table's setting, -1 */
    sc_index_entry h[3] = {hash_entry("1", 0, "index-h0", 3), hash_entry("1", 1, "index-h1", 3),
                           hash_entry("1", 2, "index-h2", 1)};
    sc_changes *c1 = changes_of(f, 3, NULL, 0, NULL, 0);
    for (size_t i = 0; i < 3; i++) cr_assert_eq(sc_changes_add_index(c1, &h[i]), 0, "%s", sc_error_message());
    sc_checkpoint_result r;
    cr_assert_eq(checkpoint(&r, t, "job", 1, c1, NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(r.append_kind, SC_KIND_APPEND, "HASH index files alone do not promote the append part");
    char names[8][64];
    cr_assert_eq(index_files(t, 1, names, 8), 3);
    /* The stored entries keep Paimon's -1 (0 was completed to it). */
    sc_snapshot s1 = read_snap(t, 1);
    sc_manifest_file_vec metas = {0};
    cr_assert_eq(sc_state_load_list(&metas, t, &s1.delta_manifest_list), 0, "%s", sc_error_message());
    sc_entry_vec records = {0};
    cr_assert_eq(sc_state_load_manifest(&records, t, &metas.items[0]), 0, "%s", sc_error_message());
    cr_assert_eq(records.count, 3);
    for (size_t i = 0; i < records.count; i++) cr_assert_eq(records.items[i].file.total_buckets, -1);
    sc_entry_vec_free(&records);
    sc_manifest_file_vec_free(&metas);
    sc_snapshot_clear(&s1);
    /* Bucket 1 grows: its new HASH file replaces index-h1 (deleted, as Paimon's writer does); the bucket-count
     * rule does not compare -1 with anything (Paimon skips totalBuckets <= 0). */
    sc_file_entry g = tu_file("1", 1, -1, 0, "data/d1b", 2, "h", "i");
    sc_index_entry h1b = hash_entry("1", 1, "index-h1b", 5);
    sc_changes *c2 = changes_of(&g, 1, NULL, 0, NULL, 0);
    cr_assert_eq(sc_changes_add_index(c2, &h1b), 0);
    cr_assert_eq(sc_changes_delete_index(c2, &h[1]), 0);
    cr_assert_eq(checkpoint(&r, t, "job", 2, c2, NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(index_files(t, 2, names, 8), 3);
    cr_assert_str_eq(names[0], "index-h0@0");
    cr_assert_str_eq(names[1], "index-h1b@1");
    cr_assert_str_eq(names[2], "index-h2@2");
    /* A HASH file for bucket 2 without deleting the old: it replaces it in the combine all the same
     * (keyed by partition, bucket and type, as Paimon's IndexManifestFileHandler). */
    sc_index_entry h2b = hash_entry("1", 2, "index-h2b", 2);
    sc_changes *c3 = index_changes(&h2b, 1, NULL, 0);
    cr_assert_eq(checkpoint(&r, t, "job", 3, c3, NULL, 0, 0), 0, "%s", sc_error_message());
    cr_assert_eq(index_files(t, 3, names, 8), 3);
    cr_assert_str_eq(names[2], "index-h2b@2");
    /* A fixed bucket count on a dynamic table: refused, naming the rule. */
    sc_file_entry fixed = tu_file("1", 0, 2, 0, "data/fixed", 1, "z", "z");
    sc_changes *c4 = changes_of(&fixed, 1, NULL, 0, NULL, 0);
    cr_assert_eq(checkpoint(&r, t, "job", 4, c4, NULL, 0, 0), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "dynamic-bucket"), "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 3);
    /* A writer that started at snapshot 1 (concurrent with 2 and 3), compacting bucket 0: checked against
     * them, no bucket-count conflict among -1 declarations. */
    sc_file_entry l1 = tu_file("1", 0, -1, 1, "data/d0-l1", 3, "a", "c");
    cr_assert_eq(tu_commit(NULL, t, "compactor", 1, SC_KIND_COMPACT, 1, &l1, 1, &f[0], 1), 0, "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 4);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(c1);
    sc_changes_free(c2);
    sc_changes_free(c3);
    sc_changes_free(c4);
    sc_table_free(t);
}

Test(dynamic_bucket, cross_partition_update_tables_stay_refused) {
    const char *cross = "{\"fields\":[{\"name\":\"part\",\"type\":\"STRING\"},{\"name\":\"k\",\"type\":\"STRING\"}],"
                        "\"partitionKeys\":[\"part\"],\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"-1\"}}";
    sc_mem_store_reset("ck-cross");
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, "mem://ck-cross"), 0);
    cr_assert_eq(sc_table_create_with_schema(s, SC_STRATEGY_AUTO, cross, strlen(cross)), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "cross-partition"), "%s", sc_error_message());
    sc_store_free(s);
}
