/* Manifests (container type 1): encoding and bounded decoding of file entries. */
#include <string.h>

#include "base/error_internal.h"
#include "format/manifest.h"
#include "format/reader.h"

#define FLAG_KEYS 0x01u

/* kind, partition length, bucket, total_buckets, level, file length, one file
 * byte, rows, size, flags: the smallest record, used to reject entry counts
 * the body cannot hold before reserving anything for them. */
#define MIN_RECORD_LEN 10

static int encode_entry(sc_buf *out, const sc_manifest_entry *e, size_t index, size_t field_max) {
    const sc_file_entry *f = &e->file;
    if (e->kind != SC_ENTRY_ADD && e->kind != SC_ENTRY_DELETE)
        return sc_error_set(SC_EINVAL, "manifest record %zu: kind %d is neither ADD (1) nor DELETE (2)",
                            index, (int)e->kind);
    int rc = sc_file_entry_validate(f);
    if (rc) return sc_error_wrap(rc, "manifest record %zu", index);
    /* Refuse what a reader with default limits would refuse: never write an
     * object that cannot be read back. */
    const struct {
        const char *name;
        size_t len;
    } fields[] = {{"partition", f->partition.len}, {"min_key", f->min_key.len}, {"max_key", f->max_key.len}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i].len > field_max)
            return sc_error_set(SC_ELIMIT, "manifest record %zu: %s of %zu bytes exceeds the field limit of %zu",
                                index, fields[i].name, fields[i].len, field_max);
    int has_keys = f->min_key.data != NULL;
    rc = sc_buf_append_byte(out, (uint8_t)e->kind);
    if (!rc) rc = sc_buf_append_lenbytes(out, f->partition.data, f->partition.len);
    if (!rc) rc = sc_buf_append_varint(out, (uint64_t)f->bucket);
    /* Stopgap until the Avro manifests replace this codec: -1 (bucket-unaware) is stored as
     * 2^31, so that every value this format could hold before keeps its bytes. */
    if (!rc) rc = sc_buf_append_varint(out, f->total_buckets < 0 ? (uint64_t)1 << 31 : (uint64_t)f->total_buckets);
    if (!rc) rc = sc_buf_append_varint(out, (uint64_t)f->level);
    if (!rc) rc = sc_buf_append_lenbytes(out, (const uint8_t *)f->file, strlen(f->file));
    if (!rc) rc = sc_buf_append_varint(out, (uint64_t)f->rows);
    if (!rc) rc = sc_buf_append_varint(out, (uint64_t)f->size);
    if (!rc) rc = sc_buf_append_byte(out, has_keys ? FLAG_KEYS : 0);
    if (!rc && has_keys) rc = sc_buf_append_lenbytes(out, f->min_key.data, f->min_key.len);
    if (!rc && has_keys) rc = sc_buf_append_lenbytes(out, f->max_key.data, f->max_key.len);
    return rc;
}

int sc_manifest_encode(sc_buf *out, const sc_entry_vec *entries) {
    if (!out || !entries) return sc_error_set(SC_EINVAL, "sc_manifest_encode: missing argument");
    if (entries->count > UINT32_MAX)
        return sc_error_set(SC_ELIMIT, "%zu manifest records exceed the format's 2^32-1",
                            entries->count);
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    size_t start;
    int rc = sc_container_begin(&start, out, SC_MANIFEST_TYPE_ENTRIES);
    for (size_t i = 0; !rc && i < entries->count; i++)
        rc = encode_entry(out, &entries->items[i], i, limits.max_field_len);
    if (!rc) rc = sc_container_end(out, start, entries->count);
    if (rc && out->len > start) out->len = start; /* leave `out` as it was */
    return rc;
}

/* Read one record and append it to `out`. */
static int decode_entry(sc_entry_vec *out, sc_reader *r) {
    size_t start = r->pos;
    uint8_t kind, flags;
    uint64_t bucket, total_buckets, level, rows, size;
    const uint8_t *partition, *name, *min_key = NULL, *max_key = NULL;
    size_t partition_len, name_len, min_len = 0, max_len = 0;

    size_t at = r->pos;
    int rc = sc_reader_u8(&kind, r, "kind");
    if (rc) return rc;
    if (kind != SC_ENTRY_ADD && kind != SC_ENTRY_DELETE)
        return sc_reader_fail(r, SC_ECORRUPT, "kind", at, "kind %u is neither ADD (1) nor DELETE (2)",
                              kind);
    rc = sc_reader_lenbytes(&partition, &partition_len, r, "partition");
    if (!rc) rc = sc_reader_varint_max(&bucket, r, "bucket", INT32_MAX);
    if (!rc) rc = sc_reader_varint_max(&total_buckets, r, "total_buckets", (uint64_t)1 << 31);
    if (!rc) rc = sc_reader_varint_max(&level, r, "level", INT32_MAX);
    at = r->pos;
    if (!rc) rc = sc_reader_lenbytes(&name, &name_len, r, "file");
    if (rc) return rc;
    /* The name becomes a C string: an embedded NUL would silently cut it. */
    if (name_len > SC_MANIFEST_PATH_MAX)
        return sc_reader_fail(r, SC_ECORRUPT, "file", at, "file name of %zu bytes, longer than %d",
                              name_len, SC_MANIFEST_PATH_MAX);
    if (name_len && memchr(name, '\0', name_len))
        return sc_reader_fail(r, SC_ECORRUPT, "file", at, "file name contains a NUL byte");
    rc = sc_reader_varint_max(&rows, r, "rows", INT64_MAX);
    if (!rc) rc = sc_reader_varint_max(&size, r, "size", INT64_MAX);
    at = r->pos;
    if (!rc) rc = sc_reader_u8(&flags, r, "flags");
    if (rc) return rc;
    if (flags & ~FLAG_KEYS)
        return sc_reader_fail(r, SC_ECORRUPT, "flags", at, "flags 0x%02x has unknown bits set", flags);
    if (flags & FLAG_KEYS) {
        rc = sc_reader_lenbytes(&min_key, &min_len, r, "min_key");
        if (!rc) rc = sc_reader_lenbytes(&max_key, &max_len, r, "max_key");
        if (rc) return rc;
    }

    char file[SC_MANIFEST_PATH_MAX + 1];
    if (name_len) memcpy(file, name, name_len);
    file[name_len] = '\0';
    /* Pointers into the object: present-but-empty fields stay non-NULL. */
    sc_file_entry fe = {
        .partition = {partition, partition_len},
        .bucket = (int32_t)bucket,
        .total_buckets = total_buckets == (uint64_t)1 << 31 ? -1 : (int32_t)total_buckets,
        .level = (int32_t)level,
        .file = file,
        .rows = (int64_t)rows,
        .size = (int64_t)size,
        .min_key = {min_key, min_len},
        .max_key = {max_key, max_len},
    };
    /* The same rules as for entries handed to a commit, but a violation
     * here means the stored object is damaged. */
    rc = sc_file_entry_validate(&fe);
    if (rc) return sc_reader_fail(r, SC_ECORRUPT, NULL, start, "%s", sc_error_message());
    return sc_entry_vec_push(out, (sc_entry_kind)kind, &fe);
}

int sc_manifest_decode(sc_entry_vec *out, const uint8_t *data, size_t len,
                       const sc_decode_limits *limits, const char *object) {
    if (!out) return sc_error_set(SC_EINVAL, "sc_manifest_decode: missing output vector");
    sc_decode_limits defaults;
    if (!limits) {
        sc_decode_limits_default(&defaults);
        limits = &defaults;
    }
    sc_reader r;
    uint32_t count;
    int rc = sc_container_open(&r, &count, data, len, SC_MANIFEST_TYPE_ENTRIES, MIN_RECORD_LEN,
                               limits, object ? object : "manifest");
    if (rc) return rc;
    size_t before = out->count;
    r.in_record = 1;
    for (uint32_t i = 0; !rc && i < count; i++) {
        r.record = i;
        rc = decode_entry(out, &r);
    }
    if (!rc) rc = sc_reader_finish(&r);
    if (rc) sc_entry_vec_truncate(out, before);
    return rc;
}
