/*
 * The head record codec against independent vectors: the literals below were
 * computed by tests/vectors/head_vectors.py (Python struct + hashlib only).
 */
#include "sc_test_util.h"

#include "base/hash.h"
#include "format/head_record.h"

/* ---- vectors (generated; do not edit by hand) ---- */
static const uint8_t VEC_A[256] = {
    0x53, 0x43, 0x48, 0x45, 0x41, 0x44, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
    0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x49, 0x68, 0x87, 0x76, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0,
    0x82, 0xd9, 0xff, 0xd2, 0x69, 0xec, 0x81, 0xad, 0xab, 0x42, 0x8e, 0x64, 0xd8, 0x29, 0xe5, 0xc8,
    0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x43, 0x33, 0x84, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x67, 0x06, 0x01, 0xf0, 0xea, 0x13, 0x02, 0x97,
    0x08, 0x03, 0xf6, 0x6f, 0x75, 0xdc, 0x0c, 0x3e, 0xa9, 0x15, 0x88, 0x38, 0x02, 0x5c, 0xb7, 0xee,
    0x94, 0x57, 0x5d, 0x24, 0x9c, 0x73, 0x7a, 0xd5, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x8a, 0x48, 0x75, 0x2a, 0x47, 0x9a, 0x86, 0x6c, 0xb8, 0x6f, 0x8e, 0x95, 0x6a, 0x9f, 0xa4, 0x84,
    0x06, 0x8f, 0x6d, 0xdd, 0x44, 0xe0, 0xcb, 0x06, 0x23, 0x6b, 0x19, 0x1e, 0x2a, 0xf6, 0x67, 0x26,
};
/* VEC_A: footer 8a48752a479a866cb86f8e956a9fa484068f6ddd44e0cb06236b191e2af66726, complete SHA-256 7711c17a17a2f17d3ee831b5b17d621cb367e2d486ed7d3cf989d1bcfedca279 */
static const uint8_t VEC_B[256] = {
    0x53, 0x43, 0x48, 0x45, 0x41, 0x44, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
    0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x49, 0x68, 0x87, 0x76, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0,
    0x82, 0xd9, 0xff, 0xd2, 0x69, 0xec, 0x81, 0xad, 0xab, 0x42, 0x8e, 0x64, 0xd8, 0x29, 0xe5, 0xc8,
    0x66, 0x66, 0x66, 0x66, 0x77, 0x77, 0x48, 0x88, 0x99, 0x99, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xf8, 0x3d, 0xeb, 0x0a, 0x0b, 0x7a, 0x61, 0x49,
    0x3b, 0x71, 0xc7, 0x68, 0xf4, 0xeb, 0x3b, 0x6c, 0xa5, 0xc1, 0x40, 0x08, 0x32, 0x6f, 0x59, 0xa0,
    0xab, 0x89, 0x39, 0xe8, 0xb4, 0xa0, 0x23, 0x36, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x22,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x77, 0x11, 0xc1, 0x7a, 0x17, 0xa2, 0xf1, 0x7d,
    0x3e, 0xe8, 0x31, 0xb5, 0xb1, 0x7d, 0x62, 0x1c, 0xb3, 0x67, 0xe2, 0xd4, 0x86, 0xed, 0x7d, 0x3c,
    0xf9, 0x89, 0xd1, 0xbc, 0xfe, 0xdc, 0xa2, 0x79, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xb4, 0x6c, 0x86, 0x32, 0xd2, 0xe1, 0x29, 0x44, 0xe5, 0xf7, 0x8a, 0x5b, 0x1b, 0x42, 0xa9, 0x87,
    0xcd, 0xeb, 0x15, 0x7c, 0xa5, 0x81, 0x93, 0x31, 0xb5, 0xb5, 0x54, 0x19, 0xd1, 0xcc, 0x89, 0x33,
};
/* VEC_B: footer b46c8632d2e12944e5f78a5b1b42a987cdeb157ca5819331b5b55419d1cc8933, complete SHA-256 96cfd59aaf70a442366cdc3045a28b87ecd6640ffabf7125b6c073ec4b3c23bb */
static const uint8_t VEC_C[256] = {
    0x53, 0x43, 0x48, 0x45, 0x41, 0x44, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
    0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x49, 0x68, 0x87, 0x76, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0,
    0xda, 0xe9, 0x06, 0x7e, 0xe1, 0x9a, 0x8e, 0x34, 0xa7, 0xe0, 0xb0, 0xdd, 0x34, 0xc2, 0xb2, 0x99,
    0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x43, 0x21, 0x8f, 0xed, 0xcb, 0xa9, 0x87, 0x65, 0x43, 0x21,
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
    0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
    0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x96, 0xcf, 0xd5, 0x9a, 0xaf, 0x70, 0xa4, 0x42,
    0x36, 0x6c, 0xdc, 0x30, 0x45, 0xa2, 0x8b, 0x87, 0xec, 0xd6, 0x64, 0x0f, 0xfa, 0xbf, 0x71, 0x25,
    0xb6, 0xc0, 0x73, 0xec, 0x4b, 0x3c, 0x23, 0xbb, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x0d, 0x9f, 0x03, 0x6b, 0x2b, 0x22, 0xb1, 0x9a, 0xd5, 0xf2, 0xb9, 0xa4, 0x08, 0xe3, 0xf9, 0x75,
    0x18, 0x26, 0x01, 0x88, 0x9c, 0x73, 0x36, 0x74, 0xa4, 0x13, 0x04, 0x8d, 0xf2, 0x64, 0x16, 0x49,
};
/* VEC_C: footer 0d9f036b2b22b19ad5f2b9a408e3f975182601889c733674a413048df2641649, complete SHA-256 5f08634924a6de13211eef6edf61dad79e72650dfbdd153bdbe285366d49b2cf */
/* publisher('flink-job-a') = 82d9ffd2-69ec-81ad-ab42-8e64d829e5c8 */
/* publisher('compactor ü') = dae9067e-e19a-8e34-a7e0-b0dd34c2b299 */
/* sha256(SNAP1) = 670601f0ea1302970803f66f75dc0c3ea9158838025cb7ee94575d249c737ad5 len 20 */
/* sha256(SNAP2) = f83deb0a0b7a61493b71c768f4eb3b6ca5c14008326f59a0ab8939e8b4a02336 len 34 */

/* ---- the fixed records, field by field, as the generator built them ---- */

#define TABLE_UUID "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"

static void hex32(uint8_t out[32], const char *hex) { cr_assert_eq(sc_hex_decode(out, 32, hex), 0); }
static void uuid16(uint8_t out[16], const char *text) { cr_assert_eq(sc_uuid_parse(out, text), 0, "%s", text); }

static sc_head_record rec_a(void) {
    sc_head_record r;
    memset(&r, 0, sizeof r);
    uuid16(r.table_uuid, TABLE_UUID);
    sc_head_publisher_uuid(r.publisher_uuid, "flink-job-a");
    uuid16(r.publication_uuid, "11111111-2222-4333-8444-555555555555");
    r.revision = 1;
    hex32(r.snapshot_sha256, "670601f0ea1302970803f66f75dc0c3ea9158838025cb7ee94575d249c737ad5");
    r.snapshot_length = 20;
    r.commit_identifier = 1;
    return r;
}

static sc_head_record rec_b(void) {
    sc_head_record r;
    memset(&r, 0, sizeof r);
    uuid16(r.table_uuid, TABLE_UUID);
    sc_head_publisher_uuid(r.publisher_uuid, "flink-job-a");
    uuid16(r.publication_uuid, "66666666-7777-4888-9999-aaaaaaaaaaaa");
    r.revision = 2;
    hex32(r.snapshot_sha256, "f83deb0a0b7a61493b71c768f4eb3b6ca5c14008326f59a0ab8939e8b4a02336");
    r.snapshot_length = 34;
    r.commit_identifier = 2;
    r.has_predecessor = 1;
    hex32(r.predecessor_sha256, "7711c17a17a2f17d3ee831b5b17d621cb367e2d486ed7d3cf989d1bcfedca279");
    r.predecessor_length = 256;
    return r;
}

static sc_head_record rec_c(void) {
    sc_head_record r;
    memset(&r, 0, sizeof r);
    uuid16(r.table_uuid, TABLE_UUID);
    sc_head_publisher_uuid(r.publisher_uuid, "compactor \xc3\xbc");
    uuid16(r.publication_uuid, "fedcba98-7654-4321-8fed-cba987654321");
    r.revision = (uint64_t)INT64_MAX;
    for (int i = 0; i < 32; i++) r.snapshot_sha256[i] = (uint8_t)i;
    r.snapshot_length = 64u << 20;
    r.commit_identifier = INT64_MAX;
    r.has_predecessor = 1;
    hex32(r.predecessor_sha256, "96cfd59aaf70a442366cdc3045a28b87ecd6640ffabf7125b6c073ec4b3c23bb");
    r.predecessor_length = 256;
    return r;
}

typedef struct vec {
    const char *name;
    const uint8_t *bytes;
    sc_head_record (*build)(void);
    const char *complete_sha256;
} vec;

static const vec VECS[] = {
    {"A", VEC_A, rec_a, "7711c17a17a2f17d3ee831b5b17d621cb367e2d486ed7d3cf989d1bcfedca279"},
    {"B", VEC_B, rec_b, "96cfd59aaf70a442366cdc3045a28b87ecd6640ffabf7125b6c073ec4b3c23bb"},
    {"C", VEC_C, rec_c, "5f08634924a6de13211eef6edf61dad79e72650dfbdd153bdbe285366d49b2cf"},
};
#define NVECS (sizeof VECS / sizeof VECS[0])

static int records_equal(const sc_head_record *a, const sc_head_record *b) {
    return memcmp(a->table_uuid, b->table_uuid, 16) == 0 && memcmp(a->publisher_uuid, b->publisher_uuid, 16) == 0 &&
           memcmp(a->publication_uuid, b->publication_uuid, 16) == 0 && a->revision == b->revision &&
           memcmp(a->snapshot_sha256, b->snapshot_sha256, 32) == 0 && a->snapshot_length == b->snapshot_length &&
           a->commit_identifier == b->commit_identifier && a->has_predecessor == b->has_predecessor &&
           memcmp(a->predecessor_sha256, b->predecessor_sha256, 32) == 0 &&
           a->predecessor_length == b->predecessor_length;
}

/* Start from a copy of a vector; after mutating a field, reseal() recomputes the
 * footer so that only the field check can fire. */
static void resealed(uint8_t out[256], const uint8_t *v) { memcpy(out, v, 256); }
static void reseal(uint8_t buf[256]) { sc_sha256(buf + 224, buf, 224); }

static void expect_corrupt(const uint8_t *buf, size_t len, const char *field, const char *offset) {
    sc_head_record r;
    int rc = sc_head_decode(&r, buf, len, "head/CURRENT");
    cr_assert_eq(rc, SC_ECORRUPT, "expected SC_ECORRUPT for %s, got %s", field, sc_error_name(rc));
    const char *m = sc_error_message();
    cr_assert(strstr(m, "head/CURRENT"), "message must name the object: %s", m);
    if (field) cr_assert(strstr(m, field), "message must name field %s: %s", field, m);
    if (offset) cr_assert(strstr(m, offset), "message must name offset %s: %s", offset, m);
}

/* ---- encoding and decoding the vectors ---- */

Test(head_record, encode_equals_the_python_vectors) {
    for (size_t i = 0; i < NVECS; i++) {
        sc_head_record r = VECS[i].build();
        uint8_t out[256];
        cr_assert_eq(sc_head_encode(out, &r), 0, "%s: %s", VECS[i].name, sc_error_message());
        for (int b = 0; b < 256; b++)
            cr_assert_eq(out[b], VECS[i].bytes[b], "vector %s differs at byte %d: %02x != %02x", VECS[i].name, b,
                         out[b], VECS[i].bytes[b]);
        uint8_t whole[32];
        char hex[65];
        sc_sha256(whole, out, 256);
        sc_hex_encode(hex, whole, 32);
        cr_assert_str_eq(hex, VECS[i].complete_sha256);
    }
}

Test(head_record, decode_round_trips) {
    for (size_t i = 0; i < NVECS; i++) {
        sc_head_record got, want = VECS[i].build();
        cr_assert_eq(sc_head_decode(&got, VECS[i].bytes, 256, "v"), 0, "%s: %s", VECS[i].name, sc_error_message());
        cr_assert(records_equal(&got, &want), "vector %s decodes to different fields", VECS[i].name);
        uint8_t again[256];
        cr_assert_eq(sc_head_encode(again, &got), 0);
        cr_assert_eq(memcmp(again, VECS[i].bytes, 256), 0, "re-encoding %s is not canonical", VECS[i].name);
    }
}

Test(head_record, chain_links_are_complete_record_hashes) {
    uint8_t h[32];
    sc_sha256(h, VEC_A, 256);
    cr_assert_eq(memcmp(VEC_B + 120, h, 32), 0, "B's predecessor is SHA-256 of all of A");
    sc_sha256(h, VEC_A, 224);
    cr_assert_eq(memcmp(VEC_A + 224, h, 32), 0, "footer covers [0,224)");
}

Test(head_record, publisher_uuid_is_the_documented_derivation) {
    uint8_t u[16];
    char text[37];
    sc_head_publisher_uuid(u, "flink-job-a");
    sc_uuid_format(text, u);
    cr_assert_str_eq(text, "82d9ffd2-69ec-81ad-ab42-8e64d829e5c8");
    sc_head_publisher_uuid(u, "compactor \xc3\xbc");
    sc_uuid_format(text, u);
    cr_assert_str_eq(text, "dae9067e-e19a-8e34-a7e0-b0dd34c2b299");
    cr_assert_eq(u[6] >> 4, 8, "version 8");
    cr_assert_eq(u[8] >> 6, 2, "variant 10");
}

Test(head_record, uuid_text_parsing) {
    uint8_t u[16];
    char text[37];
    cr_assert_eq(sc_uuid_parse(u, "0F1E2D3C-4b5a-4968-8776-a5b4c3d2e1f0"), 0);
    sc_uuid_format(text, u);
    cr_assert_str_eq(text, TABLE_UUID);
    cr_assert_eq(sc_uuid_parse(u, "0f1e2d3c4b5a-4968-8776-a5b4c3d2e1f0--"), SC_EINVAL);
    cr_assert_eq(sc_uuid_parse(u, "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f"), SC_EINVAL);
    cr_assert_eq(sc_uuid_parse(u, "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1fg"), SC_EINVAL);
    cr_assert_eq(sc_uuid_parse(u, NULL), SC_EINVAL);
}

/* ---- lengths ---- */

Test(head_record, every_other_length_is_rejected) {
    uint8_t big[257];
    memcpy(big, VEC_A, 256);
    big[256] = 0;
    for (size_t len = 0; len < 256; len++) expect_corrupt(VEC_A, len, "length", NULL);
    expect_corrupt(big, 257, "length", NULL);
    expect_corrupt(big, 0, "256", NULL);
    sc_head_record r;
    cr_assert_eq(sc_head_decode(&r, VEC_A, 256, "x"), 0);
}

/* ---- damage ---- */

Test(head_record, every_single_bit_flip_is_rejected) {
    for (size_t i = 0; i < NVECS; i++) {
        for (int bit = 0; bit < 256 * 8; bit++) {
            uint8_t buf[256];
            memcpy(buf, VECS[i].bytes, 256);
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            sc_head_record r;
            int rc = sc_head_decode(&r, buf, 256, "head/CURRENT");
            cr_assert_eq(rc, SC_ECORRUPT, "vector %s with bit %d flipped decoded (%s)", VECS[i].name, bit,
                         sc_error_name(rc));
        }
    }
}

Test(head_record, damaged_footer_is_named) {
    uint8_t buf[256];
    resealed(buf, VEC_B);
    buf[100] ^= 0x40; /* a snapshot hash byte: only the footer can tell */
    expect_corrupt(buf, 256, "footer", "224");
    resealed(buf, VEC_B);
    buf[255] ^= 1;
    expect_corrupt(buf, 256, "footer", "224");
}

/* ---- each field's invalid values (footer recomputed) ---- */

Test(head_record, bad_magic) {
    uint8_t buf[256];
    for (int i = 0; i < 8; i++) {
        resealed(buf, VEC_A);
        buf[i] ^= 0x20;
        reseal(buf);
        expect_corrupt(buf, 256, "magic", "offset 0");
    }
}

Test(head_record, unknown_versions) {
    static const uint32_t versions[] = {0, 2, 0x100, 0xffffffffu};
    for (size_t i = 0; i < 4; i++) {
        uint8_t buf[256];
        resealed(buf, VEC_A);
        buf[8] = (uint8_t)(versions[i] >> 24), buf[9] = (uint8_t)(versions[i] >> 16);
        buf[10] = (uint8_t)(versions[i] >> 8), buf[11] = (uint8_t)versions[i];
        reseal(buf);
        expect_corrupt(buf, 256, "version", "offset 8");
    }
}

Test(head_record, unknown_flags) {
    static const uint32_t flags[] = {2, 3, 0x80000001u, 0x100};
    for (size_t i = 0; i < 4; i++) {
        uint8_t buf[256];
        resealed(buf, VEC_B);
        buf[12] = (uint8_t)(flags[i] >> 24), buf[13] = (uint8_t)(flags[i] >> 16);
        buf[14] = (uint8_t)(flags[i] >> 8), buf[15] = (uint8_t)flags[i];
        reseal(buf);
        expect_corrupt(buf, 256, "flags", "offset 12");
    }
}

Test(head_record, nil_uuids) {
    static const struct { int off; const char *field; const char *at; } f[] = {
        {16, "tableUuid", "offset 16"}, {32, "publisherUuid", "offset 32"}, {48, "publicationUuid", "offset 48"}};
    for (size_t i = 0; i < 3; i++) {
        uint8_t buf[256];
        resealed(buf, VEC_A);
        memset(buf + f[i].off, 0, 16);
        reseal(buf);
        expect_corrupt(buf, 256, f[i].field, f[i].at);
    }
}

Test(head_record, revision_range) {
    uint8_t buf[256];
    resealed(buf, VEC_A);
    memset(buf + 64, 0, 8); /* revision 0 */
    reseal(buf);
    expect_corrupt(buf, 256, "revision", "offset 64");
    resealed(buf, VEC_C);
    buf[64] = 0x80; /* 2^63 + ...: beyond INT64_MAX */
    reseal(buf);
    expect_corrupt(buf, 256, "revision", "offset 64");
}

Test(head_record, snapshot_length_range) {
    uint8_t buf[256];
    resealed(buf, VEC_A);
    memset(buf + 104, 0, 8);
    reseal(buf);
    expect_corrupt(buf, 256, "snapshotLength", "offset 104");
    resealed(buf, VEC_C); /* exactly 64 MiB: valid; one more is not */
    buf[111] = 1;
    reseal(buf);
    expect_corrupt(buf, 256, "snapshotLength", "offset 104");
}

Test(head_record, negative_identifier) {
    uint8_t buf[256];
    resealed(buf, VEC_A);
    buf[112] = 0x80;
    reseal(buf);
    expect_corrupt(buf, 256, "commitIdentifier", "offset 112");
}

Test(head_record, reserved_bytes_must_be_zero) {
    for (int off = 156; off < 224; off++) {
        uint8_t buf[256];
        resealed(buf, VEC_B);
        buf[off] = 1;
        reseal(buf);
        char at[32];
        snprintf(at, sizeof at, "offset %d", off);
        expect_corrupt(buf, 256, "reserved", at);
    }
}

/* ---- predecessor rules ---- */

Test(head_record, absent_predecessor_must_be_canonical) {
    uint8_t buf[256];
    /* flag 0 with a non-zero predecessor hash */
    resealed(buf, VEC_A);
    buf[130] = 7;
    reseal(buf);
    expect_corrupt(buf, 256, "predecessorSha256", "offset 120");
    /* flag 0 with length 256 */
    resealed(buf, VEC_A);
    buf[154] = 1;
    reseal(buf);
    expect_corrupt(buf, 256, "predecessorLength", "offset 152");
    /* flag 0 at revision 2 */
    resealed(buf, VEC_A);
    buf[71] = 2;
    reseal(buf);
    expect_corrupt(buf, 256, "flags", "offset 12");
}

Test(head_record, present_predecessor_rules) {
    uint8_t buf[256];
    /* flag 1 with zero length */
    resealed(buf, VEC_B);
    memset(buf + 152, 0, 4);
    reseal(buf);
    expect_corrupt(buf, 256, "predecessorLength", "offset 152");
    /* flag 1 with a length other than 256 */
    resealed(buf, VEC_B);
    buf[154] = 2;
    reseal(buf);
    expect_corrupt(buf, 256, "predecessorLength", "offset 152");
    /* flag 1 with an all-zero hash */
    resealed(buf, VEC_B);
    memset(buf + 120, 0, 32);
    reseal(buf);
    expect_corrupt(buf, 256, "predecessorSha256", "offset 120");
    /* revision 1 with a predecessor */
    resealed(buf, VEC_B);
    buf[71] = 1;
    reseal(buf);
    expect_corrupt(buf, 256, "flags", "offset 12");
}

Test(head_record, encoder_refuses_what_the_decoder_rejects) {
    uint8_t out[256];
    sc_head_record r = rec_a();
    r.revision = 0;
    cr_assert_eq(sc_head_encode(out, &r), SC_EINVAL);
    r = rec_a();
    r.has_predecessor = 1;
    cr_assert_eq(sc_head_encode(out, &r), SC_EINVAL, "revision 1 with a predecessor");
    r = rec_b();
    r.predecessor_length = 0;
    cr_assert_eq(sc_head_encode(out, &r), SC_EINVAL);
    r = rec_b();
    r.has_predecessor = 0;
    cr_assert_eq(sc_head_encode(out, &r), SC_EINVAL, "non-canonical absent predecessor");
    r = rec_a();
    r.commit_identifier = -1;
    cr_assert_eq(sc_head_encode(out, &r), SC_EINVAL);
    r = rec_a();
    r.snapshot_length = 0;
    cr_assert_eq(sc_head_encode(out, &r), SC_EINVAL);
    r = rec_a();
    memset(r.publication_uuid, 0, 16);
    cr_assert_eq(sc_head_encode(out, &r), SC_EINVAL);
}

Test(head_record, decode_leaves_input_unchanged) {
    uint8_t buf[256];
    memcpy(buf, VEC_C, 256);
    sc_head_record r;
    cr_assert_eq(sc_head_decode(&r, buf, 256, "x"), 0);
    cr_assert_eq(memcmp(buf, VEC_C, 256), 0);
}
