/*
 * Fuzz target: snapshot documents, sc_snapshot_decode.
 *
 * snapcommit's snapshots are sealed (docs/format.md §5: snapcommit.checksum
 * is the SHA-256 of the document with that value written as 64 zeros), so a
 * random mutation of one of ours almost always stops at the seal. Each input
 * is therefore decoded as is and, when it ends like a sealed document, once
 * more with the seal recomputed, which carries the mutation to the field
 * parser. Checked beyond "no sanitizer report, no leak":
 *   - a failure is SC_ECORRUPT, SC_ELIMIT or SC_EUNSUPPORTED (a newer
 *     snapshot version), with a message;
 *   - a snapshot of ours that decodes re-encodes, and the encoding decodes
 *     to the same fields (Paimon's own snapshots are never re-encoded).
 */
#include "fuzz_common.h"
#include "base/hash.h"
#include "format/snapshot.h"

static const int allowed[] = {SC_ECORRUPT, SC_ELIMIT, SC_EUNSUPPORTED, 0};
static const char member[] = "\"snapcommit.checksum\":\"";

static int ref_eq(const sc_object_ref *a, const sc_object_ref *b) {
    return sc_fuzz_str_eq(a->name, b->name) && a->length == b->length && a->has_sha256 == b->has_sha256 &&
           (!a->has_sha256 || memcmp(a->sha256, b->sha256, SC_SHA256_LEN) == 0);
}

static const char *snapshot_diff(const sc_snapshot *a, const sc_snapshot *b) {
    if (a->id != b->id || a->foreign != b->foreign || a->schema_id != b->schema_id) return "id/foreign/schema";
    if (strcmp(a->table_uuid, b->table_uuid) || strcmp(a->commit_uuid, b->commit_uuid)) return "uuids";
    if (!sc_fuzz_str_eq(a->commit_user, b->commit_user) || a->commit_identifier != b->commit_identifier)
        return "commit user/identifier";
    if (a->commit_kind != b->commit_kind || a->time_millis != b->time_millis) return "kind/time";
    if (a->total_record_count != b->total_record_count || a->delta_record_count != b->delta_record_count)
        return "record counts";
    if (a->file_count != b->file_count) return "file_count";
    if (a->has_parent != b->has_parent || (a->has_parent && memcmp(a->parent_hash, b->parent_hash, SC_SHA256_LEN)))
        return "parent";
    if (!ref_eq(&a->base_manifest_list, &b->base_manifest_list)) return "base manifest list";
    if (!ref_eq(&a->delta_manifest_list, &b->delta_manifest_list)) return "delta manifest list";
    if (a->watermark_count != b->watermark_count) return "watermark count";
    for (size_t i = 0; i < a->watermark_count; i++)
        if (!sc_fuzz_str_eq(a->watermarks[i].user, b->watermarks[i].user) ||
            a->watermarks[i].identifier != b->watermarks[i].identifier ||
            a->watermarks[i].snapshot_id != b->watermarks[i].snapshot_id)
            return "watermarks";
    return NULL;
}

static void decode_once(const uint8_t *data, size_t size) {
    sc_snapshot s;
    memset(&s, 0, sizeof s);
    sc_error_clear();
    int rc = sc_snapshot_decode(&s, data, size, "snapshot/snapshot-1");
    if (rc) {
        sc_fuzz_check_failure("snapshot", "sc_snapshot_decode", rc, allowed);
    } else if (!s.foreign) {
        sc_buf enc = SC_BUF_INIT;
        rc = sc_snapshot_encode(&enc, &s);
        if (rc) sc_fuzz_fail("snapshot", "a decoded snapshot does not re-encode", rc);
        sc_snapshot t;
        memset(&t, 0, sizeof t);
        rc = sc_snapshot_decode(&t, enc.data, enc.len, "snapshot/snapshot-again");
        if (rc) sc_fuzz_fail("snapshot", "a re-encoded snapshot does not decode", rc);
        const char *d = snapshot_diff(&s, &t);
        if (d) {
            fprintf(stderr, "re-encoded snapshot differs in %s\n", d);
            sc_fuzz_fail("snapshot", "re-encoded snapshot decodes to other fields", 0);
        }
        sc_snapshot_clear(&t);
        sc_buf_free(&enc);
    }
    sc_snapshot_clear(&s);
}

/* Offset of the 64 checksum digits when the text ends like a sealed document, else 0. */
static size_t seal_at(const uint8_t *data, size_t size) {
    size_t m = sizeof member - 1;
    if (size < m + SC_SHA256_HEX_LEN + 3) return 0;
    size_t at = size - 3 - SC_SHA256_HEX_LEN;
    if (memcmp(data + size - 3, "\"}}", 3) != 0 || memcmp(data + at - m, member, m) != 0) return 0;
    return at;
}

int sc_fuzz_snapshot(const uint8_t *data, size_t size) {
    decode_once(data, size);
    size_t at = seal_at(data, size);
    if (at) {
        uint8_t *copy = sc_fuzz_copy(data, size);
        memset(copy + at, '0', SC_SHA256_HEX_LEN);
        uint8_t hash[SC_SHA256_LEN];
        sc_sha256(hash, copy, size);
        char hex[SC_SHA256_HEX_LEN + 1];
        sc_hex_encode(hex, hash, SC_SHA256_LEN);
        memcpy(copy + at, hex, SC_SHA256_HEX_LEN);
        if (memcmp(copy, data, size) != 0) decode_once(copy, size);
        free(copy);
    }
    return 0;
}

SC_FUZZ_ENTRY(sc_fuzz_snapshot)
