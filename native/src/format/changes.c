/* Building and parsing change sets: {"add":[ENTRY...],"delete":[ENTRY...]}. */
#include "format/changes.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"

int sc_changes_new(sc_changes **out) {
    *out = calloc(1, sizeof **out);
    return *out ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
}

void sc_changes_free(sc_changes *c) {
    if (!c) return;
    sc_entry_vec_free(&c->adds);
    sc_entry_vec_free(&c->deletes);
    free(c);
}

size_t sc_name_control_at(const uint8_t *p, size_t len, size_t *out_len) {
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
    size_t n, at = sc_name_control_at(p, len, &n);
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

static int push_checked(sc_entry_vec *v, sc_entry_kind kind, const sc_file_entry *e) {
    if (!e) return sc_error_set(SC_EINVAL, "NULL file entry");
    int rc = sc_file_entry_validate(e);
    if (!rc) rc = field_lengths_check(e);
    /* Only adds introduce names; a delete may still name a file that an older
     * version let in, so that it can be removed. */
    if (!rc && kind == SC_ENTRY_ADD) rc = sc_name_check("partition", e->partition.data, e->partition.len);
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

static const char *const known_fields[] = {"partition", "bucket", "totalBuckets", "level", "file",
                                           "rows",      "size",   "minKey",       "maxKey"};

static int parse_entry(sc_changes *c, json_t *o, const char *list, size_t i, sc_entry_kind kind) {
    if (!json_is_object(o)) return sc_error_set(SC_EINVAL, "changes: %s[%zu] is not an object", list, i);
    const char *key;
    json_t *value;
    json_object_foreach(o, key, value) {
        int known = 0;
        for (size_t k = 0; k < sizeof known_fields / sizeof *known_fields; k++)
            known |= strcmp(key, known_fields[k]) == 0;
        if (!known) return entry_error(list, i, key, "is not a known field");
    }
    int64_t bucket = 0, total = 0, level = 0, rows = 0, size = 0;
    sc_bytes partition = {0}, file = {0}, min_key = {0}, max_key = {0}; /* set on success; -O3 cannot see it */
    int rc = str_field(o, list, i, "partition", 1, &partition);
    if (!rc) rc = int_field(o, list, i, "bucket", 1, INT32_MAX, &bucket);
    if (!rc) rc = int_field(o, list, i, "totalBuckets", 0, INT32_MAX, &total);
    if (!rc) rc = int_field(o, list, i, "level", 1, INT32_MAX, &level);
    if (!rc) rc = str_field(o, list, i, "file", 1, &file);
    if (!rc) rc = int_field(o, list, i, "rows", 1, INT64_MAX, &rows);
    if (!rc) rc = int_field(o, list, i, "size", 1, INT64_MAX, &size);
    if (!rc) rc = str_field(o, list, i, "minKey", 0, &min_key);
    if (!rc) rc = str_field(o, list, i, "maxKey", 0, &max_key);
    if (rc) return rc;
    if (strlen((const char *)file.data) != file.len) return entry_error(list, i, "file", "contains a NUL byte");
    if (partition.data == NULL) partition.data = (const uint8_t *)"";
    sc_file_entry e = {partition, (int32_t)bucket, (int32_t)total, (int32_t)level,
                       (const char *)file.data, rows, size, min_key, max_key};
    rc = kind == SC_ENTRY_ADD ? sc_changes_add(c, &e) : sc_changes_delete(c, &e);
    if (rc) return sc_error_wrap(rc, "changes: %s[%zu]", list, i);
    return 0;
}

static int parse_list(sc_changes *c, json_t *doc, const char *list, sc_entry_kind kind) {
    json_t *arr = json_object_get(doc, list);
    if (!arr) return 0;
    if (!json_is_array(arr)) return sc_error_set(SC_EINVAL, "changes: \"%s\" must be an array", list);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        int rc = parse_entry(c, json_array_get(arr, i), list, i, kind);
        if (rc) return rc;
    }
    return 0;
}

int sc_changes_parse_json(sc_changes **out, const char *json, size_t len) {
    *out = NULL;
    if (len > SC_CHANGES_MAX_JSON_BYTES)
        return sc_error_set(SC_ELIMIT, "changes: %zu bytes, more than the limit of %zu bytes (256 MiB)",
                            len, (size_t)SC_CHANGES_MAX_JSON_BYTES);
    json_error_t err;
    json_t *doc = json_loadb(json, len, JSON_REJECT_DUPLICATES, &err);
    if (!doc)
        return sc_error_set(SC_EINVAL, "changes: invalid JSON at line %d column %d: %s", err.line,
                            err.column, err.text);
    int rc = 0;
    if (!json_is_object(doc)) {
        rc = sc_error_set(SC_EINVAL, "changes: expected an object {\"add\":[...],\"delete\":[...]}");
        goto done;
    }
    const char *key;
    json_t *value;
    json_object_foreach(doc, key, value) {
        if (strcmp(key, "add") != 0 && strcmp(key, "delete") != 0) {
            rc = sc_error_set(SC_EINVAL, "changes: unknown key \"%s\" (expected \"add\" and \"delete\")", key);
            goto done;
        }
    }
    sc_changes *c;
    if ((rc = sc_changes_new(&c)) != 0) goto done;
    rc = parse_list(c, doc, "add", SC_ENTRY_ADD);
    if (!rc) rc = parse_list(c, doc, "delete", SC_ENTRY_DELETE);
    if (rc) sc_changes_free(c);
    else *out = c;
done:
    json_decref(doc);
    return rc;
}
