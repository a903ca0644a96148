/*
 * Paimon manifests and manifest lists (format/paimon_manifest.h over
 * format/avro_container.h): every golden file written by Paimon 1.4.2
 * decodes to the values Paimon's own dump shows, field by field; our
 * encoder round-trips every DataFileMeta member; damaged, truncated and
 * oversized containers are refused (SC_ECORRUPT / SC_ELIMIT), never a crash.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "base/error_internal.h"
#include "base/hash.h"
#include "format/avro_container.h"
#include "format/paimon_manifest.h"

#define GOLDEN "tests/vectors/paimon-1.4.2"

static const char *tables[] = {"append_unaware", "append_fixed", "pk", "append_deflate"};

static char *src_path(const char *rel) {
    const char *root = getenv("SC_SOURCE_DIR");
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/%s", root ? root : ".", rel) > 0);
    return p;
}

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n ? (size_t)n : 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static uint8_t *golden_file(const char *table, const char *name, size_t *len) {
    char rel[512];
    snprintf(rel, sizeof rel, GOLDEN "/warehouse/golden.db/%s/manifest/%s", table, name);
    char *p = src_path(rel);
    uint8_t *b = slurp(p, len);
    free(p);
    return b;
}

static json_t *dump_of(const char *table) {
    char rel[256];
    snprintf(rel, sizeof rel, GOLDEN "/%s.manifests.json", table);
    char *p = src_path(rel);
    json_error_t err;
    json_t *j = json_load_file(p, 0, &err);
    cr_assert_not_null(j, "%s: %s", p, err.text);
    free(p);
    return j;
}

/* ---- comparison against the dump's "avro" view (bytes as lower-case hex) ---- */

static void expect_hex(json_t *rec, const char *field, sc_bytes b, const char *where) {
    json_t *v = json_object_get(rec, field);
    cr_assert_not_null(v, "%s: dump has no %s", where, field);
    if (json_is_null(v)) {
        cr_expect_null(b.data, "%s %s: expected null", where, field);
        return;
    }
    cr_assert(json_is_string(v), "%s %s", where, field);
    char *hex = malloc(b.len * 2 + 1);
    sc_hex_encode(hex, b.data, b.len);
    hex[b.len * 2] = '\0';
    cr_expect_not_null(b.data, "%s %s: absent, dump has %s", where, field, json_string_value(v));
    cr_expect_str_eq(hex, json_string_value(v), "%s %s", where, field);
    free(hex);
}

static void expect_int(json_t *rec, const char *field, int present, int64_t value, const char *where) {
    json_t *v = json_object_get(rec, field);
    cr_assert_not_null(v, "%s: dump has no %s", where, field);
    if (json_is_null(v)) {
        cr_expect_not(present, "%s %s: expected null, got %lld", where, field, (long long)value);
        return;
    }
    cr_expect(present, "%s %s: absent, dump has %lld", where, field, (long long)json_integer_value(v));
    cr_expect_eq(value, json_integer_value(v), "%s %s: %lld != %lld", where, field, (long long)value,
                 (long long)json_integer_value(v));
}

static void expect_counts(json_t *stats, const int64_t *counts, size_t n, const char *where) {
    json_t *v = json_object_get(stats, "_NULL_COUNTS");
    cr_assert_not_null(v, "%s", where);
    if (json_is_null(v)) {
        cr_expect_eq(n, 0, "%s", where);
        return;
    }
    cr_assert_eq(json_array_size(v), n, "%s: %zu null counts, dump %zu", where, n, json_array_size(v));
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(v, i);
        cr_expect_eq(counts[i], json_is_null(c) ? -1 : json_integer_value(c), "%s[%zu]", where, i);
    }
}

static void expect_stats(json_t *rec, const char *field, sc_stats st, const char *where) {
    json_t *s = json_object_get(rec, field);
    char w[256];
    snprintf(w, sizeof w, "%s %s", where, field);
    cr_assert(json_is_object(s), "%s", w);
    expect_hex(s, "_MIN_VALUES", st.min_values, w);
    expect_hex(s, "_MAX_VALUES", st.max_values, w);
    expect_counts(s, st.null_counts, st.null_count_len, w);
}

static void expect_strings(json_t *rec, const char *field, int present, const char *const *items, size_t n,
                           const char *where) {
    json_t *v = json_object_get(rec, field);
    cr_assert_not_null(v, "%s: dump has no %s", where, field);
    if (json_is_null(v)) {
        cr_expect_not(present, "%s %s: expected null", where, field);
        return;
    }
    cr_expect(present, "%s %s: absent", where, field);
    cr_assert_eq(json_array_size(v), n, "%s %s: count", where, field);
    for (size_t i = 0; i < n; i++) cr_expect_str_eq(items[i], json_string_value(json_array_get(v, i)), "%s %s", where, field);
}

static void expect_entry(json_t *rec, const sc_manifest_entry *e, const char *where) {
    const sc_file_entry *f = &e->file;
    expect_int(rec, "_VERSION", 1, 2, where);
    expect_int(rec, "_KIND", 1, e->kind == SC_ENTRY_ADD ? 0 : 1, where);
    expect_hex(rec, "_PARTITION", f->partition, where);
    expect_int(rec, "_BUCKET", 1, f->bucket, where);
    expect_int(rec, "_TOTAL_BUCKETS", 1, f->total_buckets, where);
    json_t *file = json_object_get(rec, "_FILE");
    cr_assert(json_is_object(file), "%s", where);
    cr_expect_str_eq(f->file, json_string_value(json_object_get(file, "_FILE_NAME")), "%s", where);
    expect_int(file, "_FILE_SIZE", 1, f->size, where);
    expect_int(file, "_ROW_COUNT", 1, f->rows, where);
    expect_hex(file, "_MIN_KEY", f->min_key, where);
    expect_hex(file, "_MAX_KEY", f->max_key, where);
    expect_stats(file, "_KEY_STATS", f->key_stats, where);
    expect_stats(file, "_VALUE_STATS", f->value_stats, where);
    expect_int(file, "_MIN_SEQUENCE_NUMBER", 1, f->min_seq, where);
    expect_int(file, "_MAX_SEQUENCE_NUMBER", 1, f->max_seq, where);
    expect_int(file, "_SCHEMA_ID", 1, f->schema_id, where);
    expect_int(file, "_LEVEL", 1, f->level, where);
    expect_strings(file, "_EXTRA_FILES", 1, f->extra_files, f->extra_file_count, where);
    expect_int(file, "_CREATION_TIME", f->has_creation_time, f->creation_time_millis, where);
    expect_int(file, "_DELETE_ROW_COUNT", f->has_delete_row_count, f->delete_row_count, where);
    expect_hex(file, "_EMBEDDED_FILE_INDEX", f->embedded_index, where);
    expect_int(file, "_FILE_SOURCE", f->has_file_source, f->file_source, where);
    expect_strings(file, "_VALUE_STATS_COLS", f->has_value_stats_cols, f->value_stats_cols,
                   f->value_stats_col_count, where);
    json_t *ext = json_object_get(file, "_EXTERNAL_PATH");
    if (json_is_null(ext)) cr_expect_null(f->external_path, "%s", where);
    else cr_expect_str_eq(f->external_path, json_string_value(ext), "%s", where);
    expect_int(file, "_FIRST_ROW_ID", f->has_first_row_id, f->first_row_id, where);
    expect_strings(file, "_WRITE_COLS", f->has_write_cols, f->write_cols, f->write_col_count, where);
    /* Exactly the fields above: a field we do not compare would be a hole. */
    cr_expect_eq(json_object_size(rec), 6, "%s", where);
    cr_expect_eq(json_object_size(file), 20, "%s", where);
}

static void expect_list_entry(json_t *rec, const sc_manifest_file *m, const char *where) {
    expect_int(rec, "_VERSION", 1, 2, where);
    cr_expect_str_eq(m->name, json_string_value(json_object_get(rec, "_FILE_NAME")), "%s", where);
    expect_int(rec, "_FILE_SIZE", 1, m->size, where);
    expect_int(rec, "_NUM_ADDED_FILES", 1, m->added, where);
    expect_int(rec, "_NUM_DELETED_FILES", 1, m->deleted, where);
    sc_stats st = {{m->partition_min, m->partition_min_len}, {m->partition_max, m->partition_max_len},
                   m->partition_null_counts, m->partition_null_count_len};
    expect_stats(rec, "_PARTITION_STATS", st, where);
    cr_expect(m->has_partition_null_counts, "%s", where);
    expect_int(rec, "_SCHEMA_ID", 1, m->schema_id, where);
    expect_int(rec, "_MIN_BUCKET", m->has_bucket_range, m->min_bucket, where);
    expect_int(rec, "_MAX_BUCKET", m->has_bucket_range, m->max_bucket, where);
    expect_int(rec, "_MIN_LEVEL", m->has_level_range, m->min_level, where);
    expect_int(rec, "_MAX_LEVEL", m->has_level_range, m->max_level, where);
    expect_int(rec, "_MIN_ROW_ID", m->has_row_id_range, m->min_row_id, where);
    expect_int(rec, "_MAX_ROW_ID", m->has_row_id_range, m->max_row_id, where);
    cr_expect_not(m->has_sha256, "%s: Paimon writes no _SNAPCOMMIT_SHA256", where);
    cr_expect_eq(json_object_size(rec), 13, "%s", where);
}

static void check_list(const char *table, json_t *dump, const char *which) {
    json_t *l = json_object_get(json_object_get(dump, "manifestLists"), which);
    const char *name = json_string_value(json_object_get(l, "file"));
    size_t len;
    uint8_t *data = golden_file(table, name, &len);
    cr_assert_eq(len, (size_t)json_integer_value(json_object_get(l, "size")), "%s size", name);
    sc_manifest_file_vec v = {0};
    cr_assert_eq(sc_paimon_list_decode(&v, data, len, NULL, name), 0, "%s: %s", name, sc_error_message());
    json_t *recs = json_object_get(json_object_get(l, "avro"), "records");
    cr_assert_eq(v.count, json_array_size(recs), "%s: record count", name);
    for (size_t i = 0; i < v.count; i++) {
        char where[300];
        snprintf(where, sizeof where, "%s/%s record %zu", table, name, i);
        expect_list_entry(json_array_get(recs, i), &v.items[i], where);
    }
    sc_manifest_file_vec_free(&v);
    free(data);
}

static void check_manifests(const char *table, json_t *dump) {
    json_t *ms = json_object_get(dump, "manifests");
    cr_assert(json_array_size(ms) > 0, "%s: no manifests in the dump", table);
    for (size_t k = 0; k < json_array_size(ms); k++) {
        json_t *m = json_array_get(ms, k);
        const char *name = json_string_value(json_object_get(m, "file"));
        size_t len;
        uint8_t *data = golden_file(table, name, &len);
        sc_entry_vec v = {0};
        cr_assert_eq(sc_paimon_manifest_decode(&v, data, len, NULL, name), 0, "%s: %s", name, sc_error_message());
        json_t *recs = json_object_get(json_object_get(m, "avro"), "records");
        cr_assert_eq(v.count, json_array_size(recs), "%s: record count", name);
        for (size_t i = 0; i < v.count; i++) {
            char where[300];
            snprintf(where, sizeof where, "%s/%s record %zu", table, name, i);
            expect_entry(json_array_get(recs, i), &v.items[i], where);
        }
        sc_entry_vec_free(&v);
        free(data);
    }
}

Test(golden_paimon_files, decode_to_the_values_paimon_dumped) {
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        json_t *dump = dump_of(tables[t]);
        check_list(tables[t], dump, "base");
        check_list(tables[t], dump, "delta");
        check_manifests(tables[t], dump);
        json_decref(dump);
    }
}

/* Every manifest and list in the golden directories (older snapshots' lists are not in the dumps):
 * each decodes, and every manifest a list names exists with the size and ADD/DELETE counts it says. */
Test(golden_paimon_files, every_file_decodes_and_lists_match_their_manifests) {
    size_t lists = 0, manifests = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        char rel[256];
        snprintf(rel, sizeof rel, GOLDEN "/warehouse/golden.db/%s/manifest", tables[t]);
        char *dir = src_path(rel);
        DIR *d = opendir(dir);
        cr_assert_not_null(d, "%s", dir);
        struct dirent *de;
        while ((de = readdir(d))) {
            if (de->d_name[0] == '.') continue;
            size_t len;
            uint8_t *data = golden_file(tables[t], de->d_name, &len);
            if (!strncmp(de->d_name, "manifest-list-", 14)) {
                sc_manifest_file_vec v = {0};
                cr_assert_eq(sc_paimon_list_decode(&v, data, len, NULL, de->d_name), 0, "%s", sc_error_message());
                for (size_t i = 0; i < v.count; i++) {
                    size_t mlen;
                    uint8_t *m = golden_file(tables[t], v.items[i].name, &mlen);
                    cr_expect_eq((int64_t)mlen, v.items[i].size, "%s", v.items[i].name);
                    sc_entry_vec e = {0};
                    cr_assert_eq(sc_paimon_manifest_decode(&e, m, mlen, NULL, v.items[i].name), 0);
                    int64_t add = 0, del = 0;
                    for (size_t j = 0; j < e.count; j++) *(e.items[j].kind == SC_ENTRY_ADD ? &add : &del) += 1;
                    cr_expect_eq(add, v.items[i].added, "%s", v.items[i].name);
                    cr_expect_eq(del, v.items[i].deleted, "%s", v.items[i].name);
                    sc_entry_vec_free(&e);
                    free(m);
                }
                sc_manifest_file_vec_free(&v);
                lists++;
            } else {
                sc_entry_vec v = {0};
                cr_assert_eq(sc_paimon_manifest_decode(&v, data, len, NULL, de->d_name), 0, "%s", sc_error_message());
                cr_expect_gt(v.count, 0);
                sc_entry_vec_free(&v);
                manifests++;
            }
            free(data);
        }
        closedir(d);
        free(dir);
    }
    cr_expect_eq(lists, 4 + 6 + 6 + 6);
    cr_expect_eq(manifests, 2 + 3 + 3 + 3);
}

/* ---- round trips ---- */

static const int64_t kcounts[] = {0, -1, 7};
static const int64_t vcounts[] = {3};
static const char *const extra[] = {"data-x.parquet.index", "other"};
static const char *const vcols[] = {"id", "name"};
static const char *const wcols[] = {"name"};
static const uint8_t row1[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t row2[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
static const uint8_t blob[] = {0, 1, 2, 0, 255};

static sc_file_entry full_entry(void) {
    sc_file_entry f = {
        .partition = {row1, sizeof row1}, .bucket = 3, .total_buckets = 4, .level = 5,
        .file = "data-1.parquet", .rows = 1234567890123, .size = 42,
        .min_key = {row1, sizeof row1}, .max_key = {row2, sizeof row2},
        .key_stats = {{row1, sizeof row1}, {row2, sizeof row2}, kcounts, 3},
        .value_stats = {{row2, sizeof row2}, {row1, sizeof row1}, vcounts, 1},
        .min_seq = -1, .max_seq = 99, .schema_id = 2,
        .extra_files = extra, .extra_file_count = 2,
        .has_creation_time = 1, .creation_time_millis = 1796090100312,
        .has_delete_row_count = 1, .delete_row_count = 6,
        .has_file_source = 1, .file_source = 1,
        .has_value_stats_cols = 1, .value_stats_cols = vcols, .value_stats_col_count = 2,
        .embedded_index = {blob, sizeof blob}, .external_path = "s3://bucket/elsewhere/data-1.parquet",
        .has_first_row_id = 1, .first_row_id = 77,
        .has_write_cols = 1, .write_cols = wcols, .write_col_count = 1,
    };
    return f;
}

static void expect_bytes(sc_bytes a, sc_bytes b, const char *what) {
    cr_expect_eq(!a.data, !b.data, "%s presence", what);
    cr_assert_eq(a.len, b.len, "%s length", what);
    if (a.len) cr_expect_eq(memcmp(a.data, b.data, a.len), 0, "%s bytes", what);
}

static void expect_strs(const char *const *a, size_t na, const char *const *b, size_t nb, const char *what) {
    cr_assert_eq(na, nb, "%s count", what);
    for (size_t i = 0; i < na; i++) cr_expect_str_eq(a[i], b[i], "%s[%zu]", what, i);
}

static void expect_stats_eq(sc_stats a, sc_stats b, const char *what) {
    expect_bytes(a.min_values, b.min_values, what);
    expect_bytes(a.max_values, b.max_values, what);
    cr_assert_eq(a.null_count_len, b.null_count_len, "%s null counts", what);
    for (size_t i = 0; i < a.null_count_len; i++) cr_expect_eq(a.null_counts[i], b.null_counts[i], "%s[%zu]", what, i);
}

static void expect_file_eq(const sc_file_entry *a, const sc_file_entry *b) {
    expect_bytes(a->partition, b->partition, "partition");
    cr_expect_eq(a->bucket, b->bucket);
    cr_expect_eq(a->total_buckets, b->total_buckets);
    cr_expect_eq(a->level, b->level);
    cr_expect_str_eq(a->file, b->file);
    cr_expect_eq(a->rows, b->rows);
    cr_expect_eq(a->size, b->size);
    expect_bytes(a->min_key, b->min_key, "min_key");
    expect_bytes(a->max_key, b->max_key, "max_key");
    expect_stats_eq(a->key_stats, b->key_stats, "key_stats");
    expect_stats_eq(a->value_stats, b->value_stats, "value_stats");
    cr_expect_eq(a->min_seq, b->min_seq);
    cr_expect_eq(a->max_seq, b->max_seq);
    cr_expect_eq(a->schema_id, b->schema_id);
    expect_strs(a->extra_files, a->extra_file_count, b->extra_files, b->extra_file_count, "extra_files");
    cr_expect_eq(a->has_creation_time, b->has_creation_time);
    if (a->has_creation_time) cr_expect_eq(a->creation_time_millis, b->creation_time_millis);
    cr_expect_eq(a->has_delete_row_count, b->has_delete_row_count);
    if (a->has_delete_row_count) cr_expect_eq(a->delete_row_count, b->delete_row_count);
    cr_expect_eq(a->has_file_source, b->has_file_source);
    if (a->has_file_source) cr_expect_eq(a->file_source, b->file_source);
    cr_expect_eq(a->has_value_stats_cols, b->has_value_stats_cols);
    expect_strs(a->value_stats_cols, a->value_stats_col_count, b->value_stats_cols, b->value_stats_col_count,
                "value_stats_cols");
    expect_bytes(a->embedded_index, b->embedded_index, "embedded_index");
    cr_expect_eq(!a->external_path, !b->external_path);
    if (a->external_path) cr_expect_str_eq(a->external_path, b->external_path);
    cr_expect_eq(a->has_first_row_id, b->has_first_row_id);
    if (a->has_first_row_id) cr_expect_eq(a->first_row_id, b->first_row_id);
    cr_expect_eq(a->has_write_cols, b->has_write_cols);
    expect_strs(a->write_cols, a->write_col_count, b->write_cols, b->write_col_count, "write_cols");
}

Test(paimon_manifest_round_trip, every_member_set_survives_encode_and_decode) {
    sc_file_entry f = full_entry();
    sc_entry_vec in = {0}, out = {0};
    cr_assert_eq(sc_entry_vec_push_copy(&in, SC_ENTRY_ADD, &f), 0, "%s", sc_error_message());
    f.file = "data-2.parquet";
    cr_assert_eq(sc_entry_vec_push_copy(&in, SC_ENTRY_DELETE, &f), 0);
    /* The vector owns copies: compare them with the originals first. */
    expect_file_eq(&in.items[1].file, &f);
    sc_buf buf = SC_BUF_INIT;
    cr_assert_eq(sc_paimon_manifest_encode(&buf, &in), 0, "%s", sc_error_message());
    cr_assert_eq(sc_paimon_manifest_decode(&out, buf.data, buf.len, NULL, "manifest-rt"), 0, "%s",
                 sc_error_message());
    cr_assert_eq(out.count, 2);
    cr_expect_eq(out.items[0].kind, SC_ENTRY_ADD);
    cr_expect_eq(out.items[1].kind, SC_ENTRY_DELETE);
    expect_file_eq(&out.items[0].file, &in.items[0].file);
    expect_file_eq(&out.items[1].file, &in.items[1].file);
    /* Same input, same bytes: the sync marker comes from the content. */
    sc_buf again = SC_BUF_INIT;
    cr_assert_eq(sc_paimon_manifest_encode(&again, &in), 0);
    cr_expect(again.len == buf.len && !memcmp(again.data, buf.data, buf.len));
    sc_buf_free(&again);
    sc_buf_free(&buf);
    sc_entry_vec_free(&in);
    sc_entry_vec_free(&out);
}

Test(paimon_manifest_round_trip, every_optional_member_absent_reads_back_absent) {
    sc_file_entry f = {.file = "data-0.parquet", .rows = 3, .size = 10, .total_buckets = -1};
    sc_entry_vec in = {0}, out = {0};
    cr_assert_eq(sc_entry_vec_push_copy(&in, SC_ENTRY_ADD, &f), 0);
    sc_buf buf = SC_BUF_INIT;
    cr_assert_eq(sc_paimon_manifest_encode(&buf, &in), 0, "%s", sc_error_message());
    cr_assert_eq(sc_paimon_manifest_decode(&out, buf.data, buf.len, NULL, "m"), 0, "%s", sc_error_message());
    cr_assert_eq(out.count, 1);
    const sc_file_entry *g = &out.items[0].file;
    /* Absent rows are written the way Paimon writes "no fields": arity-0 BinaryRows, empty counts. */
    static const uint8_t empty_row[12] = {0};
    sc_bytes er = {empty_row, sizeof empty_row};
    expect_bytes(g->partition, er, "partition");
    expect_bytes(g->min_key, er, "min_key");
    expect_bytes(g->max_key, er, "max_key");
    expect_bytes(g->key_stats.min_values, er, "key_stats.min");
    expect_bytes(g->value_stats.max_values, er, "value_stats.max");
    cr_expect_eq(g->key_stats.null_count_len, 0);
    cr_expect_eq(g->total_buckets, -1);
    cr_expect_eq(g->extra_file_count, 0);
    cr_expect_not(g->has_creation_time || g->has_delete_row_count || g->has_file_source || g->has_value_stats_cols ||
                  g->has_first_row_id || g->has_write_cols);
    cr_expect_null(g->embedded_index.data);
    cr_expect_null(g->external_path);
    cr_expect_str_eq(g->file, "data-0.parquet");
    cr_expect_eq(g->rows, 3);
    cr_expect_eq(g->size, 10);
    sc_buf_free(&buf);
    sc_entry_vec_free(&in);
    sc_entry_vec_free(&out);
}

Test(paimon_manifest_round_trip, empty_manifest_and_list) {
    sc_entry_vec in = {0}, out = {0};
    sc_buf buf = SC_BUF_INIT;
    cr_assert_eq(sc_paimon_manifest_encode(&buf, &in), 0);
    cr_assert_eq(sc_paimon_manifest_decode(&out, buf.data, buf.len, NULL, "m"), 0, "%s", sc_error_message());
    cr_expect_eq(out.count, 0);
    sc_manifest_file_vec l = {0}, lo = {0};
    buf.len = 0;
    cr_assert_eq(sc_paimon_list_encode(&buf, &l), 0);
    cr_assert_eq(sc_paimon_list_decode(&lo, buf.data, buf.len, NULL, "l"), 0, "%s", sc_error_message());
    cr_expect_eq(lo.count, 0);
    sc_buf_free(&buf);
}

Test(paimon_manifest_round_trip, manifest_list_with_every_field_and_without) {
    int64_t counts[] = {0, -1};
    sc_manifest_file a = {.name = "manifest-a-0", .size = 2264, .added = 2, .deleted = 1,
                          .partition_min = (uint8_t *)row1, .partition_min_len = sizeof row1,
                          .partition_max = (uint8_t *)row2, .partition_max_len = sizeof row2,
                          .partition_null_counts = counts, .partition_null_count_len = 2,
                          .has_partition_null_counts = 1, .schema_id = 4,
                          .has_bucket_range = 1, .min_bucket = 0, .max_bucket = 7,
                          .has_level_range = 1, .min_level = 1, .max_level = 5,
                          .has_row_id_range = 1, .min_row_id = 10, .max_row_id = 20, .has_sha256 = 1};
    for (int i = 0; i < SC_SHA256_LEN; i++) a.sha256[i] = (uint8_t)(i * 7);
    sc_manifest_file b = {.name = "manifest-b-1", .size = 5};
    sc_manifest_file_vec in = {0}, out = {0};
    cr_assert_eq(sc_manifest_file_vec_push(&in, &a), 0);
    cr_assert_eq(sc_manifest_file_vec_push(&in, &b), 0);
    sc_buf buf = SC_BUF_INIT;
    cr_assert_eq(sc_paimon_list_encode(&buf, &in), 0, "%s", sc_error_message());
    cr_assert_eq(sc_paimon_list_decode(&out, buf.data, buf.len, NULL, "list"), 0, "%s", sc_error_message());
    cr_assert_eq(out.count, 2);
    const sc_manifest_file *x = &out.items[0], *y = &out.items[1];
    cr_expect_str_eq(x->name, "manifest-a-0");
    cr_expect_eq(x->size, 2264);
    cr_expect_eq(x->added, 2);
    cr_expect_eq(x->deleted, 1);
    expect_bytes((sc_bytes){x->partition_min, x->partition_min_len}, (sc_bytes){row1, sizeof row1}, "min");
    expect_bytes((sc_bytes){x->partition_max, x->partition_max_len}, (sc_bytes){row2, sizeof row2}, "max");
    cr_assert_eq(x->partition_null_count_len, 2);
    cr_expect_eq(x->partition_null_counts[0], 0);
    cr_expect_eq(x->partition_null_counts[1], -1);
    cr_expect_eq(x->schema_id, 4);
    cr_expect(x->has_bucket_range && x->min_bucket == 0 && x->max_bucket == 7);
    cr_expect(x->has_level_range && x->min_level == 1 && x->max_level == 5);
    cr_expect(x->has_row_id_range && x->min_row_id == 10 && x->max_row_id == 20);
    cr_expect(x->has_sha256 && !memcmp(x->sha256, a.sha256, SC_SHA256_LEN));
    cr_expect_str_eq(y->name, "manifest-b-1");
    cr_expect_eq(y->size, 5);
    cr_expect_not(y->has_bucket_range || y->has_level_range || y->has_row_id_range || y->has_sha256);
    /* No partition stats are written as arity-0 rows and an empty list (Paimon dereferences it). */
    cr_expect_eq(y->partition_min_len, 12);
    cr_expect_eq(y->partition_null_count_len, 0);
    sc_buf_free(&buf);
    sc_manifest_file_vec_free(&in);
    sc_manifest_file_vec_free(&out);
}

Test(paimon_manifest_round_trip, encoder_refuses_what_cannot_be_represented) {
    sc_file_entry f = full_entry();
    sc_entry_vec in = {0};
    f.size = -1;
    cr_assert_eq(sc_entry_vec_push_copy(&in, SC_ENTRY_ADD, &f), 0);
    sc_buf buf = SC_BUF_INIT;
    cr_expect_eq(sc_paimon_manifest_encode(&buf, &in), SC_EINVAL);
    cr_expect(strstr(sc_error_message(), "_FILE_SIZE"), "%s", sc_error_message());
    cr_expect_eq(buf.len, 0);
    sc_entry_vec_free(&in);
}

/* ---- fail closed ---- */

static int decode_any(const uint8_t *p, size_t n, const sc_decode_limits *lim, int list) {
    if (list) {
        sc_manifest_file_vec v = {0};
        int rc = sc_paimon_list_decode(&v, p, n, lim, "damaged");
        if (rc) cr_assert_eq(v.count, 0, "partial records left after an error");
        sc_manifest_file_vec_free(&v);
        return rc;
    }
    sc_entry_vec v = {0};
    int rc = sc_paimon_manifest_decode(&v, p, n, lim, "damaged");
    if (rc) cr_assert_eq(v.count, 0, "partial records left after an error");
    sc_entry_vec_free(&v);
    return rc;
}

static const struct {
    const char *table, *file;
    int list;
} damaged_inputs[] = {
    {"pk", "manifest-324584bc-0286-485f-8318-a048c50aa94f-0", 0},
    {"append_deflate", "manifest-0f657828-a66e-43e1-b4f7-1d201e08efb5-0", 0},
    {"append_fixed", "manifest-list-47778b50-4268-41ef-b19c-3cdc342815b7-5", 1},
};

Test(avro_fail_closed, every_truncation_is_refused) {
    for (size_t k = 0; k < sizeof damaged_inputs / sizeof damaged_inputs[0]; k++) {
        size_t len;
        uint8_t *data = golden_file(damaged_inputs[k].table, damaged_inputs[k].file, &len);
        cr_assert_eq(decode_any(data, len, NULL, damaged_inputs[k].list), 0);
        size_t accepted = 0;
        for (size_t n = 0; n < len; n++) {
            uint8_t *copy = malloc(n ? n : 1); /* exact size: ASan sees any read past the end */
            memcpy(copy, data, n);
            int rc = decode_any(copy, n, NULL, damaged_inputs[k].list);
            /* Avro's one blind spot: cut right after the header, the file is a valid
             * container of zero blocks (the manifest list's _FILE_SIZE and our
             * _SNAPCOMMIT_SHA256 catch it a layer up). Any other cut is refused. */
            if (rc == 0) {
                accepted++;
                sc_entry_vec v = {0};
                sc_manifest_file_vec l = {0};
                if (damaged_inputs[k].list) cr_expect_eq((sc_paimon_list_decode(&l, copy, n, NULL, "x"), l.count), 0);
                else cr_expect_eq((sc_paimon_manifest_decode(&v, copy, n, NULL, "x"), v.count), 0);
                sc_entry_vec_free(&v);
                sc_manifest_file_vec_free(&l);
            } else {
                cr_expect(rc == SC_ECORRUPT || rc == SC_ELIMIT, "%s cut at %zu: rc %d", damaged_inputs[k].file, n, rc);
            }
            free(copy);
        }
        cr_expect_eq(accepted, 1, "%s: %zu cuts accepted", damaged_inputs[k].file, accepted);
        free(data);
    }
}

/* Each byte replaced by a few values: the result is refused or decodes (a changed
 * value inside a datum is still a valid datum), and never crashes or leaks. In the
 * header and the block framing every change must be refused. */
Test(avro_fail_closed, single_byte_corruptions) {
    static const uint8_t repl[] = {0x00, 0xff, 0x80, 0x7f, 0x01};
    for (size_t k = 0; k < sizeof damaged_inputs / sizeof damaged_inputs[0]; k++) {
        size_t len;
        uint8_t *data = golden_file(damaged_inputs[k].table, damaged_inputs[k].file, &len);
        size_t refused = 0, tried = 0;
        for (size_t i = 0; i < len; i++) {
            for (size_t r = 0; r < sizeof repl; r++) {
                if (data[i] == repl[r]) continue;
                uint8_t *copy = malloc(len);
                memcpy(copy, data, len);
                copy[i] = repl[r];
                int rc = decode_any(copy, len, NULL, damaged_inputs[k].list);
                cr_expect(rc == 0 || rc == SC_ECORRUPT || rc == SC_ELIMIT, "byte %zu: rc %d", i, rc);
                if (i < 4 || i >= len - 16) cr_expect_neq(rc, 0, "magic/sync byte %zu changed but accepted", i);
                refused += rc != 0;
                tried++;
                free(copy);
            }
        }
        cr_expect_gt(refused, tried / 2, "%s: only %zu of %zu corruptions refused", damaged_inputs[k].file, refused,
                     tried);
        free(data);
    }
}

/* ---- crafted containers ---- */

static void put_long(sc_buf *b, int64_t v) {
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    do {
        uint8_t c = (uint8_t)(z & 0x7f);
        z >>= 7;
        if (z) c |= 0x80;
        cr_assert_eq(sc_buf_append_byte(b, c), 0);
    } while (z);
}

static void put_str(sc_buf *b, const char *s) {
    put_long(b, (int64_t)strlen(s));
    cr_assert_eq(sc_buf_append(b, s, strlen(s)), 0);
}

static const uint8_t SYNC[16] = "0123456789abcdef";

/* A header for `schema` with `codec`. */
static void craft_header(sc_buf *b, const char *schema, const char *codec) {
    cr_assert_eq(sc_buf_append(b, "Obj\x01", 4), 0);
    put_long(b, 2);
    put_str(b, "avro.schema");
    put_str(b, schema);
    put_str(b, "avro.codec");
    put_str(b, codec);
    put_long(b, 0);
    cr_assert_eq(sc_buf_append(b, SYNC, 16), 0);
}

static int count_fn(void *ctx, avro_value_t *v, uint64_t i) {
    (void)v, (void)i;
    (*(uint64_t *)ctx)++;
    return 0;
}

static int read_crafted(const sc_buf *b, const sc_decode_limits *lim, uint64_t *n) {
    *n = 0;
    return sc_avro_read(b->data, b->len, lim, "crafted", count_fn, n);
}

Test(avro_fail_closed, zstd_bomb_stops_at_the_object_limit) {
    size_t plain_len = 8u << 20;
    uint8_t *zeros = calloc(1, plain_len);
    size_t cap = ZSTD_compressBound(plain_len);
    uint8_t *z = malloc(cap);
    /* Without the content size in the frame: only the streaming cap can stop it. */
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
    size_t zn = ZSTD_compress2(cc, z, cap, zeros, plain_len);
    cr_assert(!ZSTD_isError(zn));
    ZSTD_freeCCtx(cc);
    sc_decode_limits lim;
    sc_decode_limits_default(&lim);
    lim.max_object_len = 1u << 20;
    for (int with_size = 0; with_size < 2; with_size++) {
        if (with_size) zn = ZSTD_compress(z, cap, zeros, plain_len, 3);
        sc_buf b = SC_BUF_INIT;
        craft_header(&b, "\"bytes\"", "zstandard");
        put_long(&b, 1);
        put_long(&b, (int64_t)zn);
        sc_buf_append(&b, z, zn);
        sc_buf_append(&b, SYNC, 16);
        uint64_t n;
        cr_expect_eq(read_crafted(&b, &lim, &n), SC_ELIMIT, "%s", sc_error_message());
        cr_expect_eq(n, 0);
        sc_buf_free(&b);
    }
    free(z);
    free(zeros);
}

Test(avro_fail_closed, block_count_or_size_beyond_the_file) {
    const char *schema = "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"}]}";
    uint64_t n;
    /* A good null-codec block first, to show the crafting is right. */
    sc_buf b = SC_BUF_INIT;
    craft_header(&b, schema, "null");
    put_long(&b, 2);
    put_long(&b, 2);
    sc_buf_append(&b, "\x02\x04", 2);
    sc_buf_append(&b, SYNC, 16);
    cr_assert_eq(read_crafted(&b, NULL, &n), 0, "%s", sc_error_message());
    cr_expect_eq(n, 2);
    sc_buf_free(&b);

    struct {
        int64_t count, size;
        const char *expect;
    } cases[] = {{3, 2, "record 2"}, {2, 1000, "runs past the file"}, {1, 2, "bytes after"},
                 {INT64_MAX, 2, "records"}, {-1, 2, "negative"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sc_buf c = SC_BUF_INIT;
        craft_header(&c, schema, "null");
        put_long(&c, cases[i].count);
        put_long(&c, cases[i].size);
        sc_buf_append(&c, "\x02\x04", 2);
        sc_buf_append(&c, SYNC, 16);
        int rc = read_crafted(&c, NULL, &n);
        cr_expect(rc == SC_ECORRUPT || rc == SC_ELIMIT, "case %zu: rc %d", i, rc);
        cr_expect(strstr(sc_error_message(), cases[i].expect), "case %zu: %s", i, sc_error_message());
        sc_buf_free(&c);
    }
}

Test(avro_fail_closed, wrong_sync_marker_and_trailing_garbage) {
    size_t len;
    uint8_t *data = golden_file("pk", "manifest-324584bc-0286-485f-8318-a048c50aa94f-1", &len);
    data[len - 1] ^= 1;
    cr_expect_eq(decode_any(data, len, NULL, 0), SC_ECORRUPT);
    cr_expect(strstr(sc_error_message(), "sync marker"), "%s", sc_error_message());
    data[len - 1] ^= 1;
    uint8_t *more = malloc(len + 3);
    memcpy(more, data, len);
    memcpy(more + len, "\x02\x02\x00", 3);
    cr_expect_eq(decode_any(more, len + 3, NULL, 0), SC_ECORRUPT);
    free(more);
    free(data);
}

Test(avro_fail_closed, unknown_codec_and_datum_lengths_past_the_block) {
    uint64_t n;
    sc_buf b = SC_BUF_INIT;
    craft_header(&b, "\"bytes\"", "snappy");
    cr_expect_eq(read_crafted(&b, NULL, &n), SC_ECORRUPT);
    cr_expect(strstr(sc_error_message(), "snappy"), "%s", sc_error_message());
    sc_buf_free(&b);
    /* A bytes datum claiming 2^40 bytes: libavro would try to allocate it; we refuse first. */
    craft_header(&b, "\"bytes\"", "null");
    put_long(&b, 1);
    put_long(&b, 6);
    put_long(&b, (int64_t)1 << 40);
    sc_buf_append(&b, SYNC, 16);
    cr_expect_eq(read_crafted(&b, NULL, &n), SC_ECORRUPT);
    cr_expect(strstr(sc_error_message(), "record 0"), "%s", sc_error_message());
    sc_buf_free(&b);
}

Test(avro_fail_closed, paimon_field_rules) {
    /* Records with a wrong version, kind, type or a missing required field, under the real schema. */
    sc_file_entry f = full_entry();
    sc_entry_vec in = {0};
    cr_assert_eq(sc_entry_vec_push_copy(&in, SC_ENTRY_ADD, &f), 0);
    sc_buf good = SC_BUF_INIT;
    cr_assert_eq(sc_paimon_manifest_encode(&good, &in), 0);
    sc_entry_vec_free(&in);
    /* A list decoder given a manifest: fields missing. */
    sc_manifest_file_vec l = {0};
    cr_expect_eq(sc_paimon_list_decode(&l, good.data, good.len, NULL, "manifest-x"), SC_ECORRUPT);
    cr_expect(strstr(sc_error_message(), "manifest-x: record 0, field _FILE_NAME: missing"), "%s",
              sc_error_message());
    sc_buf_free(&good);

    const char *schema = "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"_VERSION\",\"type\":\"int\"},"
                         "{\"name\":\"_KIND\",\"type\":\"string\"}]}";
    struct {
        const char *datum;
        size_t len;
        const char *expect;
    } cases[] = {{"\x02\x02\x30", 3, "_VERSION: version 1"}, {"\x04\x02\x30", 3, "_KIND: not an int"}};
    for (size_t i = 0; i < 2; i++) {
        sc_buf b = SC_BUF_INIT;
        craft_header(&b, schema, "null");
        put_long(&b, 1);
        put_long(&b, (int64_t)cases[i].len);
        sc_buf_append(&b, cases[i].datum, cases[i].len);
        sc_buf_append(&b, SYNC, 16);
        sc_entry_vec v = {0};
        cr_expect_eq(sc_paimon_manifest_decode(&v, b.data, b.len, NULL, "m"), SC_ECORRUPT);
        cr_expect(strstr(sc_error_message(), cases[i].expect), "%s", sc_error_message());
        sc_entry_vec_free(&v);
        sc_buf_free(&b);
    }
}
