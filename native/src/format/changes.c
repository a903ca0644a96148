/* Building and parsing change sets: {"add":[ENTRY...],"delete":[ENTRY...]}; their
 * changelog and index sections, also from Paimon's own manifest bytes. */
#include "format/changes.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/binary_row.h"
#include "format/index_manifest.h"
#include "format/paimon_manifest.h"
#include "format/partition.h"

int sc_changes_new(sc_changes **out) {
    *out = calloc(1, sizeof **out);
    return *out ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
}

void sc_changes_free(sc_changes *c) {
    if (!c) return;
    sc_entry_vec_free(&c->adds);
    sc_entry_vec_free(&c->deletes);
    sc_entry_vec_free(&c->changelog);
    sc_index_vec_free(&c->index_adds);
    sc_index_vec_free(&c->index_deletes);
    free(c);
}

/*
 * Control characters in a name: C0 (bytes 0x00..0x1f), DEL (0x7f) and C1
 * (U+0080..U+009F, i.e. the UTF-8 pairs 0xc2 0x80..0x9f). Returns the byte
 * offset of the first one and its length in bytes in *out_len (1 or 2), or
 * SIZE_MAX when there is none.
 */
static size_t name_control_at(const uint8_t *p, size_t len, size_t *out_len) {
    for (size_t i = 0; i < len; i++) {
        if (p[i] < 0x20 || p[i] == 0x7f) {
            *out_len = 1;
            return i;
        }
        /* C1 (U+0080..U+009F) as UTF-8: terminals obey these too (0xc2 0x9b is CSI). */
        if (p[i] == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f) {
            *out_len = 2;
            return i;
        }
    }
    return SIZE_MAX;
}

int sc_name_check(const char *field, const uint8_t *p, size_t len) {
    size_t n, at = name_control_at(p, len, &n);
    if (at == SIZE_MAX) return 0;
    char name[160], ch[16];
    sc_bytes_describe(name, sizeof name, (sc_bytes){p, len});
    sc_bytes_describe(ch, sizeof ch, (sc_bytes){p + at, n});
    return sc_error_set(SC_EINVAL,
                        "%s \"%s\": control character %s at byte %zu (control characters C0, DEL "
                        "and C1 are not allowed in names)",
                        field, name, ch, at);
}

/* Refuse here what an encoder would refuse later, so bad input is SC_EINVAL
 * before anything is written rather than a failure in the middle of a commit. */
static int field_lengths_check(const sc_file_entry *e) {
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    const struct {
        const char *name;
        sc_bytes b;
    } fields[] = {{"partition", e->partition}, {"min_key", e->min_key}, {"max_key", e->max_key}};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (fields[i].b.len > limits.max_field_len)
            return sc_error_set(SC_EINVAL, "%s: %zu bytes, longer than the field limit of %zu bytes",
                                fields[i].name, fields[i].b.len, limits.max_field_len);
    return 0;
}

static int push_checked(sc_entry_vec *v, sc_entry_kind kind, const sc_file_entry *entry) {
    if (!entry) return sc_error_set(SC_EINVAL, "NULL file entry");
    /* An absent partition is the unpartitioned table's: the canonical row of no fields
     * (partitions compare by bytes, so there must be exactly one spelling of it). */
    sc_file_entry copy = *entry;
    const sc_file_entry *e = &copy;
    if (!copy.partition.data || copy.partition.len == 0) copy.partition = (sc_bytes){sc_empty_row, SC_EMPTY_ROW_LEN};
    int rc = sc_file_entry_validate(e);
    if (!rc) rc = field_lengths_check(e);
    /* Only adds introduce names; a delete may still name a file that an older
     * version let in, so that it can be removed. */
    /* (A partition is a BinaryRow now: its values are printed as escaped specs, never raw.) */
    if (!rc && kind == SC_ENTRY_ADD) rc = sc_name_check("file", (const uint8_t *)e->file, strlen(e->file));
    return rc ? rc : sc_entry_vec_push(v, kind, e);
}

int sc_changes_add(sc_changes *c, const sc_file_entry *e) {
    return push_checked(&c->adds, SC_ENTRY_ADD, e);
}

int sc_changes_delete(sc_changes *c, const sc_file_entry *e) {
    return push_checked(&c->deletes, SC_ENTRY_DELETE, e);
}

size_t sc_changes_add_count(const sc_changes *c) { return c->adds.count; }
size_t sc_changes_delete_count(const sc_changes *c) { return c->deletes.count; }

int sc_changes_add_changelog(sc_changes *c, const sc_file_entry *e) {
    return push_checked(&c->changelog, SC_ENTRY_ADD, e);
}

static int push_index_checked(sc_index_vec *v, sc_entry_kind kind, const sc_index_entry *entry) {
    if (!entry) return sc_error_set(SC_EINVAL, "NULL index entry");
    sc_index_entry copy = *entry;
    /* One spelling of the unpartitioned table's partition, as for data files. */
    if (!copy.partition.data || copy.partition.len == 0) copy.partition = (sc_bytes){sc_empty_row, SC_EMPTY_ROW_LEN};
    int rc = sc_index_entry_validate(&copy);
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    if (!rc && copy.partition.len > limits.max_field_len)
        rc = sc_error_set(SC_EINVAL, "partition: %zu bytes, longer than the field limit of %zu bytes", copy.partition.len,
                          limits.max_field_len);
    /* Names an add introduces end up in output; a delete may name what an older version let in. */
    if (!rc && kind == SC_ENTRY_ADD) rc = sc_name_check("file", (const uint8_t *)copy.file, strlen(copy.file));
    if (!rc && kind == SC_ENTRY_ADD)
        rc = sc_name_check("index_type", (const uint8_t *)copy.index_type, strlen(copy.index_type));
    for (size_t i = 0; !rc && kind == SC_ENTRY_ADD && i < copy.dv_range_count; i++) {
        char field[64];
        snprintf(field, sizeof field, "dv_ranges[%zu].data_file", i);
        rc = sc_name_check(field, (const uint8_t *)copy.dv_ranges[i].data_file, strlen(copy.dv_ranges[i].data_file));
    }
    return rc ? rc : sc_index_vec_push_copy(v, kind, &copy);
}

int sc_changes_add_index(sc_changes *c, const sc_index_entry *e) {
    return push_index_checked(&c->index_adds, SC_ENTRY_ADD, e);
}

int sc_changes_delete_index(sc_changes *c, const sc_index_entry *e) {
    return push_index_checked(&c->index_deletes, SC_ENTRY_DELETE, e);
}

size_t sc_changes_changelog_count(const sc_changes *c) { return c->changelog.count; }
size_t sc_changes_index_add_count(const sc_changes *c) { return c->index_adds.count; }
size_t sc_changes_index_delete_count(const sc_changes *c) { return c->index_deletes.count; }

/* ---- Paimon's manifest bytes ---- */

#define GIVEN_OBJECT "the given Paimon manifest"

/* ManifestEntry records into the data or changelog section. */
static int add_paimon_files(sc_changes *c, int changelog, const uint8_t *avro, size_t len) {
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    sc_entry_vec records = {0};
    int rc = sc_paimon_manifest_decode(&records, avro, len, &limits, GIVEN_OBJECT);
    size_t adds = c->adds.count, deletes = c->deletes.count, logs = c->changelog.count;
    for (size_t i = 0; !rc && i < records.count; i++) {
        const sc_manifest_entry *r = &records.items[i];
        if (changelog && r->kind != SC_ENTRY_ADD)
            rc = sc_error_set(SC_EINVAL, "%s: record %zu: a DELETE of changelog file \"%s\" (changelog files are only added)",
                              GIVEN_OBJECT, i, r->file.file);
        else if (changelog) rc = sc_changes_add_changelog(c, &r->file);
        else rc = r->kind == SC_ENTRY_ADD ? sc_changes_add(c, &r->file) : sc_changes_delete(c, &r->file);
        if (rc && !(changelog && r->kind != SC_ENTRY_ADD)) rc = sc_error_wrap(rc, "%s: record %zu", GIVEN_OBJECT, i);
    }
    sc_entry_vec_free(&records);
    if (rc) { /* nothing from this call stays */
        sc_entry_vec_truncate(&c->adds, adds);
        sc_entry_vec_truncate(&c->deletes, deletes);
        sc_entry_vec_truncate(&c->changelog, logs);
    }
    return rc;
}

/* IndexManifestEntry records into the index section. */
static int add_paimon_index(sc_changes *c, const uint8_t *avro, size_t len) {
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    sc_index_vec records = {0};
    int rc = sc_index_manifest_decode(&records, avro, len, &limits, GIVEN_OBJECT);
    size_t adds = c->index_adds.count, deletes = c->index_deletes.count;
    for (size_t i = 0; !rc && i < records.count; i++) {
        const sc_index_record *r = &records.items[i];
        rc = r->kind == SC_ENTRY_ADD ? sc_changes_add_index(c, &r->entry) : sc_changes_delete_index(c, &r->entry);
        if (rc) rc = sc_error_wrap(rc, "%s: record %zu", GIVEN_OBJECT, i);
    }
    sc_index_vec_free(&records);
    if (rc) {
        sc_index_vec_truncate(&c->index_adds, adds);
        sc_index_vec_truncate(&c->index_deletes, deletes);
    }
    return rc;
}

int sc_changes_add_paimon(sc_changes *c, sc_paimon_section section, const uint8_t *avro, size_t len) {
    if (!c || (!avro && len)) return sc_error_set(SC_EINVAL, "sc_changes_add_paimon: missing argument");
    switch (section) {
    case SC_SECTION_DATA: return add_paimon_files(c, 0, avro, len);
    case SC_SECTION_CHANGELOG: return add_paimon_files(c, 1, avro, len);
    case SC_SECTION_INDEX: return add_paimon_index(c, avro, len);
    }
    return sc_error_set(SC_EINVAL, "sc_changes_add_paimon: section %d is not DATA (0), CHANGELOG (1) or INDEX (2)",
                        (int)section);
}

/* ---- JSON ---- */

static int entry_error(const char *list, size_t index, const char *field, const char *what) {
    return sc_error_set(SC_EINVAL, "changes: %s[%zu].%s %s", list, index, field, what);
}

static int int_field(json_t *o, const char *list, size_t i, const char *field, int required,
                     int64_t max, int64_t *out) {
    json_t *v = json_object_get(o, field);
    if (!v) {
        if (required) return entry_error(list, i, field, "is required");
        return 0;
    }
    if (!json_is_integer(v)) return entry_error(list, i, field, "must be an integer");
    json_int_t x = json_integer_value(v);
    if (x < 0 || x > max) return entry_error(list, i, field, "is out of range");
    *out = x;
    return 0;
}

static int str_field(json_t *o, const char *list, size_t i, const char *field, int required,
                     sc_bytes *out) {
    json_t *v = json_object_get(o, field);
    if (!v) {
        if (required) return entry_error(list, i, field, "is required");
        *out = (sc_bytes){NULL, 0};
        return 0;
    }
    if (!json_is_string(v)) return entry_error(list, i, field, "must be a string");
    *out = (sc_bytes){(const uint8_t *)json_string_value(v), json_string_length(v)};
    return 0;
}

static const char *const known_fields[] = {"partition", "bucket", "totalBuckets", "level",          "file",
                                           "rows",      "size",   "minKey",       "maxKey",         "minSeq",
                                           "maxSeq",    "deleteRowCount", "fileSource", "creationTime"};

/* A JSON scalar as a value of `type` (numbers and booleans through their text, so one
 * parser decides what fits). *owned is the allocation the datum may point into. */
static int json_datum(sc_datum *out, uint8_t **owned, json_t *v, const sc_data_type *type, const char *what) {
    char text[64];
    *owned = NULL;
    if (json_is_null(v)) {
        memset(out, 0, sizeof *out);
        out->is_null = 1;
        return 0;
    }
    if (json_is_string(v)) return sc_datum_from_text(out, owned, json_string_value(v), type, what);
    if (json_is_integer(v)) snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v)) snprintf(text, sizeof text, "%.17g", json_real_value(v));
    else if (json_is_boolean(v)) snprintf(text, sizeof text, "%s", json_is_true(v) ? "true" : "false");
    else return sc_error_set(SC_EINVAL, "%s: not a scalar value", what);
    return sc_datum_from_text(out, owned, text, type, what);
}

/* minKey / maxKey: a JSON array of the trimmed primary key's values (a bare value for a
 * one-field key), encoded as that key's BinaryRow into `out`. */
static int key_field(sc_buf *out, int *present, json_t *o, const char *list, size_t i, const char *field,
                     const sc_table_schema *schema) {
    json_t *v = json_object_get(o, field);
    *present = v != NULL;
    if (!v) return 0;
    size_t n = schema->trimmed_key_count;
    if (n == 0) return entry_error(list, i, field, "is given, but the table has no primary key");
    if (!json_is_array(v) && n != 1)
        return entry_error(list, i, field, "must be an array of the primary key's values (the key has several fields)");
    if (json_is_array(v) && json_array_size(v) != n) {
        char what[96];
        snprintf(what, sizeof what, "has %zu values, the primary key (without partition fields) has %zu",
                 json_array_size(v), n);
        return entry_error(list, i, field, what);
    }
    sc_datum *values = calloc(n, sizeof *values);
    uint8_t **owned = calloc(n, sizeof *owned);
    int rc = values && owned ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t k = 0; !rc && k < n; k++) {
        char what[96];
        snprintf(what, sizeof what, "changes: %s[%zu].%s[%zu]", list, i, field, k);
        rc = json_datum(&values[k], &owned[k], json_is_array(v) ? json_array_get(v, k) : v, &schema->trimmed_key_types[k], what);
        if (!rc && values[k].is_null) rc = sc_error_set(SC_EINVAL, "%s: null, but primary-key fields are NOT NULL", what);
    }
    if (!rc) rc = sc_row_encode(out, schema->trimmed_key_types, values, n);
    for (size_t k = 0; owned && k < n; k++) free(owned[k]);
    free(owned);
    free(values);
    return rc;
}

static int seq_field(json_t *o, const char *list, size_t i, const char *field, int64_t *out) {
    json_t *v = json_object_get(o, field);
    if (!v) return 0;
    if (!json_is_integer(v)) return entry_error(list, i, field, "must be an integer");
    *out = json_integer_value(v);
    return 0;
}

/* Where an entry of a list goes. */
typedef enum list_kind { LIST_ADD, LIST_DELETE, LIST_CHANGELOG, LIST_INDEX_ADD, LIST_INDEX_DELETE } list_kind;

/* "fileSource": "APPEND" or "COMPACT" (Paimon's FileSource), into *has / *out. */
static int file_source_field(json_t *o, const char *list, size_t i, int *has, int32_t *out) {
    json_t *v = json_object_get(o, "fileSource");
    if (!v) return 0;
    const char *t = json_is_string(v) ? json_string_value(v) : NULL;
    if (!t || (strcmp(t, "APPEND") != 0 && strcmp(t, "COMPACT") != 0))
        return entry_error(list, i, "fileSource", "must be \"APPEND\" or \"COMPACT\"");
    *has = 1;
    *out = strcmp(t, "COMPACT") == 0;
    return 0;
}

/* `o` is an object whose every key is one of `known` (n names): else SC_EINVAL naming it. */
static int check_entry_object(json_t *o, const char *list, size_t i, const char *const *known, size_t n) {
    if (!json_is_object(o)) return sc_error_set(SC_EINVAL, "changes: %s[%zu] is not an object", list, i);
    const char *key;
    json_t *value;
    json_object_foreach(o, key, value) {
        int found = 0;
        for (size_t k = 0; k < n; k++) found |= strcmp(key, known[k]) == 0;
        if (!found) return entry_error(list, i, key, "is not a known field");
    }
    return 0;
}

static int parse_entry(sc_changes *c, const sc_table_schema *schema, json_t *o, const char *list, size_t i,
                       list_kind kind) {
    int rc = check_entry_object(o, list, i, known_fields, sizeof known_fields / sizeof *known_fields);
    if (rc) return rc;
    int64_t bucket = 0, level = 0, rows = 0, size = 0, min_seq = 0, max_seq = 0;
    int64_t total = 0;
    sc_bytes spec = {0}, file = {0}; /* set on success; -O3 cannot see it */
    rc = str_field(o, list, i, "partition", 1, &spec);
    if (!rc) rc = int_field(o, list, i, "bucket", 1, INT32_MAX, &bucket);
    if (!rc) {
        /* -1: a bucket-unaware table (Paimon's value); absent or 0: the table's setting. */
        json_t *tb = json_object_get(o, "totalBuckets");
        if (tb && (!json_is_integer(tb) || json_integer_value(tb) < -1 || json_integer_value(tb) > INT32_MAX))
            rc = entry_error(list, i, "totalBuckets", "must be -1 (bucket-unaware), 0 (the table's setting) or a bucket count");
        else if (tb) total = json_integer_value(tb);
    }
    if (!rc) rc = int_field(o, list, i, "level", 1, INT32_MAX, &level);
    if (!rc) rc = str_field(o, list, i, "file", 1, &file);
    if (!rc) rc = int_field(o, list, i, "rows", 1, INT64_MAX, &rows);
    if (!rc) rc = int_field(o, list, i, "size", 1, INT64_MAX, &size);
    if (!rc) rc = seq_field(o, list, i, "minSeq", &min_seq);
    if (!rc) rc = seq_field(o, list, i, "maxSeq", &max_seq);
    int64_t delete_rows = 0, created = 0;
    int has_delete_rows = json_object_get(o, "deleteRowCount") != NULL, has_created = json_object_get(o, "creationTime") != NULL;
    int has_source = 0;
    int32_t source = 0;
    if (!rc) rc = int_field(o, list, i, "deleteRowCount", 0, INT64_MAX, &delete_rows);
    if (!rc) rc = int_field(o, list, i, "creationTime", 0, INT64_MAX, &created);
    if (!rc) rc = file_source_field(o, list, i, &has_source, &source);
    if (rc) return rc;
    if (strlen((const char *)file.data) != file.len) return entry_error(list, i, "file", "contains a NUL byte");
    if (strlen((const char *)spec.data) != spec.len) return entry_error(list, i, "partition", "contains a NUL byte");
    sc_buf partition = SC_BUF_INIT, min_key = SC_BUF_INIT, max_key = SC_BUF_INIT;
    int has_min = 0, has_max = 0;
    /* A spec is the partition's path, where Paimon escapes control characters (%0A): a raw one in
     * an added file's spec is refused as in names, so it never reaches output unescaped. A delete
     * may still name what an older version let in. */
    if (kind != LIST_DELETE && (rc = sc_name_check("partition", spec.data, spec.len)) != 0)
        return sc_error_wrap(rc, "changes: %s[%zu]", list, i);
    rc = sc_partition_parse(&partition, schema, (const char *)spec.data);
    if (rc) rc = sc_error_wrap(rc, "changes: %s[%zu].partition", list, i);
    if (!rc) rc = key_field(&min_key, &has_min, o, list, i, "minKey", schema);
    if (!rc) rc = key_field(&max_key, &has_max, o, list, i, "maxKey", schema);
    if (!rc) {
        sc_file_entry e = {.partition = {partition.data, partition.len}, .bucket = (int32_t)bucket,
                           .total_buckets = (int32_t)total, .level = (int32_t)level, .file = (const char *)file.data,
                           .rows = rows, .size = size, .min_seq = min_seq, .max_seq = max_seq};
        if (has_min) e.min_key = (sc_bytes){min_key.data, min_key.len};
        if (has_max) e.max_key = (sc_bytes){max_key.data, max_key.len};
        e.has_delete_row_count = has_delete_rows;
        e.delete_row_count = delete_rows;
        e.has_creation_time = has_created;
        e.creation_time_millis = created;
        e.has_file_source = has_source;
        e.file_source = source;
        rc = kind == LIST_ADD ? sc_changes_add(c, &e) : kind == LIST_DELETE ? sc_changes_delete(c, &e)
                                                                           : sc_changes_add_changelog(c, &e);
        if (rc) rc = sc_error_wrap(rc, "changes: %s[%zu]", list, i);
    }
    sc_buf_free(&partition);
    sc_buf_free(&min_key);
    sc_buf_free(&max_key);
    return rc;
}

static const char *const known_index_fields[] = {"partition", "bucket", "type", "file", "size", "rows", "dv", "externalPath"};

/* One "dv" range: {"file","offset","length","cardinality"?}. */
static int parse_dv(sc_dv_range *out, json_t *o, const char *list, size_t i, size_t k) {
    char field[48];
    snprintf(field, sizeof field, "dv[%zu]", k);
    if (!json_is_object(o)) return entry_error(list, i, field, "is not an object");
    const char *key;
    json_t *value;
    json_object_foreach(o, key, value) {
        if (strcmp(key, "file") && strcmp(key, "offset") && strcmp(key, "length") && strcmp(key, "cardinality")) {
            char what[96];
            snprintf(what, sizeof what, "has an unknown field \"%.40s\"", key);
            return entry_error(list, i, field, what);
        }
    }
    json_t *f = json_object_get(o, "file"), *off = json_object_get(o, "offset"), *len = json_object_get(o, "length"),
           *card = json_object_get(o, "cardinality");
    if (!f || !json_is_string(f) || strlen(json_string_value(f)) != json_string_length(f))
        return entry_error(list, i, field, "needs \"file\", a data file's name");
    if (!off || !json_is_integer(off) || json_integer_value(off) < 0 || json_integer_value(off) > INT32_MAX ||
        !len || !json_is_integer(len) || json_integer_value(len) < 0 || json_integer_value(len) > INT32_MAX)
        return entry_error(list, i, field, "needs \"offset\" and \"length\", integers 0..2147483647");
    if (card && !json_is_null(card) && (!json_is_integer(card) || json_integer_value(card) < 0))
        return entry_error(list, i, field, "\"cardinality\" must be a non-negative integer");
    *out = (sc_dv_range){.data_file = json_string_value(f), .offset = (int32_t)json_integer_value(off),
                         .length = (int32_t)json_integer_value(len)};
    if (card && !json_is_null(card)) {
        out->has_cardinality = 1;
        out->cardinality = json_integer_value(card);
    }
    return 0;
}

/* One INDEX entry (docs/format.md §8) into the index section of `c`. */
static int parse_index_entry(sc_changes *c, const sc_table_schema *schema, json_t *o, const char *list, size_t i,
                             list_kind kind) {
    int rc = check_entry_object(o, list, i, known_index_fields, sizeof known_index_fields / sizeof *known_index_fields);
    if (rc) return rc;
    int64_t bucket = 0, size = 0, rows = 0;
    sc_bytes spec = {0}, type = {0}, file = {0}, ext = {0};
    rc = str_field(o, list, i, "partition", 1, &spec);
    if (!rc) rc = int_field(o, list, i, "bucket", 1, INT32_MAX, &bucket);
    if (!rc) rc = str_field(o, list, i, "type", 1, &type);
    if (!rc) rc = str_field(o, list, i, "file", 1, &file);
    if (!rc) rc = int_field(o, list, i, "size", 1, INT64_MAX, &size);
    if (!rc) rc = int_field(o, list, i, "rows", 1, INT64_MAX, &rows);
    if (!rc) rc = str_field(o, list, i, "externalPath", 0, &ext);
    if (rc) return rc;
    if (strlen((const char *)spec.data) != spec.len) return entry_error(list, i, "partition", "contains a NUL byte");
    if (strlen((const char *)type.data) != type.len) return entry_error(list, i, "type", "contains a NUL byte");
    if (strlen((const char *)file.data) != file.len) return entry_error(list, i, "file", "contains a NUL byte");
    if (ext.data && strlen((const char *)ext.data) != ext.len) return entry_error(list, i, "externalPath", "contains a NUL byte");
    json_t *dv = json_object_get(o, "dv");
    if (dv && !json_is_null(dv) && !json_is_array(dv)) return entry_error(list, i, "dv", "must be an array");
    size_t n = dv && json_is_array(dv) ? json_array_size(dv) : 0;
    sc_dv_range *ranges = calloc(n ? n : 1, sizeof *ranges);
    if (!ranges) return sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t k = 0; !rc && k < n; k++) rc = parse_dv(&ranges[k], json_array_get(dv, k), list, i, k);
    sc_buf partition = SC_BUF_INIT;
    if (!rc && kind == LIST_INDEX_ADD && (rc = sc_name_check("partition", spec.data, spec.len)) != 0)
        rc = sc_error_wrap(rc, "changes: %s[%zu]", list, i);
    if (!rc && (rc = sc_partition_parse(&partition, schema, (const char *)spec.data)) != 0)
        rc = sc_error_wrap(rc, "changes: %s[%zu].partition", list, i);
    if (!rc) {
        sc_index_entry e = {.partition = {partition.data, partition.len}, .bucket = (int32_t)bucket,
                            .index_type = (const char *)type.data, .file = (const char *)file.data, .size = size,
                            .rows = rows, .has_dv_ranges = dv && json_is_array(dv), .dv_ranges = ranges,
                            .dv_range_count = n, .external_path = (const char *)ext.data};
        rc = kind == LIST_INDEX_ADD ? sc_changes_add_index(c, &e) : sc_changes_delete_index(c, &e);
        if (rc) rc = sc_error_wrap(rc, "changes: %s[%zu]", list, i);
    }
    sc_buf_free(&partition);
    free(ranges);
    return rc;
}

/*
 * Parsing is bounded in memory. A jansson document of the whole text costs
 * up to ~230 bytes per value (30 MB of `{},` entries took 2.3 GB), so the
 * text is never loaded whole: the two top-level lists are walked here, and
 * each entry is loaded alone (one small document at a time), after a
 * string-aware scan has found its extent and counted its tokens. A first
 * linear pass counts the entries, so an input with too many is refused
 * before any of them is decoded. Peak memory is then the text, one entry's
 * document, and the decoded entries (docs/operations.md states the bound).
 */

/* Tokens (containers, strings, scalars) one entry may have: a valid entry has
 * the object, 11 keys, 11 values and the values of two keys; room is left for
 * wide keys and for bad entries to be decoded and named precisely, not for a
 * document of unbounded cost. */
#define ENTRY_MAX_TOKENS 256
/* An index entry lists a deletion vector per data file of its bucket (5 tokens each). */
#define INDEX_ENTRY_MAX_TOKENS 65536

typedef struct scan {
    const char *text; /* the whole input, for positions in messages */
    size_t len;
    size_t pos;
} scan;

static void skip_ws(scan *s) {
    while (s->pos < s->len && (s->text[s->pos] == ' ' || s->text[s->pos] == '\t' ||
                               s->text[s->pos] == '\n' || s->text[s->pos] == '\r'))
        s->pos++;
}

/* "line L column C" of byte offset `at` (1-based, as jansson counts), for messages. */
static int syntax_error(const scan *s, size_t at, const char *what) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < s->len; i++) {
        if (s->text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    return sc_error_set(SC_EINVAL, "changes: invalid JSON at line %zu column %zu: %s", line, col, what);
}

/* End of the string starting at `at` (a '"'): the offset after its closing quote, or len. */
static size_t string_end(const char *t, size_t len, size_t at) {
    for (size_t i = at + 1; i < len; i++) {
        if (t[i] == '\\') i++;
        else if (t[i] == '"') return i + 1;
    }
    return len;
}

static int is_delim(char c) {
    return c == ',' || c == ']' || c == '}' || c == ':' || c == '[' || c == '{' || c == '"' ||
           c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * The extent of the value starting at `at`, string-aware: *out_end is the
 * offset after it (len when unterminated: jansson then names the error),
 * *out_tokens how many tokens it has; counting stops past `max_tokens`.
 */
static void value_extent(size_t *out_end, size_t *out_tokens, const char *t, size_t len, size_t at,
                         size_t max_tokens) {
    size_t depth = 0, tokens = 0, i = at;
    while (i < len) {
        char c = t[i];
        if (c == '"') {
            tokens++;
            i = string_end(t, len, i);
        } else if (c == '{' || c == '[') {
            tokens++;
            depth++;
            i++;
        } else if (c == '}' || c == ']') {
            if (depth == 0) break; /* the enclosing list's end */
            depth--;
            i++;
        } else if (is_delim(c)) {
            if (depth == 0 && c == ',') break;
            i++;
        } else {
            tokens++;
            while (i < len && !is_delim(t[i])) i++;
        }
        if (depth == 0) break; /* one whole value */
        if (tokens > max_tokens) break;
    }
    *out_end = i;
    *out_tokens = tokens;
}

/*
 * The first, linear pass: the number of entries (values directly inside a
 * list that is a member of an object outside any entry: "add", "compact" →
 * "add", "index" → "add", ...). Syntax is left to the second pass; this one
 * only counts, so a 64 MiB text of `{}` is refused before a single entry is
 * decoded.
 */
#define COUNT_MAX_DEPTH 16
static size_t count_entries(const char *t, size_t len) {
    size_t depth = 0, entries = 0, entry_depth = 0; /* entry_depth: inside an entry that opened at it */
    unsigned char is_list[COUNT_MAX_DEPTH + 1] = {0};
    int expect_value = 0; /* in an entry list, the next token starts an entry */
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        int in_entry_list = !entry_depth && depth >= 2 && depth <= COUNT_MAX_DEPTH && is_list[depth];
        if (in_entry_list && expect_value && c != ']' && c != ',') {
            entries++;
            expect_value = 0;
            if (c == '{' || c == '[') entry_depth = depth + 1;
        }
        if (c == '"') {
            i = string_end(t, len, i) - 1;
        } else if (c == '{' || c == '[') {
            depth++;
            if (depth <= COUNT_MAX_DEPTH) is_list[depth] = c == '[';
            if (!entry_depth && c == '[') expect_value = 1;
        } else if (c == '}' || c == ']') {
            if (entry_depth && depth == entry_depth) entry_depth = 0;
            if (depth) depth--;
            expect_value = 0;
        } else if (c == ',' && in_entry_list) {
            expect_value = 1;
        }
    }
    return entries;
}

/* The list after "add" / "delete": '[' entries ']', each entry loaded on its own. */
static int parse_list(sc_changes *c, const sc_table_schema *schema, scan *s, const char *list, list_kind kind) {
    int index = kind == LIST_INDEX_ADD || kind == LIST_INDEX_DELETE;
    size_t max_tokens = index ? INDEX_ENTRY_MAX_TOKENS : ENTRY_MAX_TOKENS;
    skip_ws(s);
    if (s->pos >= s->len || s->text[s->pos] != '[') {
        if (s->pos >= s->len) return syntax_error(s, s->pos, "unexpected end of input");
        return sc_error_set(SC_EINVAL, "changes: \"%s\" must be an array", list);
    }
    s->pos++;
    skip_ws(s);
    if (s->pos < s->len && s->text[s->pos] == ']') {
        s->pos++;
        return 0;
    }
    for (size_t i = 0;; i++) {
        skip_ws(s);
        size_t at = s->pos, end, tokens;
        value_extent(&end, &tokens, s->text, s->len, at, max_tokens);
        if (tokens > max_tokens)
            return sc_error_set(SC_EINVAL,
                                "changes: %s[%zu] has more than %zu JSON tokens (%s)", list, i, max_tokens,
                                index ? "an index entry has 8 fields and 4 per deletion vector"
                                      : "an entry has 14 fields and two keys");
        json_error_t err;
        json_t *entry = json_loadb(s->text + at, end - at, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
        if (!entry) return syntax_error(s, at + (size_t)err.position, err.text);
        int rc = index ? parse_index_entry(c, schema, entry, list, i, kind) : parse_entry(c, schema, entry, list, i, kind);
        json_decref(entry);
        if (rc) return rc;
        s->pos = end;
        skip_ws(s);
        if (s->pos >= s->len) return syntax_error(s, s->pos, "unexpected end of input");
        char sep = s->text[s->pos++];
        if (sep == ']') return 0;
        if (sep != ',') return syntax_error(s, s->pos - 1, "',' or ']' expected");
    }
}

/* An object key: a JSON string, decoded by jansson (escapes included) into name (16 bytes),
 * which must be one of `keys` (NULL-terminated); `where` and `expected` word the refusal. */
static int parse_key(char name[16], scan *s, const char *const *keys, const char *where, const char *expected) {
    size_t at = s->pos;
    if (at >= s->len || s->text[at] != '"') return syntax_error(s, at, "string or '}' expected");
    size_t end = string_end(s->text, s->len, at);
    json_error_t err;
    json_t *k = json_loadb(s->text + at, end - at, JSON_DECODE_ANY, &err);
    if (!k) return syntax_error(s, at + (size_t)err.position, err.text);
    const char *v = json_string_value(k);
    int known = 0;
    for (size_t i = 0; v && keys[i]; i++) known |= strlen(keys[i]) == json_string_length(k) && strcmp(v, keys[i]) == 0;
    if (!known) {
        char shown[64];
        sc_bytes_describe(shown, sizeof shown,
                          (sc_bytes){(const uint8_t *)(v ? v : ""), v ? json_string_length(k) : 0});
        json_decref(k);
        return sc_error_set(SC_EINVAL, "changes: unknown key \"%s\"%s (expected %s)", shown, where, expected);
    }
    snprintf(name, 16, "%s", v);
    json_decref(k);
    s->pos = end;
    return 0;
}

/* What an object of the change set may hold, and where its parts go. */
typedef struct part_ctx {
    sc_changes *c;          /* this part's files */
    sc_changes **compact;   /* the top level of a checkpoint: its compact part (NULL: not allowed here) */
    int *has_watermark;     /* the top level of a checkpoint: its watermark */
    int64_t *watermark;
    int index_only;         /* the "index" object: "add" and "delete" are index entries */
    const char *prefix;     /* "" or "compact." / "index." / "compact.index.", for messages */
    sc_overwrite_scope *ow_scope; /* the top level of a checkpoint request: "overwrite" (NULL: unknown key) */
    char **ow_partition;
} part_ctx;

static int parse_object(const part_ctx *p, const sc_table_schema *schema, scan *s);

/* The value after a key of the object: a list of entries, a nested object, or the watermark. */
static int parse_member(const part_ctx *p, const sc_table_schema *schema, scan *s, const char *name) {
    char list[48];
    snprintf(list, sizeof list, "%s%s", p->prefix, name);
    if (strcmp(name, "add") == 0) return parse_list(p->c, schema, s, list, p->index_only ? LIST_INDEX_ADD : LIST_ADD);
    if (strcmp(name, "delete") == 0)
        return parse_list(p->c, schema, s, list, p->index_only ? LIST_INDEX_DELETE : LIST_DELETE);
    if (strcmp(name, "changelog") == 0) return parse_list(p->c, schema, s, list, LIST_CHANGELOG);
    if (strcmp(name, "index") == 0) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%sindex.", p->prefix);
        part_ctx sub = {p->c, NULL, NULL, NULL, 1, prefix, NULL, NULL};
        return parse_object(&sub, schema, s);
    }
    if (strcmp(name, "compact") == 0) {
        int rc = sc_changes_new(p->compact);
        part_ctx sub = {*p->compact, NULL, NULL, NULL, 0, "compact.", NULL, NULL};
        return rc ? rc : parse_object(&sub, schema, s);
    }
    /* "watermark": an integer (Paimon's Long); "overwrite": true, "table", "dynamic" or {"partition":SPEC} */
    size_t at = s->pos, end, tokens;
    value_extent(&end, &tokens, s->text, s->len, at, strcmp(name, "overwrite") == 0 ? 8 : 2);
    json_error_t err;
    json_t *v = json_loadb(s->text + at, end - at, JSON_DECODE_ANY, &err);
    if (!v) return syntax_error(s, at + (size_t)err.position, err.text);
    if (strcmp(name, "overwrite") == 0) {
        const char *str = json_string_value(v);
        json_t *spec = json_is_object(v) && json_object_size(v) == 1 ? json_object_get(v, "partition") : NULL;
        int ok = 1;
        if (json_is_true(v) || (str && strcmp(str, "table") == 0)) *p->ow_scope = SC_OVERWRITE_TABLE;
        else if (str && strcmp(str, "dynamic") == 0) *p->ow_scope = SC_OVERWRITE_DYNAMIC;
        else if (json_is_false(v)) *p->ow_scope = SC_OVERWRITE_NONE;
        else if (json_is_string(spec) && strlen(json_string_value(spec)) == json_string_length(spec) &&
                 json_string_length(spec) <= 4096) {
            *p->ow_scope = SC_OVERWRITE_PARTITION;
            free(*p->ow_partition);
            if (!(*p->ow_partition = strdup(json_string_value(spec)))) ok = -1;
        } else ok = 0;
        json_decref(v);
        if (ok < 0) return sc_error_set(SC_ENOMEM, "out of memory");
        if (!ok)
            return sc_error_set(SC_EINVAL, "changes: \"overwrite\" must be true, \"table\", \"dynamic\" or "
                                           "{\"partition\":\"k=v[/k=v...]\"} (at most 4096 bytes, no NUL)");
        s->pos = end;
        return 0;
    }
    int ok = json_is_integer(v);
    if (ok) {
        *p->has_watermark = 1;
        *p->watermark = json_integer_value(v);
    }
    json_decref(v);
    if (!ok) return sc_error_set(SC_EINVAL, "changes: \"watermark\" must be an integer (event-time millis)");
    s->pos = end;
    return 0;
}

/* '{' members '}': each key at most once. */
static int parse_object(const part_ctx *p, const sc_table_schema *schema, scan *s) {
    static const char *const top[] = {"add", "delete", "changelog", "index", "compact", "watermark", NULL};
    static const char *const top_ow[] = {"add", "delete", "changelog", "index", "compact", "watermark", "overwrite", NULL};
    static const char *const part[] = {"add", "delete", "changelog", "index", NULL};
    static const char *const index[] = {"add", "delete", NULL};
    const char *const *keys = p->index_only ? index : p->ow_scope ? top_ow : p->compact ? top : part;
    const char *expected = p->index_only ? "\"add\" and \"delete\" of index files"
                           : p->ow_scope ? "\"add\", \"delete\", \"changelog\", \"index\", \"compact\", \"watermark\" and \"overwrite\""
                           : p->compact  ? "\"add\", \"delete\", \"changelog\", \"index\", \"compact\" and \"watermark\""
                                         : "\"add\", \"delete\", \"changelog\" and \"index\"";
    char where[48] = "";
    if (*p->prefix) snprintf(where, sizeof where, " in \"%.*s\"", (int)strlen(p->prefix) - 1, p->prefix);
    skip_ws(s);
    if (s->pos >= s->len) return syntax_error(s, s->pos, "unexpected end of input");
    if (s->text[s->pos] != '{') {
        if (!*p->prefix) return sc_error_set(SC_EINVAL, "changes: expected an object {\"add\":[...],\"delete\":[...]}");
        return sc_error_set(SC_EINVAL, "changes: \"%.*s\" must be an object", (int)strlen(p->prefix) - 1, p->prefix);
    }
    s->pos++;
    skip_ws(s);
    if (s->pos < s->len && s->text[s->pos] == '}') {
        s->pos++;
        return 0;
    }
    unsigned seen = 0;
    for (;;) {
        char name[16];
        skip_ws(s);
        int rc = parse_key(name, s, keys, where, expected);
        if (rc) return rc;
        unsigned bit = 0;
        for (unsigned k = 0; keys[k]; k++)
            if (strcmp(keys[k], name) == 0) bit = 1u << k;
        if (seen & bit) {
            char what[48];
            snprintf(what, sizeof what, "duplicate object key \"%s\"", name);
            return syntax_error(s, s->pos, what);
        }
        seen |= bit;
        skip_ws(s);
        if (s->pos >= s->len || s->text[s->pos] != ':') return syntax_error(s, s->pos, "':' expected");
        s->pos++;
        skip_ws(s);
        if ((rc = parse_member(p, schema, s, name)) != 0) return rc;
        skip_ws(s);
        if (s->pos >= s->len) return syntax_error(s, s->pos, "unexpected end of input");
        char sep = s->text[s->pos++];
        if (sep == '}') return 0;
        if (sep != ',') return syntax_error(s, s->pos - 1, "',' or '}' expected");
    }
}

int sc_changes_parse_checkpoint_json(sc_changes **out_append, sc_changes **out_compact, int *out_has_watermark,
                                     int64_t *out_watermark, const sc_table_schema *schema, const char *json,
                                     size_t len) {
    return sc_changes_parse_request_json(out_append, out_compact, out_has_watermark, out_watermark, NULL, NULL, schema,
                                         json, len);
}

int sc_changes_parse_request_json(sc_changes **out_append, sc_changes **out_compact, int *out_has_watermark,
                                  int64_t *out_watermark, sc_overwrite_scope *out_scope, char **out_partition,
                                  const sc_table_schema *schema, const char *json, size_t len) {
    *out_append = NULL;
    if (out_scope) *out_scope = SC_OVERWRITE_NONE;
    if (out_partition) *out_partition = NULL;
    if (out_compact) *out_compact = NULL;
    if (out_has_watermark) *out_has_watermark = 0;
    if (out_watermark) *out_watermark = 0;
    if (len > SC_CHANGES_MAX_JSON_BYTES)
        return sc_error_set(SC_ELIMIT, "changes: %zu bytes, more than the limit of %zu bytes (64 MiB)",
                            len, (size_t)SC_CHANGES_MAX_JSON_BYTES);
    size_t entries = count_entries(json, len);
    if (entries > SC_CHANGES_MAX_ENTRIES)
        return sc_error_set(SC_ELIMIT,
                            "changes: %zu entries, more than the limit of %d entries per change set "
                            "(split the commit)",
                            entries, SC_CHANGES_MAX_ENTRIES);
    scan s = {json, len, 0};
    skip_ws(&s);
    if (s.pos >= len) return syntax_error(&s, s.pos, "'{' or '[' expected near end of file");
    sc_changes *c = NULL, *compact = NULL;
    int has_wm = 0;
    int64_t wm = 0;
    int rc = sc_changes_new(&c);
    if (rc) return rc;
    sc_overwrite_scope scope = SC_OVERWRITE_NONE;
    char *partition = NULL;
    part_ctx top = {c, out_compact ? &compact : NULL, &has_wm, &wm, 0, "", out_compact && out_scope ? &scope : NULL,
                    &partition};
    rc = parse_object(&top, schema, &s);
    if (!rc) {
        skip_ws(&s);
        if (s.pos < len) rc = syntax_error(&s, s.pos, "end of file expected");
    }
    if (!rc && out_compact && !compact) rc = sc_changes_new(&compact);
    if (!rc && scope != SC_OVERWRITE_PARTITION) {
        free(partition);
        partition = NULL;
    }
    if (rc) {
        sc_changes_free(c);
        sc_changes_free(compact);
        free(partition);
        return rc;
    }
    if (out_scope) *out_scope = scope;
    if (out_partition) *out_partition = partition;
    else free(partition);
    *out_append = c;
    if (out_compact) *out_compact = compact;
    if (out_has_watermark) *out_has_watermark = has_wm;
    if (out_watermark) *out_watermark = wm;
    return 0;
}

int sc_changes_parse_json_schema(sc_changes **out, const sc_table_schema *schema, const char *json, size_t len) {
    return sc_changes_parse_checkpoint_json(out, NULL, NULL, NULL, schema, json, len);
}
