/*
 * Fuzz target: table schemas, sc_schema_decode, in both of its forms:
 * stored (schema/schema-N, object named: damage is SC_ECORRUPT) and user
 * input (object NULL: a bad schema is SC_EINVAL). Checked beyond "no
 * sanitizer report, no leak":
 *   - a stored schema fails with SC_ECORRUPT or SC_ELIMIT; input fails with
 *     SC_EINVAL or SC_ELIMIT; always with a message;
 *   - a decoded schema encodes, the encoding decodes as a stored schema, and
 *     encodes again to the same bytes.
 */
#include "fuzz_common.h"
#include "format/table_schema.h"

static const int allowed_stored[] = {SC_ECORRUPT, SC_ELIMIT, 0};
static const int allowed_input[] = {SC_EINVAL, SC_ELIMIT, 0};

static void decode_once(const uint8_t *data, size_t size, const char *object) {
    sc_table_schema s;
    memset(&s, 0, sizeof s);
    sc_error_clear();
    int rc = sc_schema_decode(&s, data, size, object);
    if (rc) {
        sc_fuzz_check_failure("schema", object ? "sc_schema_decode (stored)" : "sc_schema_decode (input)", rc,
                              object ? allowed_stored : allowed_input);
        sc_schema_clear(&s);
        return;
    }
    sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT;
    rc = sc_schema_encode(&a, &s);
    if (rc) sc_fuzz_fail("schema", "a decoded schema does not encode", rc);
    sc_table_schema t;
    memset(&t, 0, sizeof t);
    rc = sc_schema_decode(&t, a.data, a.len, "schema/schema-again");
    if (rc) {
        fprintf(stderr, "%.*s\n", (int)a.len, (const char *)a.data);
        sc_fuzz_fail("schema", "an encoded schema does not decode", rc);
    }
    rc = sc_schema_encode(&b, &t);
    if (rc) sc_fuzz_fail("schema", "a re-decoded schema does not encode", rc);
    if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) {
        fprintf(stderr, "first:  %.*s\nsecond: %.*s\n", (int)a.len, (const char *)a.data, (int)b.len,
                (const char *)b.data);
        sc_fuzz_fail("schema", "encode(decode(encode(schema))) differs from encode(schema)", 0);
    }
    sc_buf_free(&a);
    sc_buf_free(&b);
    sc_schema_clear(&t);
    sc_schema_clear(&s);
}

int sc_fuzz_schema(const uint8_t *data, size_t size) {
    decode_once(data, size, "schema/schema-0");
    decode_once(data, size, NULL);
    return 0;
}

SC_FUZZ_ENTRY(sc_fuzz_schema)
