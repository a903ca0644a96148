/*
 * Fuzz target: Paimon index manifests (Avro object container files),
 * sc_index_manifest_decode, and the same bytes through sc_changes_add_paimon's
 * INDEX section.
 *
 * Each input is decoded with the default limits and with tight ones, so the
 * SC_ELIMIT paths are reached too. Checked beyond "no sanitizer report, no
 * leak":
 *   - a failure is SC_ECORRUPT, SC_ELIMIT or SC_EUNSUPPORTED (a _GLOBAL_INDEX),
 *     with a message, and leaves the output vector empty;
 *   - a success re-encodes (the encoder accepts whatever the decoder let
 *     through) and the re-encoded file decodes to the same records, every
 *     member compared;
 *   - a change set takes all of a decoded manifest's records or none of them
 *     (SC_EINVAL only for names it refuses: control characters in an ADD).
 */
#include "fuzz_common.h"
#include "format/changes.h"
#include "format/index_manifest.h"

static const int allowed[] = {SC_ECORRUPT, SC_ELIMIT, SC_EUNSUPPORTED, 0};
static const int allowed_changes[] = {SC_ECORRUPT, SC_ELIMIT, SC_EUNSUPPORTED, SC_EINVAL, 0};

/* NULL when equal, else the first differing member. */
static const char *record_diff(const sc_index_record *x, const sc_index_record *y) {
    const sc_index_entry *a = &x->entry, *b = &y->entry;
    if (x->kind != y->kind) return "kind";
    if (!sc_fuzz_bytes_eq(a->partition, b->partition)) return "partition";
    if (a->bucket != b->bucket) return "bucket";
    if (!sc_fuzz_str_eq(a->index_type, b->index_type)) return "index_type";
    if (!sc_fuzz_str_eq(a->file, b->file)) return "file";
    if (a->size != b->size || a->rows != b->rows) return "size/rows";
    if (!sc_fuzz_str_eq(a->external_path, b->external_path)) return "external_path";
    if (a->has_dv_ranges != b->has_dv_ranges || a->dv_range_count != b->dv_range_count) return "dv_ranges";
    for (size_t i = 0; i < a->dv_range_count; i++) {
        const sc_dv_range *p = &a->dv_ranges[i], *q = &b->dv_ranges[i];
        if (!sc_fuzz_str_eq(p->data_file, q->data_file) || p->offset != q->offset || p->length != q->length ||
            p->has_cardinality != q->has_cardinality || (p->has_cardinality && p->cardinality != q->cardinality))
            return "dv_range";
    }
    return NULL;
}

static void once(const uint8_t *data, size_t size, const sc_decode_limits *limits) {
    sc_index_vec v = {0};
    sc_error_clear();
    int rc = sc_index_manifest_decode(&v, data, size, limits, "manifest/index-manifest-fuzz-0");
    if (rc) {
        sc_fuzz_check_failure("index_manifest", "sc_index_manifest_decode", rc, allowed);
        if (v.count) sc_fuzz_fail("index_manifest", "a failed decode left records behind", rc);
        sc_index_vec_free(&v);
        return;
    }
    sc_buf enc = SC_BUF_INIT;
    rc = sc_index_manifest_encode(&enc, &v);
    if (rc) sc_fuzz_fail("index_manifest", "a decoded index manifest does not re-encode", rc);
    sc_index_vec w = {0};
    rc = sc_index_manifest_decode(&w, enc.data, enc.len, NULL, "manifest/index-manifest-fuzz-again");
    if (rc) sc_fuzz_fail("index_manifest", "a re-encoded index manifest does not decode", rc);
    if (w.count != v.count) sc_fuzz_fail("index_manifest", "re-encoded manifest has another record count", 0);
    for (size_t i = 0; i < v.count; i++) {
        const char *d = record_diff(&v.items[i], &w.items[i]);
        if (d) {
            fprintf(stderr, "record %zu differs in %s\n", i, d);
            sc_fuzz_fail("index_manifest", "re-encoded manifest decodes to other records", 0);
        }
    }
    sc_index_vec_free(&w);
    sc_buf_free(&enc);
    sc_index_vec_free(&v);
}

static void into_changes(const uint8_t *data, size_t size) {
    sc_changes *c;
    if (sc_changes_new(&c)) sc_fuzz_fail("index_manifest", "sc_changes_new", 0);
    sc_error_clear();
    int rc = sc_changes_add_paimon(c, SC_SECTION_INDEX, data, size);
    if (rc) {
        sc_fuzz_check_failure("index_manifest", "sc_changes_add_paimon", rc, allowed_changes);
        if (sc_changes_index_add_count(c) + sc_changes_index_delete_count(c))
            sc_fuzz_fail("index_manifest", "a failed sc_changes_add_paimon left records behind", rc);
    }
    sc_changes_free(c);
}

int sc_fuzz_index_manifest(const uint8_t *data, size_t size) {
    sc_decode_limits def;
    sc_decode_limits_default(&def);
    /* Tight: 2 records, 24-byte strings, 1 KiB blocks. */
    const sc_decode_limits tight = {.max_entries = 2, .max_field_len = 24, .max_object_len = 1024};
    once(data, size, &def);
    once(data, size, &tight);
    into_changes(data, size);
    return 0;
}

SC_FUZZ_ENTRY(sc_fuzz_index_manifest)
