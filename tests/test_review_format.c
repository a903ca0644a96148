/*
 * Adversarial review of the switch to Paimon's format (issue 10, phase 2):
 * each test shows one defect the review found, and fails without its fix.
 *   - partition statistics ordered as Paimon's readers prune with them (FLOAT/DOUBLE: NaN, -0.0)
 *   - an empty partition value is a second spelling of the null partition's directory
 *   - a non-canonical partition row from an API caller is a second identity of one file
 *   - a Paimon commit of one of our users must not lower that user's watermark
 *   - committing onto a Paimon snapshot with an index manifest would drop it
 */
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_test_util.h"

#include "base/error_internal.h"
#include "format/partition.h"
#include "format/table_schema.h"

/* ---- partition statistics of FLOAT/DOUBLE partitions ---- */

#define DOUBLE_PART                                                                                        \
    "{\"fields\":[{\"name\":\"x\",\"type\":\"DOUBLE\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"              \
    "\"partitionKeys\":[\"x\"],\"primaryKeys\":[],\"options\":{}}"

static sc_bytes double_row(sc_buf *b, double x) {
    static const sc_data_type t = {SC_TYPE_DOUBLE, 1, 0, 0, 0, NULL};
    sc_datum d = {0};
    d.f = x;
    b->len = 0;
    cr_assert_eq(sc_row_encode(b, &t, &d, 1), 0);
    uint8_t *slot = tu_pool(b->len);
    memcpy(slot, b->data, b->len);
    return (sc_bytes){slot, b->len};
}

static double row_double(const sc_buf *row) {
    static const sc_data_type t = {SC_TYPE_DOUBLE, 1, 0, 0, 0, NULL};
    sc_datum d;
    cr_assert_eq(sc_row_get(&d, row->data, row->len, &t, 0, "stats"), 0, "%s", sc_error_message());
    cr_assert(!d.is_null);
    return d.f;
}

/* Paimon collects and tests partition statistics with Java's compareTo: NaN is the largest
 * DOUBLE and -0.0 is below 0.0. Bounds in any other order let Paimon's reader skip a
 * manifest that holds the partition it asks for. */
Test(review_format, partition_stats_order_doubles_as_paimon_prunes) {
    sc_table_schema s;
    cr_assert_eq(sc_schema_decode(&s, (const uint8_t *)DOUBLE_PART, strlen(DOUBLE_PART), NULL), 0, "%s", sc_error_message());
    sc_buf tmp = SC_BUF_INIT, min = SC_BUF_INIT, max = SC_BUF_INIT;
    int64_t nulls[1];

    sc_bytes nan_first[2] = {double_row(&tmp, NAN), double_row(&tmp, 1.0)};
    cr_assert_eq(sc_partition_stats(&min, &max, nulls, &s, nan_first, 2, "test"), 0, "%s", sc_error_message());
    cr_assert_eq(row_double(&min), 1.0, "min of {NaN, 1.0} is 1.0 in Java's order, got %g", row_double(&min));
    cr_assert(isnan(row_double(&max)), "max of {NaN, 1.0} is NaN in Java's order, got %g", row_double(&max));

    min.len = max.len = 0;
    sc_bytes nan_last[2] = {double_row(&tmp, 1.0), double_row(&tmp, NAN)};
    cr_assert_eq(sc_partition_stats(&min, &max, nulls, &s, nan_last, 2, "test"), 0);
    cr_assert_eq(row_double(&min), 1.0);
    cr_assert(isnan(row_double(&max)), "max of {1.0, NaN} is NaN, got %g", row_double(&max));

    min.len = max.len = 0;
    sc_bytes zeros[2] = {double_row(&tmp, 0.0), double_row(&tmp, -0.0)};
    cr_assert_eq(sc_partition_stats(&min, &max, nulls, &s, zeros, 2, "test"), 0);
    cr_assert(row_double(&min) == 0.0 && signbit(row_double(&min)), "min of {0.0, -0.0} is -0.0");
    cr_assert(row_double(&max) == 0.0 && !signbit(row_double(&max)), "max of {0.0, -0.0} is 0.0");

    /* Our own pruning stays conservative on such bounds: the manifest may hold every one of them. */
    int may = 0;
    cr_assert_eq(sc_partition_stats_may_hold(&may, &s, (sc_bytes){min.data, min.len}, (sc_bytes){max.data, max.len},
                                             zeros[1]), 0);
    cr_assert(may);
    sc_buf_free(&tmp);
    sc_buf_free(&min);
    sc_buf_free(&max);
    sc_schema_clear(&s);
}

/* ---- partitions spelled two ways ---- */

#define STRING_PART                                                                                        \
    "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"             \
    "\"partitionKeys\":[\"dt\"],\"primaryKeys\":[],\"options\":{}}"

/* "dt=" and "dt=__DEFAULT_PARTITION__" are one directory (Paimon names an empty or blank value
 * by the default name): both accepted, they were two partitions, and one file name could be
 * committed twice at one path (Paimon's readers would read its rows twice). */
Test(review_format, empty_partition_value_is_not_a_second_spelling) {
    sc_table *t = tu_schema_table("review-blank", STRING_PART);
    const char *blank_specs[] = {"dt=", "dt=%20", "dt= "};
    for (size_t i = 0; i < sizeof blank_specs / sizeof *blank_specs; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{\"add\":[{\"partition\":\"%s\",\"bucket\":0,\"level\":0,\"file\":\"a\",\"rows\":1,\"size\":1}]}",
                 blank_specs[i]);
        sc_changes *c = NULL;
        cr_assert_eq(sc_table_parse_changes(&c, t, json, strlen(json)), SC_EINVAL, "%s was accepted", blank_specs[i]);
        cr_assert(strstr(sc_error_message(), "__DEFAULT_PARTITION__"), "%s", sc_error_message());
        cr_assert_null(c);
    }
    /* The null partition itself is still written and read back by its spec. */
    const char *json = "{\"add\":[{\"partition\":\"dt=__DEFAULT_PARTITION__\",\"bucket\":0,\"level\":0,\"file\":\"a\","
                       "\"rows\":1,\"size\":1}]}";
    sc_changes *c = NULL;
    cr_assert_eq(sc_table_parse_changes(&c, t, json, strlen(json)), 0, "%s", sc_error_message());
    sc_commit_request req = {"u", 1, SC_KIND_APPEND, 0, c};
    cr_assert_eq(sc_table_commit(NULL, t, &req), 0, "%s", sc_error_message());
    sc_changes_free(c);
    cr_assert_eq(tu_file_count(t), 1);
    sc_table_free(t);
}

/* An API caller's partition row that decodes to "p" but is not Paimon's bytes for it (a stray
 * byte in the inline slot): accepted, it was a second partition "p" at the same path, so the
 * same file was live twice. */
Test(review_format, non_canonical_partition_row_is_refused) {
    sc_table *t = tu_mem_table("review-canonical");
    sc_file_entry canonical = tu_file("p", 0, 0, 0, "data/a", 1, "k", "k");
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &canonical, 1, NULL, 0), 0, "%s", sc_error_message());

    uint8_t odd[20];
    cr_assert_eq(canonical.partition.len, sizeof odd);
    memcpy(odd, canonical.partition.data, sizeof odd);
    odd[13] = 'x'; /* slot byte 1 of the inline "p" (length 1): not part of the value */
    sc_datum d;
    static const sc_data_type string_type = {SC_TYPE_VARCHAR, 1, SC_TYPE_MAX_LENGTH, 0, 0, NULL};
    cr_assert_eq(sc_row_get(&d, odd, sizeof odd, &string_type, 0, "odd"), 0);
    cr_assert_eq(d.len, 1, "the odd row still reads as \"p\"");
    cr_assert_eq(d.bytes[0], 'p');

    sc_file_entry again = canonical;
    again.partition = (sc_bytes){odd, sizeof odd};
    cr_assert_eq(tu_commit(NULL, t, "u", 2, SC_KIND_APPEND, 0, &again, 1, NULL, 0), SC_EINVAL,
                 "a second spelling of partition p was committed");
    cr_assert(strstr(sc_error_message(), "canonical"), "%s", sc_error_message());
    cr_assert_eq(tu_file_count(t), 1);
    cr_assert_eq(tu_latest(t), 1);
    sc_table_free(t);
}

/* ---- tables Paimon also commits to ---- */

static void copy_golden(char *dir, const char *table) {
    const char *src = getenv("SC_SOURCE_DIR");
    cr_assert_not_null(src, "SC_SOURCE_DIR is set by ctest");
    cr_assert_not_null(mkdtemp(dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp -R '%s/tests/vectors/paimon-1.4.2/warehouse/golden.db/%s/.' '%s/'", src, table, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, dir), 0);
    cr_assert_eq(sc_table_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_store_free(s);
}

static void remove_dir(const char *dir) {
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    cr_assert_eq(fclose(f), 0);
}

/* Replace the first `from` in `text` (a static buffer of read_text) by `to`. */
static void replace_in(char *text, const char *from, const char *to) {
    char *at = strstr(text, from);
    cr_assert_not_null(at, "\"%s\" not in the snapshot", from);
    size_t tail = strlen(at + strlen(from));
    memmove(at + strlen(to), at + strlen(from), tail + 1);
    memcpy(at, to, strlen(to));
}

/* Paimon commits through its API without filtering, so its snapshot can carry a lower identifier
 * for a user of ours. The watermark must stay at our identifier: identifiers between the two are
 * committed, and their replays must be filtered. */
Test(review_format, paimon_commit_of_our_user_keeps_the_watermark) {
    char dir[] = "/tmp/sc-review-wm.XXXXXX";
    copy_golden(dir, "append_fixed");
    sc_table *t = tu_open(dir, (tu_table_opts){0});
    const char *add = "{\"add\":[{\"partition\":\"dt=2024-01-01/h=0\",\"bucket\":1,\"level\":0,"
                      "\"file\":\"data-sc-0.parquet\",\"rows\":1,\"size\":10}]}";
    sc_changes *c = NULL;
    cr_assert_eq(sc_table_parse_changes(&c, t, add, strlen(add)), 0, "%s", sc_error_message());
    sc_commit_request req = {"golden-writer", 10, SC_KIND_APPEND, 0, c};
    sc_commit_result r;
    cr_assert_eq(sc_table_commit(&r, t, &req), 0, "%s", sc_error_message());
    sc_changes_free(c);
    cr_assert_eq(r.snapshot_id, 4);

    /* Paimon's snapshot 5 by the same user with identifier 4 (snapshot 3's lists: nothing changes). */
    char path[1100];
    snprintf(path, sizeof path, "%s/snapshot/snapshot-3", dir);
    char *text = read_text(path);
    replace_in(text, "\"id\" : 3", "\"id\" : 5");
    replace_in(text, "\"commitIdentifier\" : 3", "\"commitIdentifier\" : 4");
    snprintf(path, sizeof path, "%s/snapshot/snapshot-5", dir);
    write_text(path, text);
    sc_table_free(t);

    t = tu_open(dir, (tu_table_opts){0});
    cr_assert_eq(tu_latest(t), 5);
    int64_t last = 0;
    int found = 0;
    cr_assert_eq(sc_table_last_committed(&last, &found, t, "golden-writer"), 0, "%s", sc_error_message());
    cr_assert(found);
    cr_assert_eq(last, 10, "the watermark went down to %lld", (long long)last);
    int64_t ids[] = {5, 9, 10, 11};
    size_t kept = 0;
    cr_assert_eq(sc_table_filter_committed(ids, &kept, t, "golden-writer", ids, 4), 0, "%s", sc_error_message());
    cr_assert_eq(kept, 1, "replays of 5..10 pass the filter (%zu kept)", kept);
    cr_assert_eq(ids[0], 11);
    sc_table_free(t);
    remove_dir(dir);
}

/* A Paimon snapshot naming an index manifest (deletion vectors, bucket index): the next
 * snapshot must name it too, or deleted rows come back. A commit touching no index file
 * carries it by name, unread (this one names an object that is not even there). */
Test(review_format, commit_onto_a_paimon_index_manifest_carries_it) {
    char dir[] = "/tmp/sc-review-index.XXXXXX";
    copy_golden(dir, "append_fixed");
    char path[1100];
    snprintf(path, sizeof path, "%s/snapshot/snapshot-3", dir);
    char *text = read_text(path);
    replace_in(text, "\"commitUser\" :", "\"indexManifest\" : \"index-manifest-0d3c-0\",\n  \"commitUser\" :");
    write_text(path, text);

    sc_table *t = tu_open(dir, (tu_table_opts){0});
    cr_assert_eq(tu_latest(t), 3, "the snapshot still reads: %s", sc_error_message());
    const char *add = "{\"add\":[{\"partition\":\"dt=2024-01-01/h=0\",\"bucket\":1,\"level\":0,"
                      "\"file\":\"data-sc-0.parquet\",\"rows\":1,\"size\":10}]}";
    sc_changes *c = NULL;
    cr_assert_eq(sc_table_parse_changes(&c, t, add, strlen(add)), 0, "%s", sc_error_message());
    sc_commit_request req = {"sc-job", 1, SC_KIND_APPEND, 0, c};
    cr_assert_eq(sc_table_commit(NULL, t, &req), 0, "%s", sc_error_message());
    sc_changes_free(c);
    cr_assert_eq(tu_latest(t), 4);
    snprintf(path, sizeof path, "%s/snapshot/snapshot-4", dir);
    char *next = read_text(path);
    cr_assert(strstr(next, "\"indexManifest\":\"index-manifest-0d3c-0\""), "%s", next);
    sc_table_free(t);
    remove_dir(dir);
}
