/* Paimon 1.4 manifests and manifest lists over Avro containers (paimon_manifest.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "base/vec.h"
#include "format/avro_container.h"
#include "format/avro_fields.h"
#include "format/file_index.h"
#include "format/paimon_manifest.h"

/* Paimon 1.4.2's writer schemas (docs/paimon-layout.md §5), in its field
 * order; nullable fields are ["null", T], the order Paimon's reader needs. */
#define STATS_FIELDS                                                                                          \
    "[{\"name\":\"_MIN_VALUES\",\"type\":\"bytes\"},{\"name\":\"_MAX_VALUES\",\"type\":\"bytes\"},"          \
    "{\"name\":\"_NULL_COUNTS\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"long\"]}],"     \
    "\"default\":null}]"
#define OPT(name, type) "{\"name\":\"" name "\",\"type\":[\"null\"," type "],\"default\":null}"
#define REQ(name, type) "{\"name\":\"" name "\",\"type\":" type "}"

static const char MANIFEST_SCHEMA[] =
    "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\",\"fields\":["
    REQ("_VERSION", "\"int\"") "," REQ("_KIND", "\"int\"") "," REQ("_PARTITION", "\"bytes\"") ","
    REQ("_BUCKET", "\"int\"") "," REQ("_TOTAL_BUCKETS", "\"int\"") ","
    "{\"name\":\"_FILE\",\"type\":{\"type\":\"record\",\"name\":\"record__FILE\",\"fields\":["
    REQ("_FILE_NAME", "\"string\"") "," REQ("_FILE_SIZE", "\"long\"") "," REQ("_ROW_COUNT", "\"long\"") ","
    REQ("_MIN_KEY", "\"bytes\"") "," REQ("_MAX_KEY", "\"bytes\"") ","
    "{\"name\":\"_KEY_STATS\",\"type\":{\"type\":\"record\",\"name\":\"record__FILE__KEY_STATS\",\"fields\":"
    STATS_FIELDS "}},"
    "{\"name\":\"_VALUE_STATS\",\"type\":{\"type\":\"record\",\"name\":\"record__FILE__VALUE_STATS\",\"fields\":"
    STATS_FIELDS "}},"
    REQ("_MIN_SEQUENCE_NUMBER", "\"long\"") "," REQ("_MAX_SEQUENCE_NUMBER", "\"long\"") ","
    REQ("_SCHEMA_ID", "\"long\"") "," REQ("_LEVEL", "\"int\"") ","
    REQ("_EXTRA_FILES", "{\"type\":\"array\",\"items\":\"string\"}") ","
    OPT("_CREATION_TIME", "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}") ","
    OPT("_DELETE_ROW_COUNT", "\"long\"") "," OPT("_EMBEDDED_FILE_INDEX", "\"bytes\"") ","
    OPT("_FILE_SOURCE", "\"int\"") "," OPT("_VALUE_STATS_COLS", "{\"type\":\"array\",\"items\":\"string\"}") ","
    OPT("_EXTERNAL_PATH", "\"string\"") "," OPT("_FIRST_ROW_ID", "\"long\"") ","
    OPT("_WRITE_COLS", "{\"type\":\"array\",\"items\":\"string\"}") "]}}]}";

static const char LIST_SCHEMA[] =
    "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\",\"fields\":["
    REQ("_VERSION", "\"int\"") "," REQ("_FILE_NAME", "\"string\"") "," REQ("_FILE_SIZE", "\"long\"") ","
    REQ("_NUM_ADDED_FILES", "\"long\"") "," REQ("_NUM_DELETED_FILES", "\"long\"") ","
    "{\"name\":\"_PARTITION_STATS\",\"type\":{\"type\":\"record\",\"name\":\"record__PARTITION_STATS\","
    "\"fields\":" STATS_FIELDS "}},"
    REQ("_SCHEMA_ID", "\"long\"") "," OPT("_MIN_BUCKET", "\"int\"") "," OPT("_MAX_BUCKET", "\"int\"") ","
    OPT("_MIN_LEVEL", "\"int\"") "," OPT("_MAX_LEVEL", "\"int\"") "," OPT("_MIN_ROW_ID", "\"long\"") ","
    OPT("_MAX_ROW_ID", "\"long\"") "," OPT("_SNAPCOMMIT_SHA256", "\"bytes\"") ","
    OPT("_SNAPCOMMIT_FILE_INDEX", "\"bytes\"") "]}";

/* ======================= decoding ======================= */

/* An array of strings: *out is a malloc'd array of pointers into `v`. */
static int get_strings(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path,
                       const char ***out, size_t *count, int *present, int required) {
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    *out = NULL;
    *count = 0;
    int rc = sc_avro_get(d, rec, name, path, &v, present, required);
    if (rc || !*present) return rc;
    if (avro_value_get_type(&v) != AVRO_ARRAY) return sc_avro_bad(d, path, "not an array");
    size_t n;
    if (avro_value_get_size(&v, &n)) return sc_avro_bad(d, path, "unreadable array");
    if (!n) return 0;
    const char **items = calloc(n, sizeof *items);
    if (!items) return sc_error_set(SC_ENOMEM, "%s: out of memory reading %s", d->object, path);
    for (size_t i = 0; i < n; i++) {
        avro_value_t item;
        if (avro_value_get_by_index(&v, i, &item, NULL)) rc = sc_avro_bad(d, path, "unreadable array item");
        if (!rc) rc = sc_avro_as_string(d, &item, path, &items[i]);
        if (rc) {
            free(items);
            return rc;
        }
    }
    *out = items;
    *count = n;
    return 0;
}

/* _NULL_COUNTS: a nullable array of nullable longs; -1 stands for a null
 * element. A null list reads as no counts (*out NULL, *count 0). */
static int get_counts(const sc_avro_ctx *d, avro_value_t *rec, const char *path, int64_t **out, size_t *count,
                      int *present) {
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    *out = NULL;
    *count = 0;
    int rc = sc_avro_get(d, rec, "_NULL_COUNTS", path, &v, present, 0);
    if (rc || !*present) return rc;
    if (avro_value_get_type(&v) != AVRO_ARRAY) return sc_avro_bad(d, path, "not an array");
    size_t n;
    if (avro_value_get_size(&v, &n)) return sc_avro_bad(d, path, "unreadable array");
    if (!n) return 0;
    int64_t *items = calloc(n, sizeof *items);
    if (!items) return sc_error_set(SC_ENOMEM, "%s: out of memory reading %s", d->object, path);
    for (size_t i = 0; !rc && i < n; i++) {
        avro_value_t item;
        if (avro_value_get_by_index(&v, i, &item, NULL)) {
            rc = sc_avro_bad(d, path, "unreadable array item");
            break;
        }
        if (avro_value_get_type(&item) == AVRO_UNION) {
            avro_value_t branch;
            if (avro_value_get_current_branch(&item, &branch)) {
                rc = sc_avro_bad(d, path, "union without a value");
                break;
            }
            item = branch;
        }
        avro_type_t t = avro_value_get_type(&item);
        if (t == AVRO_NULL) {
            items[i] = -1;
        } else if (t == AVRO_INT64) {
            if (avro_value_get_long(&item, &items[i])) rc = sc_avro_bad(d, path, "unreadable long");
            else if (items[i] < 0) rc = sc_avro_bad(d, path, "negative null count");
        } else {
            rc = sc_avro_bad(d, path, "item is not a long");
        }
    }
    if (rc) {
        free(items);
        return rc;
    }
    *out = items;
    *count = n;
    return 0;
}

/* A SimpleStats field: its name and the paths errors name (literals: no formatting per record). */
typedef struct stats_field {
    const char *name, *path, *min_path, *max_path, *counts_path;
} stats_field;
#define STATS_FIELD(parent, name) {name, parent name, parent name "._MIN_VALUES", parent name "._MAX_VALUES", parent name "._NULL_COUNTS"}
static const stats_field key_stats = STATS_FIELD("_FILE.", "_KEY_STATS");
static const stats_field value_stats = STATS_FIELD("_FILE.", "_VALUE_STATS");
static const stats_field partition_stats = STATS_FIELD("", "_PARTITION_STATS");

/* A SimpleStats record; its counts array is malloc'd into *counts. */
static int get_stats(const sc_avro_ctx *d, avro_value_t *rec, const stats_field *field, sc_stats *out,
                     int64_t **counts, int *has_counts) {
    avro_value_t st;
    int present;
    memset(out, 0, sizeof *out);
    int rc = sc_avro_get(d, rec, field->name, field->path, &st, &present, 1);
    if (rc) return rc;
    if (avro_value_get_type(&st) != AVRO_RECORD) return sc_avro_bad(d, field->path, "not a record");
    rc = sc_avro_get_bytes(d, &st, "_MIN_VALUES", field->min_path, &out->min_values, 1);
    if (!rc) rc = sc_avro_get_bytes(d, &st, "_MAX_VALUES", field->max_path, &out->max_values, 1);
    if (!rc) rc = get_counts(d, &st, field->counts_path, counts, &out->null_count_len, has_counts);
    out->null_counts = *counts;
    return rc;
}

typedef struct manifest_read {
    sc_avro_ctx d;
    sc_entry_vec *out;
    sc_manifest_record_fn each; /* instead of `out`: each record handed over, borrowed */
    void *each_ctx;
} manifest_read;

static int check_version(const sc_avro_ctx *d, avro_value_t *rec) {
    int32_t version;
    int present;
    if (avro_value_get_type(rec) != AVRO_RECORD) return sc_avro_bad(d, "(record)", "not an Avro record");
    int rc = sc_avro_get_int(d, rec, "_VERSION", "_VERSION", &version, &present, 1);
    if (!rc && version != SC_PAIMON_RECORD_VERSION) {
        char what[64];
        snprintf(what, sizeof what, "version %d (only %d is read)", (int)version, SC_PAIMON_RECORD_VERSION);
        rc = sc_avro_bad(d, "_VERSION", what);
    }
    return rc;
}

static int manifest_datum(void *ctx, avro_value_t *rec, uint64_t index) {
    manifest_read *m = ctx;
    sc_avro_ctx *d = &m->d;
    d->record = index;
    int rc = check_version(d, rec);
    if (rc) return rc;
    sc_file_entry f;
    memset(&f, 0, sizeof f);
    int32_t kind = 0, i32;
    int present, has;
    int64_t *key_counts = NULL, *value_counts = NULL;
    const char **extra = NULL, **vcols = NULL, **wcols = NULL;
    avro_value_t file;

    rc = sc_avro_get_int(d, rec, "_KIND", "_KIND", &kind, &present, 1);
    if (!rc && kind != 0 && kind != 1) rc = sc_avro_bad(d, "_KIND", "neither 0 (ADD) nor 1 (DELETE)");
    if (!rc) rc = sc_avro_get_bytes(d, rec, "_PARTITION", "_PARTITION", &f.partition, 1);
    if (!rc) rc = sc_avro_get_int(d, rec, "_BUCKET", "_BUCKET", &f.bucket, &present, 1);
    if (!rc && f.bucket < 0) rc = sc_avro_bad(d, "_BUCKET", "negative");
    if (!rc) rc = sc_avro_get_int(d, rec, "_TOTAL_BUCKETS", "_TOTAL_BUCKETS", &f.total_buckets, &present, 1);
    if (!rc && f.total_buckets < -1) rc = sc_avro_bad(d, "_TOTAL_BUCKETS", "below -1");
    if (!rc) rc = sc_avro_get(d, rec, "_FILE", "_FILE", &file, &present, 1);
    if (!rc && avro_value_get_type(&file) != AVRO_RECORD) rc = sc_avro_bad(d, "_FILE", "not a record");
    if (!rc) rc = sc_avro_get_string(d, &file, "_FILE_NAME", "_FILE._FILE_NAME", &f.file, 1);
    if (!rc) rc = sc_avro_check_name(d, "_FILE._FILE_NAME", f.file);
    if (!rc) rc = sc_avro_get_nonneg(d, &file, "_FILE_SIZE", "_FILE._FILE_SIZE", &f.size);
    if (!rc) rc = sc_avro_get_nonneg(d, &file, "_ROW_COUNT", "_FILE._ROW_COUNT", &f.rows);
    if (!rc) rc = sc_avro_get_bytes(d, &file, "_MIN_KEY", "_FILE._MIN_KEY", &f.min_key, 1);
    if (!rc) rc = sc_avro_get_bytes(d, &file, "_MAX_KEY", "_FILE._MAX_KEY", &f.max_key, 1);
    if (!rc) rc = get_stats(d, &file, &key_stats, &f.key_stats, &key_counts, &has);
    if (!rc) rc = get_stats(d, &file, &value_stats, &f.value_stats, &value_counts, &has);
    if (!rc) rc = sc_avro_get_long(d, &file, "_MIN_SEQUENCE_NUMBER", "_FILE._MIN_SEQUENCE_NUMBER", &f.min_seq, &present, 1);
    if (!rc) rc = sc_avro_get_long(d, &file, "_MAX_SEQUENCE_NUMBER", "_FILE._MAX_SEQUENCE_NUMBER", &f.max_seq, &present, 1);
    if (!rc) rc = sc_avro_get_nonneg(d, &file, "_SCHEMA_ID", "_FILE._SCHEMA_ID", &f.schema_id);
    if (!rc) rc = sc_avro_get_int(d, &file, "_LEVEL", "_FILE._LEVEL", &f.level, &present, 1);
    if (!rc && f.level < 0) rc = sc_avro_bad(d, "_FILE._LEVEL", "negative");
    if (!rc) rc = get_strings(d, &file, "_EXTRA_FILES", "_FILE._EXTRA_FILES", &extra, &f.extra_file_count,
                              &present, 1);
    f.extra_files = extra;
    if (!rc) rc = sc_avro_get_long(d, &file, "_CREATION_TIME", "_FILE._CREATION_TIME", &f.creation_time_millis,
                           &f.has_creation_time, 0);
    if (!rc) rc = sc_avro_get_long(d, &file, "_DELETE_ROW_COUNT", "_FILE._DELETE_ROW_COUNT", &f.delete_row_count,
                           &f.has_delete_row_count, 0);
    if (!rc && f.has_delete_row_count && f.delete_row_count < 0)
        rc = sc_avro_bad(d, "_FILE._DELETE_ROW_COUNT", "negative");
    if (!rc) rc = sc_avro_get_bytes(d, &file, "_EMBEDDED_FILE_INDEX", "_FILE._EMBEDDED_FILE_INDEX", &f.embedded_index, 0);
    if (!rc) rc = sc_avro_get_int(d, &file, "_FILE_SOURCE", "_FILE._FILE_SOURCE", &i32, &f.has_file_source, 0);
    if (!rc && f.has_file_source) {
        f.file_source = i32;
        if (i32 != 0 && i32 != 1) rc = sc_avro_bad(d, "_FILE._FILE_SOURCE", "neither 0 (APPEND) nor 1 (COMPACT)");
    }
    if (!rc) rc = get_strings(d, &file, "_VALUE_STATS_COLS", "_FILE._VALUE_STATS_COLS", &vcols,
                              &f.value_stats_col_count, &f.has_value_stats_cols, 0);
    f.value_stats_cols = vcols;
    if (!rc) rc = sc_avro_get_string(d, &file, "_EXTERNAL_PATH", "_FILE._EXTERNAL_PATH", &f.external_path, 0);
    if (!rc) rc = sc_avro_get_long(d, &file, "_FIRST_ROW_ID", "_FILE._FIRST_ROW_ID", &f.first_row_id,
                           &f.has_first_row_id, 0);
    if (!rc) rc = get_strings(d, &file, "_WRITE_COLS", "_FILE._WRITE_COLS", &wcols, &f.write_col_count,
                              &f.has_write_cols, 0);
    f.write_cols = wcols;
    if (!rc && m->each) rc = m->each(m->each_ctx, kind == 0 ? SC_ENTRY_ADD : SC_ENTRY_DELETE, &f, index);
    else if (!rc) rc = sc_entry_vec_push_copy(m->out, kind == 0 ? SC_ENTRY_ADD : SC_ENTRY_DELETE, &f);
    free(key_counts);
    free(value_counts);
    free(extra);
    free(vcols);
    free(wcols);
    return rc;
}

int sc_paimon_manifest_decode(sc_entry_vec *out, const uint8_t *data, size_t len,
                              const sc_decode_limits *limits, const char *object) {
    if (!out) return sc_error_set(SC_EINVAL, "sc_paimon_manifest_decode: missing output vector");
    sc_decode_limits defaults;
    if (!limits) {
        sc_decode_limits_default(&defaults);
        limits = &defaults;
    }
    sc_avro_fields fields = {0};
    manifest_read m = {{object ? object : "manifest", 0, limits, &fields}, out, NULL, NULL};
    size_t before = out->count;
    int rc = sc_avro_read(data, len, limits, m.d.object, manifest_datum, &m);
    if (rc) sc_entry_vec_truncate(out, before);
    return rc;
}

int sc_paimon_manifest_each(const uint8_t *data, size_t len, const sc_decode_limits *limits, const char *object,
                            sc_manifest_record_fn fn, void *ctx) {
    if (!fn) return sc_error_set(SC_EINVAL, "sc_paimon_manifest_each: missing callback");
    sc_decode_limits defaults;
    if (!limits) {
        sc_decode_limits_default(&defaults);
        limits = &defaults;
    }
    sc_avro_fields fields = {0};
    manifest_read m = {{object ? object : "manifest", 0, limits, &fields}, NULL, fn, ctx};
    return sc_avro_read(data, len, limits, m.d.object, manifest_datum, &m);
}

/* ---- manifest lists ---- */

static void manifest_file_release(sc_manifest_file *m) {
    free(m->name);
    free(m->partition_min);
    free(m->partition_max);
    free(m->partition_null_counts);
    free(m->file_index);
    memset(m, 0, sizeof *m);
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n, int *failed) {
    if (!p) return NULL;
    uint8_t *c = malloc(n ? n : 1);
    if (!c) *failed = 1;
    else if (n) memcpy(c, p, n);
    return c;
}

int sc_manifest_file_vec_push(sc_manifest_file_vec *v, const sc_manifest_file *m) {
    if (!v || !m || !m->name) return sc_error_set(SC_EINVAL, "manifest file vector: missing argument");
    if ((!m->partition_min && m->partition_min_len) || (!m->partition_max && m->partition_max_len) ||
        (!m->partition_null_counts && m->partition_null_count_len))
        return sc_error_set(SC_EINVAL, "manifest file %s: NULL data with a length", m->name);
    if (m->partition_null_count_len > SIZE_MAX / sizeof(int64_t))
        return sc_error_set(SC_ELIMIT, "manifest file %s: too many null counts", m->name);
    int rc;
    SC_VEC_RESERVE(rc, v->items, v->cap, v->count + 1, 8, "a manifest file vector");
    if (rc) return rc;
    sc_manifest_file c = *m;
    int failed = 0;
    c.name = strdup(m->name);
    failed = !c.name;
    c.partition_min = dup_bytes(m->partition_min, m->partition_min_len, &failed);
    c.partition_max = dup_bytes(m->partition_max, m->partition_max_len, &failed);
    c.partition_null_counts = (int64_t *)(void *)dup_bytes(
        (const uint8_t *)m->partition_null_counts, m->partition_null_count_len * sizeof(int64_t), &failed);
    c.file_index = dup_bytes(m->file_index, m->file_index_len, &failed);
    if (failed) {
        manifest_file_release(&c);
        return sc_error_set(SC_ENOMEM, "out of memory copying manifest file %s", m->name);
    }
    v->items[v->count++] = c;
    return 0;
}

static void manifest_file_vec_truncate(sc_manifest_file_vec *v, size_t count) {
    while (v->count > count) manifest_file_release(&v->items[--v->count]);
}

void sc_manifest_file_vec_free(sc_manifest_file_vec *v) {
    if (!v) return;
    manifest_file_vec_truncate(v, 0);
    free(v->items);
    v->items = NULL;
    v->count = v->cap = 0;
}

typedef struct list_read {
    sc_avro_ctx d;
    sc_manifest_file_vec *out;
} list_read;

/* A pair of nullable bounds: both present or both null. */
static int get_int_range(const sc_avro_ctx *d, avro_value_t *rec, const char *lo, const char *hi, int32_t *min,
                         int32_t *max, int *has) {
    int has_lo, has_hi;
    int rc = sc_avro_get_int(d, rec, lo, lo, min, &has_lo, 0);
    if (!rc) rc = sc_avro_get_int(d, rec, hi, hi, max, &has_hi, 0);
    if (!rc && has_lo != has_hi) rc = sc_avro_bad(d, has_lo ? hi : lo, "null while the other bound is set");
    *has = has_lo;
    return rc;
}

static int get_long_range(const sc_avro_ctx *d, avro_value_t *rec, const char *lo, const char *hi, int64_t *min,
                          int64_t *max, int *has) {
    int has_lo, has_hi;
    int rc = sc_avro_get_long(d, rec, lo, lo, min, &has_lo, 0);
    if (!rc) rc = sc_avro_get_long(d, rec, hi, hi, max, &has_hi, 0);
    if (!rc && has_lo != has_hi) rc = sc_avro_bad(d, has_lo ? hi : lo, "null while the other bound is set");
    *has = has_lo;
    return rc;
}

static int list_datum(void *ctx, avro_value_t *rec, uint64_t index) {
    list_read *l = ctx;
    sc_avro_ctx *d = &l->d;
    d->record = index;
    int rc = check_version(d, rec);
    if (rc) return rc;
    sc_manifest_file m;
    memset(&m, 0, sizeof m);
    const char *name = NULL;
    sc_stats st;
    int64_t *counts = NULL;
    sc_bytes sha, file_index;
    rc = sc_avro_get_string(d, rec, "_FILE_NAME", "_FILE_NAME", &name, 1);
    if (!rc) rc = sc_avro_check_name(d, "_FILE_NAME", name);
    if (!rc) rc = sc_avro_get_nonneg(d, rec, "_FILE_SIZE", "_FILE_SIZE", &m.size);
    if (!rc) rc = sc_avro_get_nonneg(d, rec, "_NUM_ADDED_FILES", "_NUM_ADDED_FILES", &m.added);
    if (!rc) rc = sc_avro_get_nonneg(d, rec, "_NUM_DELETED_FILES", "_NUM_DELETED_FILES", &m.deleted);
    if (!rc) rc = get_stats(d, rec, &partition_stats, &st, &counts,
                            &m.has_partition_null_counts);
    if (!rc) rc = sc_avro_get_nonneg(d, rec, "_SCHEMA_ID", "_SCHEMA_ID", &m.schema_id);
    if (!rc) rc = get_int_range(d, rec, "_MIN_BUCKET", "_MAX_BUCKET", &m.min_bucket, &m.max_bucket,
                                &m.has_bucket_range);
    if (!rc) rc = get_int_range(d, rec, "_MIN_LEVEL", "_MAX_LEVEL", &m.min_level, &m.max_level,
                                &m.has_level_range);
    if (!rc) rc = get_long_range(d, rec, "_MIN_ROW_ID", "_MAX_ROW_ID", &m.min_row_id, &m.max_row_id,
                                 &m.has_row_id_range);
    if (!rc) rc = sc_avro_get_bytes(d, rec, "_SNAPCOMMIT_SHA256", "_SNAPCOMMIT_SHA256", &sha, 0);
    if (!rc && sha.data) {
        if (sha.len != SC_SHA256_LEN) rc = sc_avro_bad(d, "_SNAPCOMMIT_SHA256", "not 32 bytes");
        else memcpy(m.sha256, sha.data, SC_SHA256_LEN), m.has_sha256 = 1;
    }
    if (!rc) rc = sc_avro_get_bytes(d, rec, "_SNAPCOMMIT_FILE_INDEX", "_SNAPCOMMIT_FILE_INDEX", &file_index, 0);
    if (!rc && file_index.data) {
        char where[96];
        sc_file_index ix;
        snprintf(where, sizeof where, "%s record %" PRIu64 " _SNAPCOMMIT_FILE_INDEX", d->object, d->record);
        rc = sc_file_index_decode(&ix, file_index.data, file_index.len, where);
        m.file_index = (uint8_t *)file_index.data;
        m.file_index_len = file_index.len;
    }
    if (!rc) {
        m.name = (char *)name;
        m.partition_min = (uint8_t *)st.min_values.data;
        m.partition_min_len = st.min_values.len;
        m.partition_max = (uint8_t *)st.max_values.data;
        m.partition_max_len = st.max_values.len;
        m.partition_null_counts = counts;
        m.partition_null_count_len = st.null_count_len;
        rc = sc_manifest_file_vec_push(l->out, &m);
    }
    free(counts);
    return rc;
}

int sc_paimon_list_decode(sc_manifest_file_vec *out, const uint8_t *data, size_t len,
                          const sc_decode_limits *limits, const char *object) {
    if (!out) return sc_error_set(SC_EINVAL, "sc_paimon_list_decode: missing output vector");
    sc_decode_limits defaults;
    if (!limits) {
        sc_decode_limits_default(&defaults);
        limits = &defaults;
    }
    sc_avro_fields fields = {0};
    list_read l = {{object ? object : "manifest list", 0, limits, &fields}, out};
    size_t before = out->count;
    int rc = sc_avro_read(data, len, limits, l.d.object, list_datum, &l);
    if (rc) manifest_file_vec_truncate(out, before);
    return rc;
}

/* ======================= encoding ======================= */

static int enc_fail(const char *object, size_t index, const char *field, const char *what) {
    return sc_error_set(SC_EINVAL, "%s record %zu, field %s: %s", object, index, field, what);
}

static int fill_strings(avro_value_t *arr, const char *const *items, size_t n) {
    for (size_t i = 0; i < n; i++) {
        avro_value_t item;
        if (avro_value_append(arr, &item, NULL) || avro_value_set_string(&item, items[i])) return -1;
    }
    return 0;
}

/* Paimon's reader dereferences _NULL_COUNTS, so an array is always written
 * (empty for no counts), never null. */
static int set_stats(avro_value_t *rec, const char *name, const uint8_t *min, size_t min_len,
                     const uint8_t *max, size_t max_len, const int64_t *counts, size_t count_len) {
    avro_value_t st, arr;
    if (sc_avro_set_field(rec, name, &st)) return -1;
    if (sc_avro_set_bytes(&st, "_MIN_VALUES", (sc_bytes){min, min_len}, 1) ||
        sc_avro_set_bytes(&st, "_MAX_VALUES", (sc_bytes){max, max_len}, 1) || sc_avro_set_branch(&st, "_NULL_COUNTS", 1, &arr))
        return -1;
    for (size_t i = 0; i < count_len; i++) {
        avro_value_t item, b;
        if (avro_value_append(&arr, &item, NULL)) return -1;
        if (counts[i] < 0) {
            if (avro_value_set_branch(&item, 0, &b) || avro_value_set_null(&b)) return -1;
        } else if (avro_value_set_branch(&item, 1, &b) || avro_value_set_long(&b, counts[i])) {
            return -1;
        }
    }
    return 0;
}

static int check_strings(const char *field, size_t index, const char *const *items, size_t n) {
    if (n && !items) return enc_fail("manifest", index, field, "NULL array");
    for (size_t i = 0; i < n; i++)
        if (!items[i]) return enc_fail("manifest", index, field, "NULL item");
    return 0;
}

static int check_entry(const sc_manifest_entry *e, size_t index, size_t field_max) {
    const sc_file_entry *f = &e->file;
    if (e->kind != SC_ENTRY_ADD && e->kind != SC_ENTRY_DELETE)
        return enc_fail("manifest", index, "_KIND", "neither ADD nor DELETE");
    if (!f->file) return enc_fail("manifest", index, "_FILE_NAME", "NULL");
    if (!*f->file || strchr(f->file, '/') || strlen(f->file) > SC_MANIFEST_PATH_MAX)
        return enc_fail("manifest", index, "_FILE_NAME", "not a single path segment of at most 1024 bytes");
    if (f->size < 0) return enc_fail("manifest", index, "_FILE_SIZE", "negative");
    if (f->rows < 0) return enc_fail("manifest", index, "_ROW_COUNT", "negative");
    if (f->bucket < 0) return enc_fail("manifest", index, "_BUCKET", "negative");
    if (f->level < 0) return enc_fail("manifest", index, "_LEVEL", "negative");
    if (f->schema_id < 0) return enc_fail("manifest", index, "_SCHEMA_ID", "negative");
    if (f->has_delete_row_count && f->delete_row_count < 0)
        return enc_fail("manifest", index, "_DELETE_ROW_COUNT", "negative");
    if (f->has_file_source && f->file_source != 0 && f->file_source != 1)
        return enc_fail("manifest", index, "_FILE_SOURCE", "neither 0 nor 1");
    const sc_bytes fields[] = {f->partition, f->min_key, f->max_key, f->key_stats.min_values,
                               f->key_stats.max_values, f->value_stats.min_values, f->value_stats.max_values,
                               f->embedded_index};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (!fields[i].data && fields[i].len) return enc_fail("manifest", index, "(bytes)", "NULL data with a length");
        /* Never write what a reader with default limits refuses. */
        if (fields[i].len > field_max)
            return sc_error_set(SC_ELIMIT, "manifest record %zu: a bytes field of %zu bytes exceeds %zu", index,
                                fields[i].len, field_max);
    }
    if ((f->key_stats.null_count_len && !f->key_stats.null_counts) ||
        (f->value_stats.null_count_len && !f->value_stats.null_counts))
        return enc_fail("manifest", index, "_NULL_COUNTS", "NULL array");
    int rc = check_strings("_EXTRA_FILES", index, f->extra_files, f->extra_file_count);
    if (!rc && f->has_value_stats_cols)
        rc = check_strings("_VALUE_STATS_COLS", index, f->value_stats_cols, f->value_stats_col_count);
    if (!rc && f->has_write_cols) rc = check_strings("_WRITE_COLS", index, f->write_cols, f->write_col_count);
    return rc;
}

static int encode_entry(avro_value_t *rec, const sc_manifest_entry *e) {
    const sc_file_entry *f = &e->file;
    avro_value_t file, b;
    if (sc_avro_set_int(rec, "_VERSION", SC_PAIMON_RECORD_VERSION) || sc_avro_set_int(rec, "_KIND", e->kind == SC_ENTRY_ADD ? 0 : 1) ||
        sc_avro_set_bytes(rec, "_PARTITION", f->partition, 1) || sc_avro_set_int(rec, "_BUCKET", f->bucket) ||
        sc_avro_set_int(rec, "_TOTAL_BUCKETS", f->total_buckets) || sc_avro_set_field(rec, "_FILE", &file))
        return -1;
    if (sc_avro_set_field(&file, "_FILE_NAME", &b) || avro_value_set_string(&b, f->file) ||
        sc_avro_set_long(&file, "_FILE_SIZE", f->size) || sc_avro_set_long(&file, "_ROW_COUNT", f->rows) ||
        sc_avro_set_bytes(&file, "_MIN_KEY", f->min_key, 1) || sc_avro_set_bytes(&file, "_MAX_KEY", f->max_key, 1) ||
        set_stats(&file, "_KEY_STATS", f->key_stats.min_values.data, f->key_stats.min_values.len,
                  f->key_stats.max_values.data, f->key_stats.max_values.len, f->key_stats.null_counts,
                  f->key_stats.null_count_len) ||
        set_stats(&file, "_VALUE_STATS", f->value_stats.min_values.data, f->value_stats.min_values.len,
                  f->value_stats.max_values.data, f->value_stats.max_values.len, f->value_stats.null_counts,
                  f->value_stats.null_count_len) ||
        sc_avro_set_long(&file, "_MIN_SEQUENCE_NUMBER", f->min_seq) || sc_avro_set_long(&file, "_MAX_SEQUENCE_NUMBER", f->max_seq) ||
        sc_avro_set_long(&file, "_SCHEMA_ID", f->schema_id) || sc_avro_set_int(&file, "_LEVEL", f->level) ||
        sc_avro_set_field(&file, "_EXTRA_FILES", &b) || fill_strings(&b, f->extra_files, f->extra_file_count) ||
        sc_avro_opt_long(&file, "_CREATION_TIME", f->has_creation_time, f->creation_time_millis) ||
        sc_avro_opt_long(&file, "_DELETE_ROW_COUNT", f->has_delete_row_count, f->delete_row_count))
        return -1;
    if (sc_avro_set_branch(&file, "_EMBEDDED_FILE_INDEX", f->embedded_index.data != NULL, &b) ||
        (f->embedded_index.data && sc_avro_put_bytes(&b, f->embedded_index, 0)) ||
        sc_avro_opt_int(&file, "_FILE_SOURCE", f->has_file_source, f->file_source) ||
        sc_avro_set_branch(&file, "_VALUE_STATS_COLS", f->has_value_stats_cols, &b) ||
        (f->has_value_stats_cols && fill_strings(&b, f->value_stats_cols, f->value_stats_col_count)) ||
        sc_avro_set_branch(&file, "_EXTERNAL_PATH", f->external_path != NULL, &b) ||
        (f->external_path && avro_value_set_string(&b, f->external_path)) ||
        sc_avro_opt_long(&file, "_FIRST_ROW_ID", f->has_first_row_id, f->first_row_id) ||
        sc_avro_set_branch(&file, "_WRITE_COLS", f->has_write_cols, &b) ||
        (f->has_write_cols && fill_strings(&b, f->write_cols, f->write_col_count)))
        return -1;
    return 0;
}

int sc_paimon_manifest_encode(sc_buf *out, const sc_entry_vec *entries) {
    if (!out || !entries) return sc_error_set(SC_EINVAL, "sc_paimon_manifest_encode: missing argument");
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    if (entries->count > limits.max_entries)
        return sc_error_set(SC_ELIMIT, "%zu manifest records exceed the decode limit", entries->count);
    for (size_t i = 0; i < entries->count; i++) {
        int rc = check_entry(&entries->items[i], i, limits.max_field_len);
        if (rc) return rc;
    }
    sc_avro_writer *w;
    int rc = sc_avro_writer_new(&w, MANIFEST_SCHEMA, "deflate");
    for (size_t i = 0; !rc && i < entries->count; i++) {
        avro_value_t *rec;
        rc = sc_avro_writer_value(&rec, w);
        if (!rc && encode_entry(rec, &entries->items[i]))
            rc = sc_error_set(SC_EINVAL, "manifest record %zu: cannot encode: %s", i, avro_strerror());
        if (!rc) rc = sc_avro_writer_append(w);
    }
    if (!rc) rc = sc_avro_writer_finish(out, w);
    sc_avro_writer_free(w);
    return rc;
}

static int encode_list_entry(avro_value_t *rec, const sc_manifest_file *m) {
    avro_value_t b;
    return sc_avro_set_int(rec, "_VERSION", SC_PAIMON_RECORD_VERSION) || sc_avro_set_field(rec, "_FILE_NAME", &b) ||
           avro_value_set_string(&b, m->name) || sc_avro_set_long(rec, "_FILE_SIZE", m->size) ||
           sc_avro_set_long(rec, "_NUM_ADDED_FILES", m->added) || sc_avro_set_long(rec, "_NUM_DELETED_FILES", m->deleted) ||
           set_stats(rec, "_PARTITION_STATS", m->partition_min, m->partition_min_len, m->partition_max,
                     m->partition_max_len, m->partition_null_counts, m->partition_null_count_len) ||
           sc_avro_set_long(rec, "_SCHEMA_ID", m->schema_id) ||
           sc_avro_opt_int(rec, "_MIN_BUCKET", m->has_bucket_range, m->min_bucket) ||
           sc_avro_opt_int(rec, "_MAX_BUCKET", m->has_bucket_range, m->max_bucket) ||
           sc_avro_opt_int(rec, "_MIN_LEVEL", m->has_level_range, m->min_level) ||
           sc_avro_opt_int(rec, "_MAX_LEVEL", m->has_level_range, m->max_level) ||
           sc_avro_opt_long(rec, "_MIN_ROW_ID", m->has_row_id_range, m->min_row_id) ||
           sc_avro_opt_long(rec, "_MAX_ROW_ID", m->has_row_id_range, m->max_row_id) ||
           sc_avro_set_branch(rec, "_SNAPCOMMIT_SHA256", m->has_sha256, &b) ||
           (m->has_sha256 && avro_value_set_bytes(&b, (void *)(uintptr_t)m->sha256, SC_SHA256_LEN)) ||
           sc_avro_set_branch(rec, "_SNAPCOMMIT_FILE_INDEX", m->file_index != NULL, &b) ||
           (m->file_index && avro_value_set_bytes(&b, m->file_index, m->file_index_len));
}

static int check_list_entry(const sc_manifest_file *m, size_t i, size_t field_max) {
    if (!m->name || !*m->name || strchr(m->name, '/') || strlen(m->name) > SC_MANIFEST_PATH_MAX)
        return enc_fail("manifest list", i, "_FILE_NAME", "not a single path segment of at most 1024 bytes");
    if (m->size < 0) return enc_fail("manifest list", i, "_FILE_SIZE", "negative");
    if (m->added < 0) return enc_fail("manifest list", i, "_NUM_ADDED_FILES", "negative");
    if (m->deleted < 0) return enc_fail("manifest list", i, "_NUM_DELETED_FILES", "negative");
    if (m->schema_id < 0) return enc_fail("manifest list", i, "_SCHEMA_ID", "negative");
    if ((!m->partition_min && m->partition_min_len) || (!m->partition_max && m->partition_max_len) ||
        (!m->partition_null_counts && m->partition_null_count_len))
        return enc_fail("manifest list", i, "_PARTITION_STATS", "NULL data with a length");
    if (m->partition_min_len > field_max || m->partition_max_len > field_max)
        return sc_error_set(SC_ELIMIT, "manifest list record %zu: partition stats above %zu bytes", i, field_max);
    if (m->file_index_len > field_max)
        return sc_error_set(SC_ELIMIT, "manifest list record %zu: file index above %zu bytes", i, field_max);
    return 0;
}

int sc_paimon_list_encode(sc_buf *out, const sc_manifest_file_vec *files) {
    if (!out || !files) return sc_error_set(SC_EINVAL, "sc_paimon_list_encode: missing argument");
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    for (size_t i = 0; i < files->count; i++) {
        int rc = check_list_entry(&files->items[i], i, limits.max_field_len);
        if (rc) return rc;
    }
    sc_avro_writer *w;
    /* Uncompressed: a list is small but for its file indexes, which are random bits that
     * deflate cannot shrink and would only spend CPU on, every commit. */
    int rc = sc_avro_writer_new(&w, LIST_SCHEMA, "null");
    for (size_t i = 0; !rc && i < files->count; i++) {
        avro_value_t *rec;
        rc = sc_avro_writer_value(&rec, w);
        if (!rc && encode_list_entry(rec, &files->items[i]))
            rc = sc_error_set(SC_EINVAL, "manifest list record %zu: cannot encode: %s", i, avro_strerror());
        if (!rc) rc = sc_avro_writer_append(w);
    }
    if (!rc) rc = sc_avro_writer_finish(out, w);
    sc_avro_writer_free(w);
    return rc;
}
