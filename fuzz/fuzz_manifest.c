/*
 * Fuzz target: Paimon manifests and manifest lists (Avro object container
 * files), sc_paimon_manifest_decode and sc_paimon_list_decode.
 *
 * Every input goes through both decoders (a mutated manifest is a good
 * manifest-list input and back) with the default limits and with tight ones,
 * so the SC_ELIMIT paths are reached too. Checked beyond "no sanitizer
 * report, no leak":
 *   - a failure is SC_ECORRUPT or SC_ELIMIT, with a message, and leaves the
 *     output vector as it was (empty);
 *   - a success re-encodes (the encoder accepts whatever the decoder let
 *     through) and the re-encoded file decodes to the same records, field by
 *     field (but a null partition null-count list may come back empty).
 */
#include "fuzz_common.h"
#include "format/paimon_manifest.h"

static const int allowed[] = {SC_ECORRUPT, SC_ELIMIT, 0};

static int stats_eq(const sc_stats *a, const sc_stats *b) {
    if (!sc_fuzz_bytes_eq(a->min_values, b->min_values) || !sc_fuzz_bytes_eq(a->max_values, b->max_values))
        return 0;
    if (a->null_count_len != b->null_count_len || (!a->null_counts) != (!b->null_counts)) return 0;
    for (size_t i = 0; i < a->null_count_len; i++)
        if (a->null_counts[i] != b->null_counts[i]) return 0;
    return 1;
}

static int strs_eq(const char *const *a, size_t an, const char *const *b, size_t bn) {
    if (an != bn) return 0;
    for (size_t i = 0; i < an; i++)
        if (!sc_fuzz_str_eq(a[i], b[i])) return 0;
    return 1;
}

/* 0 when equal, else a name of the first differing member. */
static const char *entry_diff(const sc_manifest_entry *x, const sc_manifest_entry *y) {
    const sc_file_entry *a = &x->file, *b = &y->file;
    if (x->kind != y->kind) return "kind";
    if (!sc_fuzz_bytes_eq(a->partition, b->partition)) return "partition";
    if (a->bucket != b->bucket || a->total_buckets != b->total_buckets) return "bucket";
    if (a->level != b->level) return "level";
    if (!sc_fuzz_str_eq(a->file, b->file)) return "file";
    if (a->rows != b->rows || a->size != b->size) return "rows/size";
    if (!sc_fuzz_bytes_eq(a->min_key, b->min_key) || !sc_fuzz_bytes_eq(a->max_key, b->max_key)) return "keys";
    if (!stats_eq(&a->key_stats, &b->key_stats)) return "key_stats";
    if (!stats_eq(&a->value_stats, &b->value_stats)) return "value_stats";
    if (a->min_seq != b->min_seq || a->max_seq != b->max_seq) return "seq";
    if (a->schema_id != b->schema_id) return "schema_id";
    if (!strs_eq(a->extra_files, a->extra_file_count, b->extra_files, b->extra_file_count)) return "extra_files";
    if (a->has_creation_time != b->has_creation_time ||
        (a->has_creation_time && a->creation_time_millis != b->creation_time_millis))
        return "creation_time";
    if (a->has_delete_row_count != b->has_delete_row_count ||
        (a->has_delete_row_count && a->delete_row_count != b->delete_row_count))
        return "delete_row_count";
    if (a->has_file_source != b->has_file_source || (a->has_file_source && a->file_source != b->file_source))
        return "file_source";
    if (a->has_value_stats_cols != b->has_value_stats_cols ||
        !strs_eq(a->value_stats_cols, a->value_stats_col_count, b->value_stats_cols, b->value_stats_col_count))
        return "value_stats_cols";
    if (!sc_fuzz_bytes_eq(a->embedded_index, b->embedded_index)) return "embedded_index";
    if (!sc_fuzz_str_eq(a->external_path, b->external_path)) return "external_path";
    if (a->has_first_row_id != b->has_first_row_id || (a->has_first_row_id && a->first_row_id != b->first_row_id))
        return "first_row_id";
    if (a->has_write_cols != b->has_write_cols ||
        !strs_eq(a->write_cols, a->write_col_count, b->write_cols, b->write_col_count))
        return "write_cols";
    return NULL;
}

static int mem_eq(const void *a, size_t an, const void *b, size_t bn) {
    if (!a || !b) return !a && !b;
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static const char *list_diff(const sc_manifest_file *a, const sc_manifest_file *b) {
    if (!sc_fuzz_str_eq(a->name, b->name)) return "name";
    if (a->size != b->size || a->added != b->added || a->deleted != b->deleted) return "size/added/deleted";
    if (!mem_eq(a->partition_min, a->partition_min_len, b->partition_min, b->partition_min_len)) return "partition_min";
    if (!mem_eq(a->partition_max, a->partition_max_len, b->partition_max, b->partition_max_len)) return "partition_max";
    /* A null _NULL_COUNTS list (has_partition_null_counts 0) re-encodes as an
     * empty array, which is what Paimon writes and reads: only the flag of an
     * empty list may change. */
    if ((a->has_partition_null_counts != b->has_partition_null_counts && a->partition_null_count_len) ||
        !mem_eq(a->partition_null_counts, a->partition_null_count_len * sizeof(int64_t), b->partition_null_counts,
                b->partition_null_count_len * sizeof(int64_t)))
        return "partition_null_counts";
    if (a->schema_id != b->schema_id) return "schema_id";
    if (a->has_bucket_range != b->has_bucket_range ||
        (a->has_bucket_range && (a->min_bucket != b->min_bucket || a->max_bucket != b->max_bucket)))
        return "bucket range";
    if (a->has_level_range != b->has_level_range ||
        (a->has_level_range && (a->min_level != b->min_level || a->max_level != b->max_level)))
        return "level range";
    if (a->has_row_id_range != b->has_row_id_range ||
        (a->has_row_id_range && (a->min_row_id != b->min_row_id || a->max_row_id != b->max_row_id)))
        return "row id range";
    if (a->has_sha256 != b->has_sha256 || (a->has_sha256 && memcmp(a->sha256, b->sha256, SC_SHA256_LEN) != 0))
        return "sha256";
    return NULL;
}

static void manifest_once(const uint8_t *data, size_t size, const sc_decode_limits *limits) {
    sc_entry_vec v = {0};
    sc_error_clear();
    int rc = sc_paimon_manifest_decode(&v, data, size, limits, "manifest/manifest-fuzz-0");
    if (rc) {
        sc_fuzz_check_failure("manifest", "sc_paimon_manifest_decode", rc, allowed);
        if (v.count) sc_fuzz_fail("manifest", "a failed decode left entries behind", rc);
    } else {
        sc_buf enc = SC_BUF_INIT;
        rc = sc_paimon_manifest_encode(&enc, &v);
        if (rc) sc_fuzz_fail("manifest", "a decoded manifest does not re-encode", rc);
        sc_decode_limits def;
        sc_decode_limits_default(&def);
        sc_entry_vec w = {0};
        rc = sc_paimon_manifest_decode(&w, enc.data, enc.len, &def, "manifest/manifest-fuzz-again");
        if (rc) sc_fuzz_fail("manifest", "a re-encoded manifest does not decode", rc);
        if (w.count != v.count) sc_fuzz_fail("manifest", "re-encoded manifest has another entry count", 0);
        for (size_t i = 0; i < v.count; i++) {
            const char *d = entry_diff(&v.items[i], &w.items[i]);
            if (d) {
                fprintf(stderr, "entry %zu differs in %s\n", i, d);
                sc_fuzz_fail("manifest", "re-encoded manifest decodes to other entries", 0);
            }
        }
        sc_entry_vec_free(&w);
        sc_buf_free(&enc);
    }
    sc_entry_vec_free(&v);
}

static void list_once(const uint8_t *data, size_t size, const sc_decode_limits *limits) {
    sc_manifest_file_vec v = {0};
    sc_error_clear();
    int rc = sc_paimon_list_decode(&v, data, size, limits, "manifest/manifest-list-fuzz-0");
    if (rc) {
        sc_fuzz_check_failure("manifest", "sc_paimon_list_decode", rc, allowed);
        if (v.count) sc_fuzz_fail("manifest", "a failed list decode left records behind", rc);
    } else {
        sc_buf enc = SC_BUF_INIT;
        rc = sc_paimon_list_encode(&enc, &v);
        if (rc) sc_fuzz_fail("manifest", "a decoded manifest list does not re-encode", rc);
        sc_decode_limits def;
        sc_decode_limits_default(&def);
        sc_manifest_file_vec w = {0};
        rc = sc_paimon_list_decode(&w, enc.data, enc.len, &def, "manifest/manifest-list-fuzz-again");
        if (rc) sc_fuzz_fail("manifest", "a re-encoded manifest list does not decode", rc);
        if (w.count != v.count) sc_fuzz_fail("manifest", "re-encoded list has another record count", 0);
        for (size_t i = 0; i < v.count; i++) {
            const char *d = list_diff(&v.items[i], &w.items[i]);
            if (d) {
                fprintf(stderr, "list record %zu differs in %s\n", i, d);
                sc_fuzz_fail("manifest", "re-encoded list decodes to other records", 0);
            }
        }
        sc_manifest_file_vec_free(&w);
        sc_buf_free(&enc);
    }
    sc_manifest_file_vec_free(&v);
}

int sc_fuzz_manifest(const uint8_t *data, size_t size) {
    sc_decode_limits def;
    sc_decode_limits_default(&def);
    /* Tight: 2 records, 24-byte strings, 1 KiB blocks. */
    const sc_decode_limits tight = {.max_entries = 2, .max_field_len = 24, .max_object_len = 1024};
    manifest_once(data, size, &def);
    manifest_once(data, size, &tight);
    list_once(data, size, &def);
    list_once(data, size, &tight);
    return 0;
}

SC_FUZZ_ENTRY(sc_fuzz_manifest)
