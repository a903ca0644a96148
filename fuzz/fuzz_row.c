/*
 * Fuzz target: Paimon BinaryRow bytes (binary_row.h, partition.h):
 * sc_row_arity, sc_row_validate, sc_row_get, sc_row_compare and
 * sc_partition_spec over a few fixed type lists.
 *
 * Input: byte 0 picks the type list, byte 1 the length of row A; row A and
 * row B follow (each copied to an exact-size buffer). Checked beyond "no
 * sanitizer report, no leak":
 *   - failures are SC_ECORRUPT or SC_ELIMIT with a message (SC_EINVAL only
 *     where documented: a BINARY partition has no path text, text that does
 *     not parse back);
 *   - a row that validates: every field decodes, the field one past the
 *     arity does not, its partition spec exists, compare(A, A) = 0 and
 *     compare(A, B) = -compare(B, A) when B validates too;
 *   - a row that does not validate has no partition spec;
 *   - the spec is a fixed point: parsing it and printing the row again gives
 *     the same text.
 */
#include "fuzz_common.h"
#include "format/binary_row.h"
#include "format/partition.h"

static const int allowed[] = {SC_ECORRUPT, SC_ELIMIT, 0};
static const int allowed_text[] = {SC_EINVAL, 0};

/* Partition columns of each list (fields p0, p1, ...; every one a partition key). */
static const char *const lists[][6] = {
    {"STRING", "INT NOT NULL"},
    {"BIGINT", "DOUBLE", "BOOLEAN", "DATE"},
    {"DECIMAL(10, 2)", "DECIMAL(38, 10)", "TIMESTAMP(3)", "TIMESTAMP(9)", "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
    {"CHAR(5)", "VARCHAR(10)", "TINYINT", "SMALLINT", "FLOAT", "TIME(3)"},
    {"BINARY(4)", "VARBINARY(100)", "BYTES"},
    {NULL}, /* unpartitioned: arity 0 */
};
#define LIST_COUNT (sizeof lists / sizeof lists[0])
static const int list_has_binary[LIST_COUNT] = {[4] = 1};

/* Built once; reachable through this array, so not a leak. */
static sc_table_schema *schemas[LIST_COUNT];

static const sc_table_schema *schema_for(size_t list) {
    if (schemas[list]) return schemas[list];
    sc_buf json = SC_BUF_INIT;
    int rc = sc_buf_printf(&json, "{\"fields\":[{\"name\":\"x\",\"type\":\"INT\"}");
    for (size_t i = 0; !rc && i < 6 && lists[list][i]; i++)
        rc = sc_buf_printf(&json, ",{\"name\":\"p%zu\",\"type\":\"%s\"}", i, lists[list][i]);
    if (!rc) rc = sc_buf_printf(&json, "],\"partitionKeys\":[");
    for (size_t i = 0; !rc && i < 6 && lists[list][i]; i++) rc = sc_buf_printf(&json, "%s\"p%zu\"", i ? "," : "", i);
    if (!rc) rc = sc_buf_printf(&json, "]}");
    sc_table_schema *s = calloc(1, sizeof *s);
    if (rc || !s || sc_schema_decode(s, json.data, json.len, NULL) != 0) sc_fuzz_fail("row", "test schema", rc);
    sc_buf_free(&json);
    schemas[list] = s;
    return s;
}

static int sign(int x) { return (x > 0) - (x < 0); }

/* Check one row on its own; returns 1 when it validates. */
static int check_row(const sc_table_schema *s, size_t list, const uint8_t *row, size_t len) {
    const sc_data_type *types = s->partition_types;
    size_t n = s->partition_key_count;
    uint32_t arity = 0;
    sc_error_clear();
    int rc = sc_row_arity(&arity, row, len, "fuzz row");
    if (rc) sc_fuzz_check_failure("row", "sc_row_arity", rc, allowed);
    sc_error_clear();
    int vrc = sc_row_validate(row, len, types, n, "fuzz row");
    if (vrc) sc_fuzz_check_failure("row", "sc_row_validate", vrc, allowed);
    if (!vrc && (rc || arity != n)) sc_fuzz_fail("row", "a row validates with another arity", rc);
    /* Every field, and one past the end, with each type of the list. */
    for (size_t i = 0; i <= n; i++) {
        const sc_data_type *t = n ? &types[i < n ? i : n - 1] : NULL;
        if (!t) break;
        sc_datum d;
        sc_error_clear();
        rc = sc_row_get(&d, row, len, t, i, "fuzz row");
        if (rc) sc_fuzz_check_failure("row", "sc_row_get", rc, allowed);
        if (!vrc && i < n && rc) sc_fuzz_fail("row", "a field of a valid row does not decode", rc);
        if (!vrc && i == n && !rc) sc_fuzz_fail("row", "a field past the arity decodes", 0);
        if (!rc && !d.is_null && d.bytes && (d.bytes < row || d.bytes + d.len > row + len))
            sc_fuzz_fail("row", "a value points outside the row", 0);
    }
    if (!vrc) {
        int c = 1;
        sc_error_clear();
        rc = sc_row_compare(&c, row, len, row, len, types, n, "fuzz row");
        if (rc) sc_fuzz_fail("row", "a valid row does not compare", rc);
        if (c != 0) sc_fuzz_fail("row", "compare(A, A) != 0", c);
    }
    sc_buf spec = SC_BUF_INIT;
    sc_error_clear();
    rc = sc_partition_spec(&spec, s, row, len, "fuzz row");
    if (rc && !(rc == SC_EINVAL && list_has_binary[list])) sc_fuzz_check_failure("row", "sc_partition_spec", rc, allowed);
    if (rc && !vrc && !list_has_binary[list]) sc_fuzz_fail("row", "a valid row has no partition spec", rc);
    if (!rc && vrc) sc_fuzz_fail("row", "a row that does not validate has a partition spec", vrc);
    if (!rc) {
        /* Parse the text back: it may not parse (SC_EINVAL), but when it does it names the same partition. */
        sc_buf row2 = SC_BUF_INIT;
        if (sc_buf_append(&spec, "", 1) != 0) abort(); /* NUL */
        sc_error_clear();
        rc = sc_partition_parse(&row2, s, (const char *)spec.data);
        if (rc) {
            sc_fuzz_check_failure("row", "sc_partition_parse of a printed spec", rc, allowed_text);
        } else {
            sc_buf spec2 = SC_BUF_INIT;
            rc = sc_partition_spec(&spec2, s, row2.data, row2.len, "fuzz row 2");
            if (rc) sc_fuzz_fail("row", "a parsed spec's row has no spec", rc);
            if (sc_buf_append(&spec2, "", 1) != 0) abort();
            if (spec2.len != spec.len || memcmp(spec.data, spec2.data, spec.len) != 0) {
                fprintf(stderr, "spec  %s\nagain %s\n", (const char *)spec.data, (const char *)spec2.data);
                sc_fuzz_fail("row", "printing a parsed spec gives other text", 0);
            }
            sc_buf_free(&spec2);
        }
        sc_buf_free(&row2);
    }
    sc_buf_free(&spec);
    return !vrc; /* 1 when the row validates */
}

int sc_fuzz_row(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    size_t list = data[0] % LIST_COUNT;
    size_t alen = data[1];
    if (alen > size - 2) alen = (size - 2) / 2;
    const sc_table_schema *s = schema_for(list);
    uint8_t *a = sc_fuzz_copy(data + 2, alen);
    uint8_t *b = sc_fuzz_copy(data + 2 + alen, size - 2 - alen);
    size_t blen = size - 2 - alen;
    int va = check_row(s, list, a, alen);
    int vb = check_row(s, list, b, blen);
    int ab = 0, ba = 0;
    sc_error_clear();
    int rc1 = sc_row_compare(&ab, a, alen, b, blen, s->partition_types, s->partition_key_count, "fuzz rows");
    if (rc1) sc_fuzz_check_failure("row", "sc_row_compare", rc1, allowed);
    sc_error_clear();
    int rc2 = sc_row_compare(&ba, b, blen, a, alen, s->partition_types, s->partition_key_count, "fuzz rows");
    if (rc2) sc_fuzz_check_failure("row", "sc_row_compare", rc2, allowed);
    if (va && vb) {
        if (rc1 || rc2) sc_fuzz_fail("row", "two valid rows do not compare", rc1 ? rc1 : rc2);
        if (sign(ab) != -sign(ba)) sc_fuzz_fail("row", "compare(A, B) != -compare(B, A)", ab);
    }
    free(a);
    free(b);
    return 0;
}

SC_FUZZ_ENTRY(sc_fuzz_row)
