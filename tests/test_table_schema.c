/* Table schemas: Paimon 1.4.2's golden schema/schema-0 files, the short form, Paimon's rules. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/table_schema.h"
#include "sc_test_assert.h"
#include "snapcommit/error.h"

static char *read_golden(const char *table, size_t *len) {
    const char *src = getenv("SC_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/vectors/paimon-1.4.2/warehouse/golden.db/%s/schema/schema-0", src ? src : ".",
             table);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s (set SC_SOURCE_DIR)", path);
    char *buf = malloc(1 << 16);
    *len = fread(buf, 1, 1 << 16, f);
    fclose(f);
    return buf;
}

static void decode(sc_table_schema *s, const char *json) { OK(sc_schema_decode(s, TEXT(json), NULL)); }

static void type_is(const sc_data_type *t, const char *want) {
    sc_buf b = SC_BUF_INIT;
    OK(sc_data_type_render(&b, t));
    cr_assert_str_eq(sc_buf_cstr(&b), want);
    sc_buf_free(&b);
}

/* Decode the golden file, check it re-encodes to the very same bytes, and that those decode equal. */
static void golden(sc_table_schema *s, const char *table) {
    size_t len;
    char *text = read_golden(table, &len);
    OK(sc_schema_decode(s, (const uint8_t *)text, len, table));
    sc_buf out = SC_BUF_INIT;
    OK(sc_schema_encode(&out, s));
    cr_assert_eq(out.len, len, "%s: re-encoded %zu bytes, Paimon wrote %zu:\n%s", table, out.len, len, sc_buf_cstr(&out));
    cr_assert(!memcmp(out.data, text, len), "%s: re-encoded differs:\n%s", table, sc_buf_cstr(&out));
    sc_table_schema again;
    OK(sc_schema_decode(&again, out.data, out.len, table));
    cr_assert_eq(again.field_count, s->field_count);
    for (size_t i = 0; i < s->field_count; i++) {
        cr_assert_str_eq(again.fields[i].name, s->fields[i].name);
        cr_assert_eq(again.fields[i].id, s->fields[i].id);
        cr_assert(!memcmp(&again.fields[i].type, &s->fields[i].type, sizeof(sc_data_type)));
    }
    cr_assert_eq(again.option_count, s->option_count);
    cr_assert_eq(again.time_millis, s->time_millis);
    sc_schema_clear(&again);
    sc_buf_free(&out);
    free(text);
}

Test(table_schema, golden_pk) {
    sc_table_schema s;
    golden(&s, "pk");
    cr_assert_eq(s.id, 0);
    cr_assert_eq(s.field_count, 9);
    static const char *const names[] = {"id", "i", "b", "s", "d", "f", "day", "amt", "ts"};
    static const char *const types[] = {"INT NOT NULL", "INT", "BIGINT", "STRING", "DOUBLE", "BOOLEAN",
                                        "DATE", "DECIMAL(10, 2)", "TIMESTAMP(3)"};
    for (size_t i = 0; i < 9; i++) {
        cr_assert_str_eq(s.fields[i].name, names[i]);
        cr_assert_eq(s.fields[i].id, (int32_t)i);
        type_is(&s.fields[i].type, types[i]);
        type_is(&s.field_types[i], types[i]);
    }
    cr_assert_eq(s.fields[7].type.root, SC_TYPE_DECIMAL);
    cr_assert_eq(s.fields[7].type.precision, 10);
    cr_assert_eq(s.fields[7].type.scale, 2);
    cr_assert_eq(s.highest_field_id, 8);
    cr_assert_eq(s.partition_key_count, 0);
    cr_assert_eq(s.primary_key_count, 1);
    cr_assert_str_eq(s.primary_keys[0], "id");
    cr_assert_eq(s.primary_index[0], 0);
    cr_assert_eq(s.trimmed_key_count, 1);
    cr_assert_eq(s.trimmed_key_index[0], 0);
    type_is(&s.trimmed_key_types[0], "INT NOT NULL");
    cr_assert_eq(s.bucket, 2);
    cr_assert_eq(s.option_count, 2);
    cr_assert_str_eq(sc_schema_option(&s, "bucket"), "2");
    cr_assert_str_eq(sc_schema_option(&s, "file.format"), "parquet");
    cr_assert_null(sc_schema_option(&s, "bucket-key"));
    cr_assert_eq(s.time_millis, 1796090099834);
    cr_assert_eq(sc_schema_field_index(&s, "amt"), 7);
    cr_assert_eq(sc_schema_field_index(&s, "nope"), -1);
    sc_schema_clear(&s);
}

Test(table_schema, golden_append_fixed_partitions) {
    sc_table_schema s;
    golden(&s, "append_fixed");
    cr_assert_eq(s.field_count, 4);
    cr_assert_eq(s.partition_key_count, 2);
    cr_assert_str_eq(s.partition_keys[0], "dt");
    cr_assert_str_eq(s.partition_keys[1], "h");
    cr_assert_eq(s.partition_index[0], 0);
    cr_assert_eq(s.partition_index[1], 1);
    type_is(&s.partition_types[0], "STRING NOT NULL");
    type_is(&s.partition_types[1], "INT NOT NULL");
    type_is(&s.fields[3].type, "STRING");
    cr_assert_eq(s.primary_key_count, 0);
    cr_assert_eq(s.trimmed_key_count, 0);
    cr_assert_eq(s.bucket, 2);
    cr_assert_str_eq(sc_schema_option(&s, "bucket-key"), "id");
    cr_assert_eq(s.time_millis, 1796090098771);
    sc_schema_clear(&s);
}

Test(table_schema, golden_append_unaware_and_deflate) {
    sc_table_schema s;
    golden(&s, "append_unaware");
    cr_assert_eq(s.field_count, 3);
    type_is(&s.fields[0].type, "INT NOT NULL");
    type_is(&s.fields[1].type, "STRING");
    type_is(&s.fields[2].type, "DOUBLE");
    cr_assert_eq(s.bucket, SC_BUCKET_UNAWARE);
    cr_assert_eq(s.option_count, 2);
    sc_schema_clear(&s);
    golden(&s, "append_deflate");
    cr_assert_eq(s.option_count, 3);
    cr_assert_str_eq(sc_schema_option(&s, "manifest.compression"), "deflate");
    cr_assert_eq(s.bucket, SC_BUCKET_UNAWARE);
    sc_schema_clear(&s);
}

Test(table_schema, short_form_assigns_ids_and_forces_pk_not_null) {
    sc_table_schema s;
    decode(&s, "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"id\",\"type\":\"bigint\"},"
               "{\"name\":\"v\",\"type\":\"DECIMAL(20,4)\",\"description\":\"amount\"},"
               "{\"name\":\"tags\",\"type\":{\"type\":\"ARRAY\",\"element\":\"STRING\"}}],"
               "\"partitionKeys\":[\"dt\"],\"primaryKeys\":[\"dt\",\"id\"],\"options\":{\"bucket\":\"4\"}}");
    cr_assert_eq(s.field_count, 4);
    for (size_t i = 0; i < 4; i++) cr_assert_eq(s.fields[i].id, (int32_t)i);
    cr_assert_eq(s.highest_field_id, 3);
    type_is(&s.fields[0].type, "STRING NOT NULL");
    type_is(&s.fields[1].type, "BIGINT NOT NULL");
    type_is(&s.fields[2].type, "DECIMAL(20, 4)");
    cr_assert_str_eq(s.fields[2].description, "amount");
    cr_assert_eq(s.fields[3].type.root, SC_TYPE_NESTED);
    cr_assert_eq(s.trimmed_key_count, 1, "the partition key is trimmed from the primary key");
    cr_assert_eq(s.trimmed_key_index[0], 1);
    type_is(&s.partition_types[0], "STRING NOT NULL");
    cr_assert_eq(s.bucket, 4);
    /* encodes to Paimon's form, which decodes to the same schema */
    sc_buf out = SC_BUF_INIT;
    OK(sc_schema_encode(&out, &s));
    cr_assert(strstr(sc_buf_cstr(&out), "\"version\" : 3"), "%s", out.data);
    cr_assert(strstr(sc_buf_cstr(&out), "\"highestFieldId\" : 3"));
    cr_assert(strstr(sc_buf_cstr(&out), "\"type\" : {\n      \"type\" : \"ARRAY\",\n      \"element\" : \"STRING\"\n    }"),
              "%s", out.data);
    sc_table_schema again;
    OK(sc_schema_decode(&again, out.data, out.len, "schema/schema-0"));
    cr_assert_eq(again.field_count, 4);
    type_is(&again.fields[1].type, "BIGINT NOT NULL");
    cr_assert_str_eq(again.fields[3].type.nested_json, s.fields[3].type.nested_json);
    cr_assert_str_eq(again.fields[2].description, "amount");
    cr_assert_eq(again.primary_key_count, 2);
    sc_schema_clear(&again);
    sc_buf_free(&out);
    sc_schema_clear(&s);

    decode(&s, "{\"fields\":[{\"name\":\"x\",\"type\":\"INT\"}]}");
    cr_assert_eq(s.bucket, SC_BUCKET_UNAWARE, "append tables default to bucket -1 (Paimon 1.4)");
    cr_assert_eq(s.option_count, 0);
    sc_schema_clear(&s);
}

Test(table_schema, empty_schema_encodes) {
    sc_table_schema s;
    OK(sc_schema_empty(&s));
    sc_buf out = SC_BUF_INIT;
    OK(sc_schema_encode(&out, &s));
    cr_assert_str_eq(sc_buf_cstr(&out), "{\n  \"version\" : 3,\n  \"id\" : 0,\n  \"fields\" : [ ],\n  \"highestFieldId\" : -1,\n"
                                        "  \"partitionKeys\" : [ ],\n  \"primaryKeys\" : [ ],\n  \"options\" : { },\n"
                                        "  \"timeMillis\" : 0\n}");
    sc_table_schema again;
    OK(sc_schema_decode(&again, out.data, out.len, "schema/schema-0"));
    cr_assert_eq(again.field_count, 0);
    sc_schema_clear(&again);
    sc_buf_free(&out);
    sc_schema_clear(&s);
    char key[64];
    sc_schema_key(key, 12);
    cr_assert_str_eq(key, "schema/schema-12");
}

Test(table_schema, old_versions_get_paimons_defaults) {
    sc_table_schema s;
    OK(sc_schema_decode(&s, TEXT("{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"INT NOT NULL\"}],"
                                 "\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[\"k\"],\"options\":{}}"),
                        "schema/schema-0"));
    cr_assert_str_eq(sc_schema_option(&s, "bucket"), "1", "version 1 (0.7) tables have one bucket");
    cr_assert_str_eq(sc_schema_option(&s, "file.format"), "orc");
    cr_assert_eq(s.bucket, 1);
    sc_schema_clear(&s);
}

static void invalid(const char *json, const char *needle) {
    sc_table_schema s;
    int rc = sc_schema_decode(&s, TEXT(json), NULL);
    cr_assert_eq(rc, SC_EINVAL, "%s -> %s: %s", json, sc_error_name(rc), sc_error_message());
    cr_assert(strstr(sc_error_message(), needle), "%s: message \"%s\" lacks \"%s\"", json, sc_error_message(), needle);
}

#define F2 "\"fields\":[{\"name\":\"a\",\"type\":\"INT\"},{\"name\":\"b\",\"type\":\"STRING\"}]"

Test(table_schema, validation_errors) {
    invalid("{\"fields\":[{\"name\":\"a\",\"type\":\"INT\"},{\"name\":\"a\",\"type\":\"INT\"}]}", "two fields are named a");
    invalid("{" F2 ",\"partitionKeys\":[\"c\"]}", "names no field: c");
    invalid("{" F2 ",\"primaryKeys\":[\"a\",\"a\"],\"options\":{\"bucket\":\"1\"}}", "names a field twice: a");
    invalid("{" F2 ",\"partitionKeys\":[\"b\"],\"primaryKeys\":[\"a\"],\"options\":{\"bucket\":\"1\"}}",
            "must include every partition key (cross-partition updates");
    invalid("{" F2 ",\"partitionKeys\":[\"b\"],\"primaryKeys\":[\"a\"]}", "KEY_DYNAMIC");
    invalid("{" F2 ",\"partitionKeys\":[\"a\"],\"primaryKeys\":[\"a\"],\"options\":{\"bucket\":\"1\"}}",
            "must not equal the partition keys");
    invalid("{" F2 ",\"options\":{\"bucket\":\"0\"}}", "bucket must be -1 or > 0");
    invalid("{" F2 ",\"options\":{\"bucket\":\"two\"}}", "bucket must be -1 or > 0");
    invalid("{" F2 ",\"options\":{\"bucket\":\"2\"}}", "needs option bucket-key");
    invalid("{" F2 ",\"options\":{\"bucket\":\"-1\",\"bucket-key\":\"a\"}}", "bucket-key needs a bucket number");
    invalid("{" F2 ",\"options\":{\"bucket\":\"2\",\"bucket-key\":\"zz\"}}", "bucket-key names no atomic field: zz");
    invalid("{" F2 ",\"options\":{\"bucket\":2}}", "option value is not a string: bucket");
    invalid("{\"fields\":[{\"name\":\"t\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}}],\"partitionKeys\":[\"t\"]}",
            "must be an atomic type: t");
    invalid("{\"fields\":[{\"name\":\"t\",\"type\":\"INTT\"}]}", "unknown or unsupported type name");
    invalid("{\"fields\":[{\"name\":\"t\",\"type\":\"DECIMAL(40, 2)\"}]}", "precision 1..38");
    invalid("{\"fields\":[{\"name\":\"t\",\"type\":\"TIMESTAMP(10)\"}]}", "precision must be 0..9");
    invalid("{" F2 ",\"primaryKey\":[\"a\"]}", "unknown key in the short form: primaryKey");
    invalid("{\"fields\":[{\"name\":\"\",\"type\":\"INT\"}]}", "has no name");
    invalid("{\"fields\":{}}", "fields is missing or not an array");
    invalid("[1]", "not a JSON object");
    invalid("{\"fields\":[], \"fields\":[]}", "duplicate");
    invalid("{\"fields\":[", "schema JSON at byte");
}

/* bucket -1 (or unset) with a primary key: Paimon's dynamic bucket mode, accepted as input and as stored. */
Test(table_schema, dynamic_bucket_primary_key_tables_are_accepted) {
    const char *forms[] = {"{" F2 ",\"primaryKeys\":[\"a\"]}", "{" F2 ",\"primaryKeys\":[\"a\"],\"options\":{\"bucket\":\"-1\"}}"};
    for (size_t i = 0; i < 2; i++) {
        sc_table_schema s;
        cr_assert_eq(sc_schema_decode(&s, (const uint8_t *)forms[i], strlen(forms[i]), NULL), 0, "%s", sc_error_message());
        cr_assert_eq(s.bucket, -1);
        cr_assert(sc_schema_is_dynamic_bucket(&s));
        sc_schema_clear(&s);
    }
    const char *append = "{" F2 ",\"options\":{\"bucket\":\"-1\"}}";
    sc_table_schema s;
    cr_assert_eq(sc_schema_decode(&s, (const uint8_t *)append, strlen(append), NULL), 0, "%s", sc_error_message());
    cr_assert(!sc_schema_is_dynamic_bucket(&s), "bucket-unaware append table");
    sc_schema_clear(&s);
}

Test(table_schema, stored_schemas_fail_as_corrupt) {
    sc_table_schema s;
    /* Paimon needs id, fields, highestFieldId, partitionKeys, primaryKeys, options */
    CORRUPT(sc_schema_decode(&s, TEXT("{\"version\":3,\"id\":0,\"fields\":[],\"highestFieldId\":0,\"partitionKeys\":[],"
                                      "\"primaryKeys\":[]}"),
                             "schema/schema-4"),
            "schema/schema-4: missing options");
    CORRUPT(sc_schema_decode(&s, TEXT("{\"version\":3,\"fields\":[],\"highestFieldId\":0,\"partitionKeys\":[],"
                                      "\"primaryKeys\":[],\"options\":{}}"),
                             "schema/schema-4"),
            "missing id");
    CORRUPT(sc_schema_decode(&s, TEXT("{\"version\":3,\"id\":0,\"fields\":[{\"id\":5,\"name\":\"a\",\"type\":\"INT\"}],"
                                      "\"highestFieldId\":1,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}"),
                             "schema/schema-4"),
            "above highestFieldId");
    CORRUPT(sc_schema_decode(&s, TEXT("{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INTT\"}],"
                                      "\"highestFieldId\":1,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}"),
                             "schema/schema-4"),
            "schema/schema-4");
}

Test(table_schema, limits) {
    sc_table_schema s;
    /* more than SC_SCHEMA_MAX_BYTES */
    size_t big = SC_SCHEMA_MAX_BYTES + 1;
    char *text = malloc(big);
    memset(text, ' ', big);
    text[0] = '{';
    text[big - 1] = '}';
    FAILS(SC_ELIMIT, sc_schema_decode(&s, (const uint8_t *)text, big, NULL));
    free(text);
    /* more than SC_SCHEMA_MAX_FIELDS fields */
    sc_buf b = SC_BUF_INIT;
    OK(sc_buf_append_str(&b, "{\"fields\":["));
    for (int i = 0; i <= SC_SCHEMA_MAX_FIELDS; i++) OK(sc_buf_printf(&b, "%s{\"name\":\"f%d\",\"type\":\"INT\"}", i ? "," : "", i));
    OK(sc_buf_append_str(&b, "]}"));
    FAILS(SC_ELIMIT, sc_schema_decode(&s, b.data, b.len, NULL));
    sc_buf_free(&b);
    /* exactly the limit is fine */
    OK(sc_buf_append_str(&b, "{\"fields\":["));
    for (int i = 0; i < SC_SCHEMA_MAX_FIELDS; i++) OK(sc_buf_printf(&b, "%s{\"name\":\"f%d\",\"type\":\"INT\"}", i ? "," : "", i));
    OK(sc_buf_append_str(&b, "]}"));
    OK(sc_schema_decode(&s, b.data, b.len, NULL));
    cr_assert_eq(s.field_count, SC_SCHEMA_MAX_FIELDS);
    sc_schema_clear(&s);
    sc_buf_free(&b);
}

Test(table_schema, type_strings) {
    static const struct { const char *in, *out; } cases[] = {
        {"STRING", "STRING"},
        {"VARCHAR(2147483647)", "STRING"},
        {"varchar(10) not null", "VARCHAR(10) NOT NULL"},
        {"CHAR", "CHAR(1)"},
        {"BYTES", "BYTES"},
        {"BINARY(3)", "BINARY(3)"},
        {"INTEGER", "INT"},
        {"DEC", "DECIMAL(10, 0)"},
        {"NUMERIC(38,38)", "DECIMAL(38, 38)"},
        {"TIMESTAMP", "TIMESTAMP(6)"},
        {"TIMESTAMP(3) WITHOUT TIME ZONE", "TIMESTAMP(3)"},
        {"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
        {"TIMESTAMP_LTZ(9) NOT NULL", "TIMESTAMP(9) WITH LOCAL TIME ZONE NOT NULL"},
        {"TIME", "TIME(0)"},
        {"DOUBLE PRECISION", "DOUBLE"},
        {"INT NULL", "INT"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sc_data_type t;
        OK(sc_data_type_parse(&t, cases[i].in, "t"));
        type_is(&t, cases[i].out);
        sc_data_type c;
        OK(sc_data_type_copy(&c, &t));
        type_is(&c, cases[i].out);
        sc_data_type_clear(&c);
    }
    static const char *const bad[] = {"", "INT NOT", "VARCHAR(0)", "DECIMAL(5, 6)", "TIME(10)", "INT(3)",
                                      "TIMESTAMP WITH TIME ZONE", "DECIMAL(", "INT INT"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sc_data_type t;
        FAILS(SC_EINVAL, sc_data_type_parse(&t, bad[i], "t"));
    }
}
