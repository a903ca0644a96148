/*
 * write_index_manifest — writes an index manifest through format/index_manifest.c
 * with every member of sc_index_entry set somewhere (deletion-vector ranges with
 * and without cardinality, empty ranges, no ranges, an external path, ADD and
 * DELETE, a partition row) and prints, as one JSON line, what it meant to write
 * in the shape GenIndex.java prints what Paimon's IndexManifestFile reads
 * (tests/vectors/paimon-1.4.2/index/GenIndex.java). ctest
 * paimon_reads_our_index_manifest (tests/paimon/our_index_manifest_test.sh)
 * compares both.
 *
 *   write_index_manifest FILE
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "format/index_manifest.h"

/* A BinaryRow of one STRING field "2024-01-01" (partition dt), as Paimon serializes it. */
static const uint8_t PART[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 16, 0, 0, 0,
                               '2', '0', '2', '4', '-', '0', '1', '-', '0', '1', 0, 0, 0, 0, 0, 0};

static void hex(FILE *f, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) fprintf(f, "%02x", p[i]);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: write_index_manifest FILE\n");
        return 2;
    }
    static const sc_dv_range ranges[] = {{"data-a.parquet", 1, 22, 1, 3}, {"data-b.parquet", 23, 30, 0, 0}};
    const struct {
        sc_entry_kind kind;
        sc_index_entry e;
    } recs[] = {
        {SC_ENTRY_ADD, {{PART, sizeof PART}, 1, "DELETION_VECTORS", "index-sc-0", 53, 4, 1, ranges, 2, NULL}},
        {SC_ENTRY_ADD, {{PART, sizeof PART}, 0, "DELETION_VECTORS", "index-sc-1", 1, 0, 1, NULL, 0,
                        "file:/tmp/elsewhere/index-sc-1"}},
        {SC_ENTRY_DELETE, {{PART, sizeof PART}, 7, "HASH", "index-sc-2", 8, 2, 0, NULL, 0, NULL}},
    };
    sc_index_vec v = {0};
    for (size_t i = 0; i < sizeof recs / sizeof *recs; i++)
        if (sc_index_vec_push(&v, recs[i].kind, &recs[i].e)) return 1;
    sc_buf b = SC_BUF_INIT;
    if (sc_index_manifest_encode(&b, &v)) return 1;
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f)) return 1;
    printf("[");
    for (size_t i = 0; i < v.count; i++) {
        const sc_index_entry *e = &v.items[i].entry;
        printf("%s{\"kind\":%d,\"partition\":\"", i ? "," : "", v.items[i].kind == SC_ENTRY_ADD ? 0 : 1);
        hex(stdout, e->partition.data, e->partition.len);
        printf("\",\"bucket\":%d,\"indexType\":\"%s\",\"fileName\":\"%s\",\"fileSize\":%lld,\"rowCount\":%lld,\"dvRanges\":",
               (int)e->bucket, e->index_type, e->file, (long long)e->size, (long long)e->rows);
        if (!e->has_dv_ranges) printf("null");
        else printf("[");
        for (size_t k = 0; e->has_dv_ranges && k < e->dv_range_count; k++) {
            const sc_dv_range *r = &e->dv_ranges[k];
            printf("%s{\"f0\":\"%s\",\"f1\":%d,\"f2\":%d,\"cardinality\":", k ? "," : "", r->data_file, (int)r->offset,
                   (int)r->length);
            if (r->has_cardinality) printf("%lld}", (long long)r->cardinality);
            else printf("null}");
        }
        if (e->has_dv_ranges) printf("]");
        if (e->external_path) printf(",\"externalPath\":\"%s\"", e->external_path);
        else printf(",\"externalPath\":null");
        printf(",\"globalIndex\":false}");
    }
    printf("]\n");
    sc_buf_free(&b);
    sc_index_vec_free(&v);
    return 0;
}
