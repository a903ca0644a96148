/* INSERT OVERWRITE through sc_table_commit_checkpoint (req->overwrite): what each scope replaces,
 * planned on every attempt, with the changelog dropped and the index files of replaced partitions gone. */
#include "sc_test_util.h"

#include "engine/index_state.h"
#include "engine/state.h"
#include "format/partition.h"
#include "strategy/strategy.h"

static sc_changes *adds_of(const sc_file_entry *adds, size_t n) {
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    for (size_t i = 0; i < n; i++) cr_assert_eq(sc_changes_add(c, &adds[i]), 0, "%s", sc_error_message());
    return c;
}

static int overwrite(sc_checkpoint_result *r, sc_table *t, int64_t ident, sc_changes *append, sc_changes *compact,
                     sc_overwrite_scope scope, const char *spec) {
    sc_checkpoint_request req = {"job", ident, 0, 0, 0, append, compact, scope, spec};
    return sc_table_commit_checkpoint(r, t, &req);
}

static int name_cmp(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

/* The live data files of the latest snapshot, sorted, joined by ",". */
static void live_names(sc_table *t, char *out, size_t cap) {
    sc_file_list *l;
    cr_assert_eq(sc_table_files(&l, t, 0), 0, "%s", sc_error_message());
    const char *names[64];
    cr_assert_leq(l->count, 64);
    for (size_t i = 0; i < l->count; i++) names[i] = l->entries[i].file;
    qsort(names, l->count, sizeof names[0], name_cmp);
    out[0] = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (i) strncat(out, ",", cap - strlen(out) - 1);
        strncat(out, names[i], cap - strlen(out) - 1);
    }
    sc_file_list_free(l);
}

static sc_snapshot read_snap(sc_table *t, uint64_t id) {
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, id), 0, "%s", sc_error_message());
    return s;
}

/* Partitions "a" (data-a1, data-a2) and "b" (data-b1) at snapshot 1. */
static sc_table *seeded(const char *name) {
    sc_table *t = tu_mem_table(name);
    sc_file_entry f[3] = {tu_file("a", 0, 0, 0, "data-a1", 1, "k1", "k1"), tu_file("a", 1, 0, 0, "data-a2", 1, "k2", "k2"),
                          tu_file("b", 0, 0, 0, "data-b1", 1, "k1", "k1")};
    cr_assert_eq(tu_commit(NULL, t, "seed", 1, SC_KIND_APPEND, 0, f, 3, NULL, 0), 0, "%s", sc_error_message());
    return t;
}

Test(overwrite, dynamic_replaces_the_partitions_written_and_drops_the_changelog) {
    sc_table *t = seeded("ow-dynamic");
    sc_file_entry fresh = tu_file("a", 0, 0, 0, "data-a-new", 1, "k9", "k9");
    sc_file_entry log = tu_file("a", 0, 0, 0, "changelog-a", 1, "k9", "k9");
    sc_changes *c = adds_of(&fresh, 1);
    cr_assert_eq(sc_changes_add_changelog(c, &log), 0, "%s", sc_error_message());
    sc_checkpoint_result r;
    cr_assert_eq(overwrite(&r, t, 1, c, NULL, SC_OVERWRITE_DYNAMIC, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(r.append.snapshot_id, 2);
    cr_assert_eq(r.append_kind, SC_KIND_OVERWRITE);
    char names[512];
    live_names(t, names, sizeof names);
    cr_assert_str_eq(names, "data-a-new,data-b1");
    sc_snapshot s = read_snap(t, 2);
    cr_assert_eq(s.commit_kind, SC_KIND_OVERWRITE);
    cr_assert_null(s.changelog_manifest_list.name, "an overwrite commits no changelog");
    cr_assert_eq(s.has_changelog_record_count, 0);
    cr_assert_eq(s.total_record_count, 2);
    sc_snapshot_clear(&s);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(c);
    sc_table_free(t);
}

Test(overwrite, dynamic_without_files_replaces_nothing_and_writes_nothing) {
    sc_table *t = seeded("ow-dynamic-empty");
    sc_changes *c = adds_of(NULL, 0);
    sc_checkpoint_result r;
    cr_assert_eq(overwrite(&r, t, 1, c, NULL, SC_OVERWRITE_DYNAMIC, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(r.append.snapshot_id, 0);
    cr_assert_eq(tu_latest(t), 1);
    cr_assert_eq(tu_file_count(t), 3);
    sc_changes_free(c);
    sc_table_free(t);
}

Test(overwrite, a_static_partition_is_replaced_even_by_nothing) {
    sc_table *t = seeded("ow-static");
    sc_checkpoint_result r;
    cr_assert_eq(overwrite(&r, t, 1, NULL, NULL, SC_OVERWRITE_PARTITION, "part=a"), 0, "%s", sc_error_message());
    cr_assert_eq(r.append.snapshot_id, 2);
    char names[512];
    live_names(t, names, sizeof names);
    cr_assert_str_eq(names, "data-b1");
    /* Files outside the spec are refused (Paimon: "does not belong to this partition"), nothing written. */
    sc_file_entry stray = tu_file("b", 0, 0, 0, "data-b-new", 1, "k3", "k3");
    sc_changes *c = adds_of(&stray, 1);
    cr_assert_eq(overwrite(&r, t, 2, c, NULL, SC_OVERWRITE_PARTITION, "part=a"), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "does not belong"), "%s", sc_error_message());
    /* So is a delete outside it (Paimon checks every file of the append part, deleted ones too). */
    sc_changes *d = adds_of(NULL, 0);
    sc_file_entry b1 = tu_file("b", 0, 0, 0, "data-b1", 1, "k1", "k1");
    cr_assert_eq(sc_changes_delete(d, &b1), 0, "%s", sc_error_message());
    cr_assert_eq(overwrite(&r, t, 2, d, NULL, SC_OVERWRITE_PARTITION, "part=a"), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "deletes data-b1"), "%s", sc_error_message());
    sc_changes_free(d);
    cr_assert_eq(overwrite(&r, t, 2, c, NULL, SC_OVERWRITE_PARTITION, "nokey=a"), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "is no partition key"), "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 2);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(c);
    sc_table_free(t);
}

Test(overwrite, the_whole_table_is_replaced) {
    sc_table *t = seeded("ow-table");
    sc_file_entry fresh = tu_file("c", 0, 0, 0, "data-c1", 1, "k1", "k1");
    sc_changes *c = adds_of(&fresh, 1);
    sc_checkpoint_result r;
    cr_assert_eq(overwrite(&r, t, 1, c, NULL, SC_OVERWRITE_TABLE, NULL), 0, "%s", sc_error_message());
    char names[512];
    live_names(t, names, sizeof names);
    cr_assert_str_eq(names, "data-c1");
    /* An empty spec is the whole table too (Paimon's empty static partition). */
    cr_assert_eq(overwrite(&r, t, 2, NULL, NULL, SC_OVERWRITE_PARTITION, ""), 0, "%s", sc_error_message());
    cr_assert_eq(tu_file_count(t), 0);
    sc_snapshot s = read_snap(t, 3);
    cr_assert_eq(s.total_record_count, 0);
    sc_snapshot_clear(&s);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(c);
    sc_table_free(t);
}

/* Partitioned by (dt STRING, h INT): a spec naming h only matches every dt, values compared as INTs. */
#define TWO_KEYS                                                                                           \
    "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"h\",\"type\":\"INT\"},"                \
    "{\"name\":\"v\",\"type\":\"BIGINT\"}],\"partitionKeys\":[\"dt\",\"h\"],\"primaryKeys\":[],"            \
    "\"options\":{\"bucket\":\"-1\"}}"

static sc_file_entry two_key_file(sc_table *t, const char *spec, const char *name) {
    sc_buf row = SC_BUF_INIT;
    cr_assert_eq(sc_partition_parse(&row, &t->schema, spec), 0, "%s", sc_error_message());
    uint8_t *slot = tu_pool(row.len);
    memcpy(slot, row.data, row.len);
    sc_file_entry e = {.partition = {slot, row.len}, .total_buckets = -1, .file = name, .rows = 1, .size = 9};
    sc_buf_free(&row);
    return e;
}

Test(overwrite, a_partial_spec_replaces_every_partition_it_matches) {
    sc_table *t = tu_schema_table("ow-partial", TWO_KEYS);
    sc_file_entry f[3] = {two_key_file(t, "dt=x/h=1", "data-x1"), two_key_file(t, "dt=y/h=1", "data-y1"),
                          two_key_file(t, "dt=x/h=2", "data-x2")};
    cr_assert_eq(tu_commit(NULL, t, "seed", 1, SC_KIND_APPEND, 0, f, 3, NULL, 0), 0, "%s", sc_error_message());
    sc_file_entry fresh = two_key_file(t, "dt=z/h=1", "data-z1");
    sc_changes *c = adds_of(&fresh, 1);
    sc_checkpoint_result r;
    cr_assert_eq(overwrite(&r, t, 1, c, NULL, SC_OVERWRITE_PARTITION, "h=01"), 0, "%s", sc_error_message());
    char names[512];
    live_names(t, names, sizeof names);
    cr_assert_str_eq(names, "data-x2,data-z1");
    cr_assert_eq(overwrite(&r, t, 2, NULL, NULL, SC_OVERWRITE_PARTITION, "h=one"), SC_EINVAL);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(c);
    sc_table_free(t);
}

static sc_index_entry dv_entry(const char *partition, const char *file, const sc_dv_range *range) {
    sc_index_entry e = {.partition = tu_string_row(partition), .bucket = 0, .index_type = "DELETION_VECTORS",
                        .file = file, .size = 40, .rows = 1, .has_dv_ranges = 1, .dv_ranges = range,
                        .dv_range_count = 1};
    return e;
}

static size_t index_count(sc_table *t, uint64_t id, const char *file) {
    sc_snapshot s = read_snap(t, id);
    sc_index_vec v = {0};
    if (s.index_manifest) cr_assert_eq(sc_index_state_load(&v, t, s.index_manifest), 0, "%s", sc_error_message());
    size_t n = 0;
    for (size_t i = 0; i < v.count; i++) n += !file || strcmp(v.items[i].entry.file, file) == 0;
    sc_index_vec_free(&v);
    sc_snapshot_clear(&s);
    return n;
}

Test(overwrite, the_index_files_of_replaced_partitions_go_for_every_scope) {
    sc_overwrite_scope scopes[3] = {SC_OVERWRITE_DYNAMIC, SC_OVERWRITE_PARTITION, SC_OVERWRITE_TABLE};
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "ow-index-%d", k);
        sc_table *t = seeded(name);
        sc_dv_range ra = {"data-a1", 1, 10, 0, 0}, rb = {"data-b1", 1, 10, 0, 0};
        sc_index_entry dv[2] = {dv_entry("a", "index-a", &ra), dv_entry("b", "index-b", &rb)};
        sc_changes *ix;
        cr_assert_eq(sc_changes_new(&ix), 0);
        for (int i = 0; i < 2; i++) cr_assert_eq(sc_changes_add_index(ix, &dv[i]), 0, "%s", sc_error_message());
        sc_checkpoint_request req = {"idx", 1, 0, 0, 0, ix, NULL, SC_OVERWRITE_NONE, NULL};
        cr_assert_eq(sc_table_commit_checkpoint(NULL, t, &req), 0, "%s", sc_error_message());
        cr_assert_eq(index_count(t, 2, NULL), 2);
        sc_file_entry fresh = tu_file("a", 0, 0, 0, "data-a-new", 1, "k9", "k9");
        sc_changes *c = adds_of(&fresh, 1);
        sc_checkpoint_result r;
        cr_assert_eq(overwrite(&r, t, 1, c, NULL, scopes[k], k == 1 ? "part=a" : NULL), 0, "%s", sc_error_message());
        cr_assert_eq(r.append.snapshot_id, 3);
        cr_assert_eq(index_count(t, 3, "index-a"), 0, "scope %d: a's vectors went with its files", k);
        cr_assert_eq(index_count(t, 3, "index-b"), k == 2 ? 0 : 1, "scope %d", k);
        cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
        sc_changes_free(c);
        sc_changes_free(ix);
        sc_table_free(t);
    }
}

/* ---- replanned on every attempt: another writer commits before our claim ---- */

typedef struct race_ctx {
    const char *store_name;
    const char *partition; /* the other writer's file goes there */
    int fired;
} race_ctx;

static int race(void *vctx, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    race_ctx *ctx = vctx;
    if (op != SC_OP_PUT_IF_ABSENT || strcmp(key, "snapshot/snapshot-2") != 0 || ctx->fired) return 0;
    ctx->fired = 1;
    sc_table *other = tu_reopen(ctx->store_name);
    sc_file_entry f = tu_file(ctx->partition, 0, 0, 0, "data-other", 1, "z", "z");
    cr_assert_eq(tu_commit(NULL, other, "other", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_table_free(other);
    return 0;
}

static void raced(const char *name, sc_overwrite_scope scope, const char *other_partition, const char *want) {
    sc_table *t = seeded(name);
    tu_fast_retries(t, 2, 2);
    race_ctx ctx = {name, other_partition, 0};
    sc_store_set_fault_hook(sc_table_store(t), race, &ctx);
    sc_file_entry fresh = tu_file("a", 0, 0, 0, "data-a-new", 1, "k9", "k9");
    sc_changes *c = adds_of(&fresh, 1);
    sc_checkpoint_result r;
    cr_assert_eq(overwrite(&r, t, 1, c, NULL, scope, scope == SC_OVERWRITE_PARTITION ? "part=a" : NULL), 0, "%s",
                 sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert(ctx.fired);
    cr_assert_eq(r.append.lost_claims, 1);
    cr_assert_eq(r.append.snapshot_id, 3);
    char names[512];
    live_names(t, names, sizeof names);
    cr_assert_str_eq(names, want);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(c);
    sc_table_free(t);
}

Test(overwrite, a_concurrent_append_into_another_partition_is_kept) {
    raced("ow-race-b-dyn", SC_OVERWRITE_DYNAMIC, "b", "data-a-new,data-b1,data-other");
    raced("ow-race-b-static", SC_OVERWRITE_PARTITION, "b", "data-a-new,data-b1,data-other");
}

/* As sc_table_commit's OVERWRITE: what is live in a replaced partition at the base of the
 * attempt that lands goes, a file committed there meanwhile too. */
Test(overwrite, a_concurrent_append_into_a_replaced_partition_is_replaced_too) {
    raced("ow-race-a-dyn", SC_OVERWRITE_DYNAMIC, "a", "data-a-new,data-b1");
    raced("ow-race-a-table", SC_OVERWRITE_TABLE, "b", "data-a-new");
}

Test(overwrite, a_partition_created_meanwhile_goes_with_a_table_overwrite) {
    /* The partition "c" did not exist when the overwrite of the table was planned. */
    raced("ow-race-c-table", SC_OVERWRITE_TABLE, "c", "data-a-new");
}

Test(overwrite, the_compact_part_follows_and_keeps_no_changelog) {
    sc_table *t = seeded("ow-compact");
    sc_file_entry fresh[2] = {tu_file("a", 0, 0, 0, "data-n1", 1, "k1", "k1"), tu_file("a", 0, 0, 0, "data-n2", 1, "k2", "k2")};
    sc_changes *c = adds_of(fresh, 2);
    sc_file_entry l1 = tu_file("a", 0, 0, 1, "data-n-l1", 2, "k1", "k2");
    sc_file_entry log = tu_file("a", 0, 0, 0, "changelog-c", 1, "k1", "k1");
    sc_changes *k = adds_of(&l1, 1);
    cr_assert_eq(sc_changes_delete(k, &fresh[0]), 0, "%s", sc_error_message());
    cr_assert_eq(sc_changes_delete(k, &fresh[1]), 0, "%s", sc_error_message());
    cr_assert_eq(sc_changes_add_changelog(k, &log), 0, "%s", sc_error_message());
    sc_checkpoint_result r;
    cr_assert_eq(overwrite(&r, t, 1, c, k, SC_OVERWRITE_DYNAMIC, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(r.append.snapshot_id, 2);
    cr_assert_eq(r.compact.snapshot_id, 3);
    sc_snapshot s = read_snap(t, 3);
    cr_assert_eq(s.commit_kind, SC_KIND_COMPACT);
    cr_assert_null(s.changelog_manifest_list.name);
    sc_snapshot_clear(&s);
    char names[512];
    live_names(t, names, sizeof names);
    cr_assert_str_eq(names, "data-b1,data-n-l1");
    sc_changes_free(c);
    sc_changes_free(k);
    sc_table_free(t);
}

/* ---- the change-set JSON's "overwrite" member (docs/format.md §10) ---- */

static int parse_ow(sc_table *t, const char *json, sc_overwrite_scope *scope, char **spec) {
    sc_changes *a = NULL, *c = NULL;
    int has_wm;
    int64_t wm;
    int rc = sc_table_parse_checkpoint_request(&a, &c, &has_wm, &wm, scope, spec, t, json, strlen(json));
    sc_changes_free(a);
    sc_changes_free(c);
    return rc;
}

Test(overwrite_json, scopes_parse_and_the_plain_checkpoint_parser_refuses_them) {
    sc_table *t = tu_mem_table("ow-json");
    sc_overwrite_scope scope;
    char *spec;
    cr_assert_eq(parse_ow(t, "{\"add\":[]}", &scope, &spec), 0, "%s", sc_error_message());
    cr_assert_eq(scope, SC_OVERWRITE_NONE);
    cr_assert_null(spec);
    cr_assert_eq(parse_ow(t, "{\"overwrite\":true}", &scope, &spec), 0, "%s", sc_error_message());
    cr_assert_eq(scope, SC_OVERWRITE_TABLE);
    cr_assert_eq(parse_ow(t, "{\"overwrite\":\"table\"}", &scope, &spec), 0, "%s", sc_error_message());
    cr_assert_eq(scope, SC_OVERWRITE_TABLE);
    cr_assert_eq(parse_ow(t, "{\"overwrite\":\"dynamic\",\"add\":[]}", &scope, &spec), 0, "%s", sc_error_message());
    cr_assert_eq(scope, SC_OVERWRITE_DYNAMIC);
    cr_assert_null(spec);
    cr_assert_eq(parse_ow(t, "{\"overwrite\":{\"partition\":\"part=a\"}}", &scope, &spec), 0, "%s", sc_error_message());
    cr_assert_eq(scope, SC_OVERWRITE_PARTITION);
    cr_assert_str_eq(spec, "part=a");
    free(spec);
    const char *bad[] = {"{\"overwrite\":1}", "{\"overwrite\":\"all\"}", "{\"overwrite\":{\"partition\":1}}",
                         "{\"overwrite\":{\"partition\":\"a\",\"x\":1}}", "{\"overwrite\":true,\"overwrite\":true}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(parse_ow(t, bad[i], &scope, &spec), SC_EINVAL, "%s", bad[i]);
        cr_assert_null(spec);
    }
    /* A caller that would not see the member must not commit it as a plain checkpoint. */
    sc_changes *a = NULL, *c = NULL;
    int has_wm;
    int64_t wm;
    const char *json = "{\"overwrite\":true}";
    cr_assert_eq(sc_table_parse_checkpoint(&a, &c, &has_wm, &wm, t, json, strlen(json)), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "unknown key \"overwrite\""), "%s", sc_error_message());
    sc_table_free(t);
}

/* An index file can outlive the data files of its partition: a static overwrite matching that
 * partition drops it too (Paimon's readOverwriteChanges scans index files by the same filter). */
Test(overwrite, an_index_file_of_a_partition_without_data_files_goes_with_a_static_overwrite) {
    const char *specs[2] = {"part=c", NULL};
    for (int k = 0; k < 2; k++) {
        char name[32];
        snprintf(name, sizeof name, "ow-index-only-%d", k);
        sc_table *t = seeded(name);
        sc_index_entry h = {.partition = tu_string_row("c"), .bucket = 0, .index_type = "HASH", .file = "index-hc",
                            .size = 8, .rows = 2};
        sc_changes *ix;
        cr_assert_eq(sc_changes_new(&ix), 0);
        cr_assert_eq(sc_changes_add_index(ix, &h), 0, "%s", sc_error_message());
        sc_checkpoint_request req = {"idx", 1, 0, 0, 0, ix, NULL, SC_OVERWRITE_NONE, NULL};
        cr_assert_eq(sc_table_commit_checkpoint(NULL, t, &req), 0, "%s", sc_error_message());
        cr_assert_eq(index_count(t, 2, "index-hc"), 1);
        sc_checkpoint_result r;
        cr_assert_eq(overwrite(&r, t, 1, NULL, NULL, specs[k] ? SC_OVERWRITE_PARTITION : SC_OVERWRITE_TABLE, specs[k]),
                     0, "%s", sc_error_message());
        cr_assert_eq(r.append.snapshot_id, 3);
        cr_assert_eq(index_count(t, 3, "index-hc"), 0, "spec %s", specs[k] ? specs[k] : "(table)");
        cr_assert_eq(tu_file_count(t), specs[k] ? 3 : 0);
        sc_changes_free(ix);
        sc_table_free(t);
    }
}

/* ---- Paimon's overwrite-upgrade (FileStoreCommitImpl.tryUpgrade) ---- */

/* The level of live file `name`, -1 when not live. */
static int level_of(sc_table *t, const char *name) {
    sc_file_list *l;
    cr_assert_eq(sc_table_files(&l, t, 0), 0, "%s", sc_error_message());
    int level = -1;
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->entries[i].file, name) == 0) level = l->entries[i].level;
    sc_file_list_free(l);
    return level;
}

#define NO_UPGRADE                                                                                         \
    "{\"fields\":[{\"name\":\"part\",\"type\":\"STRING\"},{\"name\":\"k\",\"type\":\"STRING\"},"           \
    "{\"name\":\"v\",\"type\":\"BIGINT\"}],\"partitionKeys\":[\"part\"],\"primaryKeys\":[\"part\",\"k\"],"      \
    "\"options\":{\"bucket\":\"2\",\"overwrite-upgrade\":\"false\",\"num-levels\":\"3\"}}"

Test(overwrite, level_0_files_whose_keys_do_not_overlap_go_to_the_top_level) {
    sc_table *t = seeded("ow-upgrade");
    /* Bucket 0: disjoint ranges (upgraded to level 5, num-sorted-run.compaction-trigger 5 + 1 levels);
     * bucket 1: overlapping ranges (kept at level 0). */
    sc_file_entry f[4] = {tu_file("a", 0, 0, 0, "up-1", 1, "a", "c"), tu_file("a", 0, 0, 0, "up-2", 1, "d", "f"),
                          tu_file("a", 1, 0, 0, "keep-1", 1, "a", "m"), tu_file("a", 1, 0, 0, "keep-2", 1, "k", "z")};
    sc_changes *c = adds_of(f, 4);
    sc_checkpoint_result r;
    cr_assert_eq(overwrite(&r, t, 1, c, NULL, SC_OVERWRITE_DYNAMIC, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(level_of(t, "up-1"), 5);
    cr_assert_eq(level_of(t, "up-2"), 5);
    cr_assert_eq(level_of(t, "keep-1"), 0);
    cr_assert_eq(level_of(t, "keep-2"), 0);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_changes_free(c);
    /* Not with a compact part, as Paimon's. */
    sc_file_entry g[2] = {tu_file("b", 0, 0, 0, "plain-1", 1, "a", "a"), tu_file("b", 0, 0, 0, "plain-2", 1, "b", "b")};
    sc_file_entry l1 = tu_file("b", 0, 0, 1, "plain-l1", 2, "a", "b");
    c = adds_of(g, 2);
    sc_changes *k = adds_of(&l1, 1);
    for (int i = 0; i < 2; i++) cr_assert_eq(sc_changes_delete(k, &g[i]), 0, "%s", sc_error_message());
    cr_assert_eq(overwrite(&r, t, 2, c, k, SC_OVERWRITE_DYNAMIC, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(level_of(t, "plain-l1"), 1);
    sc_changes_free(c);
    sc_changes_free(k);
    sc_table_free(t);

    /* overwrite-upgrade = false keeps level 0. */
    t = tu_schema_table("ow-no-upgrade", NO_UPGRADE);
    c = adds_of(f, 2);
    cr_assert_eq(overwrite(&r, t, 1, c, NULL, SC_OVERWRITE_TABLE, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(level_of(t, "up-1"), 0);
    sc_changes_free(c);
    sc_table_free(t);
}


/* Paimon's predicate looks only at the keys a spec names: a partition whose other key holds a
 * blank string (written as the default name, so it has no spec that reads back as itself) matches. */
static sc_file_entry row_file(sc_table *t, const sc_datum *values, const char *name) {
    sc_buf row = SC_BUF_INIT;
    cr_assert_eq(sc_row_encode(&row, t->schema.partition_types, values, t->schema.partition_key_count), 0, "%s",
                 sc_error_message());
    uint8_t *slot = tu_pool(row.len);
    memcpy(slot, row.data, row.len);
    sc_file_entry e = {.partition = {slot, row.len}, .total_buckets = -1, .file = name, .rows = 1, .size = 9};
    sc_buf_free(&row);
    return e;
}

Test(overwrite, a_partial_spec_ignores_the_values_of_the_keys_it_does_not_name) {
    sc_table *t = tu_schema_table("ow-blank", TWO_KEYS);
    sc_datum blank_h1[2] = {{.bytes = (const uint8_t *)"", .len = 0}, {.i = 1}};
    sc_datum space_h1[2] = {{.bytes = (const uint8_t *)" ", .len = 1}, {.i = 1}};
    sc_datum x_h2[2] = {{.bytes = (const uint8_t *)"x", .len = 1}, {.i = 2}};
    sc_file_entry f[3] = {row_file(t, blank_h1, "data-blank1"), row_file(t, space_h1, "data-space1"),
                          row_file(t, x_h2, "data-x2")};
    cr_assert_eq(tu_commit(NULL, t, "seed", 1, SC_KIND_APPEND, 0, f, 3, NULL, 0), 0, "%s", sc_error_message());
    sc_checkpoint_result r;
    cr_assert_eq(overwrite(&r, t, 1, NULL, NULL, SC_OVERWRITE_PARTITION, "h=1"), 0, "%s", sc_error_message());
    char names[512];
    live_names(t, names, sizeof names);
    cr_assert_str_eq(names, "data-x2");
    /* A null dt matches only the default name. */
    sc_datum null_h2[2] = {{.is_null = 1}, {.i = 2}};
    sc_file_entry n = row_file(t, null_h2, "data-null2");
    cr_assert_eq(tu_commit(NULL, t, "seed", 2, SC_KIND_APPEND, 0, &n, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(overwrite(&r, t, 2, NULL, NULL, SC_OVERWRITE_PARTITION, "dt=x"), 0, "%s", sc_error_message());
    live_names(t, names, sizeof names);
    cr_assert_str_eq(names, "data-null2");
    cr_assert_eq(overwrite(&r, t, 3, NULL, NULL, SC_OVERWRITE_PARTITION, "dt=__DEFAULT_PARTITION__/h=2"), 0, "%s",
                 sc_error_message());
    cr_assert_eq(tu_file_count(t), 0);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

#define ESCAPED_KEY                                                                                        \
    "{\"fields\":[{\"name\":\"d:t\",\"type\":\"STRING\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"              \
    "\"partitionKeys\":[\"d:t\"],\"primaryKeys\":[],\"options\":{\"bucket\":\"-1\"}}"

/* The spec is checked as a whole before anything is written, its keys unescaped as its values
 * are (Paimon fails on a value of the wrong type before it commits, even on an empty table). */
Test(overwrite, a_spec_is_checked_before_anything_is_written) {
    sc_table *t = tu_schema_table("ow-spec-check", TWO_KEYS);
    sc_checkpoint_result r;
    cr_assert_eq(overwrite(&r, t, 1, NULL, NULL, SC_OVERWRITE_PARTITION, "h=one"), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "h=one"), "%s", sc_error_message());
    cr_assert_eq(overwrite(&r, t, 1, NULL, NULL, SC_OVERWRITE_PARTITION, NULL), SC_EINVAL, "NULL is not the table");
    cr_assert_eq(tu_latest(t), 0, "nothing written");
    sc_table_free(t);

    t = tu_schema_table("ow-escaped-key", ESCAPED_KEY);
    sc_datum x[1] = {{.bytes = (const uint8_t *)"x", .len = 1}}, y[1] = {{.bytes = (const uint8_t *)"y", .len = 1}};
    sc_file_entry f[2] = {row_file(t, x, "data-x"), row_file(t, y, "data-y")};
    cr_assert_eq(tu_commit(NULL, t, "seed", 1, SC_KIND_APPEND, 0, f, 2, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(overwrite(&r, t, 1, NULL, NULL, SC_OVERWRITE_PARTITION, "d%3At=x"), 0, "%s", sc_error_message());
    char names[512];
    live_names(t, names, sizeof names);
    cr_assert_str_eq(names, "data-y");
    sc_table_free(t);
}
