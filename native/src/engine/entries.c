/* A commit's entries checked and completed against the table's schema (entries.h). */
#include "engine/entries.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error_internal.h"
#include "format/binary_row.h"
#include "format/partition.h"

static int entry_error(int rc, const char *list, size_t i, const sc_file_entry *f) {
    char name[128];
    /* The row decoders call a row that does not fit its types damage (SC_ECORRUPT, SC_ELIMIT for
     * an arity above the limit); here every row is the caller's input, so it is the caller's
     * error (exit 2, not a damaged table). */
    if (rc == SC_ECORRUPT || rc == SC_ELIMIT) rc = SC_EINVAL;
    sc_bytes_describe(name, sizeof name, (sc_bytes){(const uint8_t *)f->file, strlen(f->file)});
    return sc_error_wrap(rc, "%s[%zu] (%s)", list, i, name);
}

static int check_partition(const sc_table *t, const sc_file_entry *f) {
    const sc_table_schema *s = &t->schema;
    return sc_row_validate(f->partition.data, f->partition.len, s->partition_types, s->partition_key_count,
                           "partition");
}

/*
 * A file's identity holds its partition's bytes (Paimon's BinaryRow.equals), so an
 * added partition must be the one spelling Paimon's writer produces for its values:
 * a row that decodes to the same values with other bytes (a stray byte in a slot or
 * in padding, a short string out of line) would be a second partition at the same
 * path, and one file could be live twice. Call after check_partition.
 */
static int check_partition_canonical(const sc_table *t, const sc_file_entry *f) {
    const sc_table_schema *s = &t->schema;
    size_t n = s->partition_key_count;
    sc_datum *v = calloc(n ? n : 1, sizeof *v);
    sc_buf b = SC_BUF_INIT;
    int rc = v ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        rc = sc_row_get(&v[i], f->partition.data, f->partition.len, &s->partition_types[i], i, "partition");
    if (!rc) rc = sc_row_encode(&b, s->partition_types, v, n);
    if (!rc && (b.len != f->partition.len || memcmp(b.data, f->partition.data, b.len) != 0))
        rc = sc_error_set(SC_EINVAL, "partition: not the canonical BinaryRow of its values (partitions are "
                                     "compared by their bytes, as Paimon's writer produces them)");
    sc_buf_free(&b);
    free(v);
    return rc;
}

static int is_empty_row(sc_bytes b) {
    uint32_t arity;
    if (!b.data) return 1;
    if (sc_row_arity(&arity, b.data, b.len, "key") != 0) {
        sc_error_clear();
        return 0;
    }
    return arity == 0;
}

static int check_keys(const sc_table *t, const sc_file_entry *f) {
    const sc_table_schema *s = &t->schema;
    if (s->primary_key_count == 0) {
        if (!is_empty_row(f->min_key) || !is_empty_row(f->max_key))
            return sc_error_set(SC_EINVAL, "min_key/max_key: the table has no primary key, so a file has no key range");
        return 0;
    }
    if (!f->min_key.data)
        return sc_error_set(SC_EINVAL, "min_key/max_key: required on a primary-key table (the trimmed primary key of the "
                                       "file's first and last record)");
    int rc = sc_row_validate(f->min_key.data, f->min_key.len, s->trimmed_key_types, s->trimmed_key_count, "min_key");
    if (!rc) rc = sc_row_validate(f->max_key.data, f->max_key.len, s->trimmed_key_types, s->trimmed_key_count, "max_key");
    int c = 0;
    if (!rc) rc = sc_row_compare(&c, f->min_key.data, f->min_key.len, f->max_key.data, f->max_key.len,
                                 s->trimmed_key_types, s->trimmed_key_count, "key range");
    if (!rc && c > 0) return sc_error_set(SC_EINVAL, "min_key: greater than max_key in the key's typed order");
    return rc;
}

static int check_buckets(const sc_table *t, sc_file_entry *f) {
    int32_t table_buckets = t->schema.bucket;
    if (f->total_buckets == 0) f->total_buckets = table_buckets;
    if (sc_schema_is_dynamic_bucket(&t->schema)) {
        /* Paimon's HASH_DYNAMIC writers record the table's bucket (-1) as _TOTAL_BUCKETS; the bucket is
         * whatever its HASH index assigned (>= 0, checked by sc_changes_add). */
        if (f->total_buckets != SC_BUCKET_UNAWARE)
            return sc_error_set(SC_EINVAL, "total_buckets: %d, but the table is a dynamic-bucket primary-key table "
                                           "(bucket = -1: total_buckets -1)", (int)f->total_buckets);
        return 0;
    }
    if (table_buckets == SC_BUCKET_UNAWARE) {
        if (f->total_buckets != SC_BUCKET_UNAWARE)
            return sc_error_set(SC_EINVAL, "total_buckets: %d, but the table is bucket-unaware (bucket = -1: total_buckets -1)",
                                (int)f->total_buckets);
        if (f->bucket != 0) return sc_error_set(SC_EINVAL, "bucket: %d, but a bucket-unaware table writes bucket 0", (int)f->bucket);
        return 0;
    }
    if (f->total_buckets <= 0)
        return sc_error_set(SC_EINVAL, "total_buckets: %d, but the table has fixed buckets (bucket = %d)",
                            (int)f->total_buckets, (int)table_buckets);
    if (f->bucket >= f->total_buckets)
        return sc_error_set(SC_EINVAL, "bucket: %d is not below total_buckets %d", (int)f->bucket, (int)f->total_buckets);
    return 0;
}

static int check_stats(const sc_table *t, const sc_file_entry *f) {
    const sc_table_schema *s = &t->schema;
    if (f->value_stats.min_values.data) {
        size_t arity = f->has_value_stats_cols ? f->value_stats_col_count : s->field_count;
        uint32_t a_min, a_max;
        int rc = sc_row_arity(&a_min, f->value_stats.min_values.data, f->value_stats.min_values.len, "value_stats.min");
        if (!rc) rc = sc_row_arity(&a_max, f->value_stats.max_values.data, f->value_stats.max_values.len, "value_stats.max");
        if (rc) return sc_error_wrap(SC_EINVAL, "value_stats");
        if (a_min != arity || a_max != arity)
            return sc_error_set(SC_EINVAL, "value_stats: rows of %u and %u fields for %zu columns", a_min, a_max, arity);
        if (!f->has_value_stats_cols &&
            ((rc = sc_row_validate(f->value_stats.min_values.data, f->value_stats.min_values.len, s->field_types, arity, "value_stats.min")) != 0 ||
             (rc = sc_row_validate(f->value_stats.max_values.data, f->value_stats.max_values.len, s->field_types, arity, "value_stats.max")) != 0))
            return sc_error_wrap(SC_EINVAL, "value_stats");
        if (f->value_stats.null_count_len != arity)
            return sc_error_set(SC_EINVAL, "value_stats: %zu null counts for %zu columns", f->value_stats.null_count_len, arity);
    }
    if (f->schema_id < 0 || f->schema_id > s->id)
        return sc_error_set(SC_EINVAL, "schema_id: %" PRId64 " is not a schema of this table (current %" PRId64 ")",
                            f->schema_id, s->id);
    return 0;
}

/* Key statistics of a primary-key file from its key range: rows sort by the first key
 * field, so its min and max are exact; later fields are unknown (null, count unknown). */
static int key_stats_from_range(sc_buf *min, sc_buf *max, int64_t *nulls, const sc_table *t, const sc_file_entry *f) {
    const sc_table_schema *s = &t->schema;
    size_t n = s->trimmed_key_count;
    sc_datum *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi);
    int rc = lo && hi ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        lo[i].is_null = hi[i].is_null = 1;
        nulls[i] = i == 0 ? 0 : -1;
    }
    if (!rc) rc = sc_row_get(&lo[0], f->min_key.data, f->min_key.len, &s->trimmed_key_types[0], 0, "min_key");
    if (!rc) rc = sc_row_get(&hi[0], f->max_key.data, f->max_key.len, &s->trimmed_key_types[0], 0, "max_key");
    if (!rc) rc = sc_row_encode(min, s->trimmed_key_types, lo, n);
    if (!rc) rc = sc_row_encode(max, s->trimmed_key_types, hi, n);
    free(lo);
    free(hi);
    return rc;
}

/* Replace entry i of `v` by a copy of `e` (which may point into the old one). */
static int replace_entry(sc_entry_vec *v, size_t i, const sc_file_entry *e) {
    sc_entry_vec one = {0};
    int rc = sc_entry_vec_push_copy(&one, v->items[i].kind, e);
    if (rc) return rc;
    sc_manifest_entry old = v->items[i];
    v->items[i] = one.items[0];
    one.items[0] = old; /* freed with `one`, after `e` is no longer needed */
    sc_entry_vec_free(&one);
    return 0;
}

static int prepare_add(sc_table *t, sc_entry_vec *v, size_t i, sc_commit_kind kind, int64_t now_ms) {
    sc_file_entry *f = &v->items[i].file;
    int rc = check_partition(t, f);
    if (!rc) rc = check_partition_canonical(t, f);
    if (!rc) rc = check_buckets(t, f);
    if (!rc) rc = check_keys(t, f);
    if (!rc) rc = check_stats(t, f);
    if (rc) return rc;
    if (!f->value_stats.min_values.data && !f->has_value_stats_cols) {
        /* No statistics: say "no columns", not "every column" (which readers would index). */
        f->has_value_stats_cols = 1;
        f->value_stats_col_count = 0;
    }
    if (!f->has_file_source) {
        f->has_file_source = 1;
        f->file_source = kind == SC_KIND_COMPACT ? 1 : 0;
    }
    if (!f->has_creation_time) {
        f->has_creation_time = 1;
        f->creation_time_millis = now_ms;
    }
    if (t->schema.trimmed_key_count && !f->key_stats.min_values.data) {
        size_t n = t->schema.trimmed_key_count;
        sc_buf min = SC_BUF_INIT, max = SC_BUF_INIT;
        int64_t *nulls = calloc(n, sizeof *nulls);
        rc = nulls ? key_stats_from_range(&min, &max, nulls, t, f) : sc_error_set(SC_ENOMEM, "out of memory");
        if (!rc) {
            sc_file_entry e = *f;
            e.key_stats.min_values = (sc_bytes){min.data, min.len};
            e.key_stats.max_values = (sc_bytes){max.data, max.len};
            e.key_stats.null_counts = nulls;
            e.key_stats.null_count_len = n;
            rc = replace_entry(v, i, &e);
        }
        free(nulls);
        sc_buf_free(&min);
        sc_buf_free(&max);
    }
    return rc;
}

int sc_entries_prepare(sc_table *t, sc_changes *changes, sc_commit_kind kind, int64_t now_ms) {
    int rc = 0;
    for (size_t i = 0; !rc && i < changes->adds.count; i++) {
        if ((rc = prepare_add(t, &changes->adds, i, kind, now_ms)) != 0) rc = entry_error(rc, "add", i, &changes->adds.items[i].file);
    }
    /* Changelog files live beside the data files and Paimon reads them with the same rules. */
    for (size_t i = 0; !rc && i < changes->changelog.count; i++) {
        if ((rc = prepare_add(t, &changes->changelog, i, SC_KIND_APPEND, now_ms)) != 0)
            rc = entry_error(rc, "changelog", i, &changes->changelog.items[i].file);
    }
    for (size_t i = 0; !rc && i < changes->deletes.count; i++) {
        if ((rc = check_partition(t, &changes->deletes.items[i].file)) != 0)
            rc = entry_error(rc, "delete", i, &changes->deletes.items[i].file);
    }
    return rc;
}

void sc_entries_describe_partition(char *out, size_t cap, const sc_table *t, sc_bytes partition) {
    sc_buf spec = SC_BUF_INIT;
    if (partition.data && sc_partition_spec(&spec, &t->schema, partition.data, partition.len, "partition") == 0 &&
        sc_buf_append_byte(&spec, 0) == 0) {
        sc_bytes_describe(out, cap, (sc_bytes){spec.data, spec.len - 1});
    } else {
        sc_error_clear();
        sc_bytes_describe(out, cap, partition);
    }
    sc_buf_free(&spec);
}

void sc_entries_describe_key(char *out, size_t cap, const sc_table *t, sc_bytes key) {
    const sc_table_schema *s = &t->schema;
    sc_buf text = SC_BUF_INIT;
    int rc = key.data ? sc_buf_append_byte(&text, '[') : SC_EINVAL;
    for (size_t i = 0; !rc && i < s->trimmed_key_count; i++) {
        sc_datum d;
        if (i) rc = sc_buf_append_str(&text, ", ");
        if (!rc) rc = sc_row_get(&d, key.data, key.len, &s->trimmed_key_types[i], i, "key");
        if (!rc && d.is_null) rc = sc_buf_append_str(&text, "null");
        else if (!rc) rc = sc_datum_to_text(&text, &d, &s->trimmed_key_types[i]);
    }
    if (!rc) rc = sc_buf_append_byte(&text, ']');
    if (!rc) {
        sc_bytes_describe(out, cap, (sc_bytes){text.data, text.len});
    } else {
        sc_error_clear();
        sc_bytes_describe(out, cap, key);
    }
    sc_buf_free(&text);
}
