/* Partitions: Hive-style specs and paths <-> serialized BinaryRows of the partition fields. */
#include "format/partition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/binary_row.h"

/* Longest spec accepted (a path component list; S3 keys stop at 1,024 bytes anyway). */
#define SPEC_MAX 4096

static const char *default_name(const sc_table_schema *s) {
    const char *v = sc_schema_option(s, "partition.default-name");
    return v ? v : SC_DEFAULT_PARTITION_NAME;
}

/* PartitionPathUtils.needsEscaping: controls, DEL and " # % ' * / : = ? \ { } [ ] ^. */
static int needs_escape(unsigned char c) {
    return c < 0x20 || c == 0x7f || (c < 0x80 && strchr("\"#%'*/:=?\\{}[]^", c) != NULL);
}

static int append_escaped(sc_buf *out, const uint8_t *s, size_t n) {
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = needs_escape(s[i]) ? sc_buf_printf(out, "%%%02X", s[i]) : sc_buf_append_byte(out, s[i]);
    return rc;
}

/* Java's isNullOrWhitespaceOnly over the ASCII whitespace Character.isWhitespace knows. */
static int blank(const uint8_t *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 0x09 && s[i] <= 0x0d) || (s[i] >= 0x1c && s[i] <= 0x20))) return 0;
    return 1;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Undo %XX in place over [s, s+n) into a NUL-terminated string. Escapes Paimon never writes
 * (%00, anything above %7F) and a % without two hex digits are refused. */
static int unescape(char *s, size_t n, const char *spec) {
    size_t w = 0;
    for (size_t r = 0; r < n; r++) {
        if (s[r] != '%') {
            s[w++] = s[r];
            continue;
        }
        int hi = r + 1 < n ? hexval(s[r + 1]) : -1;
        int lo = hi >= 0 && r + 2 < n ? hexval(s[r + 2]) : -1;
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0) || hi >= 8)
            return sc_error_set(SC_EINVAL, "partition spec \"%.200s\": bad escape at \"%.3s\" (%%XX from %%01 to %%7F)", spec,
                                s + r);
        s[w++] = (char)(hi * 16 + lo);
        r += 2;
    }
    s[w] = '\0';
    return 0;
}

int sc_partition_parse_some(sc_datum *values, uint8_t **owned, char *named, const sc_table_schema *schema,
                            const char *spec) {
    size_t np = schema->partition_key_count;
    size_t n = strlen(spec);
    if (n > SPEC_MAX) return sc_error_set(SC_ELIMIT, "partition spec of %zu bytes, more than %d", n, SPEC_MAX);
    if (n && spec[n - 1] == '/') n--; /* Paimon's paths end in '/' */
    if (n == 0) return 0;
    if (np == 0) return sc_error_set(SC_EINVAL, "partition spec \"%.200s\": the table has no partition keys", spec);
    char *copy = malloc(n + 1);
    if (!copy) return sc_error_set(SC_ENOMEM, "out of memory parsing a partition spec");
    memcpy(copy, spec, n);
    copy[n] = '\0';
    const char *dflt = default_name(schema);
    int rc = 0;
    char *part = copy;
    for (;;) {
        char *slash = strchr(part, '/');
        size_t plen = slash ? (size_t)(slash - part) : strlen(part);
        char *eq = memchr(part, '=', plen);
        if (!eq || eq == part) {
            rc = sc_error_set(SC_EINVAL, "partition spec \"%.200s\": \"%.*s\" is not key=value", spec, (int)plen, part);
            break;
        }
        char *val = eq + 1;
        size_t vlen = plen - (size_t)(val - part);
        if ((rc = unescape(part, (size_t)(eq - part), spec)) || (rc = unescape(val, vlen, spec))) break;
        size_t k = 0;
        while (k < np && strcmp(schema->partition_keys[k], part)) k++;
        if (k == np) {
            rc = sc_error_set(SC_EINVAL, "partition spec \"%.200s\": \"%.200s\" is no partition key", spec, part);
            break;
        }
        if (named[k]) {
            rc = sc_error_set(SC_EINVAL, "partition spec \"%.200s\": key \"%.200s\" given twice", spec, part);
            break;
        }
        named[k] = 1;
        const sc_data_type *t = &schema->partition_types[k];
        /* Paimon's path names an empty or blank string like null (the default name): taking it
         * as a value would give that directory two partitions, and one file two identities
         * (other types do not parse from blank text anyway). */
        if ((t->root == SC_TYPE_CHAR || t->root == SC_TYPE_VARCHAR) && strcmp(val, dflt) &&
            blank((const uint8_t *)val, strlen(val))) {
            rc = sc_error_set(SC_EINVAL, "partition spec \"%.200s\": key \"%.200s\" has an empty or blank value; Paimon's "
                              "paths name it %s (null)", spec, part, dflt);
            break;
        }
        if (!strcmp(val, dflt)) {
            if (!t->nullable) {
                rc = sc_error_set(SC_EINVAL, "partition spec \"%.200s\": key \"%.200s\" is NOT NULL but names %s", spec,
                                  part, dflt);
                break;
            }
            values[k].is_null = 1;
        } else if ((rc = sc_datum_from_text(&values[k], &owned[k], val, t, part))) {
            rc = sc_error_wrap(rc, "partition spec \"%.200s\"", spec);
            break;
        }
        if (!slash) break;
        part = slash + 1;
    }
    free(copy);
    return rc;
}

int sc_partition_parse(sc_buf *out_row, const sc_table_schema *schema, const char *spec) {
    size_t np = schema->partition_key_count;
    if (np == 0) {
        size_t n = strlen(spec);
        if (n > SPEC_MAX) return sc_error_set(SC_ELIMIT, "partition spec of %zu bytes, more than %d", n, SPEC_MAX);
        if (n && spec[n - 1] == '/') n--;
        if (n) return sc_error_set(SC_EINVAL, "partition spec \"%.200s\": the table has no partition keys", spec);
        return sc_row_encode(out_row, NULL, NULL, 0);
    }
    if (!*spec || strcmp(spec, "/") == 0)
        return sc_error_set(SC_EINVAL, "partition spec \"%.200s\": \"\" is not key=value", spec);
    sc_datum *values = calloc(np, sizeof *values);
    uint8_t **owned = calloc(np, sizeof *owned);
    char *named = calloc(np, 1);
    int rc = 0;
    if (!values || !owned || !named) {
        rc = sc_error_set(SC_ENOMEM, "out of memory parsing a partition spec");
        goto done;
    }
    rc = sc_partition_parse_some(values, owned, named, schema, spec);
    for (size_t k = 0; !rc && k < np; k++)
        if (!named[k])
            rc = sc_error_set(SC_EINVAL, "partition spec \"%.200s\": key \"%.200s\" is missing", spec,
                              schema->partition_keys[k]);
    if (!rc) rc = sc_row_encode(out_row, schema->partition_types, values, np);
done:
    if (owned)
        for (size_t i = 0; i < np; i++) free(owned[i]);
    free(owned);
    free(values);
    free(named);
    return rc;
}

int sc_partition_spec(sc_buf *out, const sc_table_schema *schema, const uint8_t *row, size_t len, const char *what) {
    size_t np = schema->partition_key_count;
    int rc = sc_row_validate(row, len, schema->partition_types, np, what);
    if (rc) return rc;
    size_t start = out->len;
    sc_buf text = SC_BUF_INIT;
    const char *dflt = default_name(schema);
    for (size_t i = 0; rc == 0 && i < np; i++) {
        sc_datum d;
        rc = sc_row_get(&d, row, len, &schema->partition_types[i], i, what);
        if (rc == 0 && i) rc = sc_buf_append_byte(out, '/');
        const char *k = schema->partition_keys[i];
        rc = rc ? rc : append_escaped(out, (const uint8_t *)k, strlen(k));
        rc = rc ? rc : sc_buf_append_byte(out, '=');
        if (rc) break;
        text.len = 0;
        if (!d.is_null) rc = sc_datum_to_text(&text, &d, &schema->partition_types[i]);
        if (rc) {
            rc = sc_error_wrap(rc, "%s: partition key %s", what ? what : "partition", k);
            break;
        }
        /* Paimon names null, empty and blank values by the default partition name. */
        if (d.is_null || blank(text.data, text.len)) rc = append_escaped(out, (const uint8_t *)dflt, strlen(dflt));
        else rc = append_escaped(out, text.data, text.len);
    }
    sc_buf_free(&text);
    if (rc) out->len = start;
    return rc;
}

int sc_partition_bucket_dir(sc_buf *out, const sc_table_schema *schema, const uint8_t *row, size_t len, int32_t bucket,
                            const char *what) {
    size_t start = out->len;
    int rc = sc_partition_spec(out, schema, row, len, what);
    if (rc == 0 && schema->partition_key_count) rc = sc_buf_append_byte(out, '/');
    rc = rc ? rc : sc_buf_printf(out, "bucket-%d", (int)bucket);
    if (rc) out->len = start;
    return rc;
}

/* ---- partition statistics (manifest lists) ---- */

/*
 * The order of the statistics Paimon's readers prune with: Paimon collects
 * and tests them with Java's compareTo, which orders FLOAT and DOUBLE totally
 * (-0.0 < 0.0, NaN above everything, NaN equal to NaN), unlike the key order
 * (NaN equal to anything, -0.0 == 0.0). Bounds taken in the key order could
 * exclude a value the manifest holds (min = max = NaN for {NaN, 1.0}).
 * Pruning here (sc_partition_stats_may_hold) keeps the key order: it never
 * excludes more than the total order does, so it is safe on either.
 */
static int stats_compare(const sc_datum *a, const sc_datum *b, const sc_data_type *type) {
    if (a->is_null || b->is_null || (type->root != SC_TYPE_FLOAT && type->root != SC_TYPE_DOUBLE))
        return sc_datum_compare(a, b, type);
    double x = a->f, y = b->f;
    if (x < y) return -1;
    if (x > y) return 1;
    int xn = isnan(x) != 0, yn = isnan(y) != 0;
    if (xn || yn) return xn - yn;
    return (signbit(y) != 0) - (signbit(x) != 0); /* equal but for the sign of zero: -0.0 < 0.0 */
}

int sc_partition_stats(sc_buf *min_out, sc_buf *max_out, int64_t *null_counts, const sc_table_schema *schema,
                       const sc_bytes *rows, size_t count, const char *what) {
    size_t arity = schema->partition_key_count;
    const sc_data_type *types = schema->partition_types;
    sc_datum *min = calloc(arity ? arity : 1, sizeof *min), *max = calloc(arity ? arity : 1, sizeof *max);
    int *seen = calloc(arity ? arity : 1, sizeof *seen);
    int rc = min && max && seen ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t f = 0; f < arity; f++) null_counts[f] = 0;
    for (size_t r = 0; !rc && r < count; r++) {
        for (size_t f = 0; !rc && f < arity; f++) {
            sc_datum v;
            rc = sc_row_get(&v, rows[r].data, rows[r].len, &types[f], f, what);
            if (rc) break;
            if (v.is_null) {
                null_counts[f]++;
                continue;
            }
            if (!seen[f] || stats_compare(&v, &min[f], &types[f]) < 0) min[f] = v;
            if (!seen[f] || stats_compare(&v, &max[f], &types[f]) > 0) max[f] = v;
            seen[f] = 1;
        }
    }
    for (size_t f = 0; !rc && f < arity; f++) {
        if (!seen[f]) min[f].is_null = max[f].is_null = 1;
    }
    if (!rc) rc = sc_row_encode(min_out, types, min, arity);
    if (!rc) rc = sc_row_encode(max_out, types, max, arity);
    free(min);
    free(max);
    free(seen);
    return rc;
}

int sc_partition_stats_may_hold(int *out, const sc_table_schema *schema, sc_bytes min, sc_bytes max, sc_bytes row) {
    *out = 1;
    size_t arity = schema->partition_key_count;
    uint32_t a_min, a_max, a_row;
    if (!min.data || !max.data || !row.data) return 0;
    /* Rows of another shape (a Paimon list of an older schema, damage): no pruning. */
    if (sc_row_arity(&a_min, min.data, min.len, "partition stats") || sc_row_arity(&a_max, max.data, max.len, "partition stats") ||
        sc_row_arity(&a_row, row.data, row.len, "partition") || a_min != arity || a_max != arity || a_row != arity) {
        sc_error_clear();
        return 0;
    }
    for (size_t f = 0; f < arity; f++) {
        sc_datum lo, hi, v;
        const sc_data_type *type = &schema->partition_types[f];
        if (sc_row_get(&lo, min.data, min.len, type, f, "partition stats") ||
            sc_row_get(&hi, max.data, max.len, type, f, "partition stats") ||
            sc_row_get(&v, row.data, row.len, type, f, "partition")) {
            sc_error_clear();
            return 0;
        }
        if (v.is_null || lo.is_null || hi.is_null) continue;
        if (sc_datum_compare(&v, &lo, type) < 0 || sc_datum_compare(&v, &hi, type) > 0) {
            *out = 0;
            return 0;
        }
    }
    return 0;
}
