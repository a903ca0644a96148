/*
 * Writes the seeds of corpus/row (run once; the files are committed):
 *   cc -D_GNU_SOURCE -Inative/include -Inative/src fuzz/gen_row_seeds.c \
 *      build/libsnapcommit.a $(pkg-config --libs jansson libcurl expat avro-c libzstd zlib) \
 *      -lcrypto -lpthread -o /tmp/gen_row_seeds && /tmp/gen_row_seeds fuzz/corpus/row
 * Each seed is byte 0 = type list, byte 1 = length of row A, row A, row B
 * (fuzz_row.c), with the rows made by sc_partition_parse or sc_row_encode.
 */
#include "fuzz_row.c"

static void put(const char *dir, const char *name, size_t list, const sc_buf *a, const sc_buf *b) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || a->len > 255) abort();
    uint8_t head[2] = {(uint8_t)list, (uint8_t)a->len};
    fwrite(head, 1, 2, f);
    fwrite(a->data, 1, a->len, f);
    fwrite(b->data, 1, b->len, f);
    fclose(f);
}

static void spec_seed(const char *dir, const char *name, size_t list, const char *sa, const char *sb) {
    sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT;
    const sc_table_schema *s = schema_for(list);
    if (sc_partition_parse(&a, s, sa) || sc_partition_parse(&b, s, sb)) {
        fprintf(stderr, "%s: %s\n", name, sc_error_message());
        abort();
    }
    put(dir, name, list, &a, &b);
    sc_buf_free(&a);
    sc_buf_free(&b);
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const char *dir = argv[1];
    spec_seed(dir, "string-int", 0, "p0=2024-01-01/p1=3", "p0=a%2Fb c longer than seven/p1=-7");
    spec_seed(dir, "numbers", 1, "p0=123456789012/p1=1.5/p2=true/p3=19000",
              "p0=__DEFAULT_PARTITION__/p1=-0.0/p2=false/p3=2024-01-02");
    spec_seed(dir, "decimal-timestamp", 2,
              "p0=12.34/p1=123456789012345678901234.5678901234/p2=2024-01-01T10:00:00.123/"
              "p3=2024-01-01T10:00:00.123456789/p4=2024-01-01T10:00",
              "p0=-0.01/p1=-1.0000000001/p2=1969-12-31T23:59:59.999/p3=__DEFAULT_PARTITION__/p4=2024-01-01T10:00");
    spec_seed(dir, "char-small-float-time", 3, "p0=ab/p1=hello/p2=-8/p3=300/p4=3.25/p5=3600000",
              "p0=abcde/p1=/p2=127/p3=-32768/p4=-1.0E-5/p5=0");
    spec_seed(dir, "unpartitioned", 5, "", "");
    /* BINARY partitions have no text: encode directly. */
    const sc_table_schema *s = schema_for(4);
    static const uint8_t b4[4] = {1, 2, 3, 4}, long_bytes[20] = {0xff, 0, 7};
    sc_datum va[3] = {{.bytes = b4, .len = 4}, {.bytes = long_bytes, .len = 20}, {.is_null = 1}};
    sc_datum vb[3] = {{.bytes = b4, .len = 3}, {.bytes = long_bytes, .len = 7}, {.bytes = long_bytes, .len = 0}};
    sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT;
    if (sc_row_encode(&a, s->partition_types, va, 3) || sc_row_encode(&b, s->partition_types, vb, 3)) abort();
    put(dir, "binary", 4, &a, &b);
    sc_buf_free(&a);
    sc_buf_free(&b);
    return 0;
}
