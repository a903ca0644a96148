/* Bloom filter of a manifest's file identities (file_index.h; layout in docs/format.md §5.3). */
#include "format/file_index.h"

#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"

/*
 * FNV-1a over the identity's bytes — u64be(partition length) ‖ partition ‖
 * u32be(bucket) ‖ file name — then the splitmix64 finaliser, so that both
 * halves of the result are well mixed: the probes use them as two
 * independent hashes (Kirsch–Mitzenmacher double hashing).
 */
static uint64_t fnv_byte(uint64_t h, uint8_t b) { return (h ^ b) * 1099511628211ull; }

uint64_t sc_file_index_hash(sc_bytes partition, int32_t bucket, const char *file) {
    uint64_t h = 1469598103934665603ull;
    uint64_t plen = partition.len;
    for (int i = 7; i >= 0; i--) h = fnv_byte(h, (uint8_t)(plen >> (8 * i)));
    for (size_t i = 0; i < partition.len; i++) h = fnv_byte(h, partition.data[i]);
    uint32_t b = (uint32_t)bucket;
    for (int i = 3; i >= 0; i--) h = fnv_byte(h, (uint8_t)(b >> (8 * i)));
    for (const char *p = file ? file : ""; *p; p++) h = fnv_byte(h, (uint8_t)*p);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

static void put_i32be(uint8_t *p, int32_t v) {
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)(u >> 24), p[1] = (uint8_t)(u >> 16), p[2] = (uint8_t)(u >> 8), p[3] = (uint8_t)u;
}

static int32_t get_i32be(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3]);
}

/* Probe i of hash h in a filter of `bits` bits. */
static uint64_t probe(uint64_t h, int i, uint64_t bits) {
    uint64_t h1 = h & 0xffffffffu, h2 = (h >> 32) | 1u;
    return (h1 + (uint64_t)i * h2) % bits;
}

int sc_file_index_build(sc_buf *out, int *out_present, const sc_file_entry *const *files, const uint8_t *is_add,
                        size_t count, size_t max_len) {
    out->len = 0;
    *out_present = 0;
    size_t room = max_len > SC_FILE_INDEX_HEADER_LEN ? max_len - SC_FILE_INDEX_HEADER_LEN : 0;
    size_t want = count > SIZE_MAX / SC_FILE_INDEX_BITS_PER_FILE ? SIZE_MAX : count * SC_FILE_INDEX_BITS_PER_FILE / 8 + 1;
    if (want < SC_FILE_INDEX_MIN_FILTER_BYTES) want = SC_FILE_INDEX_MIN_FILTER_BYTES;
    if (want > room) {
        /* Fewer bits per file than we aim for: still useful down to the floor. */
        if (room < SC_FILE_INDEX_MIN_FILTER_BYTES || room / SC_FILE_INDEX_MIN_BITS_PER_FILE * 8 < count ||
            count > SIZE_MAX / 8)
            return 0;
        want = room;
    }
    uint8_t header[SC_FILE_INDEX_HEADER_LEN] = {SC_FILE_INDEX_VERSION, SC_FILE_INDEX_HASHES, 0};
    int32_t lo = 0, hi = 0;
    int has_range = 0;
    for (size_t i = 0; i < count; i++) {
        int32_t tb = files[i]->total_buckets;
        if (!is_add[i] || tb <= 0) continue;
        if (!has_range || tb < lo) lo = tb;
        if (!has_range || tb > hi) hi = tb;
        has_range = 1;
    }
    header[2] = (uint8_t)has_range;
    put_i32be(header + 3, has_range ? lo : 0);
    put_i32be(header + 7, has_range ? hi : 0);
    int rc = sc_buf_append(out, header, sizeof header);
    if (!rc) rc = sc_buf_reserve(out, want);
    if (rc) return rc;
    uint8_t *filter = out->data + sizeof header;
    memset(filter, 0, want);
    uint64_t bits = (uint64_t)want * 8;
    for (size_t i = 0; i < count; i++) {
        uint64_t h = sc_file_index_hash(files[i]->partition, files[i]->bucket, files[i]->file);
        for (int k = 0; k < SC_FILE_INDEX_HASHES; k++) {
            uint64_t bit = probe(h, k, bits);
            filter[bit / 8] |= (uint8_t)(1u << (bit % 8));
        }
    }
    out->len = sizeof header + want;
    *out_present = 1;
    return 0;
}

int sc_file_index_decode(sc_file_index *out, const uint8_t *data, size_t len, const char *where) {
    memset(out, 0, sizeof *out);
    if (!data || len < SC_FILE_INDEX_HEADER_LEN + SC_FILE_INDEX_MIN_FILTER_BYTES)
        return sc_error_set(SC_ECORRUPT, "%s: file index of %zu bytes is shorter than %d", where, data ? len : 0,
                            SC_FILE_INDEX_HEADER_LEN + SC_FILE_INDEX_MIN_FILTER_BYTES);
    if (data[0] != SC_FILE_INDEX_VERSION)
        return sc_error_set(SC_ECORRUPT, "%s: file index version %u, this build reads %d", where, data[0],
                            SC_FILE_INDEX_VERSION);
    if (data[1] < 1 || data[1] > 16)
        return sc_error_set(SC_ECORRUPT, "%s: file index with %u hash probes (1..16)", where, data[1]);
    if (data[2] > 1) return sc_error_set(SC_ECORRUPT, "%s: file index flags 0x%02x are unknown", where, data[2]);
    out->hashes = data[1];
    out->has_bucket_range = data[2];
    out->min_total_buckets = get_i32be(data + 3);
    out->max_total_buckets = get_i32be(data + 7);
    if (out->has_bucket_range ? out->min_total_buckets <= 0 || out->min_total_buckets > out->max_total_buckets
                              : out->min_total_buckets || out->max_total_buckets)
        return sc_error_set(SC_ECORRUPT, "%s: file index bucket range %d..%d is not a range of positive counts", where,
                            (int)out->min_total_buckets, (int)out->max_total_buckets);
    out->filter = data + SC_FILE_INDEX_HEADER_LEN;
    out->filter_len = len - SC_FILE_INDEX_HEADER_LEN;
    return 0;
}

int sc_file_index_may_contain(const sc_file_index *ix, uint64_t h) {
    uint64_t bits = (uint64_t)ix->filter_len * 8;
    for (int k = 0; k < ix->hashes; k++) {
        uint64_t bit = probe(h, k, bits);
        if (!(ix->filter[bit / 8] & (1u << (bit % 8)))) return 0;
    }
    return 1;
}
