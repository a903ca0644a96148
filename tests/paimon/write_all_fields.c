/*
 * write_all_fields — writes a table whose manifests carry every member of
 * sc_file_entry (format version 2) with a distinctive value, through the
 * library, and prints what it meant to write as JSON on stdout. Paimon 1.4.2
 * then decodes the table (PaimonTool dump-table) and
 * tests/paimon/check_our_manifests.py compares both field by field
 * (ctest paimon_decodes_our_manifests, tests/paimon/our_manifests_test.sh).
 *
 *   write_all_fields DIR     DIR must not hold a table yet
 *
 * The table: fields dt STRING, h INT, id INT, name STRING, v BIGINT,
 * score DOUBLE; partitioned by (dt, h); primary key (dt, h, id, name), so the
 * trimmed key is (id, name); bucket 2. Commit 1 (APPEND) adds e1 (level 1,
 * every optional member set), e2 (level 0, value statistics of two columns)
 * and e3 (only the required members: the engine completes statistics, file
 * source, creation time and total buckets). Commit 2 (COMPACT) deletes e2 and
 * adds e4 (level 2) in another partition, so its manifest holds a DELETE
 * record.
 *
 * Expected JSON: {"schema":{...types...},"commits":[{"user","identifier",
 * "kind","snapshot","add":[ENTRY],"delete":[ENTRY]}]}, ENTRY with every
 * member: rows as arrays of values (null for a null field), null counts as
 * given (-1 = unknown), "completed" naming the members the engine fills in.
 * Exit status 0 on success, 1 on any library error (message on stderr).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapcommit/snapcommit.h"
#include "base/buf.h"
#include "format/binary_row.h"

#define SCHEMA                                                                                                  \
    "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"h\",\"type\":\"INT\"},"                     \
    "{\"name\":\"id\",\"type\":\"INT\"},{\"name\":\"name\",\"type\":\"STRING\"},"                               \
    "{\"name\":\"v\",\"type\":\"BIGINT\"},{\"name\":\"score\",\"type\":\"DOUBLE\"}],"                           \
    "\"partitionKeys\":[\"dt\",\"h\"],\"primaryKeys\":[\"dt\",\"h\",\"id\",\"name\"],"                          \
    "\"options\":{\"bucket\":\"2\"}}"

static const sc_data_type T_STR = {SC_TYPE_VARCHAR, 1, SC_TYPE_MAX_LENGTH, 0, 0, NULL};
static const sc_data_type T_INT = {SC_TYPE_INT, 1, 0, 0, 0, NULL};
static const sc_data_type T_BIGINT = {SC_TYPE_BIGINT, 1, 0, 0, 0, NULL};
static const sc_data_type T_DOUBLE = {SC_TYPE_DOUBLE, 1, 0, 0, 0, NULL};

/* A row under construction: its types and values (at most 6 fields here). */
typedef struct row {
    size_t arity;
    sc_data_type types[6];
    sc_datum values[6];
} row;

static sc_datum str(const char *s) { return (sc_datum){.bytes = (const uint8_t *)s, .len = strlen(s)}; }
static sc_datum num(int64_t i) { return (sc_datum){.i = i}; }
static sc_datum dbl(double f) { return (sc_datum){.f = f}; }
static sc_datum null_value(void) { return (sc_datum){.is_null = 1}; }

/* Encoded rows: entries borrow them until the end of main (free_rows). */
static uint8_t *rows_kept[64];
static size_t rows_kept_count;

static sc_bytes encode(const row *r) {
    sc_buf b = SC_BUF_INIT;
    if (rows_kept_count == sizeof rows_kept / sizeof rows_kept[0] || sc_row_encode(&b, r->types, r->values, r->arity) != 0) {
        fprintf(stderr, "write_all_fields: sc_row_encode: %s\n", sc_error_message());
        exit(1);
    }
    rows_kept[rows_kept_count++] = b.data;
    return (sc_bytes){b.data, b.len};
}

static void free_rows(void) {
    for (size_t i = 0; i < rows_kept_count; i++) free(rows_kept[i]);
    rows_kept_count = 0;
}

static row partition_row(const char *dt, int64_t h) {
    return (row){2, {T_STR, T_INT}, {str(dt), num(h)}};
}
static row key_row(sc_datum id, sc_datum name) {
    return (row){2, {T_INT, T_STR}, {id, name}};
}
static row full_row(sc_datum dt, sc_datum h, sc_datum id, sc_datum name, sc_datum v, sc_datum score) {
    return (row){6, {T_STR, T_INT, T_INT, T_STR, T_BIGINT, T_DOUBLE}, {dt, h, id, name, v, score}};
}

/* ---- JSON output ---- */

static void json_str(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

static void json_datum(const sc_datum *d, const sc_data_type *t) {
    if (d->is_null) {
        fputs("null", stdout);
    } else if (t->root == SC_TYPE_VARCHAR) {
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)d->len, (const char *)d->bytes);
        json_str(buf);
    } else if (t->root == SC_TYPE_DOUBLE) {
        printf("%.17g", d->f);
    } else {
        printf("%" PRId64, d->i);
    }
}

static void json_row(const row *r) {
    putchar('[');
    for (size_t i = 0; i < r->arity; i++) {
        if (i) putchar(',');
        json_datum(&r->values[i], &r->types[i]);
    }
    putchar(']');
}

static void json_strings(const char *const *s, size_t n) {
    putchar('[');
    for (size_t i = 0; i < n; i++) {
        if (i) putchar(',');
        json_str(s[i]);
    }
    putchar(']');
}

static void json_counts(const int64_t *c, size_t n) {
    putchar('[');
    for (size_t i = 0; i < n; i++) printf("%s%" PRId64, i ? "," : "", c[i]);
    putchar(']');
}

/* What one entry means: the entry given to the library plus the rows it was built from. */
typedef struct spec {
    sc_file_entry e;
    row partition, min_key, max_key;
    int has_key_stats, has_value_stats;
    row key_min, key_max, value_min, value_max;
} spec;

static void json_stats(const char *name, int present, const row *min, const row *max, const sc_stats *s) {
    printf(",\"%s\":", name);
    if (!present) {
        fputs("null", stdout);
        return;
    }
    fputs("{\"min\":", stdout);
    json_row(min);
    fputs(",\"max\":", stdout);
    json_row(max);
    fputs(",\"nullCounts\":", stdout);
    json_counts(s->null_counts, s->null_count_len);
    putchar('}');
}

static void json_entry(const spec *s) {
    const sc_file_entry *e = &s->e;
    fputs("{\"partition\":", stdout);
    json_row(&s->partition);
    printf(",\"bucket\":%d,\"totalBuckets\":%d,\"level\":%d,\"fileName\":", (int)e->bucket, (int)e->total_buckets,
           (int)e->level);
    json_str(e->file);
    printf(",\"rowCount\":%" PRId64 ",\"fileSize\":%" PRId64 ",\"minKey\":", e->rows, e->size);
    json_row(&s->min_key);
    fputs(",\"maxKey\":", stdout);
    json_row(&s->max_key);
    json_stats("keyStats", s->has_key_stats, &s->key_min, &s->key_max, &e->key_stats);
    json_stats("valueStats", s->has_value_stats, &s->value_min, &s->value_max, &e->value_stats);
    printf(",\"minSequenceNumber\":%" PRId64 ",\"maxSequenceNumber\":%" PRId64 ",\"schemaId\":%" PRId64
           ",\"extraFiles\":",
           e->min_seq, e->max_seq, e->schema_id);
    json_strings(e->extra_files, e->extra_file_count);
    fputs(",\"creationTimeMillis\":", stdout);
    if (e->has_creation_time) printf("%" PRId64, e->creation_time_millis);
    else fputs("null", stdout);
    fputs(",\"deleteRowCount\":", stdout);
    if (e->has_delete_row_count) printf("%" PRId64, e->delete_row_count);
    else fputs("null", stdout);
    fputs(",\"embeddedIndex\":", stdout);
    if (e->embedded_index.data) {
        putchar('"');
        for (size_t i = 0; i < e->embedded_index.len; i++) printf("%02x", e->embedded_index.data[i]);
        putchar('"');
    } else {
        fputs("null", stdout);
    }
    fputs(",\"fileSource\":", stdout);
    if (e->has_file_source) json_str(e->file_source ? "COMPACT" : "APPEND");
    else fputs("null", stdout);
    fputs(",\"valueStatsCols\":", stdout);
    if (e->has_value_stats_cols) json_strings(e->value_stats_cols, e->value_stats_col_count);
    else fputs("null", stdout);
    fputs(",\"externalPath\":", stdout);
    if (e->external_path) json_str(e->external_path);
    else fputs("null", stdout);
    fputs(",\"firstRowId\":", stdout);
    if (e->has_first_row_id) printf("%" PRId64, e->first_row_id);
    else fputs("null", stdout);
    fputs(",\"writeCols\":", stdout);
    if (e->has_write_cols) json_strings(e->write_cols, e->write_col_count);
    else fputs("null", stdout);
    putchar('}');
}

/* ---- the entries ---- */

static const char *const E1_EXTRA[] = {"data-e1.parquet.index", "changelog-e1.orc"};
static const char *const ALL_COLS[] = {"dt", "h", "id", "name", "v", "score"};
static const char *const E2_STATS_COLS[] = {"id", "v"};
static const char *const E4_STATS_COLS[] = {"score", "name", "h"};
static const uint8_t E1_INDEX[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff, 0x00, 0x42};
static const uint8_t E4_INDEX[] = {0xca, 0xfe};
static const int64_t E1_KEY_NULLS[] = {0, -1};
static const int64_t E1_VALUE_NULLS[] = {0, 0, 0, 2, -1, 5};
static const int64_t E2_KEY_NULLS[] = {0, 0};
static const int64_t E2_VALUE_NULLS[] = {1, -1};
static const int64_t E4_KEY_NULLS[] = {3, 0};
static const int64_t E4_VALUE_NULLS[] = {-1, 0, 0};

static void finish(spec *s) {
    s->e.partition = encode(&s->partition);
    s->e.min_key = encode(&s->min_key);
    s->e.max_key = encode(&s->max_key);
    if (s->has_key_stats) {
        s->e.key_stats.min_values = encode(&s->key_min);
        s->e.key_stats.max_values = encode(&s->key_max);
    }
    if (s->has_value_stats) {
        s->e.value_stats.min_values = encode(&s->value_min);
        s->e.value_stats.max_values = encode(&s->value_max);
    }
}

/* e1: level 1, every optional member present, a negative id, strings inline and not. */
static spec make_e1(void) {
    spec s = {0};
    s.partition = partition_row("2024-01-01", 3);
    s.min_key = key_row(num(-5), str("alpha"));
    s.max_key = key_row(num(7), str("a longer name value"));
    s.has_key_stats = 1;
    s.key_min = key_row(num(-5), str("a longer name value"));
    s.key_max = key_row(num(7), str("z\xc3\xbcrich-\xce\xa9")); /* "zürich-Ω" */
    s.has_value_stats = 1;
    s.value_min = full_row(str("2024-01-01"), num(3), num(-5), str("a longer name value"), num(-9000000000LL),
                           null_value());
    s.value_max = full_row(str("2024-01-01"), num(3), num(7), null_value(), num(123456789012LL), dbl(2.75));
    sc_file_entry *e = &s.e;
    e->bucket = 0;
    e->total_buckets = 2;
    e->level = 1;
    e->file = "data-e1.parquet";
    e->rows = 1000;
    e->size = 123457;
    e->key_stats.null_counts = E1_KEY_NULLS;
    e->key_stats.null_count_len = 2;
    e->value_stats.null_counts = E1_VALUE_NULLS;
    e->value_stats.null_count_len = 6;
    e->min_seq = 10;
    e->max_seq = 1009;
    e->schema_id = 0;
    e->extra_files = E1_EXTRA;
    e->extra_file_count = 2;
    e->has_creation_time = 1;
    e->creation_time_millis = 1718000000123LL;
    e->has_delete_row_count = 1;
    e->delete_row_count = 7;
    e->has_file_source = 1;
    e->file_source = 1;
    e->embedded_index = (sc_bytes){E1_INDEX, sizeof E1_INDEX};
    e->external_path = "file:/tmp/snapcommit-ext/dt=2024-01-01/h=3/bucket-0/data-e1.parquet";
    e->has_first_row_id = 1;
    e->first_row_id = 42;
    e->has_write_cols = 1;
    e->write_cols = ALL_COLS;
    e->write_col_count = 6;
    finish(&s);
    return s;
}

/* e2: level 0 in bucket 1 of another partition (negative h), value statistics of two columns. */
static spec make_e2(void) {
    spec s = {0};
    s.partition = partition_row("2024-02-29", -1);
    s.min_key = key_row(num(-2147483647 - 1), str("b"));
    s.max_key = key_row(num(2147483647), str(""));
    s.has_key_stats = 1;
    s.key_min = key_row(num(-2147483647 - 1), str(""));
    s.key_max = key_row(num(2147483647), str("b"));
    s.has_value_stats = 1;
    s.value_min = (row){2, {T_INT, T_BIGINT}, {num(-2147483647 - 1), null_value()}};
    s.value_max = (row){2, {T_INT, T_BIGINT}, {num(2147483647), num(-1)}};
    sc_file_entry *e = &s.e;
    e->bucket = 1;
    e->total_buckets = 2;
    e->level = 0;
    e->file = "data-e2.orc";
    e->rows = 3;
    e->size = 999;
    e->key_stats.null_counts = E2_KEY_NULLS;
    e->key_stats.null_count_len = 2;
    e->value_stats.null_counts = E2_VALUE_NULLS;
    e->value_stats.null_count_len = 2;
    e->min_seq = 1010;
    e->max_seq = 1012;
    e->has_creation_time = 1;
    e->creation_time_millis = 86400000LL;
    e->has_delete_row_count = 1;
    e->delete_row_count = 0;
    e->has_file_source = 1;
    e->file_source = 0;
    e->has_value_stats_cols = 1;
    e->value_stats_cols = E2_STATS_COLS;
    e->value_stats_col_count = 2;
    finish(&s);
    return s;
}

/* e3: the required members only; total_buckets 0 = the table's. */
static spec make_e3(void) {
    spec s = {0};
    s.partition = partition_row("2024-01-01", 3);
    s.min_key = key_row(num(100), str("m"));
    s.max_key = key_row(num(200), str("n"));
    sc_file_entry *e = &s.e;
    e->bucket = 1;
    e->level = 0;
    e->file = "data-e3.avro";
    e->rows = 11;
    e->size = 2048;
    e->min_seq = 5;
    e->max_seq = 15;
    finish(&s);
    return s;
}

/* e4 (commit 2): level 2, statistics of three columns in another order, null key-stat fields. */
static spec make_e4(void) {
    spec s = {0};
    s.partition = partition_row("2023-12-31", 23);
    s.min_key = key_row(num(-1), str("same"));
    s.max_key = key_row(num(-1), str("samf"));
    s.has_key_stats = 1;
    s.key_min = key_row(null_value(), str("same"));
    s.key_max = key_row(null_value(), str("samf"));
    s.has_value_stats = 1;
    s.value_min = (row){3, {T_DOUBLE, T_STR, T_INT}, {dbl(-0.5), str("same"), num(23)}};
    s.value_max = (row){3, {T_DOUBLE, T_STR, T_INT}, {dbl(1e300), str("samf"), num(23)}};
    sc_file_entry *e = &s.e;
    e->bucket = 0;
    e->total_buckets = 2;
    e->level = 2;
    e->file = "data-e4.parquet";
    e->rows = 2;
    e->size = 77;
    e->key_stats.null_counts = E4_KEY_NULLS;
    e->key_stats.null_count_len = 2;
    e->value_stats.null_counts = E4_VALUE_NULLS;
    e->value_stats.null_count_len = 3;
    e->min_seq = 2000;
    e->max_seq = 2001;
    e->schema_id = 0;
    e->has_creation_time = 1;
    e->creation_time_millis = -1000LL; /* before 1970: a negative millis */
    e->has_delete_row_count = 1;
    e->delete_row_count = 2;
    e->has_file_source = 1;
    e->file_source = 1;
    e->has_value_stats_cols = 1;
    e->value_stats_cols = E4_STATS_COLS;
    e->value_stats_col_count = 3;
    e->embedded_index = (sc_bytes){E4_INDEX, sizeof E4_INDEX};
    e->external_path = "s3://bucket/ext/e4.parquet";
    e->has_first_row_id = 1;
    e->first_row_id = 0;
    e->has_write_cols = 1;
    e->write_cols = E4_STATS_COLS;
    e->write_col_count = 3;
    finish(&s);
    return s;
}

static int fail(const char *what, int rc) {
    fprintf(stderr, "write_all_fields: %s: %s (%s)\n", what, sc_error_message(), sc_error_name(rc));
    return 1;
}

/* Commit adds and deletes; print the commit's expectation (entries as completed by the engine). */
static int commit(sc_table *t, int64_t identifier, sc_commit_kind kind, spec *adds, size_t n_adds, spec *dels,
                  size_t n_dels, int first) {
    sc_changes *c = NULL;
    int rc = sc_changes_new(&c);
    for (size_t i = 0; !rc && i < n_adds; i++) rc = sc_changes_add(c, &adds[i].e);
    for (size_t i = 0; !rc && i < n_dels; i++) rc = sc_changes_delete(c, &dels[i].e);
    if (rc) {
        sc_changes_free(c);
        return fail("sc_changes_add/delete", rc);
    }
    sc_commit_request req = {.commit_user = "all-fields-user", .identifier = identifier, .kind = kind, .changes = c};
    sc_commit_result res;
    rc = sc_table_commit(&res, t, &req);
    sc_changes_free(c);
    if (rc) return fail("sc_table_commit", rc);
    printf("%s{\"user\":\"all-fields-user\",\"identifier\":%" PRId64 ",\"kind\":\"%s\",\"snapshot\":%" PRIu64
           ",\"add\":[",
           first ? "" : ",", identifier, sc_commit_kind_name(kind), res.snapshot_id);
    for (size_t i = 0; i < n_adds; i++) {
        if (i) putchar(',');
        json_entry(&adds[i]);
    }
    fputs("],\"delete\":[", stdout);
    for (size_t i = 0; i < n_dels; i++) {
        if (i) putchar(',');
        json_entry(&dels[i]);
    }
    fputs("]}", stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: write_all_fields DIR\n");
        return 2;
    }
    sc_store *store = NULL;
    int rc = sc_store_open(&store, argv[1]);
    if (rc) return fail("sc_store_open", rc);
    rc = sc_table_create_with_schema(store, SC_STRATEGY_AUTO, SCHEMA, strlen(SCHEMA));
    sc_table *t = NULL;
    if (!rc) rc = sc_table_open(&t, store);
    if (rc) {
        sc_store_free(store);
        return fail("create/open", rc);
    }
    spec c1[3] = {make_e1(), make_e2(), make_e3()};
    spec c2[1] = {make_e4()};
    fputs("{\"schema\":" SCHEMA ",\"commits\":[", stdout);
    int bad = commit(t, 1, SC_KIND_APPEND, c1, 3, NULL, 0, 1);
    /* The delete names e2 as committed (the engine writes the live record as stored). */
    if (!bad) bad = commit(t, 2, SC_KIND_COMPACT, c2, 1, &c1[1], 1, 0);
    fputs("]}\n", stdout);
    sc_table_free(t);
    sc_store_free(store);
    free_rows();
    return bad;
}
