/* Building and parsing change sets: {"add":[ENTRY...],"delete":[ENTRY...]}. */
#include "changes.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"

#define CHANGES_MAX_JSON_BYTES (256u << 20)

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

static int push_checked(sc_entry_vec *v, sc_entry_kind kind, const sc_file_entry *e) {
    if (!e) return sc_error_set(SC_EINVAL, "NULL file entry");
    int rc = sc_file_entry_validate(e);
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
    sc_bytes partition = {0}, file = {0}, min_key = {0}, max_key = {0};
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
    if (len > CHANGES_MAX_JSON_BYTES)
        return sc_error_set(SC_EINVAL, "changes: %zu bytes exceeds the %u-byte limit", len,
                            CHANGES_MAX_JSON_BYTES);
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
