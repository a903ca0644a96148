/*
 * What the switch to Paimon's format brought into the engine: entries checked
 * and completed against the table's schema (engine/entries.c; keys compared in
 * Paimon's typed order by the conflict rules: test_conflict.c), manifests skipped by their
 * partition statistics (engine/state.c), the change-set JSON of a table and the
 * spec/path/key helpers (engine/table.c), and a table Paimon wrote adopted and
 * committed onto.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "sc_test_util.h"

#include "base/error_internal.h"
#include "engine/state.h" /* sc_state_check_delta */
#include "format/changes.h"

/* ---- tables and rows ---- */

/* One INT primary key, two buckets, unpartitioned. */
#define INT_PK                                                                                             \
    "{\"fields\":[{\"name\":\"k\",\"type\":\"INT\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"                 \
    "\"partitionKeys\":[],\"primaryKeys\":[\"k\"],\"options\":{\"bucket\":\"2\"}}"
/* Partitioned by (dt STRING, h INT); the trimmed key is (id INT, name STRING). */
#define PK2                                                                                                \
    "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"h\",\"type\":\"INT\"},"                  \
    "{\"name\":\"id\",\"type\":\"INT\"},{\"name\":\"name\",\"type\":\"STRING\"},{\"name\":\"v\",\"type\":\"BIGINT\"}]," \
    "\"partitionKeys\":[\"dt\",\"h\"],\"primaryKeys\":[\"dt\",\"h\",\"id\",\"name\"],\"options\":{\"bucket\":\"2\"}}"
/* A bucket-unaware append table partitioned by (dt STRING, h INT). */
#define APPEND                                                                                             \
    "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"h\",\"type\":\"INT\"},"                  \
    "{\"name\":\"msg\",\"type\":\"STRING\"}],\"partitionKeys\":[\"dt\",\"h\"],\"primaryKeys\":[],\"options\":{}}"

static const sc_data_type int_type = {SC_TYPE_INT, 0, 0, 0, 0, NULL};
static const sc_data_type string_type = {SC_TYPE_VARCHAR, 0, SC_TYPE_MAX_LENGTH, 0, 0, NULL};

/* A serialized row of `n` values, from the pool (outlives the entry it goes in). */
static sc_bytes pooled_row(const sc_data_type *types, const sc_datum *values, size_t n) {
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_row_encode(&b, types, values, n), 0, "%s", sc_error_message());
    uint8_t *slot = tu_pool(b.len);
    memcpy(slot, b.data, b.len);
    sc_bytes out = {slot, b.len};
    sc_buf_free(&b);
    return out;
}

static sc_bytes int_row(int32_t v) {
    sc_datum d = {0};
    d.i = v;
    return pooled_row(&int_type, &d, 1);
}

/* (dt STRING, h INT): a partition of PK2 and APPEND. */
static sc_bytes part_row(const char *dt, int32_t h) {
    const sc_data_type types[] = {string_type, int_type};
    sc_datum d[2] = {{0}, {0}};
    d[0].bytes = (const uint8_t *)dt;
    d[0].len = strlen(dt);
    d[1].i = h;
    return pooled_row(types, d, 2);
}

/* (id INT, name STRING): a key of PK2. */
static sc_bytes key2_row(int32_t id, const char *name) {
    const sc_data_type types[] = {int_type, string_type};
    sc_datum d[2] = {{0}, {0}};
    d[0].i = id;
    d[1].bytes = (const uint8_t *)name;
    d[1].len = strlen(name);
    return pooled_row(types, d, 2);
}

static int commit_changes(sc_commit_result *r, sc_table *t, const char *user, int64_t ident, sc_commit_kind kind,
                          sc_changes *c) {
    sc_commit_request req = {user, ident, kind, 0, c};
    return sc_table_commit(r, t, &req);
}

static sc_changes *parse_ok(sc_table *t, const char *json) {
    sc_changes *c = NULL;
    cr_assert_eq(sc_table_parse_changes(&c, t, json, strlen(json)), 0, "%s: %s", json, sc_error_message());
    return c;
}

/* Commit the change set `json` to t; returns the library code. */
static int commit_json(sc_table *t, const char *user, int64_t ident, sc_commit_kind kind, const char *json) {
    sc_changes *c = parse_ok(t, json);
    int rc = commit_changes(NULL, t, user, ident, kind, c);
    sc_changes_free(c);
    return rc;
}

/* ---- entries refused ---- */

/*
 * Commit one add to t and expect SC_EINVAL naming add[0], the file and `field`, with
 * nothing written (no manifest, no snapshot).
 */
static void expect_refused(sc_table *t, const char *store, const sc_file_entry *e, const char *field) {
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    cr_assert_eq(sc_changes_add(c, e), 0, "accepted by sc_changes_add (it knows no schema): %s", sc_error_message());
    sc_commit_result r;
    int rc = commit_changes(&r, t, "u", 1, SC_KIND_APPEND, c);
    sc_changes_free(c);
    cr_assert_eq(rc, SC_EINVAL, "%s: got %s: %s", field, sc_error_name(rc), sc_error_message());
    const char *m = sc_error_message();
    char want[128];
    snprintf(want, sizeof want, "add[0] (%s): %s", e->file, field);
    cr_assert(strstr(m, want), "want \"%s\" in: %s", want, m);
    cr_assert_eq(r.stats.ops[SC_OP_PUT] + r.stats.ops[SC_OP_PUT_IF_ABSENT] + r.stats.ops[SC_OP_PUT_IF_MATCH], 0,
                 "%s: a refused entry must be refused before anything is written", field);
    cr_assert_eq(tu_count_keys(store, "manifest/", NULL), 0);
    cr_assert_eq(tu_latest(t), 0);
}

Test(entries, refused_with_einval_naming_the_field) {
    sc_table *pk = tu_schema_table("pe-refuse-pk", PK2);
    sc_table *app = tu_schema_table("pe-refuse-app", APPEND);
    sc_table *ipk = tu_schema_table("pe-refuse-int", INT_PK);
    sc_file_entry base = {.partition = part_row("2024-01-01", 3), .file = "f", .rows = 1, .size = 1,
                          .min_key = key2_row(1, "a"), .max_key = key2_row(2, "b")};

    /* A partition row of the wrong shape: one STRING where (STRING, INT) is declared; none at all. */
    sc_file_entry e = base;
    e.partition = tu_string_row("2024-01-01");
    expect_refused(pk, "pe-refuse-pk", &e, "partition");
    e.partition = (sc_bytes){NULL, 0}; /* the unpartitioned row */
    expect_refused(pk, "pe-refuse-pk", &e, "partition");

    /* Keys on a table without a primary key; no keys on a primary-key table. */
    e = base;
    e.total_buckets = -1;
    expect_refused(app, "pe-refuse-app", &e, "min_key/max_key: the table has no primary key");
    e = base;
    e.min_key = e.max_key = (sc_bytes){NULL, 0};
    expect_refused(pk, "pe-refuse-pk", &e, "min_key/max_key: required on a primary-key table");
    /* Keys of the wrong shape: the whole primary key instead of the trimmed one. */
    e = base;
    e.min_key = e.max_key = int_row(1);
    expect_refused(pk, "pe-refuse-pk", &e, "min_key");

    /* min_key > max_key in the typed order: 1 > -1, although 01 00 00 00 < ff ff ff ff as bytes. */
    sc_file_entry ie = {.file = "i", .rows = 1, .size = 1, .min_key = int_row(1), .max_key = int_row(-1)};
    expect_refused(ipk, "pe-refuse-int", &ie, "min_key: greater than max_key in the key's typed order");

    /* Buckets: 4 on a bucket-unaware table; bucket 1 there; a bucket at or above the table's count. */
    e = base;
    e.min_key = e.max_key = (sc_bytes){NULL, 0};
    e.total_buckets = 4;
    expect_refused(app, "pe-refuse-app", &e, "total_buckets: 4, but the table is bucket-unaware");
    e.total_buckets = -1;
    e.bucket = 1;
    expect_refused(app, "pe-refuse-app", &e, "bucket: 1, but a bucket-unaware table writes bucket 0");
    e = base;
    e.total_buckets = -1;
    expect_refused(pk, "pe-refuse-pk", &e, "total_buckets: -1, but the table has fixed buckets (bucket = 2)");
    e.total_buckets = 0; /* the table's 2 */
    e.bucket = 2;
    expect_refused(pk, "pe-refuse-pk", &e, "bucket: 2 is not below total_buckets 2");
    /* (with the count given, sc_changes_add refuses it already) */
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    e.total_buckets = 2;
    cr_assert_eq(sc_changes_add(c, &e), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "bucket: 2 is not below total_buckets 2"), "%s", sc_error_message());
    sc_changes_free(c);

    /* Value statistics of the wrong arity: 1 column for the 3 fields of APPEND; of the right
     * arity but with a null-count list of another length. */
    e = base;
    e.min_key = e.max_key = (sc_bytes){NULL, 0};
    static const int64_t nulls[3] = {0, 0, 0};
    e.value_stats = (sc_stats){tu_string_row("a"), tu_string_row("b"), nulls, 1};
    expect_refused(app, "pe-refuse-app", &e, "value_stats: rows of 1 and 1 fields for 3 columns");
    const sc_data_type three[] = {string_type, int_type, string_type};
    sc_datum lo[3] = {{0}, {0}, {0}}, hi[3] = {{0}, {0}, {0}};
    lo[0].bytes = hi[0].bytes = (const uint8_t *)"2024-01-01";
    lo[0].len = hi[0].len = 10;
    lo[2].is_null = hi[2].is_null = 1;
    e.value_stats = (sc_stats){pooled_row(three, lo, 3), pooled_row(three, hi, 3), nulls, 2};
    expect_refused(app, "pe-refuse-app", &e, "value_stats: 2 null counts for 3 columns");
    /* ...and with value_stats_cols naming 2 columns, rows of 3 are the wrong arity. */
    static const char *const cols[] = {"dt", "h"};
    e.value_stats.null_count_len = 3;
    e.has_value_stats_cols = 1;
    e.value_stats_cols = cols;
    e.value_stats_col_count = 2;
    expect_refused(app, "pe-refuse-app", &e, "value_stats: rows of 3 and 3 fields for 2 columns");

    /* A schema the table does not have (it has schema-0 only). */
    e = base;
    e.schema_id = 1;
    expect_refused(pk, "pe-refuse-pk", &e, "schema_id: 1 is not a schema of this table (current 0)");

    /* The same entries, corrected, are committed: the refusals were about those fields alone. */
    e = base;
    cr_assert_eq(sc_changes_new(&c), 0);
    cr_assert_eq(sc_changes_add(c, &e), 0);
    cr_assert_eq(commit_changes(NULL, pk, "u", 1, SC_KIND_APPEND, c), 0, "%s", sc_error_message());
    sc_changes_free(c);
    e.min_key = e.max_key = (sc_bytes){NULL, 0};
    e.value_stats = (sc_stats){pooled_row(three, lo, 3), pooled_row(three, hi, 3), nulls, 3};
    cr_assert_eq(sc_changes_new(&c), 0);
    cr_assert_eq(sc_changes_add(c, &e), 0);
    cr_assert_eq(commit_changes(NULL, app, "u", 1, SC_KIND_APPEND, c), 0, "%s", sc_error_message());
    sc_changes_free(c);
    sc_table_free(pk);
    sc_table_free(app);
    sc_table_free(ipk);
}

/* ---- entries completed ---- */

static int64_t fixed_now(void *ctx) {
    (void)ctx;
    return 1796090098758; /* the golden append_fixed snapshot 3's timeMillis */
}

Test(entries, completed_from_the_table_and_read_back_from_the_manifest) {
    sc_table *t = tu_schema_table("pe-complete", PK2);
    sc_env env;
    sc_env_init(&env);
    env.now_ms = fixed_now;
    cr_assert_eq(sc_table_set_env(t, &env), 0);
    sc_file_entry e = {.partition = part_row("2024-01-01", 3), .bucket = 1, .file = "f1", .rows = 7, .size = 700,
                       .min_key = key2_row(-5, "zz"), .max_key = key2_row(9, "aa"), .min_seq = 3, .max_seq = 9};
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    cr_assert_eq(sc_changes_add(c, &e), 0, "%s", sc_error_message());
    cr_assert_eq(commit_changes(NULL, t, "u", 1, SC_KIND_APPEND, c), 0, "%s", sc_error_message());
    /* Completed in place: committing the same change set again needs nothing re-derived. */
    const sc_file_entry *done = &c->adds.items[0].file;
    cr_assert_eq(done->total_buckets, 2, "total_buckets 0 becomes the table's bucket option");
    cr_assert(done->has_file_source && done->file_source == 0);
    sc_changes_free(c);

    /* Read back through the state layer (sc_table_files decodes the Avro manifests). */
    sc_file_list *l;
    cr_assert_eq(sc_table_files(&l, t, 0), 0, "%s", sc_error_message());
    cr_assert_eq(l->count, 1);
    const sc_file_entry *f = &l->entries[0];
    cr_assert_str_eq(f->file, "f1");
    cr_assert_eq(f->bucket, 1);
    cr_assert_eq(f->total_buckets, 2);
    cr_assert_eq(f->rows, 7);
    cr_assert_eq(f->size, 700);
    cr_assert_eq(f->min_seq, 3);
    cr_assert_eq(f->max_seq, 9);
    cr_assert_eq(f->schema_id, 0);
    cr_assert(f->has_file_source);
    cr_assert_eq(f->file_source, 0, "APPEND");
    cr_assert(f->has_creation_time);
    cr_assert_eq(f->creation_time_millis, 1796090098758, "the creation time comes from the table's clock");
    /* No value statistics given: "no columns" ([]), not null ("every column", which readers would index). */
    cr_assert(f->has_value_stats_cols);
    cr_assert_eq(f->value_stats_col_count, 0);
    uint32_t arity;
    cr_assert_eq(sc_row_arity(&arity, f->value_stats.min_values.data, f->value_stats.min_values.len, "min"), 0);
    cr_assert_eq(arity, 0);
    cr_assert_eq(f->value_stats.null_count_len, 0);
    /* Key statistics from the key range: rows sort by the first key field, so its bounds are
     * exact (-5 and 9); the second field's are unknown (null, null count -1). */
    const sc_data_type key_types[] = {int_type, string_type};
    sc_datum d;
    cr_assert_eq(f->key_stats.null_count_len, 2);
    cr_assert_eq(f->key_stats.null_counts[0], 0);
    cr_assert_eq(f->key_stats.null_counts[1], -1);
    cr_assert_eq(sc_row_get(&d, f->key_stats.min_values.data, f->key_stats.min_values.len, &key_types[0], 0, "min"), 0);
    cr_assert(!d.is_null && d.i == -5, "key_stats min id: %lld", (long long)d.i);
    cr_assert_eq(sc_row_get(&d, f->key_stats.max_values.data, f->key_stats.max_values.len, &key_types[0], 0, "max"), 0);
    cr_assert(!d.is_null && d.i == 9, "key_stats max id: %lld", (long long)d.i);
    cr_assert_eq(sc_row_get(&d, f->key_stats.min_values.data, f->key_stats.min_values.len, &key_types[1], 1, "min"), 0);
    cr_assert(d.is_null);
    cr_assert_eq(sc_row_get(&d, f->key_stats.max_values.data, f->key_stats.max_values.len, &key_types[1], 1, "max"), 0);
    cr_assert(d.is_null);
    /* The keys themselves are kept as given. */
    char *json = NULL;
    cr_assert_eq(sc_table_key_json(&json, t, f->min_key), 0, "%s", sc_error_message());
    cr_assert_str_eq(json, "[-5,\"zz\"]");
    free(json);
    cr_assert_eq(sc_table_key_json(&json, t, f->max_key), 0, "%s", sc_error_message());
    cr_assert_str_eq(json, "[9,\"aa\"]");
    free(json);
    sc_file_list_free(l);

    /* A COMPACT commit's new files are COMPACT files (file source 1); given statistics are kept. */
    sc_file_entry g = {.partition = part_row("2024-01-01", 3), .bucket = 1, .level = 1, .file = "f2", .rows = 7,
                       .size = 700, .min_key = key2_row(-5, "zz"), .max_key = key2_row(9, "aa"), .min_seq = 3,
                       .max_seq = 9};
    cr_assert_eq(tu_commit(NULL, t, "u", 2, SC_KIND_COMPACT, 0, &g, 1, &e, 1), 0, "%s", sc_error_message());
    cr_assert_eq(sc_table_files(&l, t, 0), 0, "%s", sc_error_message());
    cr_assert_eq(l->count, 1);
    cr_assert_str_eq(l->entries[0].file, "f2");
    cr_assert(l->entries[0].has_file_source);
    cr_assert_eq(l->entries[0].file_source, 1, "COMPACT");
    cr_assert_eq(l->entries[0].level, 1);
    sc_file_list_free(l);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

/* A table created without a schema: no fields, unpartitioned, bucket-unaware (total -1, bucket 0). */
Test(entries, table_without_schema_is_unpartitioned_and_bucket_unaware) {
    sc_table *t = tu_schema_table("pe-noschema", NULL);
    sc_file_entry e = {.file = "x.parquet", .rows = 3, .size = 30};
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    cr_assert_eq(sc_changes_add(c, &e), 0, "%s", sc_error_message());
    cr_assert_eq(commit_changes(NULL, t, "u", 1, SC_KIND_APPEND, c), 0, "%s", sc_error_message());
    sc_changes_free(c);
    sc_file_list *l;
    cr_assert_eq(sc_table_files(&l, t, 0), 0);
    cr_assert_eq(l->count, 1);
    cr_assert_eq(l->entries[0].total_buckets, -1);
    cr_assert_eq(l->entries[0].bucket, 0);
    char *path = NULL, *spec = NULL;
    cr_assert_eq(sc_table_file_path(&path, t, &l->entries[0]), 0, "%s", sc_error_message());
    cr_assert_str_eq(path, "bucket-0/x.parquet");
    cr_assert_eq(sc_table_partition_spec(&spec, t, l->entries[0].partition), 0);
    cr_assert_str_eq(spec, "");
    free(path);
    free(spec);
    char *key = NULL;
    cr_assert_eq(sc_table_key_json(&key, t, l->entries[0].min_key), SC_EINVAL, "no primary key, no key JSON");
    cr_assert_null(key);
    sc_file_list_free(l);
    /* A partition spec is refused: the table has no partition keys. */
    c = NULL;
    const char *json = "{\"add\":[{\"partition\":\"dt=1\",\"bucket\":0,\"level\":0,\"file\":\"y\",\"rows\":1,\"size\":1}]}";
    cr_assert_eq(sc_table_parse_changes(&c, t, json, strlen(json)), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "the table has no partition keys"), "%s", sc_error_message());
    cr_assert_null(c);
    sc_table_free(t);
}

/* ---- pruning by partition statistics ---- */

typedef struct manifest_gets {
    int manifests; /* GETs of manifest/manifest-* (not manifest lists) */
} manifest_gets;

static int count_manifest_gets(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    manifest_gets *g = ctx;
    if (op == SC_OP_GET && strncmp(key, "manifest/manifest-", 18) == 0 && strncmp(key, "manifest/manifest-list-", 23) != 0)
        g->manifests++;
    return 0;
}

/* Commit `json` (of `kind`) through a new handle; returns the manifests it read and its GETs.
 * Nothing is cached but the latest snapshot's delta manifests, which every commit reads
 * first (sc_state_check_delta, test_requests counts them): what is counted is what the
 * conflict check reads, which partition statistics and file indexes prune. */
static int measured_commit_kind(uint64_t *gets, int *manifests, const char *loc, int64_t ident, sc_commit_kind kind,
                                const char *json) {
    sc_table *t = tu_open(loc, (tu_table_opts){0});
    sc_snapshot latest;
    cr_assert_eq(sc_table_read_snapshot(&latest, NULL, t, tu_latest(t)), 0, "%s", sc_error_message());
    cr_assert_eq(sc_state_check_delta(t, &latest), 0, "%s", sc_error_message());
    sc_snapshot_clear(&latest);
    manifest_gets g = {0};
    sc_store_set_fault_hook(sc_table_store(t), count_manifest_gets, &g);
    sc_changes *c = parse_ok(t, json);
    sc_commit_result r;
    int rc = commit_changes(&r, t, "measured", ident, kind, c);
    sc_changes_free(c);
    *gets = r.stats.ops[SC_OP_GET];
    *manifests = g.manifests;
    sc_table_free(t);
    return rc;
}

static int measured_commit(uint64_t *gets, int *manifests, const char *loc, int64_t ident, const char *json) {
    return measured_commit_kind(gets, manifests, loc, ident, SC_KIND_APPEND, json);
}

static const char *append_json(const char *spec, const char *file) {
    int n = snprintf(NULL, 0, "{\"add\":[{\"partition\":\"%s\",\"bucket\":0,\"level\":0,\"file\":\"%s\",\"rows\":1,\"size\":1}]}",
                     spec, file);
    cr_assert(n > 0 && n < 160);
    char *json = (char *)tu_pool(160);
    snprintf(json, (size_t)n + 1, "{\"add\":[{\"partition\":\"%s\",\"bucket\":0,\"level\":0,\"file\":\"%s\",\"rows\":1,\"size\":1}]}",
             spec, file);
    return json;
}

Test(pruning, a_commit_reads_only_manifests_whose_partition_stats_can_hold_it) {
    const char *loc = "mem://pe-prune";
    sc_table *t = tu_schema_table("pe-prune", APPEND);
    /* 20 commits, one partition each: 20 manifests, each with stats [p, p] (below the merge threshold). */
    for (int i = 0; i < 20; i++) {
        char spec[64], file[32];
        snprintf(spec, sizeof spec, "dt=2024-01-%02d/h=%d", i + 1, i);
        snprintf(file, sizeof file, "f%d", i);
        cr_assert_eq(commit_json(t, "w", i + 1, SC_KIND_APPEND, append_json(spec, file)), 0, "%s", sc_error_message());
    }
    sc_table_free(t);
    uint64_t gets_hit, gets_miss, gets_new;
    int read_hit, read_miss, read_new;
    /* An OVERWRITE of one partition that exists scans its live files: its manifest is the only one read. */
    cr_assert_eq(measured_commit_kind(&gets_hit, &read_hit, loc, 1, SC_KIND_OVERWRITE,
                                      append_json("dt=2024-01-08/h=7", "new-7")),
                 0, "%s", sc_error_message());
    cr_assert_eq(read_hit, 1, "read %d manifests of 21 for an overwrite of one partition", read_hit);
    /* ... and of a partition no manifest can hold, none is read... */
    cr_assert_eq(measured_commit_kind(&gets_miss, &read_miss, loc, 2, SC_KIND_OVERWRITE,
                                      append_json("dt=2025-01-01/h=0", "new-x")),
                 0, "%s", sc_error_message());
    cr_assert_eq(read_miss, 0, "read %d manifests for a partition none holds", read_miss);
    /* ...and the commit's GET count says the same (a count, not a time). */
    cr_assert_eq(gets_hit, gets_miss + 1, "GETs: %lu for a held partition, %lu for a new one",
                 (unsigned long)gets_hit, (unsigned long)gets_miss);
    /* An APPEND of a new file to a held partition reads no manifest: the file indexes rule them out. */
    cr_assert_eq(measured_commit(&gets_new, &read_new, loc, 3, append_json("dt=2024-01-09/h=8", "new-8")), 0, "%s",
                 sc_error_message());
    cr_assert_eq(read_new, 0, "read %d manifests for a new file", read_new);
    /* The re-add of a live file is still found: the one manifest that holds it is read. */
    uint64_t gets_conflict;
    int read_conflict;
    cr_assert_eq(measured_commit(&gets_conflict, &read_conflict, loc, 4, append_json("dt=2024-01-13/h=12", "f12")),
                 SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "File addition conflict: f12"), "%s", sc_error_message());
    cr_assert_eq(read_conflict, 1);
    /* The control: listing every live file reads every manifest (20, +1 per measured commit that landed). */
    sc_table *all = tu_open(loc, (tu_table_opts){0});
    manifest_gets g = {0};
    sc_store_set_fault_hook(sc_table_store(all), count_manifest_gets, &g);
    cr_assert_eq(tu_file_count(all), 22); /* 20, f7 overwritten by new-7, + new-x, new-8 */
    cr_assert_eq(g.manifests, 23);
    sc_table_free(all);
}

/* Partition statistics are typed: one manifest holding h = -1 and h = 1 has the range [-1, 1]
 * (as bytes 01 00 00 00 < ff ff ff ff, the range would exclude both -1 and 0). */
Test(pruning, int_partition_stats_are_typed) {
    const char *loc = "mem://pe-prune-int";
    sc_table *t = tu_schema_table("pe-prune-int", APPEND);
    cr_assert_eq(commit_json(t, "w", 1, SC_KIND_APPEND,
                             "{\"add\":[{\"partition\":\"dt=d/h=-1\",\"bucket\":0,\"level\":0,\"file\":\"m1\",\"rows\":1,\"size\":1},"
                             "{\"partition\":\"dt=d/h=1\",\"bucket\":0,\"level\":0,\"file\":\"p1\",\"rows\":1,\"size\":1}]}"),
                 0, "%s", sc_error_message());
    /* Another partition on top, so that the manifest of [-1, 1] is not the latest snapshot's
     * delta (which every commit reads, measured_commit_kind). */
    cr_assert_eq(commit_json(t, "w", 2, SC_KIND_APPEND, append_json("dt=other/h=100", "o1")), 0, "%s",
                 sc_error_message());
    sc_table_free(t);
    uint64_t gets;
    int read;
    /* OVERWRITE scans the live files of its partition, through the partition statistics. */
    cr_assert_eq(measured_commit_kind(&gets, &read, loc, 1, SC_KIND_OVERWRITE, append_json("dt=d/h=0", "z0")), 0, "%s",
                 sc_error_message());
    cr_assert_eq(read, 1, "h=0 lies within [-1, 1]: the manifest may hold it");
    cr_assert_eq(measured_commit_kind(&gets, &read, loc, 2, SC_KIND_OVERWRITE, append_json("dt=d/h=5", "z5")), 0, "%s",
                 sc_error_message());
    cr_assert_eq(read, 0, "h=5 lies outside [-1, 1] (and outside [0, 0] of the last commit)");
    /* Re-adding the file of h=-1 is a conflict: its manifest must not be skipped. */
    cr_assert_eq(measured_commit(&gets, &read, loc, 3, append_json("dt=d/h=-1", "m1")), SC_ECONFLICT, "%s",
                 sc_error_message());
    cr_assert(strstr(sc_error_message(), "File addition conflict: m1 (partition \"dt=d/h=-1\""), "%s", sc_error_message());
}

/* ---- the change-set JSON of a table ---- */

static void expect_parse_refused(sc_table *t, const char *json, const char *says) {
    sc_changes *c = NULL;
    int rc = sc_table_parse_changes(&c, t, json, strlen(json));
    cr_assert_eq(rc, SC_EINVAL, "%s: got %s (%s)", json, sc_error_name(rc), sc_error_message());
    cr_assert_null(c);
    cr_assert(strstr(sc_error_message(), says), "want \"%s\" in: %s", says, sc_error_message());
}

#define ENTRY(fields) "{\"add\":[{" fields "}]}"

Test(change_json, specs_typed_keys_and_sequence_numbers) {
    sc_table *t = tu_schema_table("pe-json", PK2);
    sc_changes *c = parse_ok(t, "{\"add\":[{\"partition\":\"dt=2024-01-01/h=3\",\"bucket\":1,\"totalBuckets\":2,\"level\":2,"
                                "\"file\":\"data-1.parquet\",\"rows\":10,\"size\":100,\"minKey\":[-7,\"a b\"],"
                                "\"maxKey\":[7,\"\\u00e9\"],\"minSeq\":4,\"maxSeq\":12}],"
                                "\"delete\":[{\"partition\":\"h=3/dt=2024-01-01/\",\"bucket\":0,\"level\":0,\"file\":\"old\","
                                "\"rows\":1,\"size\":1,\"minKey\":[1,\"x\"],\"maxKey\":[1,\"x\"]}]}");
    cr_assert_eq(sc_changes_add_count(c), 1);
    cr_assert_eq(sc_changes_delete_count(c), 1);
    const sc_file_entry *a = &c->adds.items[0].file, *d = &c->deletes.items[0].file;
    /* The partition is the BinaryRow of (dt, h), whatever the order of the spec's keys. */
    sc_bytes want = part_row("2024-01-01", 3);
    cr_assert_eq(a->partition.len, want.len);
    cr_assert_eq(memcmp(a->partition.data, want.data, want.len), 0);
    cr_assert_eq(d->partition.len, want.len);
    cr_assert_eq(memcmp(d->partition.data, want.data, want.len), 0);
    sc_bytes kmin = key2_row(-7, "a b");
    cr_assert_eq(a->min_key.len, kmin.len);
    cr_assert_eq(memcmp(a->min_key.data, kmin.data, kmin.len), 0);
    cr_assert_eq(a->bucket, 1);
    cr_assert_eq(a->total_buckets, 2);
    cr_assert_eq(a->level, 2);
    cr_assert_eq(a->rows, 10);
    cr_assert_eq(a->size, 100);
    cr_assert_eq(a->min_seq, 4);
    cr_assert_eq(a->max_seq, 12);
    cr_assert_eq(d->total_buckets, 0, "absent: the table's setting, filled in at commit");
    /* Spec, path and keys back as text. */
    char *s = NULL;
    cr_assert_eq(sc_table_partition_spec(&s, t, a->partition), 0);
    cr_assert_str_eq(s, "dt=2024-01-01/h=3");
    free(s);
    cr_assert_eq(sc_table_file_path(&s, t, a), 0);
    cr_assert_str_eq(s, "dt=2024-01-01/h=3/bucket-1/data-1.parquet");
    free(s);
    cr_assert_eq(sc_table_key_json(&s, t, a->max_key), 0);
    cr_assert_str_eq(s, "[7,\"\\u00E9\"]");
    free(s);
    sc_changes_free(c);

    /* Values needing escapes: a '/' in dt is %2F in the path and the spec, and parses back. */
    c = parse_ok(t, ENTRY("\"partition\":\"dt=a%2Fb:c/h=-2\",\"bucket\":0,\"level\":0,\"file\":\"f\",\"rows\":1,\"size\":1,"
                          "\"minKey\":[1,\"k\"],\"maxKey\":[1,\"k\"]"));
    want = part_row("a/b:c", -2);
    cr_assert_eq(c->adds.items[0].file.partition.len, want.len);
    cr_assert_eq(memcmp(c->adds.items[0].file.partition.data, want.data, want.len), 0);
    cr_assert_eq(sc_table_file_path(&s, t, &c->adds.items[0].file), 0);
    cr_assert_str_eq(s, "dt=a%2Fb%3Ac/h=-2/bucket-0/f");
    free(s);
    sc_changes_free(c);

    /* A one-field key takes a bare value or a one-element array. */
    sc_table *one = tu_schema_table("pe-json-one", INT_PK);
    c = parse_ok(one, ENTRY("\"partition\":\"\",\"bucket\":0,\"level\":0,\"file\":\"f\",\"rows\":1,\"size\":1,"
                            "\"minKey\":-3,\"maxKey\":[2147483647]"));
    cr_assert_eq(sc_table_key_json(&s, one, c->adds.items[0].file.min_key), 0);
    cr_assert_str_eq(s, "[-3]");
    free(s);
    cr_assert_eq(sc_table_key_json(&s, one, c->adds.items[0].file.max_key), 0);
    cr_assert_str_eq(s, "[2147483647]");
    free(s);
    sc_changes_free(c);
    expect_parse_refused(one, ENTRY("\"partition\":\"\",\"bucket\":0,\"level\":0,\"file\":\"f\",\"rows\":1,\"size\":1,"
                                    "\"minKey\":2147483648,\"maxKey\":1"),
                         "changes: add[0].minKey[0]");
    sc_table_free(one);
    sc_table_free(t);
}

Test(change_json, bad_entries_are_einval_naming_entry_and_field) {
    sc_table *t = tu_schema_table("pe-json-bad", PK2);
#define REST "\"bucket\":0,\"level\":0,\"rows\":1,\"size\":1,\"minKey\":[1,\"a\"],\"maxKey\":[1,\"a\"]"
    /* A file is named alone: no directory, no way out of the bucket directory. */
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"sub/f\"," REST),
                         "changes: add[0]: file \"sub/f\": a file name has no \"/\"");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"../f\"," REST), "file \"../f\"");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"..\"," REST), "file \"..\": not a file name");
    /* Partition specs: an unknown key, a missing key, a value of the wrong type, a key given twice. */
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/hour=1\",\"file\":\"f\"," REST),
                         "changes: add[0].partition: partition spec \"dt=d/hour=1\": \"hour\" is no partition key");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d\",\"file\":\"f\"," REST), "changes: add[0].partition");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=abc\",\"file\":\"f\"," REST), "changes: add[0].partition");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=abc\",\"file\":\"f\"," REST), "abc");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1/h=2\",\"file\":\"f\"," REST), "key \"h\" given twice");
    expect_parse_refused(t, ENTRY("\"partition\":\"\",\"file\":\"f\"," REST), "changes: add[0].partition");
    /* Keys: a null value (primary-key fields are NOT NULL), the wrong type, the wrong count, a bare
     * value for a two-field key. */
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"f\",\"bucket\":0,\"level\":0,\"rows\":1,\"size\":1,"
                                  "\"minKey\":[null,\"a\"],\"maxKey\":[1,\"a\"]"),
                         "changes: add[0].minKey[0]: null, but primary-key fields are NOT NULL");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"f\",\"bucket\":0,\"level\":0,\"rows\":1,\"size\":1,"
                                  "\"minKey\":[1,\"a\"],\"maxKey\":[\"x\",\"a\"]"),
                         "changes: add[0].maxKey[0]");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"f\",\"bucket\":0,\"level\":0,\"rows\":1,\"size\":1,"
                                  "\"minKey\":[1],\"maxKey\":[1,\"a\"]"),
                         "changes: add[0].minKey has 1 values, the primary key (without partition fields) has 2");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"f\",\"bucket\":0,\"level\":0,\"rows\":1,\"size\":1,"
                                  "\"minKey\":1,\"maxKey\":[1,\"a\"]"),
                         "changes: add[0].minKey must be an array");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"f\",\"bucket\":0,\"level\":0,\"rows\":1,\"size\":1,"
                                  "\"minKey\":[1,\"a\"]"),
                         "min_key: present without max_key");
    /* Sequence numbers: integers, min <= max. */
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"f\"," REST ",\"minSeq\":5,\"maxSeq\":4"),
                         "min_seq: 5 is above max_seq 4");
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"f\"," REST ",\"minSeq\":\"5\""),
                         "changes: add[0].minSeq must be an integer");
    /* totalBuckets: -1, 0, or a count. */
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"f\"," REST ",\"totalBuckets\":-2"),
                         "changes: add[0].totalBuckets must be -1");
    /* An unknown field, and the second entry is named as such. */
    expect_parse_refused(t, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"f\"," REST ",\"path\":\"x\""),
                         "changes: add[0].path is not a known field");
    expect_parse_refused(t, "{\"add\":[{\"partition\":\"dt=d/h=1\",\"file\":\"f\"," REST "},"
                            "{\"partition\":\"dt=d/h=x\",\"file\":\"g\"," REST "}]}",
                         "changes: add[1].partition");
    /* Keys on a table without a primary key. */
    sc_table *app = tu_schema_table("pe-json-app", APPEND);
    expect_parse_refused(app, ENTRY("\"partition\":\"dt=d/h=1\",\"file\":\"f\",\"bucket\":0,\"level\":0,\"rows\":1,"
                                    "\"size\":1,\"minKey\":[1],\"maxKey\":[1]"),
                         "changes: add[0].minKey is given, but the table has no primary key");
#undef REST
    /* Nothing was committed by any of it. */
    cr_assert_eq(tu_latest(t), 0);
    sc_table_free(app);
    sc_table_free(t);
}

/* ---- a table Paimon wrote ---- */

static int path_exists(const char *dir, const char *rel) {
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

Test(paimon_table, adopted_without_schema_and_committed_onto) {
    const char *src = getenv("SC_SOURCE_DIR");
    cr_assert_not_null(src, "SC_SOURCE_DIR is set by ctest");
    char dir[] = "/tmp/sc-pe-golden.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp -R '%s/tests/vectors/paimon-1.4.2/warehouse/golden.db/append_fixed/.' '%s/'", src, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);

    /* Adopt: without a schema, create takes the table's own schema-0 and adds only snapcommit's metadata. */
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, dir), 0);
    cr_assert_eq(sc_table_create_with_schema(s, SC_STRATEGY_AUTO, APPEND, strlen(APPEND)), SC_ETABLEEXISTS,
                 "a schema given for an existing Paimon table is refused, not written over it");
    cr_assert(strstr(sc_error_message(), "schema/schema-0 is present"), "%s", sc_error_message());
    cr_assert_eq(sc_table_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    cr_assert_eq(sc_table_create(s, SC_STRATEGY_AUTO), SC_ETABLEEXISTS, "adopted once");
    sc_store_free(s);
    sc_table *t = tu_open(dir, (tu_table_opts){0});
    char *schema;
    size_t schema_len;
    cr_assert_eq(sc_table_schema_json(&schema, &schema_len, t), 0);
    cr_assert(strstr(schema, "\"bucket-key\""), "Paimon's schema is the table's: %s", schema);
    free(schema);
    cr_assert_eq(tu_latest(t), 3);
    int64_t last = 0;
    int found = 0;
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "golden-writer"), 0, "%s", sc_error_message());
    cr_assert(found);
    cr_assert_eq(last, 3);
    cr_assert_eq(tu_file_count(t), 7, "Paimon's seven data files");

    /* Commit onto it: totalBuckets left to the table (bucket = 2). */
    sc_changes *c = parse_ok(t, "{\"add\":[{\"partition\":\"dt=2024-01-01/h=0\",\"bucket\":1,\"level\":0,"
                                "\"file\":\"data-snapcommit-0.parquet\",\"rows\":4,\"size\":1234}]}");
    sc_commit_result r;
    cr_assert_eq(commit_changes(&r, t, "sc-job", 1, SC_KIND_APPEND, c), 0, "%s", sc_error_message());
    sc_changes_free(c);
    cr_assert_eq(r.snapshot_id, 4);
    sc_snapshot_info *info;
    cr_assert_eq(sc_table_snapshot_info(&info, t, 4), 0, "%s", sc_error_message());
    cr_assert_eq(info->total_record_count, 12, "Paimon's 8 records + our 4");
    cr_assert_eq(info->delta_record_count, 4);
    cr_assert_eq(info->file_count, 8);
    sc_snapshot_info_free(info);
    cr_assert(path_exists(dir, "snapshot/snapshot-4"), "Paimon's name for snapshot 4");

    /* Paimon's files plus ours, each where the table says it lives. */
    sc_file_list *l;
    cr_assert_eq(sc_table_files(&l, t, 0), 0, "%s", sc_error_message());
    cr_assert_eq(l->count, 8);
    int ours = 0, paimons = 0;
    for (size_t i = 0; i < l->count; i++) {
        char *path = NULL;
        cr_assert_eq(sc_table_file_path(&path, t, &l->entries[i]), 0, "%s", sc_error_message());
        if (strcmp(l->entries[i].file, "data-snapcommit-0.parquet") == 0) {
            ours++;
            cr_assert_str_eq(path, "dt=2024-01-01/h=0/bucket-1/data-snapcommit-0.parquet");
            cr_assert_eq(l->entries[i].total_buckets, 2);
        } else {
            paimons++;
            cr_assert(path_exists(dir, path), "Paimon's file %s is not at %s", l->entries[i].file, path);
        }
        free(path);
    }
    sc_file_list_free(l);
    cr_assert_eq(ours, 1);
    cr_assert_eq(paimons, 7);
    /* Both users' watermarks are in the latest snapshot. */
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "golden-writer"), 0);
    cr_assert(found);
    cr_assert_eq(last, 3, "Paimon's writer keeps its identifier 3 after our commit");
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "sc-job"), 0);
    cr_assert(found);
    cr_assert_eq(last, 1);
    int64_t replay[] = {2, 3, 4};
    size_t kept = 0;
    cr_assert_eq(sc_table_filter_committed(replay, &kept, t, "golden-writer", replay, 3), 0);
    cr_assert_eq(kept, 1);
    cr_assert_eq(replay[0], 4);
    /* A real conflict with Paimon's files: deleting one of them twice. */
    const char *del = "{\"delete\":[{\"partition\":\"dt=2024-01-02/h=10\",\"bucket\":0,\"level\":0,"
                      "\"file\":\"data-1401a5bb-130a-4f7f-8302-0e7453ea1ed6-0.parquet\",\"rows\":1,\"size\":1}]}";
    cr_assert_eq(commit_json(t, "sc-job", 2, SC_KIND_COMPACT, del), 0, "%s", sc_error_message());
    cr_assert_eq(commit_json(t, "sc-other", 1, SC_KIND_COMPACT, del), SC_ECONFLICT);
    cr_assert(strstr(sc_error_message(), "File deletion conflict"), "%s", sc_error_message());
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
