/* Manifest lists (container type 2): the manifests of a snapshot, with their
 * hashes, lengths, record counts and partition ranges. */
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/manifest.h"
#include "format/reader.h"
#include "base/vec.h"

/* name length, one name byte, SHA-256, length, added, deleted, two partition
 * lengths: the smallest record (see MIN_RECORD_LEN in manifest_codec.c). */
#define MIN_RECORD_LEN (1 + 1 + SC_SHA256_LEN + 3 + 2)

static sc_bytes partition_bytes(const uint8_t *data, size_t len) {
    /* Meta partitions have no "absent": NULL with length 0 is empty. */
    return (sc_bytes){data ? data : (const uint8_t *)"", len};
}

static int meta_validate(const sc_manifest_meta *m) {
    if (!m) return sc_error_set(SC_EINVAL, "manifest meta: missing");
    int rc = sc_relpath_validate("name", m->name);
    if (rc) return rc;
    if (!m->min_partition && m->min_partition_len)
        return sc_error_set(SC_EINVAL, "min_partition: NULL data with length %zu", m->min_partition_len);
    if (!m->max_partition && m->max_partition_len)
        return sc_error_set(SC_EINVAL, "max_partition: NULL data with length %zu", m->max_partition_len);
    if (sc_bytes_compare(partition_bytes(m->min_partition, m->min_partition_len),
                         partition_bytes(m->max_partition, m->max_partition_len)) > 0)
        return sc_error_set(SC_EINVAL, "min_partition: greater than max_partition (bytewise)");
    return 0;
}

int sc_meta_vec_push(sc_meta_vec *v, const sc_manifest_meta *meta) {
    if (!v) return sc_error_set(SC_EINVAL, "meta vector: missing");
    int rc = meta_validate(meta);
    if (rc) return rc;
    size_t name_len = strlen(meta->name); /* <= SC_MANIFEST_PATH_MAX: validated */
    size_t total = name_len + 1;
    if (meta->min_partition_len > SIZE_MAX - total) return sc_error_set(SC_ELIMIT, "meta too large");
    total += meta->min_partition_len;
    if (meta->max_partition_len > SIZE_MAX - total) return sc_error_set(SC_ELIMIT, "meta too large");
    total += meta->max_partition_len;
    SC_VEC_RESERVE(rc, v->items, v->cap, v->count + 1, 16, "a manifest meta vector");
    if (rc) return rc;
    /* Layout: name NUL | min_partition | max_partition, rooted at name;
     * partitions always point into the block, so they are never NULL. */
    char *block = malloc(total);
    if (!block) return sc_error_set(SC_ENOMEM, "out of memory copying a manifest meta");
    sc_manifest_meta *m = &v->items[v->count];
    *m = *meta;
    memcpy(block, meta->name, name_len + 1);
    m->name = block;
    m->min_partition = (uint8_t *)block + name_len + 1;
    if (meta->min_partition_len) memcpy(m->min_partition, meta->min_partition, meta->min_partition_len);
    m->max_partition = m->min_partition + meta->min_partition_len;
    if (meta->max_partition_len) memcpy(m->max_partition, meta->max_partition, meta->max_partition_len);
    v->count++;
    return 0;
}

/* sc_entry_vec_truncate for manifest metas; each meta's bytes live in one allocation
 * rooted at `name` (partitions point into it and are never NULL after a push). */
static void meta_vec_truncate(sc_meta_vec *v, size_t count) {
    if (!v) return;
    while (v->count > count) {
        sc_manifest_meta *m = &v->items[--v->count];
        free(m->name);
        memset(m, 0, sizeof *m);
    }
}

void sc_meta_vec_free(sc_meta_vec *v) {
    if (!v) return;
    meta_vec_truncate(v, 0);
    free(v->items);
    v->items = NULL;
    v->count = v->cap = 0;
}

static int encode_meta(sc_buf *out, const sc_manifest_meta *m, size_t index, size_t field_max) {
    int rc = meta_validate(m);
    if (rc) return sc_error_wrap(rc, "manifest list record %zu", index);
    if (m->min_partition_len > field_max || m->max_partition_len > field_max)
        return sc_error_set(SC_ELIMIT, "manifest list record %zu: %s exceeds the field limit of %zu",
                            index, m->min_partition_len > field_max ? "min_partition" : "max_partition",
                            field_max);
    rc = sc_buf_append_lenbytes(out, (const uint8_t *)m->name, strlen(m->name));
    if (!rc) rc = sc_buf_append(out, m->sha256, SC_SHA256_LEN);
    if (!rc) rc = sc_buf_append_varint(out, m->length);
    if (!rc) rc = sc_buf_append_varint(out, m->added);
    if (!rc) rc = sc_buf_append_varint(out, m->deleted);
    if (!rc) rc = sc_buf_append_lenbytes(out, m->min_partition, m->min_partition_len);
    if (!rc) rc = sc_buf_append_lenbytes(out, m->max_partition, m->max_partition_len);
    return rc;
}

int sc_manifest_list_encode(sc_buf *out, const sc_meta_vec *metas) {
    if (!out || !metas) return sc_error_set(SC_EINVAL, "sc_manifest_list_encode: missing argument");
    if (metas->count > UINT32_MAX)
        return sc_error_set(SC_ELIMIT, "%zu manifest list records exceed the format's 2^32-1",
                            metas->count);
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    size_t start;
    int rc = sc_container_begin(&start, out, SC_MANIFEST_TYPE_LIST);
    for (size_t i = 0; !rc && i < metas->count; i++)
        rc = encode_meta(out, &metas->items[i], i, limits.max_field_len);
    if (!rc) rc = sc_container_end(out, start, metas->count);
    if (rc && out->len > start) out->len = start; /* leave `out` as it was */
    return rc;
}

static int decode_meta(sc_meta_vec *out, sc_reader *r) {
    size_t start = r->pos;
    const uint8_t *name, *sha;
    size_t name_len;
    sc_manifest_meta m;
    memset(&m, 0, sizeof m);

    int rc = sc_reader_lenbytes(&name, &name_len, r, "name");
    if (rc) return rc;
    /* The name becomes a C string: an embedded NUL would silently cut it. */
    if (name_len > SC_MANIFEST_PATH_MAX)
        return sc_reader_fail(r, SC_ECORRUPT, "name", start, "name of %zu bytes, longer than %d",
                              name_len, SC_MANIFEST_PATH_MAX);
    if (name_len && memchr(name, '\0', name_len))
        return sc_reader_fail(r, SC_ECORRUPT, "name", start, "name contains a NUL byte");
    rc = sc_reader_fixed(&sha, r, SC_SHA256_LEN, "sha256");
    if (!rc) rc = sc_reader_varint(&m.length, r, "length");
    if (!rc) rc = sc_reader_varint(&m.added, r, "added");
    if (!rc) rc = sc_reader_varint(&m.deleted, r, "deleted");
    const uint8_t *minp = NULL, *maxp = NULL;
    if (!rc) rc = sc_reader_lenbytes(&minp, &m.min_partition_len, r, "min_partition");
    if (!rc) rc = sc_reader_lenbytes(&maxp, &m.max_partition_len, r, "max_partition");
    if (rc) return rc;

    char name_buf[SC_MANIFEST_PATH_MAX + 1];
    if (name_len) memcpy(name_buf, name, name_len);
    name_buf[name_len] = '\0';
    m.name = name_buf;
    memcpy(m.sha256, sha, SC_SHA256_LEN);
    /* Borrowed for the push, which copies them. */
    m.min_partition = (uint8_t *)(uintptr_t)minp;
    m.max_partition = (uint8_t *)(uintptr_t)maxp;
    rc = meta_validate(&m);
    if (rc) return sc_reader_fail(r, SC_ECORRUPT, NULL, start, "%s", sc_error_message());
    return sc_meta_vec_push(out, &m);
}

int sc_manifest_list_decode(sc_meta_vec *out, const uint8_t *data, size_t len,
                            const sc_decode_limits *limits, const char *object) {
    if (!out) return sc_error_set(SC_EINVAL, "sc_manifest_list_decode: missing output vector");
    sc_decode_limits defaults;
    if (!limits) {
        sc_decode_limits_default(&defaults);
        limits = &defaults;
    }
    sc_reader r;
    uint32_t count;
    int rc = sc_container_open(&r, &count, data, len, SC_MANIFEST_TYPE_LIST, MIN_RECORD_LEN, limits,
                               object ? object : "manifest list");
    if (rc) return rc;
    size_t before = out->count;
    r.in_record = 1;
    for (uint32_t i = 0; !rc && i < count; i++) {
        r.record = i;
        rc = decode_meta(out, &r);
    }
    if (!rc) rc = sc_reader_finish(&r);
    if (rc) meta_vec_truncate(out, before);
    return rc;
}
