/*
 * The watermark archive codec (format/watermark_archive.h): round trip,
 * content-addressed names, and a bounded, fail-closed decoder.
 */
#include "sc_test_util.h"

#include "base/error_internal.h"
#include "format/watermark_archive.h"

static void sample(sc_buf *out, size_t n) {
    sc_watermark *w = calloc(n, sizeof *w);
    char (*users)[32] = calloc(n, sizeof *users);
    for (size_t i = 0; i < n; i++) {
        snprintf(users[i], sizeof users[i], "u-%05zu-\xc3\xa9", i);
        w[i] = (sc_watermark){users[i], (int64_t)i * 1000, i + 1};
    }
    cr_assert_eq(sc_watermark_archive_encode(out, w, n), 0, "%s", sc_error_message());
    free(w);
    free(users);
}

Test(watermark_archive, round_trip_and_find) {
    sc_buf b = SC_BUF_INIT;
    sample(&b, 300);
    sc_watermark_archive a;
    cr_assert_eq(sc_watermark_archive_decode(&a, b.data, b.len, 300, "wa"), 0, "%s", sc_error_message());
    cr_assert_eq(a.count, 300);
    cr_assert_eq(a.max_snapshot, 300);
    const sc_watermark *w = sc_watermark_archive_find(&a, "u-00123-\xc3\xa9");
    cr_assert_not_null(w);
    cr_assert_eq(w->identifier, 123000);
    cr_assert_eq(w->snapshot_id, 124);
    cr_assert_null(sc_watermark_archive_find(&a, "u-00123-"));
    /* Canonical: re-encoding gives the same bytes, so the same content has the same name. */
    sc_buf again = SC_BUF_INIT;
    cr_assert_eq(sc_watermark_archive_encode(&again, a.items, a.count), 0);
    cr_assert_eq(again.len, b.len);
    cr_assert_eq(memcmp(again.data, b.data, b.len), 0);
    sc_watermark_archive_clear(&a);
    sc_buf_free(&again);
    sc_buf_free(&b);
}

Test(watermark_archive, names_carry_the_hash) {
    uint8_t sha[SC_SHA256_LEN], back[SC_SHA256_LEN];
    for (int i = 0; i < SC_SHA256_LEN; i++) sha[i] = (uint8_t)(i * 9);
    char name[SC_WATERMARK_ARCHIVE_NAME_LEN + 1], key[SC_WATERMARK_ARCHIVE_KEY_MAX];
    sc_watermark_archive_name(name, sha);
    cr_assert_eq(sc_watermark_archive_name_parse(back, name), 0);
    cr_assert_eq(memcmp(sha, back, SC_SHA256_LEN), 0);
    sc_watermark_archive_key(key, name);
    cr_assert(strncmp(key, "metadata/watermarks/watermarks-", 31) == 0, "%s", key);
    char bad[SC_WATERMARK_ARCHIVE_NAME_LEN + 2];
    strcpy(bad, name);
    bad[20] = 'A'; /* upper case: a second name for one archive */
    cr_assert_eq(sc_watermark_archive_name_parse(back, bad), SC_EINVAL);
    strcpy(bad, name);
    bad[SC_WATERMARK_ARCHIVE_NAME_LEN - 1] = '\0';
    cr_assert_eq(sc_watermark_archive_name_parse(back, bad), SC_EINVAL);
    cr_assert_eq(sc_watermark_archive_name_parse(back, "../snapshot/LATEST"), SC_EINVAL);
}

Test(watermark_archive, every_truncation_and_extension_is_refused) {
    sc_buf b = SC_BUF_INIT;
    sample(&b, 20);
    for (size_t len = 0; len < b.len; len++) {
        sc_watermark_archive a;
        cr_assert_eq(sc_watermark_archive_decode(&a, b.data, len, 100, "wa"), SC_ECORRUPT, "length %zu accepted", len);
        cr_assert_null(a.items);
    }
    cr_assert_eq(sc_buf_append_byte(&b, 0), 0);
    sc_watermark_archive a;
    cr_assert_eq(sc_watermark_archive_decode(&a, b.data, b.len, 100, "wa"), SC_ECORRUPT);
    sc_buf_free(&b);
}

/* Decode `b` with byte `at` replaced by `v`; returns the code. */
static int decode_patched(const sc_buf *b, size_t at, uint8_t v, uint64_t max_snapshot) {
    uint8_t *copy = malloc(b->len);
    memcpy(copy, b->data, b->len);
    copy[at] = v;
    sc_watermark_archive a;
    int rc = sc_watermark_archive_decode(&a, copy, b->len, max_snapshot, "wa");
    sc_watermark_archive_clear(&a);
    free(copy);
    return rc;
}

Test(watermark_archive, damaged_fields_are_refused) {
    sc_buf b = SC_BUF_INIT;
    sc_watermark w[] = {{"a", 1, 1}, {"b", 2, 2}};
    cr_assert_eq(sc_watermark_archive_encode(&b, w, 2), 0);
    /* header 12 | 01 'a' ident(8) snap(8) | 01 'b' ident(8) snap(8) */
    cr_assert_eq(decode_patched(&b, 0, 'X', 9), SC_ECORRUPT, "magic");
    cr_assert_eq(decode_patched(&b, 11, 3, 9), SC_ECORRUPT, "count above the entries");
    cr_assert_eq(decode_patched(&b, 8, 0xff, 9), SC_ECORRUPT, "count above the limit");
    cr_assert_eq(decode_patched(&b, 12, 0, 9), SC_ECORRUPT, "empty user");
    cr_assert_eq(decode_patched(&b, 13, 0, 9), SC_ECORRUPT, "NUL in a user");
    cr_assert_eq(decode_patched(&b, 13, 0xff, 9), SC_ECORRUPT, "not UTF-8");
    cr_assert_eq(decode_patched(&b, 31, 'a', 9), SC_ECORRUPT, "a user repeated");
    cr_assert_eq(decode_patched(&b, 31, '0', 9), SC_ECORRUPT, "not sorted");
    cr_assert_eq(decode_patched(&b, 14, 0x80, 9), SC_ECORRUPT, "negative identifier");
    cr_assert_eq(decode_patched(&b, 29, 0, 9), SC_ECORRUPT, "snapshot 0");
    cr_assert_eq(decode_patched(&b, 29, 10, 9), SC_ECORRUPT, "a snapshot above the referencing one");
    cr_assert_eq(decode_patched(&b, 29, 9, 9), 0, "the referencing snapshot itself is fine");
    sc_buf_free(&b);
}

Test(watermark_archive, the_encoder_refuses_what_the_decoder_would) {
    sc_buf b = SC_BUF_INIT;
    sc_watermark unsorted[] = {{"b", 1, 1}, {"a", 1, 1}};
    cr_assert_eq(sc_watermark_archive_encode(&b, unsorted, 2), SC_EINVAL);
    sc_watermark negative[] = {{"a", -1, 1}};
    cr_assert_eq(sc_watermark_archive_encode(&b, negative, 1), SC_EINVAL);
    cr_assert_eq(sc_watermark_archive_encode(&b, NULL, SC_WATERMARK_ARCHIVE_MAX_USERS + 1), SC_ELIMIT,
                 "the user bound is checked before anything is read");
    cr_assert_eq(b.len, 0, "nothing appended");
    sc_buf_free(&b);
}
