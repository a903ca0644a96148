/* The fixed 256-byte head record: canonical encoder and bounded decoder. */
#include "format/head_record.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint32_t get_u32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v = v << 8 | p[i];
    return v;
}

static uint64_t get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static int all_zero(const uint8_t *p, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (p[i]) return 0;
    return 1;
}

/*
 * The rules both directions share. Returns NULL when `r` is valid, else the
 * violated field's name, its offset in *off and a description in *what.
 */
static const char *check_fields(const sc_head_record *r, unsigned *off, const char **what) {
    if (all_zero(r->table_uuid, SC_UUID_LEN)) {
        *off = SC_HEAD_OFF_TABLE_UUID, *what = "is the nil UUID";
        return "tableUuid";
    }
    if (all_zero(r->publisher_uuid, SC_UUID_LEN)) {
        *off = SC_HEAD_OFF_PUBLISHER_UUID, *what = "is the nil UUID";
        return "publisherUuid";
    }
    if (all_zero(r->publication_uuid, SC_UUID_LEN)) {
        *off = SC_HEAD_OFF_PUBLICATION_UUID, *what = "is the nil UUID";
        return "publicationUuid";
    }
    *off = SC_HEAD_OFF_REVISION;
    if (r->revision == 0) {
        *what = "is 0 (revisions start at 1)";
        return "revision";
    }
    if (r->revision > (uint64_t)INT64_MAX) {
        *what = "exceeds 2^63-1";
        return "revision";
    }
    *off = SC_HEAD_OFF_SNAPSHOT_LENGTH;
    if (r->snapshot_length == 0 || r->snapshot_length > SC_SNAPSHOT_MAX_BYTES) {
        *what = "is outside 1 .. the 64 MiB snapshot limit";
        return "snapshotLength";
    }
    if (r->commit_identifier < 0) {
        *off = SC_HEAD_OFF_COMMIT_IDENTIFIER, *what = "is negative";
        return "commitIdentifier";
    }
    if (!r->has_predecessor) {
        if (!all_zero(r->predecessor_sha256, SC_SHA256_LEN)) {
            *off = SC_HEAD_OFF_PREDECESSOR_SHA256;
            *what = "is not all zero although flags say there is no predecessor (non-canonical)";
            return "predecessorSha256";
        }
        if (r->predecessor_length != 0) {
            *off = SC_HEAD_OFF_PREDECESSOR_LENGTH;
            *what = "is not 0 although flags say there is no predecessor (non-canonical)";
            return "predecessorLength";
        }
        if (r->revision != 1) {
            *off = SC_HEAD_OFF_FLAGS, *what = "say no predecessor, but only revision 1 has none";
            return "flags";
        }
    } else {
        if (r->revision == 1) {
            *off = SC_HEAD_OFF_FLAGS, *what = "say a predecessor is present, but revision 1 has none";
            return "flags";
        }
        if (all_zero(r->predecessor_sha256, SC_SHA256_LEN)) {
            *off = SC_HEAD_OFF_PREDECESSOR_SHA256, *what = "is all zero although a predecessor is present";
            return "predecessorSha256";
        }
        if (r->predecessor_length != SC_HEAD_RECORD_LEN) {
            *off = SC_HEAD_OFF_PREDECESSOR_LENGTH;
            *what = r->predecessor_length == 0 ? "is 0 although a predecessor is present"
                                               : "is not 256 (the only length a head record has)";
            return "predecessorLength";
        }
    }
    return NULL;
}

int sc_head_encode(uint8_t out[SC_HEAD_RECORD_LEN], const sc_head_record *r) {
    unsigned off;
    const char *what;
    const char *field = check_fields(r, &off, &what);
    if (field) return sc_error_set(SC_EINVAL, "head record: field \"%s\" (byte %u) %s", field, off, what);
    memset(out, 0, SC_HEAD_RECORD_LEN);
    memcpy(out + SC_HEAD_OFF_MAGIC, SC_HEAD_MAGIC, 8);
    put_u32(out + SC_HEAD_OFF_VERSION, SC_HEAD_VERSION);
    put_u32(out + SC_HEAD_OFF_FLAGS, r->has_predecessor ? 1u : 0u);
    memcpy(out + SC_HEAD_OFF_TABLE_UUID, r->table_uuid, SC_UUID_LEN);
    memcpy(out + SC_HEAD_OFF_PUBLISHER_UUID, r->publisher_uuid, SC_UUID_LEN);
    memcpy(out + SC_HEAD_OFF_PUBLICATION_UUID, r->publication_uuid, SC_UUID_LEN);
    put_u64(out + SC_HEAD_OFF_REVISION, r->revision);
    memcpy(out + SC_HEAD_OFF_SNAPSHOT_SHA256, r->snapshot_sha256, SC_SHA256_LEN);
    put_u64(out + SC_HEAD_OFF_SNAPSHOT_LENGTH, r->snapshot_length);
    put_u64(out + SC_HEAD_OFF_COMMIT_IDENTIFIER, (uint64_t)r->commit_identifier);
    memcpy(out + SC_HEAD_OFF_PREDECESSOR_SHA256, r->predecessor_sha256, SC_SHA256_LEN);
    put_u32(out + SC_HEAD_OFF_PREDECESSOR_LENGTH, r->predecessor_length);
    sc_sha256(out + SC_HEAD_OFF_FOOTER, out, SC_HEAD_OFF_FOOTER);
    return 0;
}

static int bad(const char *object, const char *field, unsigned off, const char *what) {
    return sc_error_set(SC_ECORRUPT, "%s: head record field \"%s\" at byte offset %u %s", object, field, off, what);
}

int sc_head_decode(sc_head_record *out, const uint8_t *data, size_t len, const char *object) {
    memset(out, 0, sizeof *out);
    if (!object) object = "head record";
    if (len != SC_HEAD_RECORD_LEN)
        return sc_error_set(SC_ECORRUPT, "%s: head record is %zu bytes, not exactly %d (field \"length\" at byte offset 0)",
                            object, len, SC_HEAD_RECORD_LEN);
    if (memcmp(data + SC_HEAD_OFF_MAGIC, SC_HEAD_MAGIC, 8) != 0)
        return bad(object, "magic", SC_HEAD_OFF_MAGIC, "is not \"SCHEAD\\0\\1\": not a snapcommit head record");
    uint32_t version = get_u32(data + SC_HEAD_OFF_VERSION);
    if (version != SC_HEAD_VERSION) {
        char what[96];
        snprintf(what, sizeof what, "is %" PRIu32 ": only version %u is known", version, SC_HEAD_VERSION);
        return bad(object, "version", SC_HEAD_OFF_VERSION, what);
    }
    uint8_t footer[SC_SHA256_LEN];
    sc_sha256(footer, data, SC_HEAD_OFF_FOOTER);
    if (memcmp(footer, data + SC_HEAD_OFF_FOOTER, SC_SHA256_LEN) != 0)
        return bad(object, "footer", SC_HEAD_OFF_FOOTER, "does not match the SHA-256 of bytes [0,224): the record is damaged");
    uint32_t flags = get_u32(data + SC_HEAD_OFF_FLAGS);
    if (flags > 1) {
        char what[96];
        snprintf(what, sizeof what, "is %" PRIu32 ": only 0 and 1 are defined", flags);
        return bad(object, "flags", SC_HEAD_OFF_FLAGS, what);
    }
    for (unsigned i = SC_HEAD_OFF_RESERVED; i < SC_HEAD_OFF_FOOTER; i++) {
        if (data[i]) {
            char what[64];
            snprintf(what, sizeof what, "holds a non-zero byte at offset %u", i);
            return bad(object, "reserved", SC_HEAD_OFF_RESERVED, what);
        }
    }
    sc_head_record r;
    memset(&r, 0, sizeof r);
    r.has_predecessor = (int)flags;
    memcpy(r.table_uuid, data + SC_HEAD_OFF_TABLE_UUID, SC_UUID_LEN);
    memcpy(r.publisher_uuid, data + SC_HEAD_OFF_PUBLISHER_UUID, SC_UUID_LEN);
    memcpy(r.publication_uuid, data + SC_HEAD_OFF_PUBLICATION_UUID, SC_UUID_LEN);
    r.revision = get_u64(data + SC_HEAD_OFF_REVISION);
    memcpy(r.snapshot_sha256, data + SC_HEAD_OFF_SNAPSHOT_SHA256, SC_SHA256_LEN);
    r.snapshot_length = get_u64(data + SC_HEAD_OFF_SNAPSHOT_LENGTH);
    r.commit_identifier = (int64_t)get_u64(data + SC_HEAD_OFF_COMMIT_IDENTIFIER);
    memcpy(r.predecessor_sha256, data + SC_HEAD_OFF_PREDECESSOR_SHA256, SC_SHA256_LEN);
    r.predecessor_length = get_u32(data + SC_HEAD_OFF_PREDECESSOR_LENGTH);
    unsigned off;
    const char *what;
    const char *field = check_fields(&r, &off, &what);
    if (field) return bad(object, field, off, what);
    *out = r;
    return 0;
}

void sc_head_publisher_uuid(uint8_t out[SC_UUID_LEN], const char *user) {
    static const char prefix[] = "snapcommit-user:";
    size_t ulen = strlen(user);
    uint8_t digest[SC_SHA256_LEN];
    /* Users are at most SC_USER_MAX_LEN bytes; hash in one buffer when it fits. */
    uint8_t buf[sizeof prefix - 1 + SC_USER_MAX_LEN];
    if (ulen <= SC_USER_MAX_LEN) {
        memcpy(buf, prefix, sizeof prefix - 1);
        memcpy(buf + sizeof prefix - 1, user, ulen);
        sc_sha256(digest, buf, sizeof prefix - 1 + ulen);
    } else {
        /* Longer than any valid user: still deterministic, hashed the same way. */
        uint8_t *big = NULL;
        size_t n = sizeof prefix - 1 + ulen;
        big = (uint8_t *)malloc(n);
        if (big) {
            memcpy(big, prefix, sizeof prefix - 1);
            memcpy(big + sizeof prefix - 1, user, ulen);
            sc_sha256(digest, big, n);
            free(big);
        } else {
            memset(digest, 0xff, sizeof digest);
        }
    }
    memcpy(out, digest, SC_UUID_LEN);
    out[6] = (uint8_t)((out[6] & 0x0f) | 0x80); /* version 8: custom */
    out[8] = (uint8_t)((out[8] & 0x3f) | 0x80); /* variant 10 */
}

int sc_uuid_parse(uint8_t out[SC_UUID_LEN], const char *text) {
    static const int dash[] = {8, 13, 18, 23};
    if (!text || strlen(text) != SC_UUID_TEXT_LEN) return SC_EINVAL;
    char hex[33];
    size_t n = 0;
    for (int i = 0; i < SC_UUID_TEXT_LEN; i++) {
        int is_dash_pos = i == dash[0] || i == dash[1] || i == dash[2] || i == dash[3];
        if (is_dash_pos) {
            if (text[i] != '-') return SC_EINVAL;
        } else {
            hex[n++] = text[i];
        }
    }
    hex[n] = '\0';
    return sc_hex_decode(out, SC_UUID_LEN, hex);
}

void sc_uuid_format(char out[SC_UUID_TEXT_LEN + 1], const uint8_t u[SC_UUID_LEN]) {
    snprintf(out, SC_UUID_TEXT_LEN + 1,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
             u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}
