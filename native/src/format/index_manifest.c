/* Paimon 1.4 index manifests over Avro containers (index_manifest.h). */
#include "format/index_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/avro_container.h"
#include "format/avro_fields.h"

#define OPT(name, type) "{\"name\":\"" name "\",\"type\":[\"null\"," type "],\"default\":null}"
#define REQ(name, type) "{\"name\":\"" name "\",\"type\":" type "}"

/* Paimon 1.4.2's writer schema, byte for byte as its AvroSchemaConverter prints
 * VersionedObjectSerializer.versionType(IndexManifestEntry.SCHEMA). */
static const char INDEX_MANIFEST_SCHEMA[] =
    "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\",\"fields\":["
    REQ("_VERSION", "\"int\"") "," REQ("_KIND", "\"int\"") "," REQ("_PARTITION", "\"bytes\"") ","
    REQ("_BUCKET", "\"int\"") "," REQ("_INDEX_TYPE", "\"string\"") "," REQ("_FILE_NAME", "\"string\"") ","
    REQ("_FILE_SIZE", "\"long\"") "," REQ("_ROW_COUNT", "\"long\"") ","
    OPT("_DELETIONS_VECTORS_RANGES",
        "{\"type\":\"array\",\"items\":[\"null\",{\"type\":\"record\",\"name\":\"record__DELETIONS_VECTORS_RANGES\","
        "\"fields\":[" REQ("f0", "\"string\"") "," REQ("f1", "\"int\"") "," REQ("f2", "\"int\"") ","
        OPT("_CARDINALITY", "\"long\"") "]}]}") ","
    OPT("_EXTERNAL_PATH", "\"string\"") ","
    OPT("_GLOBAL_INDEX",
        "{\"type\":\"record\",\"name\":\"record__GLOBAL_INDEX\",\"fields\":["
        REQ("_ROW_RANGE_START", "\"long\"") "," REQ("_ROW_RANGE_END", "\"long\"") ","
        REQ("_INDEX_FIELD_ID", "\"int\"") "," OPT("_EXTRA_FIELD_IDS", "{\"type\":\"array\",\"items\":\"int\"}") ","
        OPT("_INDEX_META", "\"bytes\"") "]}") "]}";

/* ======================= decoding ======================= */

typedef struct index_read {
    sc_avro_ctx d;
    sc_index_vec *out;
} index_read;

/* One DeletionVectorMeta of the array; `path` names the item. */
static int dv_range(const sc_avro_ctx *d, avro_value_t *item, const char *path, sc_dv_range *out) {
    char sub[96];
    int present;
    if (avro_value_get_type(item) == AVRO_UNION) {
        avro_value_t branch;
        if (avro_value_get_current_branch(item, &branch)) return sc_avro_bad(d, path, "union without a value");
        *item = branch;
    }
    if (avro_value_get_type(item) == AVRO_NULL) return sc_avro_bad(d, path, "null range");
    if (avro_value_get_type(item) != AVRO_RECORD) return sc_avro_bad(d, path, "not a record");
    snprintf(sub, sizeof sub, "%s.f0", path);
    int rc = sc_avro_get_string(d, item, "f0", sub, &out->data_file, 1);
    if (!rc) rc = sc_avro_check_name(d, sub, out->data_file);
    snprintf(sub, sizeof sub, "%s.f1", path);
    if (!rc) rc = sc_avro_get_int(d, item, "f1", sub, &out->offset, &present, 1);
    if (!rc && out->offset < 0) rc = sc_avro_bad(d, sub, "negative offset");
    snprintf(sub, sizeof sub, "%s.f2", path);
    if (!rc) rc = sc_avro_get_int(d, item, "f2", sub, &out->length, &present, 1);
    if (!rc && out->length < 0) rc = sc_avro_bad(d, sub, "negative length");
    snprintf(sub, sizeof sub, "%s._CARDINALITY", path);
    if (!rc) rc = sc_avro_get_long(d, item, "_CARDINALITY", sub, &out->cardinality, &out->has_cardinality, 0);
    if (!rc && out->has_cardinality && out->cardinality < 0) rc = sc_avro_bad(d, sub, "negative cardinality");
    return rc;
}

/* _DELETIONS_VECTORS_RANGES: *out a malloc'd array (NULL when empty or null). */
static int dv_ranges(const sc_avro_ctx *d, avro_value_t *rec, sc_index_entry *e, sc_dv_range **out) {
    static const char *path = "_DELETIONS_VECTORS_RANGES";
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    *out = NULL;
    int rc = sc_avro_get(d, rec, path, path, &v, &e->has_dv_ranges, 0);
    if (rc || !e->has_dv_ranges) return rc;
    if (avro_value_get_type(&v) != AVRO_ARRAY) return sc_avro_bad(d, path, "not an array");
    size_t n;
    if (avro_value_get_size(&v, &n)) return sc_avro_bad(d, path, "unreadable array");
    if (!n) return 0;
    sc_dv_range *items = calloc(n, sizeof *items);
    if (!items) return sc_error_set(SC_ENOMEM, "%s: out of memory reading %s", d->object, path);
    for (size_t i = 0; !rc && i < n; i++) {
        char sub[64];
        snprintf(sub, sizeof sub, "%s[%zu]", path, i);
        avro_value_t item;
        if (avro_value_get_by_index(&v, i, &item, NULL)) rc = sc_avro_bad(d, sub, "unreadable array item");
        else rc = dv_range(d, &item, sub, &items[i]);
    }
    if (rc) {
        free(items);
        return rc;
    }
    *out = items;
    e->dv_ranges = items;
    e->dv_range_count = n;
    return 0;
}

static int index_datum(void *ctx, avro_value_t *rec, uint64_t index) {
    index_read *r = ctx;
    sc_avro_ctx *d = &r->d;
    d->record = index;
    int32_t version = 0, kind = 0;
    int present;
    if (avro_value_get_type(rec) != AVRO_RECORD) return sc_avro_bad(d, "(record)", "not an Avro record");
    int rc = sc_avro_get_int(d, rec, "_VERSION", "_VERSION", &version, &present, 1);
    if (!rc && version != SC_INDEX_RECORD_VERSION) {
        char what[64];
        snprintf(what, sizeof what, "version %d (only %d is read)", (int)version, SC_INDEX_RECORD_VERSION);
        rc = sc_avro_bad(d, "_VERSION", what);
    }
    sc_index_entry e;
    memset(&e, 0, sizeof e);
    sc_dv_range *ranges = NULL;
    avro_value_t global;
    if (!rc) rc = sc_avro_get_int(d, rec, "_KIND", "_KIND", &kind, &present, 1);
    if (!rc && kind != 0 && kind != 1) rc = sc_avro_bad(d, "_KIND", "neither 0 (ADD) nor 1 (DELETE)");
    if (!rc) rc = sc_avro_get_bytes(d, rec, "_PARTITION", "_PARTITION", &e.partition, 1);
    if (!rc) rc = sc_avro_get_int(d, rec, "_BUCKET", "_BUCKET", &e.bucket, &present, 1);
    if (!rc && e.bucket < 0) rc = sc_avro_bad(d, "_BUCKET", "negative");
    if (!rc) rc = sc_avro_get_string(d, rec, "_INDEX_TYPE", "_INDEX_TYPE", &e.index_type, 1);
    if (!rc && !*e.index_type) rc = sc_avro_bad(d, "_INDEX_TYPE", "empty");
    if (!rc && strlen(e.index_type) > SC_MANIFEST_PATH_MAX) rc = sc_avro_bad(d, "_INDEX_TYPE", "longer than 1024 bytes");
    if (!rc) rc = sc_avro_get_string(d, rec, "_FILE_NAME", "_FILE_NAME", &e.file, 1);
    if (!rc) rc = sc_avro_check_name(d, "_FILE_NAME", e.file);
    if (!rc) rc = sc_avro_get_nonneg(d, rec, "_FILE_SIZE", "_FILE_SIZE", &e.size);
    if (!rc) rc = sc_avro_get_nonneg(d, rec, "_ROW_COUNT", "_ROW_COUNT", &e.rows);
    if (!rc) rc = dv_ranges(d, rec, &e, &ranges);
    if (!rc) rc = sc_avro_get_string(d, rec, "_EXTERNAL_PATH", "_EXTERNAL_PATH", &e.external_path, 0);
    if (!rc) rc = sc_avro_get(d, rec, "_GLOBAL_INDEX", "_GLOBAL_INDEX", &global, &present, 0);
    /* A global index (data-evolution tables) is a row range of the table, not a bucket's file:
     * nothing here could keep it, and dropping it would lose the index. */
    if (!rc && present)
        rc = sc_error_set(SC_EUNSUPPORTED, "%s: record %llu, field _GLOBAL_INDEX: a global index (data-evolution "
                                           "tables) is not supported",
                          d->object, (unsigned long long)d->record);
    if (!rc) rc = sc_index_vec_push_copy(r->out, kind == 0 ? SC_ENTRY_ADD : SC_ENTRY_DELETE, &e);
    free(ranges);
    return rc;
}

int sc_index_manifest_decode(sc_index_vec *out, const uint8_t *data, size_t len, const sc_decode_limits *limits,
                             const char *object) {
    if (!out) return sc_error_set(SC_EINVAL, "sc_index_manifest_decode: missing output vector");
    sc_decode_limits defaults;
    if (!limits) {
        sc_decode_limits_default(&defaults);
        limits = &defaults;
    }
    sc_avro_fields fields = {0};
    index_read r = {{object ? object : "index manifest", 0, limits, &fields}, out};
    size_t before = out->count;
    int rc = sc_avro_read(data, len, limits, r.d.object, index_datum, &r);
    if (rc) sc_index_vec_truncate(out, before);
    return rc;
}

/* ======================= encoding ======================= */

static int encode_record(avro_value_t *rec, const sc_index_record *r) {
    const sc_index_entry *e = &r->entry;
    avro_value_t b, arr;
    if (sc_avro_set_int(rec, "_VERSION", SC_INDEX_RECORD_VERSION) ||
        sc_avro_set_int(rec, "_KIND", r->kind == SC_ENTRY_ADD ? 0 : 1) ||
        sc_avro_set_bytes(rec, "_PARTITION", e->partition, 1) || sc_avro_set_int(rec, "_BUCKET", e->bucket) ||
        sc_avro_set_field(rec, "_INDEX_TYPE", &b) || avro_value_set_string(&b, e->index_type) ||
        sc_avro_set_field(rec, "_FILE_NAME", &b) || avro_value_set_string(&b, e->file) ||
        sc_avro_set_long(rec, "_FILE_SIZE", e->size) || sc_avro_set_long(rec, "_ROW_COUNT", e->rows) ||
        sc_avro_set_branch(rec, "_DELETIONS_VECTORS_RANGES", e->has_dv_ranges, &arr))
        return -1;
    for (size_t i = 0; e->has_dv_ranges && i < e->dv_range_count; i++) {
        const sc_dv_range *dv = &e->dv_ranges[i];
        avro_value_t item, range;
        if (avro_value_append(&arr, &item, NULL) || avro_value_set_branch(&item, 1, &range) ||
            sc_avro_set_field(&range, "f0", &b) || avro_value_set_string(&b, dv->data_file) ||
            sc_avro_set_int(&range, "f1", dv->offset) || sc_avro_set_int(&range, "f2", dv->length) ||
            sc_avro_opt_long(&range, "_CARDINALITY", dv->has_cardinality, dv->cardinality))
            return -1;
    }
    return sc_avro_set_branch(rec, "_EXTERNAL_PATH", e->external_path != NULL, &b) ||
           (e->external_path && avro_value_set_string(&b, e->external_path)) ||
           sc_avro_set_branch(rec, "_GLOBAL_INDEX", 0, &b);
}

/* What a reader would refuse is refused here, naming the record. */
static int check_record(const sc_index_record *r, size_t index, size_t field_max) {
    if (r->kind != SC_ENTRY_ADD && r->kind != SC_ENTRY_DELETE)
        return sc_error_set(SC_EINVAL, "index manifest record %zu: _KIND: neither ADD nor DELETE", index);
    int rc = sc_index_entry_validate(&r->entry);
    if (rc) return sc_error_wrap(rc, "index manifest record %zu", index);
    if (r->entry.partition.len > field_max || strlen(r->entry.file) > field_max ||
        (r->entry.external_path && strlen(r->entry.external_path) > field_max))
        return sc_error_set(SC_ELIMIT, "index manifest record %zu: a field exceeds %zu bytes", index, field_max);
    return 0;
}

int sc_index_manifest_encode(sc_buf *out, const sc_index_vec *entries) {
    if (!out || !entries) return sc_error_set(SC_EINVAL, "sc_index_manifest_encode: missing argument");
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    if (entries->count > limits.max_entries)
        return sc_error_set(SC_ELIMIT, "%zu index manifest records exceed the decode limit", entries->count);
    for (size_t i = 0; i < entries->count; i++) {
        int rc = check_record(&entries->items[i], i, limits.max_field_len);
        if (rc) return rc;
    }
    sc_avro_writer *w;
    int rc = sc_avro_writer_new(&w, INDEX_MANIFEST_SCHEMA, "deflate");
    for (size_t i = 0; !rc && i < entries->count; i++) {
        avro_value_t *rec;
        rc = sc_avro_writer_value(&rec, w);
        if (!rc && encode_record(rec, &entries->items[i]))
            rc = sc_error_set(SC_EINVAL, "index manifest record %zu: cannot encode: %s", i, avro_strerror());
        if (!rc) rc = sc_avro_writer_append(w);
    }
    if (!rc) rc = sc_avro_writer_finish(out, w);
    sc_avro_writer_free(w);
    return rc;
}
