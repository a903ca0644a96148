/* The watermark archive codec (watermark_archive.h). */
#include "format/watermark_archive.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/head_record.h"

static const char MAGIC[8] = {'S', 'C', 'W', 'M', 'A', 'R', 'C', '1'};
#define HEADER_LEN 12
/* Per entry beyond the user's bytes: length byte, identifier, snapshot id. */
#define ENTRY_FIXED 17

int sc_watermark_archive_encode(sc_buf *out, const sc_watermark *items, size_t count) {
    if (count > SC_WATERMARK_ARCHIVE_MAX_USERS)
        return sc_error_set(SC_ELIMIT, "the watermark archive would hold %zu users, above its limit of %zu", count,
                            SC_WATERMARK_ARCHIVE_MAX_USERS);
    size_t total = HEADER_LEN;
    for (size_t i = 0; i < count; i++) {
        size_t ulen = strlen(items[i].user);
        if (ulen == 0 || ulen > SC_USER_MAX_LEN || items[i].identifier < 0 || items[i].snapshot_id < 1)
            return sc_error_set(SC_EINVAL, "watermark %zu (user \"%s\") cannot be archived", i, items[i].user);
        if (i > 0 && strcmp(items[i - 1].user, items[i].user) >= 0)
            return sc_error_set(SC_EINVAL, "watermarks to archive are not sorted by user (entry %zu)", i);
        total += ENTRY_FIXED + ulen;
    }
    if (total > SC_WATERMARK_ARCHIVE_MAX_BYTES)
        return sc_error_set(SC_ELIMIT, "the watermark archive would be %zu bytes, above its limit of %zu", total,
                            SC_WATERMARK_ARCHIVE_MAX_BYTES);
    size_t start = out->len;
    int rc = sc_buf_reserve(out, total);
    if (!rc) rc = sc_buf_append(out, MAGIC, sizeof MAGIC);
    if (!rc) rc = sc_buf_append_u32be(out, (uint32_t)count);
    for (size_t i = 0; !rc && i < count; i++) {
        size_t ulen = strlen(items[i].user);
        rc = sc_buf_append_byte(out, (uint8_t)ulen);
        if (!rc) rc = sc_buf_append(out, items[i].user, ulen);
        if (!rc) rc = sc_buf_append_u64be(out, (uint64_t)items[i].identifier);
        if (!rc) rc = sc_buf_append_u64be(out, items[i].snapshot_id);
    }
    if (rc) out->len = start;
    return rc;
}

static uint64_t be64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

void sc_watermark_archive_clear(sc_watermark_archive *a) {
    if (!a) return;
    free(a->items);
    free(a->strings);
    memset(a, 0, sizeof *a);
}

static int damaged(sc_watermark_archive *out, const char *object, const char *what, size_t entry) {
    sc_watermark_archive_clear(out);
    if (entry == SIZE_MAX) return sc_error_set(SC_ECORRUPT, "%s: %s", object, what);
    return sc_error_set(SC_ECORRUPT, "%s: entry %zu %s", object, entry, what);
}

int sc_watermark_archive_decode(sc_watermark_archive *out, const uint8_t *data, size_t len,
                                uint64_t max_snapshot, const char *object) {
    memset(out, 0, sizeof *out);
    if (len > SC_WATERMARK_ARCHIVE_MAX_BYTES)
        return sc_error_set(SC_ECORRUPT, "%s: %zu bytes exceeds the %zu-byte limit", object, len,
                            SC_WATERMARK_ARCHIVE_MAX_BYTES);
    if (len < HEADER_LEN || memcmp(data, MAGIC, sizeof MAGIC) != 0)
        return damaged(out, object, "is not a watermark archive (no SCWMARC1 header)", SIZE_MAX);
    size_t count = (size_t)data[8] << 24 | (size_t)data[9] << 16 | (size_t)data[10] << 8 | data[11];
    if (count > SC_WATERMARK_ARCHIVE_MAX_USERS) return damaged(out, object, "declares too many users", SIZE_MAX);
    /* Each entry takes at least ENTRY_FIXED + 1 bytes: a count the bytes cannot hold is
     * refused before anything is allocated for it. */
    if (count > (len - HEADER_LEN) / (ENTRY_FIXED + 1))
        return damaged(out, object, "declares more users than its bytes hold (truncated)", SIZE_MAX);
    out->items = calloc(count ? count : 1, sizeof *out->items);
    /* Users with their NULs take at most the entry bytes. */
    out->strings = malloc(len - HEADER_LEN + 1);
    if (!out->items || !out->strings) {
        sc_watermark_archive_clear(out);
        return sc_error_set(SC_ENOMEM, "out of memory decoding %s", object);
    }
    size_t at = HEADER_LEN, str = 0;
    for (size_t i = 0; i < count; i++) {
        if (at >= len) return damaged(out, object, "is cut off (truncated)", i);
        size_t ulen = data[at];
        if (ulen == 0) return damaged(out, object, "has an empty user", i);
        if (len - at - 1 < ulen + 16) return damaged(out, object, "is cut off (truncated)", i);
        const uint8_t *u = data + at + 1;
        if (memchr(u, 0, ulen)) return damaged(out, object, "has a NUL byte in its user", i);
        char *user = out->strings + str;
        memcpy(user, u, ulen);
        user[ulen] = '\0';
        if (!sc_utf8_valid(user)) return damaged(out, object, "has a user that is not UTF-8", i);
        if (i > 0 && strcmp(out->items[i - 1].user, user) >= 0)
            return damaged(out, object, "is not sorted by user or repeats a user", i);
        uint64_t ident = be64(u + ulen), snap = be64(u + ulen + 8);
        if (ident > (uint64_t)INT64_MAX) return damaged(out, object, "has a negative identifier", i);
        if (snap < 1 || snap > max_snapshot) return damaged(out, object, "names a snapshot outside 1 .. the referencing snapshot", i);
        out->items[i].user = user;
        out->items[i].identifier = (int64_t)ident;
        out->items[i].snapshot_id = snap;
        if (snap > out->max_snapshot) out->max_snapshot = snap;
        str += ulen + 1;
        at += 1 + ulen + 16;
    }
    if (at != len) return damaged(out, object, "has bytes after its last entry", SIZE_MAX);
    out->count = count;
    return 0;
}

const sc_watermark *sc_watermark_archive_find(const sc_watermark_archive *a, const char *user) {
    size_t lo = 0, hi = a->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(a->items[mid].user, user);
        if (c == 0) return &a->items[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

void sc_watermark_archive_name(char out[SC_WATERMARK_ARCHIVE_NAME_LEN + 1], const uint8_t sha256[SC_SHA256_LEN]) {
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_hex_encode(hex, sha256, SC_SHA256_LEN);
    snprintf(out, SC_WATERMARK_ARCHIVE_NAME_LEN + 1, SC_WATERMARK_ARCHIVE_PREFIX "%s", hex);
}

void sc_watermark_archive_key(char out[SC_WATERMARK_ARCHIVE_KEY_MAX], const char *name) {
    snprintf(out, SC_WATERMARK_ARCHIVE_KEY_MAX, SC_WATERMARK_ARCHIVE_DIR "%s", name);
}
