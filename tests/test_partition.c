/* Partition specs <-> BinaryRows: golden append_fixed partitions, Paimon's escaping, nulls, errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/binary_row.h"
#include "format/partition.h"
#include "sc_test_assert.h"
#include "snapcommit/error.h"

static void schema_of(sc_table_schema *s, const char *json) { OK(sc_schema_decode(s, TEXT(json), NULL)); }

static size_t unhex(uint8_t *out, const char *hex) {
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        cr_assert_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
    return n;
}

/* The append_fixed golden table's schema: partitioned by (dt STRING, h INT). */
#define FIXED                                                                                              \
    "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING NOT NULL\"},{\"name\":\"h\",\"type\":\"INT NOT NULL\"}," \
    "{\"name\":\"id\",\"type\":\"INT NOT NULL\"},{\"name\":\"msg\",\"type\":\"STRING\"}],"                     \
    "\"partitionKeys\":[\"dt\",\"h\"],\"options\":{\"bucket\":\"2\",\"bucket-key\":\"id\"}}"

Test(partition, golden_append_fixed_partitions) {
    /* append_fixed.manifests.json: _PARTITION of each entry, and its data directory */
    static const struct { const char *spec, *hex; } cases[] = {
        {"dt=2024-01-01/h=0", "0000000200000000000000000a000000180000000000000000000000323032342d30312d3031000000000000"},
        {"dt=2024-01-02/h=0", "0000000200000000000000000a000000180000000000000000000000323032342d30312d3032000000000000"},
        {"dt=2024-01-01/h=1", "0000000200000000000000000a000000180000000100000000000000323032342d30312d3031000000000000"},
        {"dt=2024-01-02/h=10", "0000000200000000000000000a000000180000000a00000000000000323032342d30312d3032000000000000"},
    };
    sc_table_schema s;
    schema_of(&s, FIXED);
    for (size_t i = 0; i < 4; i++) {
        uint8_t want[64];
        size_t n = unhex(want, cases[i].hex);
        cr_assert_eq(n, 44);
        sc_buf row = SC_BUF_INIT, spec = SC_BUF_INIT, dir = SC_BUF_INIT;
        OK(sc_partition_parse(&row, &s, cases[i].spec));
        cr_assert_eq(row.len, n, "%s", cases[i].spec);
        cr_assert(!memcmp(row.data, want, n), "%s: bytes differ from Paimon's", cases[i].spec);
        OK(sc_partition_spec(&spec, &s, want, n, "golden"));
        cr_assert_str_eq(sc_buf_cstr(&spec), cases[i].spec);
        OK(sc_partition_bucket_dir(&dir, &s, want, n, 1, "golden"));
        char expect[64];
        snprintf(expect, sizeof expect, "%s/bucket-1", cases[i].spec);
        cr_assert_str_eq(sc_buf_cstr(&dir), expect);
        sc_buf_free(&row);
        sc_buf_free(&spec);
        sc_buf_free(&dir);
    }
    /* keys in any order and a trailing slash name the same partition */
    sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT;
    OK(sc_partition_parse(&a, &s, "h=10/dt=2024-01-02/"));
    OK(sc_partition_parse(&b, &s, "dt=2024-01-02/h=10"));
    cr_assert(a.len == b.len && !memcmp(a.data, b.data, a.len));
    sc_buf_free(&a);
    sc_buf_free(&b);
    sc_schema_clear(&s);
}

Test(partition, unpartitioned_table) {
    sc_table_schema s;
    schema_of(&s, "{\"fields\":[{\"name\":\"id\",\"type\":\"INT\"}]}");
    sc_buf row = SC_BUF_INIT, dir = SC_BUF_INIT;
    OK(sc_partition_parse(&row, &s, ""));
    static const uint8_t empty[12] = {0};
    cr_assert(row.len == 12 && !memcmp(row.data, empty, 12), "Paimon's arity-0 row: 00000000 + 8 zero bytes");
    OK(sc_partition_bucket_dir(&dir, &s, row.data, row.len, 0, "p"));
    cr_assert_str_eq(sc_buf_cstr(&dir), "bucket-0");
    FAILS(SC_EINVAL, sc_partition_parse(&row, &s, "id=1"));
    sc_buf_free(&row);
    sc_buf_free(&dir);
    sc_schema_clear(&s);
}

Test(partition, escaping_round_trip) {
    sc_table_schema s;
    schema_of(&s, "{\"fields\":[{\"name\":\"k\",\"type\":\"STRING\"},{\"name\":\"v\",\"type\":\"INT\"}],"
                  "\"partitionKeys\":[\"k\"]}");
    /* every character PartitionPathUtils escapes, and some it leaves alone */
    const char value[] = "a/b:c=d%e#f?g\\h'i\"j*k{l}m[n]o^p\x01q\x7fr s,t;u\xc3\xa9";
    const char *escaped = "k=a%2Fb%3Ac%3Dd%25e%23f%3Fg%5Ch%27i%22j%2Ak%7Bl%7Dm%5Bn%5Do%5Ep%01q%7Fr s,t;u\xc3\xa9";
    sc_datum d = {.bytes = (const uint8_t *)value, .len = strlen(value)};
    sc_buf row = SC_BUF_INIT, spec = SC_BUF_INIT, back = SC_BUF_INIT;
    OK(sc_row_encode(&row, s.partition_types, &d, 1));
    OK(sc_partition_spec(&spec, &s, row.data, row.len, "p"));
    cr_assert_str_eq(sc_buf_cstr(&spec), escaped);
    OK(sc_partition_parse(&back, &s, sc_buf_cstr(&spec)));
    cr_assert(back.len == row.len && !memcmp(back.data, row.data, row.len), "escape/unescape round trip");
    /* lower-case hex unescapes too */
    back.len = 0;
    OK(sc_partition_parse(&back, &s, "k=a%2fb"));
    sc_datum got;
    OK(sc_row_get(&got, back.data, back.len, &s.partition_types[0], 0, "p"));
    cr_assert(got.len == 3 && !memcmp(got.bytes, "a/b", 3));
    /* bad escapes */
    FAILS(SC_EINVAL, sc_partition_parse(&back, &s, "k=a%2"));
    FAILS(SC_EINVAL, sc_partition_parse(&back, &s, "k=a%zz"));
    FAILS(SC_EINVAL, sc_partition_parse(&back, &s, "k=a%00"));
    FAILS(SC_EINVAL, sc_partition_parse(&back, &s, "k=%C3%A9"));
    sc_buf_free(&row);
    sc_buf_free(&spec);
    sc_buf_free(&back);
    sc_schema_clear(&s);
}

Test(partition, nulls_use_the_default_partition_name) {
    sc_table_schema s;
    schema_of(&s, "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"h\",\"type\":\"INT\"}],"
                  "\"partitionKeys\":[\"dt\",\"h\"]}");
    sc_buf row = SC_BUF_INIT, spec = SC_BUF_INIT;
    OK(sc_partition_parse(&row, &s, "dt=__DEFAULT_PARTITION__/h=3"));
    sc_datum d;
    OK(sc_row_get(&d, row.data, row.len, &s.partition_types[0], 0, "p"));
    cr_assert(d.is_null);
    cr_assert_eq(row.data[5], 0x01, "null bit of field 0 is bit 8");
    for (int i = 12; i < 20; i++) cr_assert_eq(row.data[i], 0, "a null slot is zero");
    OK(sc_partition_spec(&spec, &s, row.data, row.len, "p"));
    cr_assert_str_eq(sc_buf_cstr(&spec), "dt=__DEFAULT_PARTITION__/h=3");
    /* empty and blank strings are shown as the default name too (Paimon's isNullOrWhitespaceOnly) */
    sc_data_type *t = s.partition_types;
    sc_datum v[2] = {{.bytes = (const uint8_t *)" ", .len = 1}, {.is_null = 1}};
    row.len = 0;
    spec.len = 0;
    OK(sc_row_encode(&row, t, v, 2));
    OK(sc_partition_spec(&spec, &s, row.data, row.len, "p"));
    cr_assert_str_eq(sc_buf_cstr(&spec), "dt=__DEFAULT_PARTITION__/h=__DEFAULT_PARTITION__");
    sc_buf_free(&row);
    sc_buf_free(&spec);
    sc_schema_clear(&s);

    /* the option renames it */
    schema_of(&s, "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"}],\"partitionKeys\":[\"dt\"],"
                  "\"options\":{\"partition.default-name\":\"none\"}}");
    OK(sc_partition_parse(&row, &s, "dt=none"));
    OK(sc_row_get(&d, row.data, row.len, &s.partition_types[0], 0, "p"));
    cr_assert(d.is_null);
    OK(sc_partition_spec(&spec, &s, row.data, row.len, "p"));
    cr_assert_str_eq(sc_buf_cstr(&spec), "dt=none");
    sc_buf_free(&row);
    sc_buf_free(&spec);
    sc_schema_clear(&s);

    /* a NOT NULL partition key cannot be null */
    schema_of(&s, FIXED);
    FAILS(SC_EINVAL, sc_partition_parse(&row, &s, "dt=__DEFAULT_PARTITION__/h=1"));
    sc_buf_free(&row);
    sc_schema_clear(&s);
}

static void bad_spec(const sc_table_schema *s, const char *spec, const char *needle) {
    sc_buf row = SC_BUF_INIT;
    int rc = sc_partition_parse(&row, s, spec);
    cr_assert_eq(rc, SC_EINVAL, "%s -> %s", spec, sc_error_name(rc));
    cr_assert(strstr(sc_error_message(), needle), "%s: \"%s\" lacks \"%s\"", spec, sc_error_message(), needle);
    cr_assert_eq(row.len, 0);
    sc_buf_free(&row);
}

Test(partition, spec_errors) {
    sc_table_schema s;
    schema_of(&s, FIXED);
    bad_spec(&s, "dt=2024-01-01", "key \"h\" is missing");
    bad_spec(&s, "dt=2024-01-01/h=1/x=2", "\"x\" is no partition key");
    bad_spec(&s, "dt=2024-01-01/dt=2024-01-02/h=1", "key \"dt\" given twice");
    bad_spec(&s, "dt=2024-01-01/h=abc", "not an INT");
    bad_spec(&s, "dt=2024-01-01/h=", "not an INT");
    bad_spec(&s, "dt=2024-01-01//h=1", "is not key=value");
    bad_spec(&s, "dt2024-01-01/h=1", "is not key=value");
    bad_spec(&s, "=x/h=1", "is not key=value");
    bad_spec(&s, "", "is not key=value");
    sc_schema_clear(&s);
}

Test(partition, rows_that_do_not_fit_the_schema_are_corrupt) {
    sc_table_schema s;
    schema_of(&s, FIXED);
    sc_buf spec = SC_BUF_INIT;
    uint8_t one[20] = {0, 0, 0, 1};
    CORRUPT(sc_partition_spec(&spec, &s, one, sizeof one, "partition of manifest-x, record 2"), "record 2");
    uint8_t row[44];
    unhex(row, "0000000200000000000000000a000000180000000000000000000000323032342d30312d3031000000000000");
    CORRUPT(sc_partition_spec(&spec, &s, row, 40, "partition"), "partition");
    cr_assert_eq(spec.len, 0);
    sc_buf_free(&spec);
    sc_schema_clear(&s);
}

Test(partition, typed_partition_values) {
    sc_table_schema s;
    schema_of(&s, "{\"fields\":[{\"name\":\"d\",\"type\":\"DATE\"},{\"name\":\"amt\",\"type\":\"DECIMAL(10, 2)\"},"
                  "{\"name\":\"ok\",\"type\":\"BOOLEAN\"},{\"name\":\"ts\",\"type\":\"TIMESTAMP(3)\"}],"
                  "\"partitionKeys\":[\"d\",\"amt\",\"ok\",\"ts\"]}");
    sc_buf row = SC_BUF_INIT, spec = SC_BUF_INIT;
    OK(sc_partition_parse(&row, &s, "d=2024-01-01/amt=-0.5/ok=true/ts=2024-01-01T10%3A00"));
    OK(sc_partition_spec(&spec, &s, row.data, row.len, "p"));
    /* DATE shows its day number (partition.legacy-name = true); ':' is escaped */
    cr_assert_str_eq(sc_buf_cstr(&spec), "d=19723/amt=-0.50/ok=true/ts=2024-01-01T10%3A00");
    sc_buf again = SC_BUF_INIT;
    OK(sc_partition_parse(&again, &s, sc_buf_cstr(&spec)));
    cr_assert(again.len == row.len && !memcmp(again.data, row.data, row.len));
    sc_buf_free(&row);
    sc_buf_free(&spec);
    sc_buf_free(&again);
    sc_schema_clear(&s);
}
