/* Bounded reader and checksummed container for manifests and manifest lists. */
#include "format/reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/error_internal.h"

#define OFF_MAGIC 0
#define OFF_VERSION 4
#define OFF_TYPE 6
#define OFF_COUNT 8
#define OFF_BODY_LEN 12

static uint16_t get_u16be(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static uint32_t get_u32be(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t get_u64be(const uint8_t *p) {
    return (uint64_t)get_u32be(p) << 32 | get_u32be(p + 4);
}

static void put_u32be(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void sc_decode_limits_default(sc_decode_limits *out) {
    out->max_entries = 16777216;
    out->max_field_len = 65536;
    out->max_object_len = (size_t)1 << 30;
}

static const char *type_name(uint16_t type) {
    switch (type) {
    case SC_MANIFEST_TYPE_ENTRIES: return "manifest";
    case SC_MANIFEST_TYPE_LIST: return "manifest list";
    default: return "unknown";
    }
}

int sc_reader_fail(const sc_reader *r, int code, const char *field, size_t at, const char *fmt, ...) {
    /* Format the problem first: `fmt`'s arguments may point at the thread's
     * current message, which sc_error_set() is about to overwrite. */
    char problem[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    if (r->in_record && field)
        return sc_error_set(code, "%s: record %llu, field %s (byte %zu): %s", r->object,
                            (unsigned long long)r->record, field, at, problem);
    if (r->in_record)
        return sc_error_set(code, "%s: record %llu (byte %zu): %s", r->object,
                            (unsigned long long)r->record, at, problem);
    if (field)
        return sc_error_set(code, "%s: field %s (byte %zu): %s", r->object, field, at, problem);
    return sc_error_set(code, "%s: %s (byte %zu)", r->object, problem, at);
}

static int truncated(const sc_reader *r, const char *field, size_t at, size_t need) {
    return sc_reader_fail(r, SC_ECORRUPT, field, at,
                          "truncated at byte %zu (needs %zu more byte%s)", r->end, need,
                          need == 1 ? "" : "s");
}

int sc_reader_u8(uint8_t *out, sc_reader *r, const char *field) {
    if (r->pos >= r->end) return truncated(r, field, r->pos, 1);
    *out = r->data[r->pos++];
    return 0;
}

int sc_reader_varint(uint64_t *out, sc_reader *r, const char *field) {
    size_t start = r->pos;
    uint64_t v = 0;
    /* Written on every path: callers inlined into this file (with hidden visibility) are checked
     * by -O3's maybe-uninitialized analysis, which cannot see that sc_reader_fail() returns < 0. */
    *out = 0;
    /* 9 groups carry 63 bits; the 10th may only contribute bit 63. */
    for (unsigned i = 0; i < 10; i++) {
        if (r->pos >= r->end) return truncated(r, field, start, 1);
        uint8_t b = r->data[r->pos++];
        if (i == 9 && b > 1)
            return sc_reader_fail(r, SC_ECORRUPT, field, start,
                                  "varint overflows 64 bits (10th byte 0x%02x)", b);
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            /* A zero final group after the first adds nothing: one value would
             * have many spellings, so re-encoding would not reproduce the bytes. */
            if (b == 0 && i > 0)
                return sc_reader_fail(r, SC_ECORRUPT, field, start,
                                      "non-canonical varint (%u bytes, last group zero)", i + 1);
            *out = v;
            return 0;
        }
    }
    /* Unreachable: a 10th byte with the continuation bit is > 1. */
    return sc_reader_fail(r, SC_ECORRUPT, field, start, "varint longer than 10 bytes");
}

int sc_reader_varint_max(uint64_t *out, sc_reader *r, const char *field, uint64_t max) {
    size_t start = r->pos;
    uint64_t v;
    int rc = sc_reader_varint(&v, r, field);
    if (rc) return rc;
    if (v > max)
        return sc_reader_fail(r, SC_ECORRUPT, field, start, "%s %llu out of range 0..%llu", field,
                              (unsigned long long)v, (unsigned long long)max);
    *out = v;
    return 0;
}

int sc_reader_fixed(const uint8_t **out, sc_reader *r, size_t n, const char *field) {
    if (n > r->end - r->pos) return truncated(r, field, r->pos, n - (r->end - r->pos));
    *out = r->data + r->pos;
    r->pos += n;
    return 0;
}

int sc_reader_lenbytes(const uint8_t **out, size_t *out_len, sc_reader *r, const char *field) {
    size_t start = r->pos;
    uint64_t n;
    int rc = sc_reader_varint(&n, r, field);
    if (rc) return rc;
    size_t left = r->end - r->pos;
    /* Compare as uint64_t: n may not fit size_t on 32-bit hosts. */
    if (n > (uint64_t)left)
        return sc_reader_fail(r, SC_ECORRUPT, field, start,
                              "length %llu runs past the end of the body: truncated at byte %zu",
                              (unsigned long long)n, r->end);
    if (n > (uint64_t)r->limits->max_field_len)
        return sc_reader_fail(r, SC_ELIMIT, field, start,
                              "length %llu exceeds the field limit of %zu bytes",
                              (unsigned long long)n, r->limits->max_field_len);
    *out = r->data + r->pos;
    *out_len = (size_t)n;
    r->pos += (size_t)n;
    return 0;
}

int sc_reader_finish(const sc_reader *r) {
    if (r->pos != r->end)
        return sc_error_set(SC_ECORRUPT, "%s: %zu unexpected bytes after the last record (byte %zu)",
                            r->object, r->end - r->pos, r->pos);
    return 0;
}

int sc_container_open(sc_reader *out, uint32_t *out_count, const uint8_t *data, size_t len,
                      uint16_t type, size_t min_record_len, const sc_decode_limits *limits,
                      const char *object) {
    sc_reader r = {data, 0, len, limits, object, 0, 0};
    if (!data && len) return sc_error_set(SC_EINVAL, "%s: NULL data with length %zu", object, len);
    if (len < SC_CONTAINER_MIN_LEN)
        return sc_error_set(SC_ECORRUPT,
                            "%s: truncated at byte %zu (a container needs at least %d bytes)",
                            object, len, SC_CONTAINER_MIN_LEN);
    if (len > limits->max_object_len)
        return sc_error_set(SC_ELIMIT, "%s: %zu bytes exceeds the object limit of %zu", object,
                            len, limits->max_object_len);
    if (memcmp(data + OFF_MAGIC, SC_MANIFEST_MAGIC, 4) != 0)
        return sc_reader_fail(&r, SC_ECORRUPT, "magic", OFF_MAGIC,
                              "bad magic 0x%02x%02x%02x%02x, expected \"%s\"", data[0], data[1],
                              data[2], data[3], SC_MANIFEST_MAGIC);
    uint16_t version = get_u16be(data + OFF_VERSION);
    if (version != SC_MANIFEST_CONTAINER_VERSION)
        return sc_reader_fail(&r, SC_ECORRUPT, "version", OFF_VERSION,
                              "unsupported container version %u", version);
    uint16_t got_type = get_u16be(data + OFF_TYPE);
    if (got_type != type)
        return sc_reader_fail(&r, SC_ECORRUPT, "type", OFF_TYPE,
                              "container type %u (%s), expected %u (%s)", got_type,
                              type_name(got_type), type, type_name(type));
    uint64_t body_len = get_u64be(data + OFF_BODY_LEN);
    size_t actual = len - SC_CONTAINER_MIN_LEN;
    /* Exact match: a truncated or extended object fails here, before the
     * checksum is even looked for in the wrong place. */
    if (body_len != (uint64_t)actual)
        return sc_reader_fail(&r, SC_ECORRUPT, "body_length", OFF_BODY_LEN,
                              "body length %llu but the object holds %zu body bytes (%s)",
                              (unsigned long long)body_len, actual,
                              body_len > (uint64_t)actual ? "truncated" : "extended");
    uint8_t sum[SC_SHA256_LEN];
    size_t sum_at = len - SC_SHA256_LEN;
    sc_sha256(sum, data, sum_at);
    if (memcmp(sum, data + sum_at, SC_SHA256_LEN) != 0) {
        char stored[SC_SHA256_HEX_LEN + 1], computed[SC_SHA256_HEX_LEN + 1];
        sc_hex_encode(stored, data + sum_at, 8);
        sc_hex_encode(computed, sum, 8);
        return sc_reader_fail(&r, SC_ECORRUPT, "checksum", sum_at,
                              "checksum mismatch (stored %s..., computed %s...)", stored, computed);
    }
    /* From here the bytes are what the writer wrote; what follows are limits
     * and the writer's own mistakes. */
    uint32_t count = get_u32be(data + OFF_COUNT);
    if (min_record_len && count > actual / min_record_len)
        return sc_reader_fail(&r, SC_ECORRUPT, "count", OFF_COUNT,
                              "entry count %u cannot fit in %zu body bytes", count, actual);
    if (count > limits->max_entries)
        return sc_reader_fail(&r, SC_ELIMIT, "count", OFF_COUNT,
                              "entry count %u exceeds the limit of %llu", count,
                              (unsigned long long)limits->max_entries);
    r.pos = SC_MANIFEST_HEADER_LEN;
    r.end = sum_at;
    *out = r;
    *out_count = count;
    return 0;
}

int sc_container_begin(size_t *out_start, sc_buf *out, uint16_t type) {
    uint8_t header[SC_MANIFEST_HEADER_LEN] = {0};
    memcpy(header + OFF_MAGIC, SC_MANIFEST_MAGIC, 4);
    header[OFF_VERSION] = (uint8_t)(SC_MANIFEST_CONTAINER_VERSION >> 8);
    header[OFF_VERSION + 1] = (uint8_t)SC_MANIFEST_CONTAINER_VERSION;
    header[OFF_TYPE] = (uint8_t)(type >> 8);
    header[OFF_TYPE + 1] = (uint8_t)type;
    *out_start = out->len;
    return sc_buf_append(out, header, sizeof header);
}

int sc_container_end(sc_buf *out, size_t start, uint64_t count) {
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    if (count > limits.max_entries)
        return sc_error_set(SC_ELIMIT, "%llu records exceed the decoders' default limit of %llu",
                            (unsigned long long)count, (unsigned long long)limits.max_entries);
    size_t body_len = out->len - start - SC_MANIFEST_HEADER_LEN;
    if (body_len > limits.max_object_len - SC_CONTAINER_MIN_LEN)
        return sc_error_set(SC_ELIMIT, "a body of %zu bytes exceeds the default object limit of %zu",
                            body_len, limits.max_object_len);
    uint8_t *h = out->data + start;
    put_u32be(h + OFF_COUNT, (uint32_t)count);
    put_u32be(h + OFF_BODY_LEN, (uint32_t)((uint64_t)body_len >> 32));
    put_u32be(h + OFF_BODY_LEN + 4, (uint32_t)body_len);
    uint8_t sum[SC_SHA256_LEN];
    sc_sha256(sum, h, out->len - start);
    return sc_buf_append(out, sum, sizeof sum);
}
