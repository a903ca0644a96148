/* BinaryRow bytes against Paimon 1.4.2's own manifests (tests/vectors/paimon-1.4.2), typed order,
 * malformed rows and partition-value text. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/binary_row.h"
#include "format/data_type.h"
#include "sc_test_assert.h"
#include "snapcommit/error.h"

static sc_data_type ty(const char *text) {
    sc_data_type t;
    OK(sc_data_type_parse(&t, text, "test"));
    return t;
}

static size_t unhex(uint8_t *out, size_t cap, const char *hex) {
    size_t n = strlen(hex) / 2;
    cr_assert_leq(n, cap);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        cr_assert_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
    return n;
}

static void assert_bytes(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len, const char *what) {
    cr_assert_eq(got_len, want_len, "%s: %zu bytes, expected %zu", what, got_len, want_len);
    for (size_t i = 0; i < want_len; i++)
        cr_assert_eq(got[i], want[i], "%s: byte %zu is %02x, expected %02x", what, i, got[i], want[i]);
}

static sc_datum val_i(int64_t i) { return (sc_datum){.i = i}; }
static sc_datum val_s(const char *s) { return (sc_datum){.bytes = (const uint8_t *)s, .len = strlen(s)}; }
static sc_datum val_null(void) { return (sc_datum){.is_null = 1}; }

/* ---------------------------------------------------------------- the golden rows, one by one */

Test(binary_row, partition_dt_h_is_paimons_44_bytes) {
    /* docs/paimon-layout.md §6, from append_fixed's manifests */
    static const uint8_t want[44] = {0, 0, 0, 2,  0, 0, 0, 0, 0, 0, 0, 0,  0x0a, 0, 0, 0, 0x18, 0, 0, 0,
                                     0, 0, 0, 0, 0, 0, 0, 0,  '2', '0', '2', '4', '-', '0', '1', '-', '0', '1', 0, 0, 0, 0, 0, 0};
    sc_data_type types[2] = {ty("STRING NOT NULL"), ty("INT NOT NULL")};
    sc_datum v[2] = {val_s("2024-01-01"), val_i(0)};
    sc_buf b = SC_BUF_INIT;
    OK(sc_row_encode(&b, types, v, 2));
    assert_bytes(b.data, b.len, want, sizeof want, "dt=2024-01-01,h=0");
    sc_datum d;
    OK(sc_row_get(&d, b.data, b.len, &types[0], 0, "p"));
    cr_assert(!d.is_null && d.len == 10 && !memcmp(d.bytes, "2024-01-01", 10));
    cr_assert_eq(d.bytes, b.data + 4 + 24, "long strings point into the row's variable part");
    OK(sc_row_get(&d, b.data, b.len, &types[1], 1, "p"));
    cr_assert_eq(d.i, 0);
    uint32_t arity;
    OK(sc_row_arity(&arity, b.data, b.len, "p"));
    cr_assert_eq(arity, 2);
    sc_buf_free(&b);
}

Test(binary_row, short_string_two_is_inline) {
    sc_data_type t = ty("STRING");
    sc_datum v = val_s("two");
    sc_buf b = SC_BUF_INIT;
    OK(sc_row_encode(&b, &t, &v, 1));
    static const uint8_t want[20] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x74, 0x77, 0x6f, 0, 0, 0, 0, 0x83};
    assert_bytes(b.data, b.len, want, sizeof want, "\"two\"");
    sc_datum d;
    OK(sc_row_get(&d, b.data, b.len, &t, 0, "r"));
    cr_assert(d.len == 3 && !memcmp(d.bytes, "two", 3));
    /* exactly 7 bytes stay inline, 8 go to the variable part */
    sc_datum seven = val_s("1234567"), eight = val_s("12345678");
    b.len = 0;
    OK(sc_row_encode(&b, &t, &seven, 1));
    cr_assert_eq(b.len, 20);
    cr_assert_eq(b.data[19], 0x87);
    b.len = 0;
    OK(sc_row_encode(&b, &t, &eight, 1));
    cr_assert_eq(b.len, 28);
    static const uint8_t slot8[8] = {8, 0, 0, 0, 16, 0, 0, 0};
    assert_bytes(b.data + 12, 8, slot8, 8, "slot of an 8-byte string");
    sc_buf_free(&b);
}

Test(binary_row, decimal_minus_050_and_timestamp3_match_pk_stats) {
    /* pk.manifests.json, value stats min of the first file: amt = -0.50, ts = 1970-01-01T00:00:00.001 */
    sc_data_type dec = ty("DECIMAL(10, 2)"), ts = ty("TIMESTAMP(3)");
    sc_datum v;
    uint8_t *owned;
    OK(sc_datum_from_text(&v, &owned, "-0.50", &dec, "amt"));
    cr_assert_null(owned);
    cr_assert_eq(v.unscaled, -50);
    sc_buf b = SC_BUF_INIT;
    OK(sc_row_encode(&b, &dec, &v, 1));
    static const uint8_t want_dec[8] = {0xce, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    assert_bytes(b.data + 12, 8, want_dec, 8, "-0.50");
    sc_buf text = SC_BUF_INIT;
    OK(sc_datum_to_text(&text, &v, &dec));
    cr_assert_str_eq(sc_buf_cstr(&text), "-0.50");

    OK(sc_datum_from_text(&v, &owned, "1970-01-01T00:00:00.001", &ts, "ts"));
    cr_assert_eq(v.millis, 1);
    b.len = 0;
    OK(sc_row_encode(&b, &ts, &v, 1));
    static const uint8_t want_ts[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    assert_bytes(b.data + 12, 8, want_ts, 8, "TIMESTAMP(3) 1 ms");
    text.len = 0;
    OK(sc_datum_to_text(&text, &v, &ts));
    cr_assert_str_eq(sc_buf_cstr(&text), "1970-01-01T00:00:00.001");
    sc_buf_free(&b);
    sc_buf_free(&text);
}

/* ---------------------------------------------------------------- every golden row, driven by the dumps */

typedef struct golden_types {
    sc_data_type t[16];
    const char *names[16];
    size_t n;
} golden_types;

static void load_types(golden_types *g, json_t *arr) {
    g->n = json_array_size(arr);
    cr_assert_leq(g->n, 16);
    for (size_t i = 0; i < g->n; i++) {
        json_t *f = json_array_get(arr, i);
        g->names[i] = json_string_value(json_object_get(f, "name"));
        g->t[i] = ty(json_string_value(json_object_get(f, "type")));
    }
}

/* The value Paimon's dump shows for one field, as a datum (owned bytes freed by the caller). */
static sc_datum datum_of(json_t *j, const sc_data_type *t, uint8_t **owned) {
    sc_datum d = {0};
    *owned = NULL;
    if (json_is_null(j)) return val_null();
    switch (t->root) {
    case SC_TYPE_BOOLEAN: d.i = json_is_true(j); break;
    case SC_TYPE_INT:
    case SC_TYPE_BIGINT: d.i = json_integer_value(j); break;
    case SC_TYPE_DOUBLE: d.f = json_number_value(j); break;
    case SC_TYPE_VARCHAR: d = val_s(json_string_value(j)); break;
    case SC_TYPE_DATE:
    case SC_TYPE_DECIMAL:
    case SC_TYPE_TIMESTAMP: OK(sc_datum_from_text(&d, owned, json_string_value(j), t, "golden")); break;
    default: cr_assert_fail("type %d not in the golden tables", (int)t->root);
    }
    return d;
}

static size_t rows_checked;

static void check_row(json_t *row, const golden_types *g, const char *where) {
    const char *hex = json_string_value(json_object_get(row, "hex"));
    json_t *values = json_object_get(row, "values");
    cr_assert_not_null(hex, "%s", where);
    uint8_t want[512];
    size_t want_len = unhex(want, sizeof want, hex);
    size_t arity = (size_t)json_integer_value(json_object_get(row, "arity"));
    cr_assert(arity == 0 || arity == g->n, "%s: arity %zu, types %zu", where, arity, g->n);
    sc_datum v[16];
    uint8_t *owned[16] = {0};
    for (size_t i = 0; i < arity; i++) {
        json_t *jv = json_object_get(values, g->names[i]);
        cr_assert_not_null(jv, "%s: no value for %s", where, g->names[i]);
        v[i] = datum_of(jv, &g->t[i], &owned[i]);
    }
    /* values -> bytes, byte for byte */
    sc_buf b = SC_BUF_INIT;
    OK(sc_row_encode(&b, g->t, v, arity));
    assert_bytes(b.data, b.len, want, want_len, where);
    /* bytes -> values, field by field */
    OK(sc_row_validate(want, want_len, g->t, arity, where));
    for (size_t i = 0; i < arity; i++) {
        sc_datum d;
        OK(sc_row_get(&d, want, want_len, &g->t[i], i, where));
        cr_assert_eq(d.is_null, v[i].is_null, "%s: %s null", where, g->names[i]);
        cr_assert_eq(sc_datum_compare(&d, &v[i], &g->t[i]), 0, "%s: field %s differs", where, g->names[i]);
        if (!d.is_null && g->t[i].root == SC_TYPE_VARCHAR) {
            const char *s = json_string_value(json_object_get(values, g->names[i]));
            cr_assert(d.len == strlen(s) && !memcmp(d.bytes, s, d.len), "%s: %s", where, g->names[i]);
        }
        if (!d.is_null && g->t[i].root == SC_TYPE_DOUBLE)
            cr_assert_eq(d.f, json_number_value(json_object_get(values, g->names[i])), "%s", where);
        if (!d.is_null && g->t[i].root == SC_TYPE_DECIMAL) {
            sc_buf text = SC_BUF_INIT;
            OK(sc_datum_to_text(&text, &d, &g->t[i]));
            cr_assert_str_eq(sc_buf_cstr(&text), json_string_value(json_object_get(values, g->names[i])), "%s", where);
            sc_buf_free(&text);
        }
        free(owned[i]);
    }
    /* a row equals itself in the typed order */
    int c;
    OK(sc_row_compare(&c, want, want_len, b.data, b.len, g->t, arity, where));
    cr_assert_eq(c, 0);
    sc_buf_free(&b);
    rows_checked++;
}

/* Rows under `key` use types `g`: partition / partitionStats -> partition, keys -> trimmed key, valueStats -> row. */
static void walk(json_t *j, const char *key, golden_types *part, golden_types *keyt, golden_types *rowt, const char *where) {
    if (json_is_object(j)) {
        if (json_object_get(j, "hex") && json_object_get(j, "arity") && key) {
            golden_types *g = NULL;
            if (!strcmp(key, "partition") || !strcmp(key, "partitionStats")) g = part;
            else if (!strcmp(key, "minKey") || !strcmp(key, "maxKey") || !strcmp(key, "keyStats")) g = keyt;
            else if (!strcmp(key, "valueStats")) g = rowt;
            cr_assert_not_null(g, "%s: row under unexpected key %s", where, key);
            check_row(j, g, where);
            return;
        }
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
            /* min/max inside stats keep the stats' key */
            const char *ctx = (!strcmp(k, "min") || !strcmp(k, "max")) ? key : k;
            if (!strcmp(k, "avro")) continue; /* the same bytes once more, without types */
            walk(v, ctx, part, keyt, rowt, where);
        }
    } else if (json_is_array(j)) {
        for (size_t i = 0; i < json_array_size(j); i++) walk(json_array_get(j, i), key, part, keyt, rowt, where);
    }
}

Test(binary_row, every_golden_manifest_row_round_trips) {
    const char *src = getenv("SC_SOURCE_DIR");
    static const char *const tables[] = {"append_unaware", "append_fixed", "pk", "append_deflate"};
    rows_checked = 0;
    for (size_t t = 0; t < 4; t++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/vectors/paimon-1.4.2/%s.manifests.json", src ? src : ".", tables[t]);
        json_error_t err;
        json_t *doc = json_load_file(path, 0, &err);
        cr_assert_not_null(doc, "%s: %s (set SC_SOURCE_DIR)", path, err.text);
        golden_types part, keyt, rowt;
        json_t *types = json_object_get(doc, "types");
        load_types(&part, json_object_get(types, "partition"));
        load_types(&keyt, json_object_get(types, "trimmedPrimaryKey"));
        load_types(&rowt, json_object_get(types, "row"));
        walk(json_object_get(doc, "manifests"), NULL, &part, &keyt, &rowt, tables[t]);
        walk(json_object_get(doc, "manifestLists"), NULL, &part, &keyt, &rowt, tables[t]);
        json_decref(doc);
    }
    /* 4 tables' partitions, keys and stats: well over a hundred row occurrences */
    cr_assert_geq(rows_checked, 100, "only %zu rows checked", rows_checked);
}

/* ---------------------------------------------------------------- non-compact DECIMAL and TIMESTAMP */

Test(binary_row, wide_decimal_and_timestamp6_use_the_variable_part) {
    sc_data_type types[3] = {ty("DECIMAL(38, 2)"), ty("TIMESTAMP(6)"), ty("DECIMAL(20, 0)")};
    sc_datum v[3];
    uint8_t *owned[3];
    OK(sc_datum_from_text(&v[0], &owned[0], "-1.28", &types[0], "d"));
    cr_assert_eq(v[0].len, 1, "BigInteger.toByteArray(-128) is one byte");
    cr_assert_eq(v[0].bytes[0], 0x80);
    OK(sc_datum_from_text(&v[1], &owned[1], "2024-01-01T00:00:00.000001", &types[1], "t"));
    cr_assert_eq(v[1].millis, 1704067200000LL);
    cr_assert_eq(v[1].nanos, 1000);
    v[2] = val_null();
    owned[2] = NULL;
    sc_buf b = SC_BUF_INIT;
    OK(sc_row_encode(&b, types, v, 3));
    /* 8 header + 24 slots, then 16 bytes decimal, 8 bytes millis, 16 reserved for the null decimal */
    cr_assert_eq(b.len, 4 + 32 + 16 + 8 + 16);
    static const uint8_t slot0[8] = {1, 0, 0, 0, 32, 0, 0, 0};
    static const uint8_t slot1[8] = {0xe8, 0x03, 0, 0, 48, 0, 0, 0};
    static const uint8_t slot2[8] = {0, 0, 0, 0, 56, 0, 0, 0};
    assert_bytes(b.data + 12, 8, slot0, 8, "decimal slot");
    assert_bytes(b.data + 20, 8, slot1, 8, "timestamp slot");
    assert_bytes(b.data + 28, 8, slot2, 8, "null wide decimal keeps its offset");
    cr_assert_eq(b.data[5], 0x04, "null bit of field 2 is bit 10");
    cr_assert_eq(b.data[4 + 32], 0x80);
    for (int i = 1; i < 16; i++) cr_assert_eq(b.data[4 + 32 + i], 0);
    for (size_t i = 0; i < 3; i++) {
        sc_datum d;
        OK(sc_row_get(&d, b.data, b.len, &types[i], i, "w"));
        cr_assert_eq(sc_datum_compare(&d, &v[i], &types[i]), 0, "field %zu", i);
    }
    sc_buf text = SC_BUF_INIT;
    OK(sc_datum_to_text(&text, &v[0], &types[0]));
    cr_assert_str_eq(sc_buf_cstr(&text), "-1.28");
    text.len = 0;
    OK(sc_datum_to_text(&text, &v[1], &types[1]));
    cr_assert_str_eq(sc_buf_cstr(&text), "2024-01-01T00:00:00.000001");
    /* 10^38 - 1 is the largest DECIMAL(38) */
    uint8_t *big;
    sc_datum m;
    OK(sc_datum_from_text(&m, &big, "999999999999999999999999999999999999.99", &types[0], "max"));
    text.len = 0;
    OK(sc_datum_to_text(&text, &m, &types[0]));
    cr_assert_str_eq(sc_buf_cstr(&text), "999999999999999999999999999999999999.99");
    free(big);
    FAILS(SC_EINVAL, sc_datum_from_text(&m, &big, "9999999999999999999999999999999999999.99", &types[0], "over"));
    for (int i = 0; i < 3; i++) free(owned[i]);
    sc_buf_free(&text);
    sc_buf_free(&b);
}

/* ---------------------------------------------------------------- typed order */

static int cmp_rows(const sc_data_type *types, size_t n, const sc_datum *a, const sc_datum *b) {
    sc_buf x = SC_BUF_INIT, y = SC_BUF_INIT;
    OK(sc_row_encode(&x, types, a, n));
    OK(sc_row_encode(&y, types, b, n));
    int c;
    OK(sc_row_compare(&c, x.data, x.len, y.data, y.len, types, n, "cmp"));
    sc_buf_free(&x);
    sc_buf_free(&y);
    return c;
}

Test(binary_row, int_order_is_signed_not_bytewise) {
    sc_data_type t = ty("INT NOT NULL");
    sc_datum a = val_i(-1), b = val_i(1);
    sc_buf x = SC_BUF_INIT, y = SC_BUF_INIT;
    OK(sc_row_encode(&x, &t, &a, 1));
    OK(sc_row_encode(&y, &t, &b, 1));
    cr_assert_gt(memcmp(x.data, y.data, x.len), 0, "bytes order -1 after 1");
    int c;
    OK(sc_row_compare(&c, x.data, x.len, y.data, y.len, &t, 1, "k"));
    cr_assert_lt(c, 0);
    OK(sc_row_compare(&c, y.data, y.len, x.data, x.len, &t, 1, "k"));
    cr_assert_gt(c, 0);
    sc_data_type big = ty("BIGINT");
    sc_datum lo = val_i(INT64_MIN), hi = val_i(INT64_MAX);
    cr_assert_lt(cmp_rows(&big, 1, &lo, &hi), 0);
    sc_data_type date = ty("DATE");
    sc_datum d1 = val_i(-3), d2 = val_i(19000);
    cr_assert_lt(cmp_rows(&date, 1, &d1, &d2), 0);
    sc_buf_free(&x);
    sc_buf_free(&y);
}

Test(binary_row, strings_compare_by_unsigned_bytes_then_length) {
    sc_data_type t = ty("STRING");
    sc_datum a = val_s("a"), e = val_s("\xc3\xa9"), ab = val_s("ab"), longer = val_s("a string longer than 7");
    cr_assert_lt(cmp_rows(&t, 1, &a, &e), 0, "0xc3 is above 'a' when unsigned");
    cr_assert_lt(cmp_rows(&t, 1, &a, &ab), 0, "a prefix sorts first");
    cr_assert_lt(cmp_rows(&t, 1, &longer, &ab), 0, "' ' (0x20) sorts before 'b'");
    cr_assert_lt(cmp_rows(&t, 1, &a, &longer), 0, "inline against variable part");
    sc_data_type bin = ty("BYTES");
    sc_datum b0 = {.bytes = (const uint8_t *)"\x01", .len = 1}, b1 = {.bytes = (const uint8_t *)"\xff", .len = 1};
    cr_assert_lt(cmp_rows(&bin, 1, &b0, &b1), 0);
}

Test(binary_row, decimals_timestamps_booleans_and_nulls) {
    sc_data_type dec = ty("DECIMAL(10, 2)");
    sc_datum m = {.unscaled = -51}, n = {.unscaled = -50}, p = {.unscaled = 9999999999};
    cr_assert_lt(cmp_rows(&dec, 1, &m, &n), 0);
    cr_assert_lt(cmp_rows(&dec, 1, &n, &p), 0);
    sc_data_type wide = ty("DECIMAL(30, 0)");
    sc_datum w1, w2;
    uint8_t *o1, *o2;
    OK(sc_datum_from_text(&w1, &o1, "-100000000000000000000", &wide, "w"));
    OK(sc_datum_from_text(&w2, &o2, "5", &wide, "w"));
    cr_assert_lt(cmp_rows(&wide, 1, &w1, &w2), 0);
    cr_assert_gt(cmp_rows(&wide, 1, &w2, &w1), 0);
    free(o1);
    free(o2);
    sc_data_type ts = ty("TIMESTAMP(9)");
    sc_datum t1 = {.millis = 5, .nanos = 999}, t2 = {.millis = 5, .nanos = 1000}, t0 = {.millis = -1, .nanos = 999999};
    cr_assert_lt(cmp_rows(&ts, 1, &t1, &t2), 0, "same millis: nanos decide");
    cr_assert_lt(cmp_rows(&ts, 1, &t0, &t1), 0, "millis first");
    sc_data_type b = ty("BOOLEAN");
    sc_datum f = val_i(0), tr = val_i(1), nul = val_null();
    cr_assert_lt(cmp_rows(&b, 1, &f, &tr), 0);
    cr_assert_lt(cmp_rows(&b, 1, &nul, &f), 0, "nulls first");
    cr_assert_eq(cmp_rows(&b, 1, &nul, &nul), 0);
    sc_data_type dbl = ty("DOUBLE");
    sc_datum d1 = {.f = -2.5}, d2 = {.f = 0.5};
    cr_assert_lt(cmp_rows(&dbl, 1, &d1, &d2), 0);
}

Test(binary_row, multi_field_keys_compare_field_by_field) {
    sc_data_type t[2] = {ty("STRING NOT NULL"), ty("INT NOT NULL")};
    sc_datum a[2] = {val_s("2024-01-01"), val_i(10)};
    sc_datum b[2] = {val_s("2024-01-01"), val_i(-2)};
    sc_datum c[2] = {val_s("2024-01-02"), val_i(-100)};
    cr_assert_gt(cmp_rows(t, 2, a, b), 0, "second field decides");
    cr_assert_lt(cmp_rows(t, 2, a, c), 0, "first field decides");
    cr_assert_eq(cmp_rows(t, 2, a, a), 0);
    sc_buf x = SC_BUF_INIT, y = SC_BUF_INIT;
    OK(sc_row_encode(&x, t, a, 2));
    OK(sc_row_encode(&y, t, b, 2));
    int r;
    OK(sc_row_compare(&r, x.data, x.len, y.data, y.len, t, 1, "prefix"));
    cr_assert_eq(r, 0, "over the first field only they are equal");
    sc_buf_free(&x);
    sc_buf_free(&y);
}

/* ---------------------------------------------------------------- malformed rows */

/* Each truncation, every offset moved out of range, every inline length 8..15: SC_ECORRUPT. */
static void check_truncations(const char *hex, const sc_data_type *types, size_t arity) {
    uint8_t row[256];
    size_t len = unhex(row, sizeof row, hex);
    OK(sc_row_validate(row, len, types, arity, "whole"));
    for (size_t n = 0; n < len; n++) {
        /* a copy of exactly n bytes so ASan sees any read past the end */
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, row, n);
        int rc = sc_row_validate(n ? cut : NULL, n, types, arity, "cut");
        cr_assert_eq(rc, SC_ECORRUPT, "%s cut to %zu bytes: %s", hex, n, sc_error_name(rc));
        /* single fields of a cut may still decode (an INT before the cut string); none may read past it */
        for (size_t i = 0; i < arity; i++) {
            sc_datum d;
            int g = sc_row_get(&d, n ? cut : NULL, n, &types[i], i, "cut");
            if (g == 0 && !d.is_null && d.bytes) cr_assert_leq(d.bytes + d.len, cut + n, "field %zu past the cut", i);
        }
        free(cut);
    }
}

Test(binary_row, every_truncation_is_corrupt) {
    sc_data_type part[2] = {ty("STRING NOT NULL"), ty("INT NOT NULL")};
    check_truncations("0000000200000000000000000a000000180000000000000000000000323032342d30312d3031000000000000", part, 2);
    sc_data_type row3[3] = {ty("INT NOT NULL"), ty("STRING"), ty("DOUBLE")};
    check_truncations("000000030000000000000000050000000000000008000000200000001f85eb51b81e094067616d6d6120ceb4", row3, 3);
    sc_data_type pk[9] = {ty("INT NOT NULL"), ty("INT"), ty("BIGINT"), ty("STRING"), ty("DOUBLE"),
                          ty("BOOLEAN"), ty("DATE"), ty("DECIMAL(10, 2)"), ty("TIMESTAMP(3)")};
    check_truncations("0000000900000000000000000100000000000000d8ffffff00000000fbffffffffffffff100000005000000000000000000"
                      "002c000000000000000000000000000000000ceffffffffffffff01000000000000006120737472696e67206c6f6e67657220",
                      pk, 9);
}

Test(binary_row, offsets_and_lengths_out_of_range_are_corrupt) {
    sc_data_type part[2] = {ty("STRING NOT NULL"), ty("INT NOT NULL")};
    uint8_t row[44];
    unhex(row, sizeof row, "0000000200000000000000000a000000180000000000000000000000323032342d30312d3031000000000000");
    sc_datum d;
    /* slot 0 at bytes 12..19: length at 12, offset at 16 (relative to byte 4) */
    struct { size_t at; uint8_t v; } cases[] = {
        {16, 0x1f}, /* offset 31: 31 + 10 > 40 */
        {16, 0x28}, /* offset 40: at the end */
        {16, 0x08}, /* offset 8: inside the fixed part */
        {19, 0x7f}, /* huge offset, mark bit clear */
        {12, 0x11}, /* length 17 from offset 24 */
        {15, 0x01}, /* length 2^24 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint8_t bad[44];
        memcpy(bad, row, 44);
        bad[cases[i].at] = cases[i].v;
        CORRUPT(sc_row_get(&d, bad, 44, &part[0], 0, "p"), "outside the row");
        CORRUPT(sc_row_validate(bad, 44, part, 2, "partition of m-0, record 3"), "partition of m-0, record 3");
    }
    /* inline lengths 8..15 */
    for (uint8_t n = 8; n <= 15; n++) {
        uint8_t bad[44];
        memcpy(bad, row, 44);
        memset(bad + 12, 'x', 7);
        bad[19] = 0x80 | n;
        CORRUPT(sc_row_get(&d, bad, 44, &part[0], 0, "p"), "inline length above 7");
        CORRUPT(sc_row_validate(bad, 44, part, 2, "p"), "byte 19");
    }
    /* arity mismatch, field beyond the arity, header byte no row kind, arity above the limit */
    CORRUPT(sc_row_validate(row, 44, part, 1, "p"), "expected 1");
    CORRUPT(sc_row_get(&d, row, 44, &part[0], 2, "p"), "beyond the row's arity");
    uint8_t kind[44];
    memcpy(kind, row, 44);
    kind[4] = 9;
    CORRUPT(sc_row_validate(kind, 44, part, 2, "p"), "row kind");
    uint8_t huge[12] = {0x7f, 0xff, 0xff, 0xff};
    FAILS(SC_ELIMIT, sc_row_validate(huge, 12, part, 2, "p"));
    /* wide decimal with length 0 or 17, timestamp(6) with nanos out of range */
    sc_data_type wide = ty("DECIMAL(20, 0)"), ts6 = ty("TIMESTAMP(6)");
    uint8_t w[4 + 16 + 16] = {0, 0, 0, 1};
    w[12] = 0;
    w[16] = 16;
    CORRUPT(sc_row_get(&d, w, sizeof w, &wide, 0, "w"), "outside 1..16");
    w[12] = 17;
    CORRUPT(sc_row_get(&d, w, sizeof w, &wide, 0, "w"), "outside 1..16");
    w[12] = 0x40;
    w[13] = 0x42;
    w[14] = 0x0f; /* 1,000,000 nanos */
    CORRUPT(sc_row_get(&d, w, sizeof w, &ts6, 0, "t"), "above 999999");
}

Test(binary_row, encoder_refuses_values_that_do_not_fit) {
    sc_buf b = SC_BUF_INIT;
    sc_data_type tiny = ty("TINYINT"), dec = ty("DECIMAL(4, 2)"), ts3 = ty("TIMESTAMP(3)");
    sc_datum v = val_i(128);
    FAILS(SC_EINVAL, sc_row_encode(&b, &tiny, &v, 1));
    sc_datum d = {.unscaled = 10000};
    FAILS(SC_EINVAL, sc_row_encode(&b, &dec, &d, 1));
    sc_datum t = {.millis = 1, .nanos = 5};
    FAILS(SC_EINVAL, sc_row_encode(&b, &ts3, &t, 1));
    cr_assert_eq(b.len, 0, "nothing left behind on failure");
    sc_buf_free(&b);
}

/* ---------------------------------------------------------------- text of partition values */

static void text_round_trip(const char *type, const char *in, const char *out) {
    sc_data_type t = ty(type);
    sc_datum d;
    uint8_t *owned;
    OK(sc_datum_from_text(&d, &owned, in, &t, "v"));
    sc_buf b = SC_BUF_INIT;
    OK(sc_datum_to_text(&b, &d, &t));
    cr_assert_str_eq(sc_buf_cstr(&b), out, "%s %s", type, in);
    free(owned);
    sc_buf_free(&b);
}

Test(binary_row, partition_value_text_as_paimon_prints_it) {
    text_round_trip("INT", "-42", "-42");
    text_round_trip("BIGINT", "9223372036854775807", "9223372036854775807");
    text_round_trip("BOOLEAN", "TRUE", "true");
    text_round_trip("DATE", "2024-01-01", "19723"); /* legacy names show the day number */
    text_round_trip("DATE", "19723", "19723");
    text_round_trip("DATE", "1969-12-31", "-1");
    text_round_trip("DECIMAL(10, 2)", "5", "5.00");
    text_round_trip("DECIMAL(10, 2)", "-.5", "-0.50");
    text_round_trip("DECIMAL(5, 0)", "12345", "12345");
    text_round_trip("TIMESTAMP(3)", "2024-01-02 00:00:00.000", "2024-01-02T00:00");
    text_round_trip("TIMESTAMP(3)", "2024-02-29T23:59:59.999", "2024-02-29T23:59:59.999");
    text_round_trip("TIMESTAMP(3)", "1969-12-31T23:59:59.5", "1969-12-31T23:59:59.500");
    text_round_trip("TIMESTAMP(9)", "2024-01-01T10:00:00.123456789", "2024-01-01T10:00:00.123456789");
    text_round_trip("TIMESTAMP(3)", "2024-01-01T10:00:30", "2024-01-01T10:00:30");
    text_round_trip("DOUBLE", "100", "100.0");
    text_round_trip("DOUBLE", "3.14", "3.14");
    text_round_trip("DOUBLE", "1e10", "1.0E10");
    text_round_trip("DOUBLE", "0.0001", "1.0E-4");
    text_round_trip("FLOAT", "0.1", "0.1");
    text_round_trip("STRING", "a b", "a b");
    sc_data_type it = ty("INT"), dt = ty("DATE"), dec = ty("DECIMAL(10, 2)"), ts = ty("TIMESTAMP(3)"), bin = ty("BYTES");
    sc_datum d;
    uint8_t *o;
    FAILS(SC_EINVAL, sc_datum_from_text(&d, &o, "abc", &it, "h"));
    FAILS(SC_EINVAL, sc_datum_from_text(&d, &o, "2147483648", &it, "h"));
    FAILS(SC_EINVAL, sc_datum_from_text(&d, &o, "", &it, "h"));
    FAILS(SC_EINVAL, sc_datum_from_text(&d, &o, "2023-02-29", &dt, "d"));
    FAILS(SC_EINVAL, sc_datum_from_text(&d, &o, "1.005", &dec, "d"));
    FAILS(SC_EINVAL, sc_datum_from_text(&d, &o, "100000000", &dec, "d"));
    FAILS(SC_EINVAL, sc_datum_from_text(&d, &o, "2024-01-01T00:00:00.0001", &ts, "t"));
    FAILS(SC_EINVAL, sc_datum_from_text(&d, &o, "x", &bin, "b"));
}
