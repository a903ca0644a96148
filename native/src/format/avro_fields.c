/* Fields of Avro records read and written through libavro's value interface, with
 * errors naming the object, record and field (avro_fields.h). */
#include "format/avro_fields.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/manifest.h"


int sc_avro_bad(const sc_avro_ctx *d, const char *field, const char *what) {
    return sc_error_set(SC_ECORRUPT, "%s: record %llu, field %s: %s", d->object, (unsigned long long)d->record,
                        field, what);
}

/* The field `name` of record `rec`, by its position when d->fields knows it (0 found, 1 the
 * schema has no such field, -1 not a record or no room: look it up by name). */
static int get_cached(const sc_avro_ctx *d, avro_value_t *rec, const char *name, avro_value_t *out) {
    sc_avro_fields *f = d->fields;
    if (!f || avro_value_get_type(rec) != AVRO_RECORD) return -1;
    avro_schema_t schema = avro_value_get_schema(rec);
    uint64_t h = ((uint64_t)(uintptr_t)name ^ ((uint64_t)(uintptr_t)schema << 17)) * 0x9E3779B97F4A7C15u;
    size_t at = (size_t)(h >> 57) & (SC_AVRO_FIELD_SLOTS - 1);
    for (size_t probes = 0; f->slots[at].name; at = (at + 1) & (SC_AVRO_FIELD_SLOTS - 1))
        if (f->slots[at].name == name && f->slots[at].schema == schema) break;
        else if (++probes == SC_AVRO_FIELD_SLOTS) return -1;
    int index = f->slots[at].index;
    if (!f->slots[at].name) {
        if (f->count + 1 >= SC_AVRO_FIELD_SLOTS / 2) return -1; /* full enough: by name */
        index = avro_schema_record_field_get_index(schema, name);
        if (index < 0) index = -1;
        f->slots[at] = (sc_avro_field_slot){schema, name, index};
        f->count++;
    }
    if (index < 0) return 1;
    return avro_value_get_by_index(rec, (size_t)index, out, NULL) == 0 ? 0 : 1;
}

/* Look up `name` in record `rec`. *present = 0 when the file's schema lacks
 * it or it holds null (a union on its null branch); *out is then unset. */
int sc_avro_get(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, avro_value_t *out,
               int *present, int required) {
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    *present = 0;
    int found = get_cached(d, rec, name, &v);
    if (found < 0) found = avro_value_get_by_name(rec, name, &v, NULL) == 0 ? 0 : 1;
    if (found == 0) {
        if (avro_value_get_type(&v) == AVRO_UNION) {
            avro_value_t branch;
            if (avro_value_get_current_branch(&v, &branch)) return sc_avro_bad(d, path, "union without a value");
            v = branch;
        }
        if (avro_value_get_type(&v) != AVRO_NULL) {
            *out = v;
            *present = 1;
        }
    }
    if (!*present && required) return sc_avro_bad(d, path, "missing (required)");
    return 0;
}

int sc_avro_get_int(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, int32_t *out,
                   int *present, int required) {
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    int rc = sc_avro_get(d, rec, name, path, &v, present, required);
    if (rc || !*present) return rc;
    if (avro_value_get_type(&v) != AVRO_INT32) return sc_avro_bad(d, path, "not an int");
    return avro_value_get_int(&v, out) ? sc_avro_bad(d, path, "unreadable int") : 0;
}

/* Longs also accept an int in the file (Avro's int-to-long promotion). */
int sc_avro_get_long(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, int64_t *out,
                    int *present, int required) {
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    int rc = sc_avro_get(d, rec, name, path, &v, present, required);
    if (rc || !*present) return rc;
    if (avro_value_get_type(&v) == AVRO_INT32) {
        int32_t i;
        if (avro_value_get_int(&v, &i)) return sc_avro_bad(d, path, "unreadable int");
        *out = i;
        return 0;
    }
    if (avro_value_get_type(&v) != AVRO_INT64) return sc_avro_bad(d, path, "not a long");
    return avro_value_get_long(&v, out) ? sc_avro_bad(d, path, "unreadable long") : 0;
}

int sc_avro_get_nonneg(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, int64_t *out) {
    int present;
    int rc = sc_avro_get_long(d, rec, name, path, out, &present, 1);
    if (!rc && *out < 0) rc = sc_avro_bad(d, path, "negative");
    return rc;
}

int sc_avro_get_bytes(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, sc_bytes *out,
                     int required) {
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    int present;
    *out = (sc_bytes){NULL, 0};
    int rc = sc_avro_get(d, rec, name, path, &v, &present, required);
    if (rc || !present) return rc;
    if (avro_value_get_type(&v) != AVRO_BYTES) return sc_avro_bad(d, path, "not bytes");
    const void *p;
    size_t n;
    if (avro_value_get_bytes(&v, &p, &n)) return sc_avro_bad(d, path, "unreadable bytes");
    /* Present-but-empty stays non-NULL. */
    *out = (sc_bytes){p ? p : sc_empty_row, n};
    return 0;
}

/* A string value as a C string (libavro keeps a NUL after it). */
int sc_avro_as_string(const sc_avro_ctx *d, avro_value_t *v, const char *path, const char **out) {
    if (avro_value_get_type(v) != AVRO_STRING) return sc_avro_bad(d, path, "not a string");
    const char *p;
    size_t n;
    if (avro_value_get_string(v, &p, &n)) return sc_avro_bad(d, path, "unreadable string");
    if (!p || n == 0) {
        *out = "";
        return 0;
    }
    /* libavro's size counts the terminating NUL; an earlier one would cut the value. */
    if (memchr(p, '\0', n - 1)) return sc_avro_bad(d, path, "string contains a NUL byte");
    *out = p;
    return 0;
}

int sc_avro_get_string(const sc_avro_ctx *d, avro_value_t *rec, const char *name, const char *path, const char **out,
                      int required) {
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    int present;
    *out = NULL;
    int rc = sc_avro_get(d, rec, name, path, &v, &present, required);
    if (rc || !present) return rc;
    return sc_avro_as_string(d, &v, path, out);
}

/* A file name stored in a manifest: one path segment, so that a name can
 * never reach outside its directory. */
int sc_avro_check_name(const sc_avro_ctx *d, const char *path, const char *name) {
    size_t n = strnlen(name, SC_MANIFEST_PATH_MAX + 1);
    if (n == 0) return sc_avro_bad(d, path, "empty file name");
    if (n > SC_MANIFEST_PATH_MAX) return sc_avro_bad(d, path, "file name longer than 1024 bytes");
    if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return sc_avro_bad(d, path, "file name is not a single path segment");
    return 0;
}

/* ---- writing ---- */

int sc_avro_set_field(avro_value_t *rec, const char *name, avro_value_t *out) {
    return avro_value_get_by_name(rec, name, out, NULL);
}

/* Set a ["null", T] union to T (branch 1) and return the branch, or to null. */
int sc_avro_set_branch(avro_value_t *rec, const char *name, int present, avro_value_t *branch) {
    avro_value_t u;
    if (sc_avro_set_field(rec, name, &u)) return -1;
    if (!present) {
        avro_value_t n;
        return avro_value_set_branch(&u, 0, &n) || avro_value_set_null(&n);
    }
    return avro_value_set_branch(&u, 1, branch);
}

int sc_avro_set_int(avro_value_t *rec, const char *name, int32_t x) {
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    return sc_avro_set_field(rec, name, &v) || avro_value_set_int(&v, x);
}

int sc_avro_set_long(avro_value_t *rec, const char *name, int64_t x) {
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    return sc_avro_set_field(rec, name, &v) || avro_value_set_long(&v, x);
}

int sc_avro_put_bytes(avro_value_t *v, sc_bytes b, int row) {
    /* No row (absent or empty bytes) is Paimon's arity-0 row: an empty
     * bytes value would not deserialize. */
    if (!b.len && row) b = (sc_bytes){sc_empty_row, SC_EMPTY_ROW_LEN};
    /* libavro copies the bytes; a cast away from const is safe here. */
    return avro_value_set_bytes(v, (void *)(uintptr_t)(b.data ? b.data : sc_empty_row), b.len);
}

int sc_avro_set_bytes(avro_value_t *rec, const char *name, sc_bytes b, int row) {
    avro_value_t v = {NULL, NULL}; /* set on success; -O3 cannot see it */
    return sc_avro_set_field(rec, name, &v) || sc_avro_put_bytes(&v, b, row);
}

int sc_avro_opt_int(avro_value_t *rec, const char *name, int present, int32_t x) {
    avro_value_t b;
    return sc_avro_set_branch(rec, name, present, &b) || (present && avro_value_set_int(&b, x));
}

int sc_avro_opt_long(avro_value_t *rec, const char *name, int present, int64_t x) {
    avro_value_t b;
    return sc_avro_set_branch(rec, name, present, &b) || (present && avro_value_set_long(&b, x));
}

