/*
 * Index files and changelog files in change sets (format/changes.c, format/index_entry.c):
 * deep copies, validation naming the field, Paimon's manifest bytes added section by section.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/changes.h"
#include "format/paimon_manifest.h"

#define GOLDEN "tests/vectors/paimon-1.4.2"

static uint8_t *slurp(const char *rel, size_t *len) {
    const char *root = getenv("SC_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root ? root : ".", rel);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n ? (size_t)n : 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static const uint8_t part_row[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0};

/* ---- change sets ---- */

Test(changes_index, add_and_delete_keep_deep_copies) {
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    char file[] = "index-0f2a-0", type[] = "DELETION_VECTORS", data[] = "data-1.parquet", ext[] = "s3://b/x/index-0f2a-0";
    uint8_t part[sizeof part_row];
    memcpy(part, part_row, sizeof part);
    sc_dv_range r[2] = {{data, 1, 22, 1, 3}, {"data-2.parquet", 23, 10, 0, 0}};
    sc_index_entry e = {{part, sizeof part}, 1, type, file, 33, 4, 1, r, 2, ext};
    cr_assert_eq(sc_changes_add_index(c, &e), 0, "%s", sc_error_message());
    cr_assert_eq(sc_changes_delete_index(c, &e), 0, "%s", sc_error_message());
    /* The caller's buffers change: the set's copies do not. */
    memset(file, 'x', 5);
    memset(type, 'x', 5);
    memset(data, 'x', 5);
    memset(ext, 'x', 5);
    memset(part, 0xee, sizeof part);
    cr_assert_eq(sc_changes_index_add_count(c), 1);
    cr_assert_eq(sc_changes_index_delete_count(c), 1);
    cr_assert_eq(sc_changes_changelog_count(c), 0);
    const sc_index_entry *k = &c->index_adds.items[0].entry;
    cr_assert_eq(c->index_adds.items[0].kind, SC_ENTRY_ADD);
    cr_assert_eq(c->index_deletes.items[0].kind, SC_ENTRY_DELETE);
    cr_assert_str_eq(k->file, "index-0f2a-0");
    cr_assert_str_eq(k->index_type, "DELETION_VECTORS");
    cr_assert_str_eq(k->external_path, "s3://b/x/index-0f2a-0");
    cr_assert_eq(k->partition.len, sizeof part_row);
    cr_assert_eq(memcmp(k->partition.data, part_row, sizeof part_row), 0);
    cr_assert(k->has_dv_ranges);
    cr_assert_eq(k->dv_range_count, 2);
    cr_assert_str_eq(k->dv_ranges[0].data_file, "data-1.parquet");
    cr_assert_eq(k->dv_ranges[0].offset, 1);
    cr_assert_eq(k->dv_ranges[0].length, 22);
    cr_assert(k->dv_ranges[0].has_cardinality && k->dv_ranges[0].cardinality == 3);
    cr_assert(!k->dv_ranges[1].has_cardinality);
    cr_assert_eq(k->bucket, 1);
    cr_assert_eq(k->size, 33);
    cr_assert_eq(k->rows, 4);
    sc_changes_free(c);
}

Test(changes_index, absent_partition_and_ranges) {
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    sc_index_entry e = {.index_type = "HASH", .file = "index-1-0", .size = 8, .rows = 2};
    cr_assert_eq(sc_changes_add_index(c, &e), 0, "%s", sc_error_message());
    const sc_index_entry *k = &c->index_adds.items[0].entry;
    cr_assert_eq(k->partition.len, SC_EMPTY_ROW_LEN, "the unpartitioned table's row");
    cr_assert(!k->has_dv_ranges);
    cr_assert_null(k->dv_ranges);
    cr_assert_null(k->external_path);
    /* Present but empty ranges stay present. */
    e.has_dv_ranges = 1;
    cr_assert_eq(sc_changes_add_index(c, &e), 0, "%s", sc_error_message());
    cr_assert(c->index_adds.items[1].entry.has_dv_ranges);
    cr_assert_eq(c->index_adds.items[1].entry.dv_range_count, 0);
    sc_changes_free(c);
}

Test(changes_index, invalid_entries_name_the_field) {
    sc_dv_range ok = {"data-1.parquet", 0, 1, 0, 0};
    sc_dv_range bad_off = {"data-1.parquet", -1, 1, 0, 0};
    sc_dv_range bad_len = {"data-1.parquet", 0, -1, 0, 0};
    sc_dv_range bad_name = {"a/b.parquet", 0, 1, 0, 0};
    sc_dv_range no_name = {NULL, 0, 1, 0, 0};
    const struct {
        sc_index_entry e;
        const char *field;
    } cases[] = {
        {{.index_type = "", .file = "index-1"}, "index_type"},
        {{.index_type = NULL, .file = "index-1"}, "index_type"},
        {{.index_type = "HASH", .file = ""}, "file"},
        {{.index_type = "HASH", .file = NULL}, "file"},
        {{.index_type = "HASH", .file = "../index-1"}, "file"},
        {{.index_type = "HASH", .file = ".."}, "file"},
        {{.index_type = "HASH", .file = "index-\n1"}, "file"},
        {{.index_type = "HASH", .file = "index-1", .size = -1}, "size"},
        {{.index_type = "HASH", .file = "index-1", .rows = -1}, "rows"},
        {{.index_type = "HASH", .file = "index-1", .bucket = -1}, "bucket"},
        {{.index_type = "DELETION_VECTORS", .file = "index-1", .has_dv_ranges = 1, .dv_ranges = &bad_off, .dv_range_count = 1}, "dv_ranges[0].offset"},
        {{.index_type = "DELETION_VECTORS", .file = "index-1", .has_dv_ranges = 1, .dv_ranges = &bad_len, .dv_range_count = 1}, "dv_ranges[0].length"},
        {{.index_type = "DELETION_VECTORS", .file = "index-1", .has_dv_ranges = 1, .dv_ranges = &bad_name, .dv_range_count = 1}, "dv_ranges[0].data_file"},
        {{.index_type = "DELETION_VECTORS", .file = "index-1", .has_dv_ranges = 1, .dv_ranges = &no_name, .dv_range_count = 1}, "dv_ranges[0].data_file"},
        {{.index_type = "DELETION_VECTORS", .file = "index-1", .has_dv_ranges = 0, .dv_ranges = &ok, .dv_range_count = 1}, "dv_ranges"},
        {{.index_type = "DELETION_VECTORS", .file = "index-1", .has_dv_ranges = 1, .dv_ranges = NULL, .dv_range_count = 1}, "dv_ranges"},
    };
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = sc_changes_add_index(c, &cases[i].e);
        cr_assert_eq(rc, SC_EINVAL, "case %zu: %s", i, sc_error_name(rc));
        cr_assert(strstr(sc_error_message(), cases[i].field), "case %zu: %s", i, sc_error_message());
    }
    cr_assert_eq(sc_changes_add_index(c, NULL), SC_EINVAL);
    cr_assert_eq(sc_changes_index_add_count(c), 0);
    /* A delete may name a file with a control character (written by an older version). */
    sc_index_entry old = {.index_type = "HASH", .file = "index-\n1"};
    cr_assert_eq(sc_changes_delete_index(c, &old), 0, "%s", sc_error_message());
    /* A partition longer than the field limit. */
    size_t big = 70000;
    uint8_t *p = calloc(1, big);
    sc_index_entry wide = {.partition = {p, big}, .index_type = "HASH", .file = "index-2"};
    cr_assert_eq(sc_changes_add_index(c, &wide), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "partition"), "%s", sc_error_message());
    free(p);
    sc_changes_free(c);
}

Test(changes_changelog, entries_are_checked_and_copied) {
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    char name[] = "changelog-1.parquet";
    sc_file_entry e = {.file = name, .rows = 3, .size = 100, .total_buckets = 2, .bucket = 1};
    cr_assert_eq(sc_changes_add_changelog(c, &e), 0, "%s", sc_error_message());
    name[0] = 'X';
    cr_assert_eq(sc_changes_changelog_count(c), 1);
    cr_assert_eq(sc_changes_add_count(c), 0, "changelog files are not data files");
    cr_assert_str_eq(c->changelog.items[0].file.file, "changelog-1.parquet");
    sc_file_entry bad = e;
    bad.rows = -1;
    cr_assert_eq(sc_changes_add_changelog(c, &bad), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "rows"), "%s", sc_error_message());
    bad = e;
    bad.file = "a/b";
    cr_assert_eq(sc_changes_add_changelog(c, &bad), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "file"), "%s", sc_error_message());
    cr_assert_eq(sc_changes_changelog_count(c), 1);
    sc_changes_free(c);
}

/* ---- Paimon's bytes into a section ---- */

#define PK_MANIFEST GOLDEN "/warehouse/golden.db/pk/manifest/manifest-324584bc-0286-485f-8318-a048c50aa94f-"

Test(changes_paimon, data_and_changelog_sections_from_paimon_manifests) {
    size_t len;
    uint8_t *m = slurp(PK_MANIFEST "0", &len);
    sc_entry_vec want = {0};
    sc_decode_limits lim;
    sc_decode_limits_default(&lim);
    cr_assert_eq(sc_paimon_manifest_decode(&want, m, len, &lim, "m"), 0, "%s", sc_error_message());
    cr_assert_gt(want.count, 0);
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    cr_assert_eq(sc_changes_add_paimon(c, SC_SECTION_DATA, m, len), 0, "%s", sc_error_message());
    size_t adds = 0, deletes = 0;
    for (size_t i = 0; i < want.count; i++) want.items[i].kind == SC_ENTRY_ADD ? adds++ : deletes++;
    cr_assert_eq(sc_changes_add_count(c), adds);
    cr_assert_eq(sc_changes_delete_count(c), deletes);
    cr_assert_str_eq(c->adds.items[0].file.file, want.items[0].file.file);
    cr_assert_eq(c->adds.items[0].file.rows, want.items[0].file.rows);
    /* The first manifest holds only ADDs: it reads as changelog files too. */
    cr_assert_eq(deletes, 0);
    cr_assert_eq(sc_changes_add_paimon(c, SC_SECTION_CHANGELOG, m, len), 0, "%s", sc_error_message());
    cr_assert_eq(sc_changes_changelog_count(c), adds);
    cr_assert_eq(sc_changes_add_count(c), adds, "the data section is unchanged");
    sc_entry_vec_free(&want);
    free(m);
    sc_changes_free(c);
}

/* A manifest with a DELETE: fine for data, SC_EINVAL for changelog, and nothing of it stays. */
Test(changes_paimon, a_delete_in_the_changelog_section_is_refused_whole) {
    sc_entry_vec v = {0};
    sc_file_entry a = {.file = "changelog-a.parquet", .rows = 1, .size = 10, .partition = {sc_empty_row, SC_EMPTY_ROW_LEN},
                       .min_key = {sc_empty_row, SC_EMPTY_ROW_LEN}, .max_key = {sc_empty_row, SC_EMPTY_ROW_LEN}};
    sc_file_entry d = a;
    d.file = "changelog-d.parquet";
    cr_assert_eq(sc_entry_vec_push(&v, SC_ENTRY_ADD, &a), 0);
    cr_assert_eq(sc_entry_vec_push(&v, SC_ENTRY_DELETE, &d), 0);
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_paimon_manifest_encode(&b, &v), 0, "%s", sc_error_message());
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    cr_assert_eq(sc_changes_add_paimon(c, SC_SECTION_CHANGELOG, b.data, b.len), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "record 1"), "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "changelog-d.parquet"), "%s", sc_error_message());
    cr_assert_eq(sc_changes_changelog_count(c), 0, "nothing added on error");
    cr_assert_eq(sc_changes_add_paimon(c, SC_SECTION_DATA, b.data, b.len), 0, "%s", sc_error_message());
    cr_assert_eq(sc_changes_add_count(c), 1);
    cr_assert_eq(sc_changes_delete_count(c), 1);
    sc_buf_free(&b);
    sc_entry_vec_free(&v);
    sc_changes_free(c);
}

Test(changes_paimon, damaged_bytes_add_nothing) {
    size_t len;
    uint8_t *m = slurp(PK_MANIFEST "0", &len);
    sc_changes *c;
    cr_assert_eq(sc_changes_new(&c), 0);
    for (size_t cut = 0; cut < len; cut += 7) {
        int rc = sc_changes_add_paimon(c, SC_SECTION_DATA, m, cut);
        cr_assert(rc == SC_ECORRUPT || rc == SC_ELIMIT, "cut at %zu: %s", cut, sc_error_name(rc));
        cr_assert_eq(sc_changes_add_count(c) + sc_changes_delete_count(c), 0, "cut at %zu", cut);
    }
    cr_assert_eq(sc_changes_add_paimon(c, (sc_paimon_section)7, m, len), SC_EINVAL);
    free(m);
    sc_changes_free(c);
}
