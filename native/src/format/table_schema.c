/* Paimon table schemas: schema/schema-N JSON and the short form, checked by Paimon's rules. */
#include "format/table_schema.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error_internal.h"

/* Paimon's schema versions: a file without "version" is 0.7's (1); 0.8 wrote 2. */
#define PAIMON_07_VERSION 1
#define PAIMON_08_VERSION 2
#define PAIMON_SCHEMA_VERSION 3

/* Error context: a stored schema (object != NULL) is corrupt, user input is invalid. */
typedef struct ctx {
    const char *object;
    int code;
} ctx;

static int fail(const ctx *c, const char *a, const char *b, const char *d) {
    return sc_error_set(c->code, "%s: %s%s%s", c->object ? c->object : "schema", a ? a : "", b ? b : "", d ? d : "");
}

static char *dup_str(const char *s) {
    char *d = strdup(s);
    if (!d) sc_error_set(SC_ENOMEM, "out of memory copying a schema string");
    return d;
}

void sc_schema_clear(sc_table_schema *s) {
    for (size_t i = 0; i < s->field_count; i++) {
        free(s->fields[i].name);
        free(s->fields[i].description);
        free(s->fields[i].default_value);
        sc_data_type_clear(&s->fields[i].type);
    }
    free(s->fields);
    for (size_t i = 0; i < s->partition_key_count; i++) free(s->partition_keys[i]);
    free(s->partition_keys);
    for (size_t i = 0; i < s->primary_key_count; i++) free(s->primary_keys[i]);
    free(s->primary_keys);
    for (size_t i = 0; i < s->option_count; i++) {
        free(s->options[i].key);
        free(s->options[i].value);
    }
    free(s->options);
    free(s->comment);
    free(s->partition_index);
    free(s->primary_index);
    free(s->trimmed_key_index);
    if (s->partition_types)
        for (size_t i = 0; i < s->partition_key_count; i++) sc_data_type_clear(&s->partition_types[i]);
    free(s->partition_types);
    if (s->trimmed_key_types)
        for (size_t i = 0; i < s->trimmed_key_count; i++) sc_data_type_clear(&s->trimmed_key_types[i]);
    free(s->trimmed_key_types);
    if (s->field_types)
        for (size_t i = 0; i < s->field_count; i++) sc_data_type_clear(&s->field_types[i]);
    free(s->field_types);
    memset(s, 0, sizeof *s);
}

int sc_schema_is_dynamic_bucket(const sc_table_schema *s) {
    return s->bucket == SC_BUCKET_UNAWARE && s->primary_key_count > 0;
}

const char *sc_schema_option(const sc_table_schema *s, const char *key) {
    for (size_t i = 0; i < s->option_count; i++)
        if (!strcmp(s->options[i].key, key)) return s->options[i].value;
    return NULL;
}

long sc_schema_field_index(const sc_table_schema *s, const char *name) {
    for (size_t i = 0; i < s->field_count; i++)
        if (!strcmp(s->fields[i].name, name)) return (long)i;
    return -1;
}

void sc_schema_key(char out[64], int64_t id) { snprintf(out, 64, "schema/schema-%" PRId64, id); }

int sc_schema_empty(sc_table_schema *out) {
    memset(out, 0, sizeof *out);
    out->highest_field_id = -1; /* Paimon's highest id of a row without fields */
    out->bucket = SC_BUCKET_UNAWARE;
    return 0;
}

/* ---------------------------------------------------------------- checks */

static int cmp_str_ptr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The first name that occurs twice in names[0..n), or NULL. */
static const char *duplicate(char **names, size_t n, int *err) {
    *err = 0;
    if (n < 2) return NULL;
    char **sorted = malloc(n * sizeof *sorted);
    if (!sorted) {
        *err = sc_error_set(SC_ENOMEM, "out of memory checking schema names");
        return NULL;
    }
    memcpy(sorted, names, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_str_ptr);
    const char *dup = NULL;
    for (size_t i = 1; i < n && !dup; i++)
        if (!strcmp(sorted[i - 1], sorted[i])) dup = sorted[i];
    free(sorted);
    return dup;
}

static int contains(char **names, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return 1;
    return 0;
}

/* Resolve keys to field indexes: every key names a field, no key twice, key fields atomic. */
static int resolve_keys(const ctx *c, const sc_table_schema *s, char **keys, size_t n, size_t **out, const char *kind) {
    int err;
    const char *dup = duplicate(keys, n, &err);
    if (err) return err;
    if (dup) return fail(c, kind, " names a field twice: ", dup);
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out) return sc_error_set(SC_ENOMEM, "out of memory resolving schema keys");
    for (size_t i = 0; i < n; i++) {
        long idx = sc_schema_field_index(s, keys[i]);
        if (idx < 0) return fail(c, kind, " names no field: ", keys[i]);
        if (!sc_data_type_is_atomic(&s->fields[idx].type)) return fail(c, kind, " must be an atomic type: ", keys[i]);
        (*out)[i] = (size_t)idx;
    }
    return 0;
}

/* A whole decimal int32 ("2", "-1"), nothing else. */
static int parse_i32(const char *text, int32_t *out) {
    char *end;
    if (!*text) return -1;
    long long v = strtoll(text, &end, 10);
    if (*end || v < INT32_MIN || v > INT32_MAX) return -1;
    *out = (int32_t)v;
    return 0;
}

/* Paimon's TableSchema/SchemaValidation rules that matter here, then the derived part. */
static int finish(const ctx *c, sc_table_schema *s) {
    char **names = malloc((s->field_count ? s->field_count : 1) * sizeof *names);
    if (!names) return sc_error_set(SC_ENOMEM, "out of memory checking schema fields");
    for (size_t i = 0; i < s->field_count; i++) names[i] = s->fields[i].name;
    int err;
    const char *dup = duplicate(names, s->field_count, &err);
    free(names);
    if (err) return err;
    if (dup) return fail(c, "two fields are named ", dup, NULL);

    int rc = resolve_keys(c, s, s->partition_keys, s->partition_key_count, &s->partition_index, "partitionKeys");
    if (rc == 0) rc = resolve_keys(c, s, s->primary_keys, s->primary_key_count, &s->primary_index, "primaryKeys");
    if (rc) return rc;
    if (s->primary_key_count) {
        for (size_t i = 0; i < s->partition_key_count; i++)
            if (!contains(s->primary_keys, s->primary_key_count, s->partition_keys[i]))
                return fail(c, "primary keys must include every partition key (cross-partition updates, Paimon's "
                               "KEY_DYNAMIC bucket mode with its global index, are not supported): ",
                            s->partition_keys[i], NULL);
        if (s->primary_key_count == s->partition_key_count)
            return fail(c, "primary keys must not equal the partition keys (one record per partition)", NULL, NULL);
        /* Paimon stores primary-key fields as NOT NULL. */
        for (size_t i = 0; i < s->primary_key_count; i++) s->fields[s->primary_index[i]].type.nullable = 0;
    }

    const char *bucket = sc_schema_option(s, "bucket");
    if (bucket) {
        if (parse_i32(bucket, &s->bucket) || (s->bucket != SC_BUCKET_UNAWARE && s->bucket < 1))
            return fail(c, "option bucket must be -1 or > 0, not ", bucket, NULL);
    } else {
        s->bucket = SC_BUCKET_UNAWARE; /* Paimon 1.4's default */
    }
    const char *bucket_key = sc_schema_option(s, "bucket-key");
    if (bucket_key) {
        if (s->bucket == SC_BUCKET_UNAWARE)
            return fail(c, "option bucket-key needs a bucket number (bucket = -1)", NULL, NULL);
        char *copy = dup_str(bucket_key);
        if (!copy) return SC_ENOMEM;
        char *save = NULL;
        int any = 0;
        for (char *k = strtok_r(copy, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
            any = 1;
            long idx = sc_schema_field_index(s, k);
            if (idx < 0 || !sc_data_type_is_atomic(&s->fields[idx].type)) {
                rc = fail(c, "option bucket-key names no atomic field: ", k, NULL);
                break;
            }
        }
        free(copy);
        if (rc) return rc;
        if (!any) return fail(c, "option bucket-key is empty", NULL, NULL);
    } else if (s->bucket > 0 && !s->primary_key_count) {
        return fail(c, "a bucketed append table (bucket > 0) needs option bucket-key", NULL, NULL);
    }

    /* Derived part. */
    size_t nf = s->field_count, np = s->partition_key_count, nk = s->primary_key_count;
    s->trimmed_key_index = calloc(nk ? nk : 1, sizeof *s->trimmed_key_index);
    s->partition_types = calloc(np ? np : 1, sizeof *s->partition_types);
    s->trimmed_key_types = calloc(nk ? nk : 1, sizeof *s->trimmed_key_types);
    s->field_types = calloc(nf ? nf : 1, sizeof *s->field_types);
    if (!s->trimmed_key_index || !s->partition_types || !s->trimmed_key_types || !s->field_types)
        return sc_error_set(SC_ENOMEM, "out of memory deriving schema indexes");
    for (size_t i = 0; i < nk; i++)
        if (!contains(s->partition_keys, np, s->primary_keys[i])) s->trimmed_key_index[s->trimmed_key_count++] = s->primary_index[i];
    for (size_t i = 0; i < np && rc == 0; i++) rc = sc_data_type_copy(&s->partition_types[i], &s->fields[s->partition_index[i]].type);
    for (size_t i = 0; i < s->trimmed_key_count && rc == 0; i++)
        rc = sc_data_type_copy(&s->trimmed_key_types[i], &s->fields[s->trimmed_key_index[i]].type);
    for (size_t i = 0; i < nf && rc == 0; i++) rc = sc_data_type_copy(&s->field_types[i], &s->fields[i].type);
    return rc;
}

/* ---------------------------------------------------------------- decode */

/* Paimon type strings our parser does not model but Paimon accepts (kept verbatim). */
static int other_paimon_type(const char *t) {
    static const char *const prefixes[] = {"VARIANT", "BLOB", "VECTOR", "INTERVAL", "RAW", "MULTISET", "ARRAY", "MAP", "ROW"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (!strncasecmp(t, prefixes[i], strlen(prefixes[i]))) return 1;
    return strstr(t, " ARRAY") || strstr(t, " MULTISET") || strstr(t, " array") || strstr(t, " multiset");
}

static int nested_from_json(const ctx *c, sc_data_type *t, json_t *v, const char *field) {
    memset(t, 0, sizeof *t);
    t->root = SC_TYPE_NESTED;
    t->nullable = 1;
    t->nested_json = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!t->nested_json) return fail(c, "cannot keep the type of field ", field, NULL);
    return 0;
}

static int get_string_array(const ctx *c, json_t *root, const char *key, int required, char ***out, size_t *count) {
    json_t *a = json_object_get(root, key);
    *out = NULL;
    *count = 0;
    if (!a) return required ? fail(c, "missing ", key, NULL) : 0;
    if (!json_is_array(a)) return fail(c, key, " is not an array", NULL);
    size_t n = json_array_size(a);
    if (n > SC_SCHEMA_MAX_FIELDS)
        return sc_error_set(SC_ELIMIT, "%s: %s has %zu entries, more than %d", c->object ? c->object : "schema", key, n,
                            SC_SCHEMA_MAX_FIELDS);
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out) return sc_error_set(SC_ENOMEM, "out of memory reading %s", key);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(a, i);
        if (!json_is_string(e)) return fail(c, key, " holds a value that is not a string", NULL);
        if (!((*out)[i] = dup_str(json_string_value(e)))) return SC_ENOMEM;
        (*count)++;
    }
    return 0;
}

static int int_member(const ctx *c, json_t *root, const char *key, int required, json_int_t lo, json_int_t hi,
                      json_int_t *out) {
    json_t *v = json_object_get(root, key);
    if (!v) return required ? fail(c, "missing ", key, NULL) : 1;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return fail(c, key, " is not an integer in range", NULL);
    *out = json_integer_value(v);
    return 0;
}

static int decode_field(const ctx *c, sc_schema_field *f, json_t *j, int paimon_form, size_t index) {
    char where[64];
    snprintf(where, sizeof where, "%zu", index);
    if (!json_is_object(j)) return fail(c, "field ", where, " is not an object");
    if (!paimon_form) {
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
            if (strcmp(k, "name") && strcmp(k, "type") && strcmp(k, "description") && strcmp(k, "defaultValue"))
                return fail(c, "unknown key in a field of the short form: ", k, NULL);
        }
        f->id = (int32_t)index;
    } else {
        json_int_t id;
        int rc = int_member(c, j, "id", 1, 0, INT32_MAX, &id);
        if (rc) return rc;
        f->id = (int32_t)id;
    }
    json_t *name = json_object_get(j, "name");
    if (!json_is_string(name) || !*json_string_value(name)) return fail(c, "field ", where, " has no name");
    if (!(f->name = dup_str(json_string_value(name)))) return SC_ENOMEM;
    json_t *type = json_object_get(j, "type");
    int rc;
    if (json_is_string(type)) {
        const char *text = json_string_value(type);
        rc = sc_data_type_parse(&f->type, text, f->name);
        if (rc && other_paimon_type(text)) rc = nested_from_json(c, &f->type, type, f->name);
        if (rc && c->object) rc = sc_error_wrap(SC_ECORRUPT, "%s", c->object);
    } else if (json_is_object(type)) {
        rc = nested_from_json(c, &f->type, type, f->name);
    } else {
        rc = fail(c, "field has no type: ", f->name, NULL);
    }
    if (rc) return rc;
    json_t *desc = json_object_get(j, "description");
    if (desc && !json_is_null(desc)) {
        if (!json_is_string(desc)) return fail(c, "description is not a string in field ", f->name, NULL);
        if (!(f->description = dup_str(json_string_value(desc)))) return SC_ENOMEM;
    }
    json_t *def = json_object_get(j, "defaultValue");
    if (def && !json_is_null(def)) {
        if (!json_is_string(def)) return fail(c, "defaultValue is not a string in field ", f->name, NULL);
        if (!(f->default_value = dup_str(json_string_value(def)))) return SC_ENOMEM;
    }
    return 0;
}

static int add_option(sc_table_schema *s, const char *key, const char *value) {
    struct sc_schema_option *o = &s->options[s->option_count];
    o->key = dup_str(key);
    o->value = o->key ? dup_str(value) : NULL;
    if (!o->value) {
        free(o->key);
        return SC_ENOMEM;
    }
    s->option_count++;
    return 0;
}

static int decode_doc(const ctx *c, sc_table_schema *s, json_t *root) {
    if (!json_is_object(root)) return fail(c, "the document is not a JSON object", NULL, NULL);
    /* Paimon's own files carry highestFieldId; the short form never does. */
    int paimon_form = json_object_get(root, "highestFieldId") != NULL;
    json_int_t version = PAIMON_SCHEMA_VERSION, v;
    int rc;
    if (paimon_form) {
        rc = int_member(c, root, "version", 0, 1, INT32_MAX, &version);
        if (rc < 0) return rc;
        if (rc > 0) version = PAIMON_07_VERSION;
        if ((rc = int_member(c, root, "id", 1, 0, INT64_MAX, &v))) return rc;
        s->id = v;
        if ((rc = int_member(c, root, "highestFieldId", 1, -1, INT32_MAX, &v))) return rc;
        s->highest_field_id = (int32_t)v;
        rc = int_member(c, root, "timeMillis", 0, INT64_MIN, INT64_MAX, &v);
        if (rc < 0) return rc;
        if (rc == 0) s->time_millis = v;
    } else {
        const char *k;
        json_t *val;
        json_object_foreach(root, k, val) {
            if (strcmp(k, "fields") && strcmp(k, "partitionKeys") && strcmp(k, "primaryKeys") && strcmp(k, "options") &&
                strcmp(k, "comment"))
                return fail(c, "unknown key in the short form: ", k, NULL);
        }
    }

    json_t *fields = json_object_get(root, "fields");
    if (!json_is_array(fields)) return fail(c, "fields is missing or not an array", NULL, NULL);
    size_t nf = json_array_size(fields);
    if (nf > SC_SCHEMA_MAX_FIELDS)
        return sc_error_set(SC_ELIMIT, "%s: %zu fields, more than %d", c->object ? c->object : "schema", nf,
                            SC_SCHEMA_MAX_FIELDS);
    s->fields = calloc(nf ? nf : 1, sizeof *s->fields);
    if (!s->fields) return sc_error_set(SC_ENOMEM, "out of memory reading schema fields");
    for (size_t i = 0; i < nf; i++) {
        s->field_count = i + 1; /* cleared by sc_schema_clear even when half filled */
        if ((rc = decode_field(c, &s->fields[i], json_array_get(fields, i), paimon_form, i))) return rc;
    }
    if (paimon_form) {
        for (size_t i = 0; i < nf; i++)
            if (s->fields[i].id > s->highest_field_id) return fail(c, "a field id is above highestFieldId", NULL, NULL);
    } else {
        s->highest_field_id = (int32_t)nf - 1;
    }

    if ((rc = get_string_array(c, root, "partitionKeys", paimon_form, &s->partition_keys, &s->partition_key_count)))
        return rc;
    if ((rc = get_string_array(c, root, "primaryKeys", paimon_form, &s->primary_keys, &s->primary_key_count))) return rc;

    json_t *opts = json_object_get(root, "options");
    if (!opts && paimon_form) return fail(c, "missing options", NULL, NULL);
    if (opts && !json_is_object(opts)) return fail(c, "options is not an object", NULL, NULL);
    size_t no = opts ? json_object_size(opts) : 0;
    if (no > SC_SCHEMA_MAX_FIELDS)
        return sc_error_set(SC_ELIMIT, "%s: %zu options, more than %d", c->object ? c->object : "schema", no,
                            SC_SCHEMA_MAX_FIELDS);
    s->options = calloc(no + 2, sizeof *s->options); /* +2: the defaults of old versions below */
    if (!s->options) return sc_error_set(SC_ENOMEM, "out of memory reading schema options");
    if (opts) {
        const char *k;
        json_t *val;
        json_object_foreach(opts, k, val) {
            if (!json_is_string(val)) return fail(c, "option value is not a string: ", k, NULL);
            if ((rc = add_option(s, k, json_string_value(val)))) return rc;
        }
    }
    /* What Paimon's SchemaSerializer assumes for schemas of 0.7 and 0.8; we always write version 3. */
    if (version <= PAIMON_07_VERSION && !sc_schema_option(s, "bucket") && (rc = add_option(s, "bucket", "1"))) return rc;
    if (version <= PAIMON_08_VERSION && !sc_schema_option(s, "file.format") && (rc = add_option(s, "file.format", "orc")))
        return rc;

    json_t *comment = json_object_get(root, "comment");
    if (comment && !json_is_null(comment)) {
        if (!json_is_string(comment)) return fail(c, "comment is not a string", NULL, NULL);
        if (!(s->comment = dup_str(json_string_value(comment)))) return SC_ENOMEM;
    }
    return 0;
}

int sc_schema_decode(sc_table_schema *out, const uint8_t *data, size_t len, const char *object) {
    memset(out, 0, sizeof *out);
    ctx c = {object, object ? SC_ECORRUPT : SC_EINVAL};
    if (len > SC_SCHEMA_MAX_BYTES)
        return sc_error_set(SC_ELIMIT, "%s: schema of %zu bytes, more than %zu", object ? object : "schema", len,
                            SC_SCHEMA_MAX_BYTES);
    json_error_t jerr;
    json_t *root = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return sc_error_set(c.code, "%s: schema JSON at byte %d: %s", object ? object : "schema", jerr.position, jerr.text);
    int rc = decode_doc(&c, out, root);
    json_decref(root);
    if (rc == 0) rc = finish(&c, out);
    if (rc) sc_schema_clear(out);
    return rc;
}

/* ---------------------------------------------------------------- encode */

/* Jackson's string escaping: \" \\ \b \t \n \f \r, other controls as \u00XX; UTF-8 kept. */
static int put_string(sc_buf *b, const char *s) {
    int rc = sc_buf_append_byte(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; rc == 0 && *p; p++) {
        switch (*p) {
        case '"': rc = sc_buf_append_str(b, "\\\""); break;
        case '\\': rc = sc_buf_append_str(b, "\\\\"); break;
        case '\b': rc = sc_buf_append_str(b, "\\b"); break;
        case '\t': rc = sc_buf_append_str(b, "\\t"); break;
        case '\n': rc = sc_buf_append_str(b, "\\n"); break;
        case '\f': rc = sc_buf_append_str(b, "\\f"); break;
        case '\r': rc = sc_buf_append_str(b, "\\r"); break;
        default: rc = *p < 0x20 ? sc_buf_printf(b, "\\u%04X", *p) : sc_buf_append_byte(b, *p);
        }
    }
    return rc ? rc : sc_buf_append_byte(b, '"');
}

static int newline(sc_buf *b, int level) {
    int rc = sc_buf_append_byte(b, '\n');
    for (int i = 0; rc == 0 && i < level; i++) rc = sc_buf_append_str(b, "  ");
    return rc;
}

static int key(sc_buf *b, int level, int first, const char *k) {
    int rc = first ? 0 : sc_buf_append_byte(b, ',');
    rc = rc ? rc : newline(b, level);
    rc = rc ? rc : put_string(b, k);
    return rc ? rc : sc_buf_append_str(b, " : ");
}

/* A JSON value in Jackson's default pretty form: objects one key per line, arrays inline "[ a, b ]". */
static int put_json(sc_buf *b, json_t *v, int level) {
    int rc = 0;
    if (json_is_object(v)) {
        if (json_object_size(v) == 0) return sc_buf_append_str(b, "{ }");
        rc = sc_buf_append_byte(b, '{');
        const char *k;
        json_t *e;
        int first = 1;
        json_object_foreach(v, k, e) {
            rc = rc ? rc : key(b, level + 1, first, k);
            rc = rc ? rc : put_json(b, e, level + 1);
            first = 0;
        }
        rc = rc ? rc : newline(b, level);
        return rc ? rc : sc_buf_append_byte(b, '}');
    }
    if (json_is_array(v)) {
        if (json_array_size(v) == 0) return sc_buf_append_str(b, "[ ]");
        rc = sc_buf_append_str(b, "[ ");
        for (size_t i = 0; rc == 0 && i < json_array_size(v); i++) {
            if (i) rc = sc_buf_append_str(b, ", ");
            rc = rc ? rc : put_json(b, json_array_get(v, i), level);
        }
        return rc ? rc : sc_buf_append_str(b, " ]");
    }
    if (json_is_string(v)) return put_string(b, json_string_value(v));
    if (json_is_integer(v)) return sc_buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    if (json_is_real(v)) return sc_buf_printf(b, "%.17g", json_real_value(v));
    if (json_is_true(v)) return sc_buf_append_str(b, "true");
    if (json_is_false(v)) return sc_buf_append_str(b, "false");
    return sc_buf_append_str(b, "null");
}

static int put_type(sc_buf *b, const sc_data_type *t, int level) {
    if (t->root != SC_TYPE_NESTED) {
        sc_buf text = SC_BUF_INIT;
        int rc = sc_data_type_render(&text, t);
        rc = rc ? rc : put_string(b, sc_buf_cstr(&text));
        sc_buf_free(&text);
        return rc;
    }
    json_error_t jerr;
    json_t *v = t->nested_json ? json_loads(t->nested_json, JSON_DECODE_ANY, &jerr) : NULL;
    if (!v) return sc_error_set(SC_EINVAL, "encoding a schema: a nested type has no valid JSON");
    int rc = put_json(b, v, level);
    json_decref(v);
    return rc;
}

static int put_string_list(sc_buf *b, char **items, size_t n) {
    if (!n) return sc_buf_append_str(b, "[ ]");
    int rc = sc_buf_append_str(b, "[ ");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (i) rc = sc_buf_append_str(b, ", ");
        rc = rc ? rc : put_string(b, items[i]);
    }
    return rc ? rc : sc_buf_append_str(b, " ]");
}

int sc_schema_encode(sc_buf *out, const sc_table_schema *s) {
    size_t start = out->len;
    int rc = sc_buf_append_byte(out, '{');
    rc = rc ? rc : key(out, 1, 1, "version");
    rc = rc ? rc : sc_buf_printf(out, "%d", PAIMON_SCHEMA_VERSION);
    rc = rc ? rc : key(out, 1, 0, "id");
    rc = rc ? rc : sc_buf_printf(out, "%" PRId64, s->id);
    rc = rc ? rc : key(out, 1, 0, "fields");
    if (rc == 0 && s->field_count == 0) rc = sc_buf_append_str(out, "[ ]");
    for (size_t i = 0; rc == 0 && i < s->field_count; i++) {
        const sc_schema_field *f = &s->fields[i];
        rc = sc_buf_append_str(out, i ? ", {" : "[ {");
        rc = rc ? rc : key(out, 2, 1, "id");
        rc = rc ? rc : sc_buf_printf(out, "%" PRId32, f->id);
        rc = rc ? rc : key(out, 2, 0, "name");
        rc = rc ? rc : put_string(out, f->name);
        rc = rc ? rc : key(out, 2, 0, "type");
        rc = rc ? rc : put_type(out, &f->type, 2);
        if (rc == 0 && f->description) {
            rc = key(out, 2, 0, "description");
            rc = rc ? rc : put_string(out, f->description);
        }
        if (rc == 0 && f->default_value) {
            rc = key(out, 2, 0, "defaultValue");
            rc = rc ? rc : put_string(out, f->default_value);
        }
        rc = rc ? rc : newline(out, 1);
        rc = rc ? rc : sc_buf_append_byte(out, '}');
        if (rc == 0 && i + 1 == s->field_count) rc = sc_buf_append_str(out, " ]");
    }
    rc = rc ? rc : key(out, 1, 0, "highestFieldId");
    rc = rc ? rc : sc_buf_printf(out, "%" PRId32, s->highest_field_id);
    rc = rc ? rc : key(out, 1, 0, "partitionKeys");
    rc = rc ? rc : put_string_list(out, s->partition_keys, s->partition_key_count);
    rc = rc ? rc : key(out, 1, 0, "primaryKeys");
    rc = rc ? rc : put_string_list(out, s->primary_keys, s->primary_key_count);
    rc = rc ? rc : key(out, 1, 0, "options");
    if (rc == 0 && s->option_count == 0) rc = sc_buf_append_str(out, "{ }");
    for (size_t i = 0; rc == 0 && i < s->option_count; i++) {
        rc = i ? 0 : sc_buf_append_byte(out, '{');
        rc = rc ? rc : key(out, 2, i == 0, s->options[i].key);
        rc = rc ? rc : put_string(out, s->options[i].value);
        if (rc == 0 && i + 1 == s->option_count) {
            rc = newline(out, 1);
            rc = rc ? rc : sc_buf_append_byte(out, '}');
        }
    }
    if (rc == 0 && s->comment) {
        rc = key(out, 1, 0, "comment");
        rc = rc ? rc : put_string(out, s->comment);
    }
    rc = rc ? rc : key(out, 1, 0, "timeMillis");
    rc = rc ? rc : sc_buf_printf(out, "%" PRId64, s->time_millis);
    rc = rc ? rc : newline(out, 0);
    rc = rc ? rc : sc_buf_append_byte(out, '}');
    if (rc) out->len = start;
    return rc;
}
