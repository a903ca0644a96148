/*
 * Manifest and manifest-list codec: round trips, truncation at every length,
 * every single-bit flip, crafted corruptions behind a valid checksum, limits,
 * entry validation, and the fuzz corpus run through both decoders.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error_internal.h"
#include "base/hash.h"
#include "format/manifest.h"

/* ---------------------------------------------------------------- helpers */

/* Deterministic, so that a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* Random bytes biased towards the edges 0x00 and 0xFF. */
static void rand_fill(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng() % 8;
        p[i] = r == 0 ? 0x00 : r == 1 ? 0xFF : (uint8_t)rng();
    }
}

static int bytes_equal(sc_bytes a, sc_bytes b) {
    if (!a.data != !b.data || a.len != b.len) return 0;
    return a.len == 0 || memcmp(a.data, b.data, a.len) == 0;
}

static void assert_entry_equal(const sc_manifest_entry *a, const sc_manifest_entry *b, size_t i) {
    cr_assert_eq(a->kind, b->kind, "entry %zu kind", i);
    cr_assert(bytes_equal(a->file.partition, b->file.partition), "entry %zu partition", i);
    cr_assert_not_null(b->file.partition.data, "entry %zu: partitions are never NULL", i);
    cr_assert_eq(a->file.bucket, b->file.bucket, "entry %zu bucket", i);
    cr_assert_eq(a->file.total_buckets, b->file.total_buckets, "entry %zu total_buckets", i);
    cr_assert_eq(a->file.level, b->file.level, "entry %zu level", i);
    cr_assert_str_eq(a->file.file, b->file.file, "entry %zu file", i);
    cr_assert_eq(a->file.rows, b->file.rows, "entry %zu rows", i);
    cr_assert_eq(a->file.size, b->file.size, "entry %zu size", i);
    cr_assert(bytes_equal(a->file.min_key, b->file.min_key), "entry %zu min_key", i);
    cr_assert(bytes_equal(a->file.max_key, b->file.max_key), "entry %zu max_key", i);
}

static void assert_vec_equal(const sc_entry_vec *a, const sc_entry_vec *b) {
    cr_assert_eq(a->count, b->count);
    for (size_t i = 0; i < a->count; i++) assert_entry_equal(&a->items[i], &b->items[i], i);
}

/* Push one random, valid entry. Keys are absent, empty or random bytes. */
static void push_random(sc_entry_vec *v, size_t i) {
    uint8_t part[24], k1[24], k2[24];
    char name[96];
    size_t plen = rng() % sizeof part, l1 = rng() % sizeof k1, l2 = rng() % sizeof k2;
    rand_fill(part, plen);
    rand_fill(k1, l1);
    rand_fill(k2, l2);
    snprintf(name, sizeof name, "data/bucket-%u/f-%05zu-%08x.orc", (unsigned)(rng() % 16), i,
             (unsigned)rng());
    sc_file_entry f = {
        .partition = {part, plen},
        .bucket = (int32_t)(rng() % 2 ? rng() % 16 : rng() % ((uint64_t)INT32_MAX + 1)),
        .total_buckets = (int32_t)(rng() % 3 == 0 ? 0 : rng() % 1024 + 1),
        .level = (int32_t)(rng() % 8),
        .file = name,
        .rows = (int64_t)(rng() % 2 ? rng() % 1000 : rng() >> 1),
        .size = (int64_t)(rng() >> (rng() % 64)) & INT64_MAX,
    };
    switch (rng() % 4) {
    case 0: break; /* absent */
    case 1: /* present but empty */
        f.min_key = (sc_bytes){k1, 0};
        f.max_key = (sc_bytes){k2, 0};
        break;
    default: {
        sc_bytes a = {k1, l1}, b = {k2, l2};
        if (sc_bytes_compare(a, b) > 0) {
            sc_bytes t = a;
            a = b;
            b = t;
        }
        f.min_key = a;
        f.max_key = b;
    }
    }
    cr_assert_eq(sc_entry_vec_push(v, rng() % 2 ? SC_ENTRY_ADD : SC_ENTRY_DELETE, &f), 0, "%s",
                 sc_error_message());
}

static void push_simple(sc_entry_vec *v, const char *name) {
    sc_file_entry f = {.partition = {(const uint8_t *)"p1", 2}, .bucket = 1, .total_buckets = 4,
                       .level = 0, .file = name, .rows = 10, .size = 100,
                       .min_key = {(const uint8_t *)"a", 1}, .max_key = {(const uint8_t *)"z", 1}};
    cr_assert_eq(sc_entry_vec_push(v, SC_ENTRY_ADD, &f), 0, "%s", sc_error_message());
}

static void push_meta(sc_meta_vec *v, const char *name, const char *minp, const char *maxp,
                      uint64_t salt) {
    sc_manifest_meta m;
    memset(&m, 0, sizeof m);
    m.name = (char *)name;
    sc_sha256(m.sha256, &salt, sizeof salt);
    m.length = 1000 + salt;
    m.added = salt * 3;
    m.deleted = salt == 7 ? UINT64_MAX : salt;
    m.min_partition = (uint8_t *)minp;
    m.min_partition_len = minp ? strlen(minp) : 0;
    m.max_partition = (uint8_t *)maxp;
    m.max_partition_len = maxp ? strlen(maxp) : 0;
    cr_assert_eq(sc_meta_vec_push(v, &m), 0, "%s", sc_error_message());
}

/* Wrap a raw body in a container with a correct body length and checksum:
 * crafted corruptions must get past the checksum to reach the parser. */
static void container(sc_buf *out, uint16_t type, uint32_t count, const sc_buf *body) {
    out->len = 0;
    cr_assert_eq(sc_buf_append(out, SC_MANIFEST_MAGIC, 4), 0);
    uint8_t vt[4] = {0, SC_MANIFEST_CONTAINER_VERSION, (uint8_t)(type >> 8), (uint8_t)type};
    cr_assert_eq(sc_buf_append(out, vt, 4), 0);
    cr_assert_eq(sc_buf_append_u32be(out, count), 0);
    cr_assert_eq(sc_buf_append_u64be(out, body->len), 0);
    if (body->len) cr_assert_eq(sc_buf_append(out, body->data, body->len), 0);
    uint8_t sum[SC_SHA256_LEN];
    sc_sha256(sum, out->data, out->len);
    cr_assert_eq(sc_buf_append(out, sum, sizeof sum), 0);
}

/* Recompute the checksum of an image in place (after editing its header). */
static void rehash(uint8_t *data, size_t len) { sc_sha256(data + len - SC_SHA256_LEN, data, len - SC_SHA256_LEN); }

/*
 * Append one valid manifest record, except that the encoding of `field`
 * (when non-NULL) is replaced by raw bytes `raw` (for length-prefixed
 * fields, including the prefix).
 */
static void craft_record(sc_buf *b, const char *file, const char *field, const uint8_t *raw,
                         size_t raw_len) {
#define FIELD(name, stmt)                                                      \
    do {                                                                       \
        if (field && strcmp(field, name) == 0)                                 \
            cr_assert_eq(sc_buf_append(b, raw, raw_len), 0);                   \
        else                                                                   \
            cr_assert_eq(stmt, 0);                                             \
    } while (0)
    FIELD("kind", sc_buf_append_byte(b, SC_ENTRY_ADD));
    FIELD("partition", sc_buf_append_lenbytes(b, (const uint8_t *)"p", 1));
    FIELD("bucket", sc_buf_append_varint(b, 3));
    FIELD("total_buckets", sc_buf_append_varint(b, 8));
    FIELD("level", sc_buf_append_varint(b, 1));
    FIELD("file", sc_buf_append_lenbytes(b, (const uint8_t *)file, strlen(file)));
    FIELD("rows", sc_buf_append_varint(b, 10));
    FIELD("size", sc_buf_append_varint(b, 4096));
    FIELD("flags", sc_buf_append_byte(b, 1));
    FIELD("min_key", sc_buf_append_lenbytes(b, (const uint8_t *)"a", 1));
    FIELD("max_key", sc_buf_append_lenbytes(b, (const uint8_t *)"b", 1));
#undef FIELD
}

/* Decode `img` into a vector already holding one entry: it must fail with
 * `code`, mention `needle` (and `needle2`), and leave the vector alone. */
static void expect_manifest_error(const sc_buf *img, const sc_decode_limits *limits, int code,
                                  const char *needle, const char *needle2) {
    sc_entry_vec v = {0};
    push_simple(&v, "data/keep.orc");
    sc_error_clear();
    int rc = sc_manifest_decode(&v, img->data, img->len, limits, "manifest/manifest-test");
    const char *msg = sc_error_message();
    cr_assert_eq(rc, code, "expected %s, got %s: %s", sc_error_name(code), sc_error_name(rc), msg);
    cr_assert(strstr(msg, "manifest/manifest-test"), "message names the object: %s", msg);
    if (needle) cr_assert(strstr(msg, needle), "message mentions \"%s\": %s", needle, msg);
    if (needle2) cr_assert(strstr(msg, needle2), "message mentions \"%s\": %s", needle2, msg);
    cr_assert_eq(v.count, 1, "no partial records after a failure");
    cr_assert_str_eq(v.items[0].file.file, "data/keep.orc");
    sc_entry_vec_free(&v);
}

/* One crafted record (field replaced by raw bytes) as a whole manifest. */
static void expect_crafted(const char *field, const uint8_t *raw, size_t raw_len, int code,
                           const char *needle, const char *needle2) {
    sc_buf body = SC_BUF_INIT, img = SC_BUF_INIT;
    craft_record(&body, "data/f.orc", field, raw, raw_len);
    container(&img, SC_MANIFEST_TYPE_ENTRIES, 1, &body);
    expect_manifest_error(&img, NULL, code, needle, needle2);
    sc_buf_free(&body);
    sc_buf_free(&img);
}

static void encode_entries(sc_buf *out, const sc_entry_vec *v) {
    cr_assert_eq(sc_manifest_encode(out, v), 0, "%s", sc_error_message());
}

/* ------------------------------------------------------------ round trips */

Test(manifest_codec, roundtrip_empty) {
    sc_entry_vec v = {0}, d = {0};
    sc_buf img = SC_BUF_INIT;
    encode_entries(&img, &v);
    cr_assert_eq(img.len, SC_MANIFEST_HEADER_LEN + SC_SHA256_LEN);
    cr_assert_eq(memcmp(img.data, "SCMF", 4), 0);
    cr_assert_eq(sc_manifest_decode(&d, img.data, img.len, NULL, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(d.count, 0);
    sc_buf_free(&img);
    sc_entry_vec_free(&d);
}

Test(manifest_codec, roundtrip_one) {
    sc_entry_vec v = {0}, d = {0};
    sc_buf img = SC_BUF_INIT;
    push_simple(&v, "data/part-0.orc");
    encode_entries(&img, &v);
    cr_assert_eq(sc_manifest_decode(&d, img.data, img.len, NULL, "m"), 0, "%s", sc_error_message());
    assert_vec_equal(&v, &d);
    sc_buf_free(&img);
    sc_entry_vec_free(&v);
    sc_entry_vec_free(&d);
}

Test(manifest_codec, roundtrip_random_1000) {
    sc_entry_vec v = {0}, d = {0};
    sc_buf img = SC_BUF_INIT, again = SC_BUF_INIT;
    for (size_t i = 0; i < 1000; i++) push_random(&v, i);
    encode_entries(&img, &v);
    cr_assert_eq(sc_manifest_decode(&d, img.data, img.len, NULL, "m"), 0, "%s", sc_error_message());
    assert_vec_equal(&v, &d);
    /* The encoding is canonical: decode then encode reproduces the bytes. */
    encode_entries(&again, &d);
    cr_assert_eq(again.len, img.len);
    cr_assert_eq(memcmp(again.data, img.data, img.len), 0);
    sc_buf_free(&img);
    sc_buf_free(&again);
    sc_entry_vec_free(&v);
    sc_entry_vec_free(&d);
}

Test(manifest_codec, absent_empty_and_edge_bytes_survive) {
    static const uint8_t edge[] = {0x00, 0xFF, 0x00, 0x80, 0x7F};
    sc_entry_vec v = {0}, d = {0};
    sc_buf img = SC_BUF_INIT;
    sc_file_entry f = {.file = "data/a.orc"}; /* NULL partition: empty */
    cr_assert_eq(sc_entry_vec_push(&v, SC_ENTRY_ADD, &f), 0);
    f.partition = (sc_bytes){edge, 0};
    f.min_key = (sc_bytes){edge, 0};
    f.max_key = (sc_bytes){edge, 0};
    cr_assert_eq(sc_entry_vec_push(&v, SC_ENTRY_DELETE, &f), 0);
    f.partition = (sc_bytes){edge, sizeof edge};
    f.min_key = (sc_bytes){edge, 0};
    f.max_key = (sc_bytes){edge, sizeof edge};
    f.bucket = INT32_MAX;
    f.total_buckets = INT32_MAX;
    f.level = INT32_MAX;
    f.rows = INT64_MAX;
    f.size = INT64_MAX;
    cr_assert_eq(sc_entry_vec_push(&v, SC_ENTRY_ADD, &f), 0);
    cr_assert_not_null(v.items[0].file.partition.data);
    cr_assert_null(v.items[0].file.min_key.data);
    cr_assert_not_null(v.items[1].file.min_key.data);
    encode_entries(&img, &v);
    cr_assert_eq(sc_manifest_decode(&d, img.data, img.len, NULL, "m"), 0, "%s", sc_error_message());
    assert_vec_equal(&v, &d);
    cr_assert_null(d.items[0].file.min_key.data, "absent keys stay absent");
    cr_assert_null(d.items[0].file.max_key.data);
    cr_assert_not_null(d.items[1].file.min_key.data, "empty keys stay present");
    cr_assert_eq(d.items[1].file.min_key.len, 0);
    cr_assert_eq(d.items[2].file.rows, INT64_MAX);
    sc_buf_free(&img);
    sc_entry_vec_free(&v);
    sc_entry_vec_free(&d);
}

Test(manifest_codec, encode_appends_after_existing_bytes) {
    sc_entry_vec v = {0}, d = {0};
    sc_buf img = SC_BUF_INIT;
    cr_assert_eq(sc_buf_append_str(&img, "prefix"), 0);
    push_simple(&v, "data/x.orc");
    encode_entries(&img, &v);
    cr_assert_eq(memcmp(img.data, "prefix", 6), 0);
    cr_assert_eq(sc_manifest_decode(&d, img.data + 6, img.len - 6, NULL, "m"), 0, "%s",
                 sc_error_message());
    assert_vec_equal(&v, &d);
    sc_buf_free(&img);
    sc_entry_vec_free(&v);
    sc_entry_vec_free(&d);
}

Test(manifest_codec, decode_appends_to_existing_vector) {
    sc_entry_vec v = {0}, d = {0};
    sc_buf img = SC_BUF_INIT;
    push_simple(&v, "data/x.orc");
    push_simple(&v, "data/y.orc");
    encode_entries(&img, &v);
    cr_assert_eq(sc_manifest_decode(&d, img.data, img.len, NULL, "m"), 0);
    cr_assert_eq(sc_manifest_decode(&d, img.data, img.len, NULL, "m"), 0);
    cr_assert_eq(d.count, 4);
    cr_assert_str_eq(d.items[3].file.file, "data/y.orc");
    sc_buf_free(&img);
    sc_entry_vec_free(&v);
    sc_entry_vec_free(&d);
}

Test(manifest_codec, encode_rejects_invalid_entries_and_leaves_buffer) {
    sc_entry_vec v = {0};
    sc_buf img = SC_BUF_INIT;
    push_simple(&v, "data/x.orc");
    push_simple(&v, "data/y.orc");
    cr_assert_eq(sc_buf_append_str(&img, "keep"), 0);
    /* Entries are public structs: a caller may damage one after the push. */
    v.items[1].file.bucket = -5;
    cr_assert_eq(sc_manifest_encode(&img, &v), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "record 1"), "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "bucket"), "%s", sc_error_message());
    cr_assert_eq(img.len, 4);
    v.items[1].file.bucket = 0;
    v.items[1].kind = (sc_entry_kind)9;
    cr_assert_eq(sc_manifest_encode(&img, &v), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "kind"), "%s", sc_error_message());
    cr_assert_eq(img.len, 4);
    v.items[1].kind = SC_ENTRY_ADD;
    sc_buf_free(&img);
    sc_entry_vec_free(&v);
}

Test(manifest_codec, encode_refuses_fields_the_default_reader_refuses) {
    sc_decode_limits lim;
    sc_decode_limits_default(&lim);
    size_t n = lim.max_field_len + 1;
    uint8_t *big = calloc(n, 1);
    cr_assert_not_null(big);
    sc_entry_vec v = {0};
    sc_buf img = SC_BUF_INIT;
    sc_file_entry f = {.partition = {big, n}, .file = "data/big.orc"};
    cr_assert_eq(sc_entry_vec_push(&v, SC_ENTRY_ADD, &f), 0);
    cr_assert_eq(sc_manifest_encode(&img, &v), SC_ELIMIT);
    cr_assert(strstr(sc_error_message(), "partition"), "%s", sc_error_message());
    cr_assert_eq(img.len, 0);
    free(big);
    sc_buf_free(&img);
    sc_entry_vec_free(&v);
}

/* ------------------------------------------------- truncation and damage */

Test(manifest_codec, truncation_at_every_length) {
    sc_entry_vec v = {0};
    sc_buf img = SC_BUF_INIT;
    for (size_t i = 0; i < 20; i++) push_random(&v, i);
    encode_entries(&img, &v);
    /* A zero-length decode must not touch the (NULL) pointer either. */
    sc_entry_vec d = {0};
    push_simple(&d, "data/keep.orc");
    cr_assert_eq(sc_manifest_decode(&d, NULL, 0, NULL, "m"), SC_ECORRUPT);
    for (size_t len = 0; len < img.len; len++) {
        /* A fresh, exact-size copy: ASan catches any read past `len`. */
        uint8_t *copy = malloc(len ? len : 1);
        cr_assert_not_null(copy);
        memcpy(copy, img.data, len);
        int rc = sc_manifest_decode(&d, copy, len, NULL, "manifest/m");
        cr_assert_eq(rc, SC_ECORRUPT, "length %zu of %zu: %s", len, img.len, sc_strerror(rc));
        cr_assert_eq(d.count, 1, "length %zu: output unchanged", len);
        free(copy);
    }
    cr_assert_str_eq(d.items[0].file.file, "data/keep.orc");
    sc_buf_free(&img);
    sc_entry_vec_free(&v);
    sc_entry_vec_free(&d);
}

Test(manifest_codec, trailing_byte_is_corrupt) {
    sc_entry_vec v = {0};
    sc_buf img = SC_BUF_INIT;
    for (size_t i = 0; i < 5; i++) push_random(&v, i);
    encode_entries(&img, &v);
    cr_assert_eq(sc_buf_append_byte(&img, 0), 0);
    expect_manifest_error(&img, NULL, SC_ECORRUPT, "body_length", "extended");
    /* A trailing byte covered by a recomputed checksum and body length is
     * still caught: the records end before the body does. */
    img.len--;
    sc_buf body = SC_BUF_INIT;
    cr_assert_eq(sc_buf_append(&body, img.data + SC_MANIFEST_HEADER_LEN,
                               img.len - SC_MANIFEST_HEADER_LEN - SC_SHA256_LEN), 0);
    cr_assert_eq(sc_buf_append_byte(&body, 0), 0);
    container(&img, SC_MANIFEST_TYPE_ENTRIES, 5, &body);
    expect_manifest_error(&img, NULL, SC_ECORRUPT, "unexpected bytes after the last record", NULL);
    sc_buf_free(&body);
    sc_buf_free(&img);
    sc_entry_vec_free(&v);
}

Test(manifest_codec, every_bit_flip_is_corrupt) {
    sc_entry_vec v = {0}, d = {0};
    sc_buf img = SC_BUF_INIT;
    push_simple(&v, "data/a.orc");
    push_random(&v, 1);
    push_random(&v, 2);
    encode_entries(&img, &v);
    for (size_t byte = 0; byte < img.len; byte++) {
        for (int bit = 0; bit < 8; bit++) {
            img.data[byte] ^= (uint8_t)(1u << bit);
            int rc = sc_manifest_decode(&d, img.data, img.len, NULL, "m");
            cr_assert_eq(rc, SC_ECORRUPT, "byte %zu bit %d: %s", byte, bit, sc_error_message());
            cr_assert_eq(d.count, 0);
            img.data[byte] ^= (uint8_t)(1u << bit);
        }
    }
    cr_assert_eq(sc_manifest_decode(&d, img.data, img.len, NULL, "m"), 0);
    sc_buf_free(&img);
    sc_entry_vec_free(&v);
    sc_entry_vec_free(&d);
}

Test(manifest_codec, header_errors_have_specific_messages) {
    sc_entry_vec v = {0};
    sc_buf img = SC_BUF_INIT;
    push_simple(&v, "data/a.orc");
    encode_entries(&img, &v);

    img.data[0] = 'X';
    expect_manifest_error(&img, NULL, SC_ECORRUPT, "bad magic", NULL);
    img.data[0] = 'S';

    img.data[5] = 7;
    expect_manifest_error(&img, NULL, SC_ECORRUPT, "unsupported container version 7", NULL);
    img.data[5] = 1;

    img.data[7] = 2; /* a manifest list, per the header: re-hashed so only the type is wrong */
    rehash(img.data, img.len);
    expect_manifest_error(&img, NULL, SC_ECORRUPT, "container type 2", NULL);
    img.data[7] = 1;
    rehash(img.data, img.len);

    img.data[img.len - 1] ^= 1;
    expect_manifest_error(&img, NULL, SC_ECORRUPT, "checksum mismatch", NULL);
    img.data[img.len - 1] ^= 1;

    img.data[SC_MANIFEST_HEADER_LEN] ^= 1; /* first body byte: the checksum catches it */
    expect_manifest_error(&img, NULL, SC_ECORRUPT, "checksum mismatch", NULL);
    img.data[SC_MANIFEST_HEADER_LEN] ^= 1;

    sc_buf_free(&img);
    sc_entry_vec_free(&v);
}

/* ---------------------------------------- crafted, behind a valid checksum */

Test(manifest_codec, crafted_bad_kind) {
    const uint8_t raw[] = {3};
    expect_crafted("kind", raw, sizeof raw, SC_ECORRUPT, "field kind", "kind 3");
}

Test(manifest_codec, crafted_non_canonical_varint) {
    const uint8_t raw[] = {0x83, 0x00}; /* 3 with a redundant zero group */
    expect_crafted("bucket", raw, sizeof raw, SC_ECORRUPT, "field bucket", "non-canonical");
    const uint8_t len_raw[] = {0x81, 0x80, 0x00, 'p'}; /* in a length prefix too */
    expect_crafted("partition", len_raw, sizeof len_raw, SC_ECORRUPT, "field partition",
                   "non-canonical");
}

Test(manifest_codec, crafted_varint_overflow) {
    const uint8_t ten[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    expect_crafted("rows", ten, sizeof ten, SC_ECORRUPT, "field rows", "overflows 64 bits");
    const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    expect_crafted("size", eleven, sizeof eleven, SC_ECORRUPT, "field size", "overflows");
    /* 2^63 is a valid varint but not an int64_t. */
    const uint8_t big[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    expect_crafted("size", big, sizeof big, SC_ECORRUPT, "field size", "out of range");
}

Test(manifest_codec, crafted_bucket_out_of_int32_range) {
    const uint8_t raw[] = {0x80, 0x80, 0x80, 0x80, 0x10}; /* 2^32 */
    expect_crafted("bucket", raw, sizeof raw, SC_ECORRUPT, "bucket 4294967296 out of range", NULL);
    const uint8_t raw2[] = {0x80, 0x80, 0x80, 0x80, 0x08}; /* 2^31 */
    /* 2^31 is the stopgap's -1 (bucket-unaware); one more is out of range. */
    const uint8_t raw3[] = {0x81, 0x80, 0x80, 0x80, 0x08}; /* 2^31 + 1 */
    expect_crafted("total_buckets", raw3, sizeof raw3, SC_ECORRUPT, "field total_buckets",
                   "out of range");
    expect_crafted("level", raw2, sizeof raw2, SC_ECORRUPT, "field level", "out of range");
}

Test(manifest_codec, crafted_field_longer_than_limit) {
    sc_buf body = SC_BUF_INIT, img = SC_BUF_INIT;
    const uint8_t raw[] = {10, 'p', 'p', 'p', 'p', 'p', 'p', 'p', 'p', 'p', 'p'};
    craft_record(&body, "data/f.orc", "partition", raw, sizeof raw);
    container(&img, SC_MANIFEST_TYPE_ENTRIES, 1, &body);
    sc_decode_limits lim;
    sc_decode_limits_default(&lim);
    lim.max_field_len = 4;
    expect_manifest_error(&img, &lim, SC_ELIMIT, "field partition", "field limit");
    sc_buf_free(&body);
    sc_buf_free(&img);
    /* A length running past the body is corruption, whatever the limit. */
    const uint8_t past[] = {0x7f, 'k'};
    expect_crafted("max_key", past, sizeof past, SC_ECORRUPT, "field max_key", "truncated at byte");
}

Test(manifest_codec, crafted_entry_count) {
    sc_buf body = SC_BUF_INIT, img = SC_BUF_INIT;
    for (int i = 0; i < 3; i++) craft_record(&body, "data/f.orc", NULL, NULL, 0);
    /* Claims more records than the body can hold. */
    container(&img, SC_MANIFEST_TYPE_ENTRIES, 1000, &body);
    expect_manifest_error(&img, NULL, SC_ECORRUPT, "field count", "cannot fit");
    /* Plausible but more than present: truncated inside a record. */
    container(&img, SC_MANIFEST_TYPE_ENTRIES, 4, &body);
    expect_manifest_error(&img, NULL, SC_ECORRUPT, "record 3, field kind", "truncated at byte");
    /* Above the reader's limit. */
    container(&img, SC_MANIFEST_TYPE_ENTRIES, 3, &body);
    sc_decode_limits lim;
    sc_decode_limits_default(&lim);
    lim.max_entries = 2;
    expect_manifest_error(&img, &lim, SC_ELIMIT, "entry count 3", "limit");
    sc_buf_free(&body);
    sc_buf_free(&img);
}

Test(manifest_codec, crafted_bad_file_names) {
    const char *bad[] = {"../x", "data/../x", "/abs", "./x", "a//b", "a/", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_buf raw = SC_BUF_INIT;
        cr_assert_eq(sc_buf_append_lenbytes(&raw, (const uint8_t *)bad[i], strlen(bad[i])), 0);
        expect_crafted("file", raw.data, raw.len, SC_ECORRUPT, "file", NULL);
        sc_buf_free(&raw);
    }
    const uint8_t nul[] = {3, 'a', 0, 'b'};
    expect_crafted("file", nul, sizeof nul, SC_ECORRUPT, "field file", "NUL");
    const uint8_t dotdot[] = {4, '.', '.', '/', 'x'};
    expect_crafted("file", dotdot, sizeof dotdot, SC_ECORRUPT, "file \"../x\"", "\"..\" segment");
}

Test(manifest_codec, crafted_flags_and_keys) {
    const uint8_t flags[] = {0x03};
    expect_crafted("flags", flags, sizeof flags, SC_ECORRUPT, "field flags", "unknown bits");
    const uint8_t big_min[] = {1, 'z'}; /* min "z" > max "b" */
    expect_crafted("min_key", big_min, sizeof big_min, SC_ECORRUPT, "min_key", "greater than max_key");
}

Test(manifest_codec, crafted_failure_in_later_record_rolls_back) {
    sc_buf body = SC_BUF_INIT, img = SC_BUF_INIT;
    const uint8_t kind[] = {0};
    craft_record(&body, "data/0.orc", NULL, NULL, 0);
    craft_record(&body, "data/1.orc", NULL, NULL, 0);
    craft_record(&body, "data/2.orc", "kind", kind, sizeof kind);
    container(&img, SC_MANIFEST_TYPE_ENTRIES, 3, &body);
    expect_manifest_error(&img, NULL, SC_ECORRUPT, "record 2, field kind", "kind 0");
    sc_buf_free(&body);
    sc_buf_free(&img);
}

/* ------------------------------------------------------------------ limits */

Test(manifest_codec, limits_on_well_formed_manifest) {
    sc_entry_vec v = {0}, d = {0};
    sc_buf img = SC_BUF_INIT;
    for (size_t i = 0; i < 10; i++) push_random(&v, i);
    encode_entries(&img, &v);
    sc_decode_limits lim;
    sc_decode_limits_default(&lim);
    lim.max_entries = 9;
    expect_manifest_error(&img, &lim, SC_ELIMIT, "entry count 10", NULL);
    lim.max_entries = 10;
    cr_assert_eq(sc_manifest_decode(&d, img.data, img.len, &lim, "m"), 0, "%s", sc_error_message());
    cr_assert_eq(d.count, 10);
    sc_decode_limits_default(&lim);
    lim.max_object_len = img.len - 1;
    expect_manifest_error(&img, &lim, SC_ELIMIT, "object limit", NULL);
    sc_buf_free(&img);
    sc_entry_vec_free(&v);
    sc_entry_vec_free(&d);
}

Test(manifest_codec, default_limits) {
    sc_decode_limits lim;
    sc_decode_limits_default(&lim);
    cr_assert_eq(lim.max_entries, 16777216);
    cr_assert_eq(lim.max_field_len, 65536);
    cr_assert_eq(lim.max_object_len, (size_t)1 << 30);
}

/* ----------------------------------------------------------- manifest lists */

static void fill_metas(sc_meta_vec *m) {
    push_meta(m, "manifest/manifest-0f8e", "a", "m", 1);
    push_meta(m, "manifest/manifest-77aa", NULL, NULL, 7); /* empty partitions */
    push_meta(m, "manifest/manifest-x", "\xff", "\xff\xff", 3);
}

static void assert_meta_equal(const sc_manifest_meta *a, const sc_manifest_meta *b) {
    cr_assert_str_eq(a->name, b->name);
    cr_assert_eq(memcmp(a->sha256, b->sha256, SC_SHA256_LEN), 0);
    cr_assert_eq(a->length, b->length);
    cr_assert_eq(a->added, b->added);
    cr_assert_eq(a->deleted, b->deleted);
    cr_assert_eq(a->min_partition_len, b->min_partition_len);
    cr_assert_eq(a->max_partition_len, b->max_partition_len);
    cr_assert_eq(memcmp(a->min_partition, b->min_partition, a->min_partition_len), 0);
    cr_assert_eq(memcmp(a->max_partition, b->max_partition, a->max_partition_len), 0);
}

Test(manifest_list, roundtrip) {
    sc_meta_vec m = {0}, d = {0};
    sc_buf img = SC_BUF_INIT, again = SC_BUF_INIT;
    fill_metas(&m);
    cr_assert_eq(sc_manifest_list_encode(&img, &m), 0, "%s", sc_error_message());
    cr_assert_eq(sc_manifest_list_decode(&d, img.data, img.len, NULL, "manifest/list-1"), 0, "%s",
                 sc_error_message());
    cr_assert_eq(d.count, m.count);
    for (size_t i = 0; i < m.count; i++) assert_meta_equal(&m.items[i], &d.items[i]);
    cr_assert_eq(d.items[1].deleted, UINT64_MAX);
    cr_assert_eq(sc_manifest_list_encode(&again, &d), 0);
    cr_assert_eq(again.len, img.len);
    cr_assert_eq(memcmp(again.data, img.data, img.len), 0);
    sc_buf_free(&img);
    sc_buf_free(&again);
    sc_meta_vec_free(&m);
    sc_meta_vec_free(&d);
}

Test(manifest_list, roundtrip_empty) {
    sc_meta_vec m = {0}, d = {0};
    sc_buf img = SC_BUF_INIT;
    cr_assert_eq(sc_manifest_list_encode(&img, &m), 0);
    cr_assert_eq(sc_manifest_list_decode(&d, img.data, img.len, NULL, NULL), 0);
    cr_assert_eq(d.count, 0);
    sc_buf_free(&img);
}

Test(manifest_list, truncation_trailing_and_flips) {
    sc_meta_vec m = {0}, d = {0};
    sc_buf img = SC_BUF_INIT;
    fill_metas(&m);
    cr_assert_eq(sc_manifest_list_encode(&img, &m), 0);
    push_meta(&d, "manifest/keep", NULL, NULL, 2);
    for (size_t len = 0; len < img.len; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        cr_assert_not_null(copy);
        memcpy(copy, img.data, len);
        cr_assert_eq(sc_manifest_list_decode(&d, copy, len, NULL, "l"), SC_ECORRUPT, "length %zu", len);
        cr_assert_eq(d.count, 1);
        free(copy);
    }
    cr_assert_eq(sc_buf_append_byte(&img, 0xff), 0);
    cr_assert_eq(sc_manifest_list_decode(&d, img.data, img.len, NULL, "l"), SC_ECORRUPT);
    img.len--;
    for (size_t byte = 0; byte < img.len; byte++)
        for (int bit = 0; bit < 8; bit++) {
            img.data[byte] ^= (uint8_t)(1u << bit);
            cr_assert_eq(sc_manifest_list_decode(&d, img.data, img.len, NULL, "l"), SC_ECORRUPT,
                         "byte %zu bit %d", byte, bit);
            img.data[byte] ^= (uint8_t)(1u << bit);
        }
    cr_assert_eq(d.count, 1);
    cr_assert_str_eq(d.items[0].name, "manifest/keep");
    sc_buf_free(&img);
    sc_meta_vec_free(&m);
    sc_meta_vec_free(&d);
}

Test(manifest_list, crafted_errors) {
    sc_buf body = SC_BUF_INIT, img = SC_BUF_INIT;
    sc_meta_vec d = {0};
    uint8_t sha[SC_SHA256_LEN] = {0};
    /* name "../x" */
    cr_assert_eq(sc_buf_append_lenbytes(&body, (const uint8_t *)"../x", 4), 0);
    cr_assert_eq(sc_buf_append(&body, sha, sizeof sha), 0);
    for (int i = 0; i < 3; i++) cr_assert_eq(sc_buf_append_varint(&body, 1), 0);
    cr_assert_eq(sc_buf_append_lenbytes(&body, NULL, 0), 0);
    cr_assert_eq(sc_buf_append_lenbytes(&body, NULL, 0), 0);
    container(&img, SC_MANIFEST_TYPE_LIST, 1, &body);
    cr_assert_eq(sc_manifest_list_decode(&d, img.data, img.len, NULL, "manifest/list-x"), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "name \"../x\""), "%s", sc_error_message());
    cr_assert(strstr(sc_error_message(), "manifest/list-x: record 0"), "%s", sc_error_message());
    /* A list is not a manifest, and the other way round. */
    cr_assert_eq(sc_manifest_decode(&(sc_entry_vec){0}, img.data, img.len, NULL, "x"), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "container type 2"), "%s", sc_error_message());
    /* min_partition > max_partition */
    body.len = 0;
    cr_assert_eq(sc_buf_append_lenbytes(&body, (const uint8_t *)"manifest/m", 10), 0);
    cr_assert_eq(sc_buf_append(&body, sha, sizeof sha), 0);
    for (int i = 0; i < 3; i++) cr_assert_eq(sc_buf_append_varint(&body, 1), 0);
    cr_assert_eq(sc_buf_append_lenbytes(&body, (const uint8_t *)"b", 1), 0);
    cr_assert_eq(sc_buf_append_lenbytes(&body, (const uint8_t *)"a", 1), 0);
    container(&img, SC_MANIFEST_TYPE_LIST, 1, &body);
    cr_assert_eq(sc_manifest_list_decode(&d, img.data, img.len, NULL, "l"), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "min_partition"), "%s", sc_error_message());
    /* sha256 cut short by the end of the body */
    body.len = 0;
    cr_assert_eq(sc_buf_append_lenbytes(&body, (const uint8_t *)"manifest/m", 10), 0);
    cr_assert_eq(sc_buf_append(&body, sha, 30), 0);
    container(&img, SC_MANIFEST_TYPE_LIST, 0, &body);
    cr_assert_eq(sc_manifest_list_decode(&d, img.data, img.len, NULL, "l"), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "unexpected bytes"), "%s", sc_error_message());
    cr_assert_eq(d.count, 0);
    sc_buf_free(&body);
    sc_buf_free(&img);
}

Test(manifest_list, push_validates) {
    sc_meta_vec v = {0};
    sc_manifest_meta m;
    memset(&m, 0, sizeof m);
    cr_assert_eq(sc_meta_vec_push(&v, &m), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "name"), "%s", sc_error_message());
    m.name = "manifest/a";
    m.min_partition_len = 3;
    cr_assert_eq(sc_meta_vec_push(&v, &m), SC_EINVAL);
    cr_assert(strstr(sc_error_message(), "min_partition"), "%s", sc_error_message());
    cr_assert_eq(v.count, 0);
    sc_meta_vec_free(&v);
    sc_meta_vec_free(NULL);
}

/* -------------------------------------------------------------- validation */

static sc_file_entry valid_entry(void) {
    return (sc_file_entry){.partition = {(const uint8_t *)"p", 1}, .bucket = 0, .total_buckets = 1,
                           .level = 0, .file = "data/f.orc", .rows = 1, .size = 1};
}

static void expect_invalid(const sc_file_entry *f, const char *field) {
    cr_assert_eq(sc_file_entry_validate(f), SC_EINVAL, "expected %s to be rejected", field);
    cr_assert(strstr(sc_error_message(), field), "message names %s: %s", field, sc_error_message());
    sc_entry_vec v = {0};
    cr_assert_eq(sc_entry_vec_push(&v, SC_ENTRY_ADD, f), SC_EINVAL, "push validates too");
    cr_assert_eq(v.count, 0);
    sc_entry_vec_free(&v);
}

Test(validate, accepts_valid_entries) {
    sc_file_entry f = valid_entry();
    cr_assert_eq(sc_file_entry_validate(&f), 0);
    f.partition = (sc_bytes){NULL, 0};
    f.min_key = (sc_bytes){(const uint8_t *)"", 0};
    f.max_key = (sc_bytes){(const uint8_t *)"", 0};
    cr_assert_eq(sc_file_entry_validate(&f), 0, "empty keys equal");
    f.file = "a..b/c...d/.hidden/x..";
    cr_assert_eq(sc_file_entry_validate(&f), 0, "dots inside names are fine: %s", sc_error_message());
    char longest[SC_MANIFEST_PATH_MAX + 1];
    memset(longest, 'x', SC_MANIFEST_PATH_MAX);
    longest[SC_MANIFEST_PATH_MAX] = '\0';
    f.file = longest;
    cr_assert_eq(sc_file_entry_validate(&f), 0);
}

Test(validate, rejects_each_field) {
    sc_file_entry f;
    f = valid_entry(), f.bucket = -1, expect_invalid(&f, "bucket");
    f = valid_entry(), f.total_buckets = -2, expect_invalid(&f, "total_buckets");
    f = valid_entry(), f.level = -1, expect_invalid(&f, "level");
    f = valid_entry(), f.rows = -1, expect_invalid(&f, "rows");
    f = valid_entry(), f.size = INT64_MIN, expect_invalid(&f, "size");
    f = valid_entry(), f.partition = (sc_bytes){NULL, 2}, expect_invalid(&f, "partition");
    cr_assert_eq(sc_file_entry_validate(NULL), SC_EINVAL);
}

Test(validate, rejects_bad_file_names) {
    const char *bad[] = {"", "/data/x", "../x", "data/../x", "data/..", "..", "./x", "a/./b",
                         "a//b", "a/", "/"};
    sc_file_entry f = valid_entry();
    f.file = NULL;
    expect_invalid(&f, "file");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f.file = bad[i];
        expect_invalid(&f, "file");
    }
    char toolong[SC_MANIFEST_PATH_MAX + 2];
    memset(toolong, 'x', sizeof toolong - 1);
    toolong[sizeof toolong - 1] = '\0';
    f.file = toolong;
    expect_invalid(&f, "file");
}

Test(validate, rejects_bad_keys) {
    sc_file_entry f = valid_entry();
    f.min_key = (sc_bytes){(const uint8_t *)"a", 1};
    expect_invalid(&f, "min_key");
    f = valid_entry();
    f.max_key = (sc_bytes){(const uint8_t *)"a", 1};
    expect_invalid(&f, "max_key");
    f = valid_entry();
    f.min_key = (sc_bytes){(const uint8_t *)"b", 1};
    f.max_key = (sc_bytes){(const uint8_t *)"a", 1};
    expect_invalid(&f, "min_key");
    f.min_key = (sc_bytes){(const uint8_t *)"ab", 2};
    f.max_key = (sc_bytes){(const uint8_t *)"a", 1};
    expect_invalid(&f, "min_key");
    f.min_key = (sc_bytes){NULL, 1};
    expect_invalid(&f, "min_key");
    f = valid_entry();
    cr_assert_eq(sc_entry_vec_push(&(sc_entry_vec){0}, (sc_entry_kind)0, &f), SC_EINVAL);
}

Test(validate, bytes_compare) {
    sc_bytes absent = {NULL, 0}, empty = {(const uint8_t *)"", 0};
    sc_bytes a = {(const uint8_t *)"a", 1}, ab = {(const uint8_t *)"ab", 2};
    sc_bytes ff = {(const uint8_t *)"\xff", 1}, zero = {(const uint8_t *)"\0", 1};
    cr_assert_eq(sc_bytes_compare(absent, absent), 0);
    cr_assert_lt(sc_bytes_compare(absent, empty), 0);
    cr_assert_gt(sc_bytes_compare(empty, absent), 0);
    cr_assert_lt(sc_bytes_compare(empty, zero), 0);
    cr_assert_lt(sc_bytes_compare(a, ab), 0);
    cr_assert_gt(sc_bytes_compare(ab, a), 0);
    cr_assert_lt(sc_bytes_compare(a, ff), 0, "bytes compare unsigned");
    cr_assert_lt(sc_bytes_compare(zero, a), 0);
    cr_assert_eq(sc_bytes_compare(ab, (sc_bytes){(const uint8_t *)"ab", 2}), 0);
}

/* ----------------------------------------------------------- fuzz corpus */

static int corpus_dir(char *out, size_t size) {
    const char *src = getenv("SC_SOURCE_DIR");
    if (src && *src) return snprintf(out, size, "%s/fuzz/corpus/manifest", src) < (int)size;
    /* Beside this file: __FILE__ is absolute under CMake, relative to the
     * source root when compiled by hand from there. */
    const char *file = __FILE__;
    const char *slash = strrchr(file, '/');
    if (!slash) return snprintf(out, size, "../fuzz/corpus/manifest") < (int)size;
    return snprintf(out, size, "%.*s/../fuzz/corpus/manifest", (int)(slash - file), file) < (int)size;
}

static uint8_t *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    sc_buf b = SC_BUF_INIT;
    uint8_t chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) cr_assert_eq(sc_buf_append(&b, chunk, n), 0);
    fclose(f);
    *len = b.len;
    return b.data ? b.data : calloc(1, 1);
}

/* Both decoders on `data`: only CORRUPT or LIMIT, and a successful decode
 * re-encodes to exactly the same bytes. Returns which decoder accepted it. */
static int run_both(const uint8_t *data, size_t len, const char *name) {
    int accepted = 0;
    sc_entry_vec e = {0};
    int rc = sc_manifest_decode(&e, data, len, NULL, name);
    cr_assert(rc == 0 || rc == SC_ECORRUPT || rc == SC_ELIMIT, "%s: %s", name, sc_error_name(rc));
    if (rc == 0) {
        sc_buf again = SC_BUF_INIT;
        cr_assert_eq(sc_manifest_encode(&again, &e), 0);
        cr_assert(again.len == len && memcmp(again.data, data, len) == 0, "%s re-encodes", name);
        sc_buf_free(&again);
        accepted |= 1;
    } else {
        cr_assert_eq(e.count, 0);
    }
    sc_entry_vec_free(&e);
    sc_meta_vec m = {0};
    rc = sc_manifest_list_decode(&m, data, len, NULL, name);
    cr_assert(rc == 0 || rc == SC_ECORRUPT || rc == SC_ELIMIT, "%s: %s", name, sc_error_name(rc));
    if (rc == 0) {
        sc_buf again = SC_BUF_INIT;
        cr_assert_eq(sc_manifest_list_encode(&again, &m), 0);
        cr_assert(again.len == len && memcmp(again.data, data, len) == 0, "%s re-encodes", name);
        sc_buf_free(&again);
        accepted |= 2;
    } else {
        cr_assert_eq(m.count, 0);
    }
    sc_meta_vec_free(&m);
    return accepted;
}

Test(corpus, every_seed_through_both_decoders) {
    char dir[4096];
    cr_assert(corpus_dir(dir, sizeof dir), "corpus path too long");
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "corpus %s: %s (set SC_SOURCE_DIR to the source root)", dir, strerror(errno));
    int files = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        size_t len;
        uint8_t *data = read_all(path, &len);
        int accepted = run_both(data, len, de->d_name);
        /* Seeds named for their type must stay readable: the format must not drift. */
        if (strncmp(de->d_name, "manifest-", 9) == 0) cr_assert_eq(accepted, 1, "%s", de->d_name);
        if (strncmp(de->d_name, "list-", 5) == 0) cr_assert_eq(accepted, 2, "%s", de->d_name);
        if (strncmp(de->d_name, "bad-", 4) == 0) cr_assert_eq(accepted, 0, "%s", de->d_name);
        /* As the fuzz target does: repair length and checksum so the record
         * parser sees the bytes too. */
        if (len >= SC_MANIFEST_HEADER_LEN + SC_SHA256_LEN) {
            uint64_t body = len - SC_MANIFEST_HEADER_LEN - SC_SHA256_LEN;
            for (int i = 0; i < 8; i++) data[12 + i] = (uint8_t)(body >> (56 - 8 * i));
            rehash(data, len);
            run_both(data, len, de->d_name);
        }
        free(data);
        files++;
    }
    closedir(d);
    cr_assert_geq(files, 4, "corpus %s holds only %d files", dir, files);
}
