/* Snapshot documents and table metadata as canonical JSON. */
#include "format/snapshot.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/head_record.h"
#include "format/manifest.h"
#include "format/seal.h"

#define SNAPSHOT_KEY_PREFIX "snapshot/snapshot-"

int sc_utf8_valid(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
        if (n < 0 || (n == 1 && *p < 0xc2) || (n == 3 && *p > 0xf4)) return 0;
        uint32_t cp = *p & (0x7f >> n);
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xc0) != 0x80) return 0;
            cp = cp << 6 | (p[i] & 0x3f);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return 0;
        p += n + 1;
    }
    return 1;
}

void sc_snapshot_key(char out[64], uint64_t id) {
    snprintf(out, 64, SNAPSHOT_KEY_PREFIX "%" PRIu64, id);
}

/* Exactly the name sc_snapshot_key writes, so that one id has one key: a
 * leading zero ("snapshot-07") would be a second object for snapshot 7 that a
 * Paimon reader parses as 7 too, and discovery must refuse it, not skip it. */
int sc_snapshot_key_parse(uint64_t *out_id, const char *key) {
    size_t plen = strlen(SNAPSHOT_KEY_PREFIX);
    if (strncmp(key, SNAPSHOT_KEY_PREFIX, plen) != 0) return SC_EINVAL;
    const char *digits = key + plen;
    size_t n = strlen(digits);
    if (n == 0 || n > 20 || digits[0] == '0') return SC_EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (digits[i] < '0' || digits[i] > '9') return SC_EINVAL;
        uint64_t d = (uint64_t)(digits[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return SC_EINVAL;
        v = v * 10 + d;
    }
    *out_id = v;
    return 0;
}

static void object_ref_clear(sc_object_ref *r) {
    free(r->name);
    memset(r, 0, sizeof *r);
}

void sc_snapshot_clear(sc_snapshot *snap) {
    if (!snap) return;
    free(snap->commit_user);
    object_ref_clear(&snap->base_manifest_list);
    object_ref_clear(&snap->delta_manifest_list);
    object_ref_clear(&snap->watermark_archive);
    object_ref_clear(&snap->changelog_manifest_list);
    free(snap->index_manifest);
    free(snap->statistics);
    for (size_t i = 0; i < snap->watermark_count; i++) free(snap->watermarks[i].user);
    free(snap->watermarks);
    memset(snap, 0, sizeof *snap);
}

const sc_watermark *sc_snapshot_watermark(const sc_snapshot *snap, const char *user) {
    size_t lo = 0, hi = snap->watermark_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(snap->watermarks[mid].user, user);
        if (c == 0) return &snap->watermarks[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

void sc_manifest_key(char *out, size_t cap, const char *name) { snprintf(out, cap, "manifest/%s", name); }

/* ---- encoding ---- */

/* Paimon's snapshot version: the one 1.4 writes. */
#define PAIMON_SNAPSHOT_VERSION 3
/* The property that seals the document, and the shape of its value. */
#define CHECKSUM_KEY "snapcommit.checksum"
#define CHECKSUM_MEMBER "\"" CHECKSUM_KEY "\":\""

static int set_prop(json_t *props, const char *key, const char *value) {
    json_t *v = json_string(value);
    if (!v || json_object_set_new(props, key, v) != 0) return sc_error_set(SC_ENOMEM, "out of memory building JSON");
    return 0;
}

static int set_prop_int(json_t *props, const char *key, int64_t value) {
    char text[32];
    snprintf(text, sizeof text, "%" PRId64, value);
    return set_prop(props, key, text);
}

static int set_prop_hash(json_t *props, const char *key, const uint8_t hash[SC_SHA256_LEN]) {
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_hex_encode(hex, hash, SC_SHA256_LEN);
    return set_prop(props, key, hex);
}

/* The watermark table as one string property: [["user",identifier,snapshot],...]
 * (Paimon reads properties as Map<String,String>: a nested value would fail it). */
static int watermarks_text(char **out, const sc_snapshot *s) {
    json_t *wm = json_array();
    if (!wm) return sc_error_set(SC_ENOMEM, "out of memory building JSON");
    for (size_t i = 0; i < s->watermark_count; i++) {
        /* A watermark silently left out would let that user's replays through: fail instead. */
        json_t *w = json_pack("[s, I, I]", s->watermarks[i].user, (json_int_t)s->watermarks[i].identifier,
                              (json_int_t)s->watermarks[i].snapshot_id);
        if (!w || json_array_append_new(wm, w) != 0) {
            json_decref(wm);
            return sc_error_set(SC_ENOMEM, "out of memory encoding the watermark of user %zu", i);
        }
    }
    *out = json_dumps(wm, JSON_COMPACT);
    json_decref(wm);
    return *out ? 0 : sc_error_set(SC_ENOMEM, "out of memory encoding the watermarks");
}

#define ARCHIVE_KEY "snapcommit.watermarkArchive"
#define CHANGELOG_SHA_KEY "snapcommit.changelogManifestList.sha256"
#define ARCHIVE_LENGTH_KEY "snapcommit.watermarkArchive.length"

static json_t *snapshot_properties(const sc_snapshot *s) {
    json_t *p = json_object();
    if (!p) return NULL;
    char *wm = NULL;
    int rc = set_prop(p, "snapcommit.tableUuid", s->table_uuid);
    if (!rc) rc = set_prop(p, "snapcommit.commitUuid", s->commit_uuid);
    if (!rc) rc = set_prop_int(p, "snapcommit.fileCount", (int64_t)s->file_count);
    if (!rc && s->has_parent) rc = set_prop_hash(p, "snapcommit.parentHash", s->parent_hash);
    if (!rc) rc = set_prop_hash(p, "snapcommit.baseManifestList.sha256", s->base_manifest_list.sha256);
    if (!rc) rc = set_prop_hash(p, "snapcommit.deltaManifestList.sha256", s->delta_manifest_list.sha256);
    if (!rc && s->changelog_manifest_list.name && s->changelog_manifest_list.has_sha256)
        rc = set_prop_hash(p, CHANGELOG_SHA_KEY, s->changelog_manifest_list.sha256);
    if (!rc) rc = watermarks_text(&wm, s);
    if (!rc) rc = set_prop(p, "snapcommit.watermarks", wm);
    /* The archive's hash is its name (content-addressed): name and length pin it. */
    if (!rc && s->watermark_archive.name) rc = set_prop(p, ARCHIVE_KEY, s->watermark_archive.name);
    if (!rc && s->watermark_archive.name) rc = set_prop_int(p, ARCHIVE_LENGTH_KEY, (int64_t)s->watermark_archive.length);
    /* Last, so the seal can be found and patched in the text (see seal_snapshot). */
    if (!rc) rc = set_prop(p, CHECKSUM_KEY, "0000000000000000000000000000000000000000000000000000000000000000");
    free(wm);
    if (rc) {
        json_decref(p);
        return NULL;
    }
    return p;
}

/*
 * Seal the document in place: the checksum member holds 64 zeros while the
 * hash is taken, then the hash. A reader repeats that (unseal_snapshot), so
 * any change to any byte is detected, with no canonical re-encoding needed.
 */
static int find_checksum(size_t *out_at, const uint8_t *data, size_t len) {
    /* The member is the last of "properties", which is the document's last member:
     * ..."snapcommit.checksum":"<64 hex>"}} with nothing after it. */
    static const char tail[] = "\"}}";
    size_t member = strlen(CHECKSUM_MEMBER);
    if (len < member + SC_SHA256_HEX_LEN + 3) return SC_ENOTFOUND;
    size_t at = len - 3 - SC_SHA256_HEX_LEN;
    if (memcmp(data + len - 3, tail, 3) != 0 || memcmp(data + at - member, CHECKSUM_MEMBER, member) != 0)
        return SC_ENOTFOUND;
    *out_at = at;
    return 0;
}

static int seal_snapshot(sc_buf *doc, size_t start) {
    size_t at;
    if (find_checksum(&at, doc->data + start, doc->len - start) != 0)
        return sc_error_set(SC_ENOMEM, "encoding a snapshot lost its checksum member");
    uint8_t hash[SC_SHA256_LEN];
    sc_sha256(hash, doc->data + start, doc->len - start);
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_hex_encode(hex, hash, SC_SHA256_LEN);
    memcpy(doc->data + start + at, hex, SC_SHA256_HEX_LEN);
    return 0;
}

int sc_snapshot_encode(sc_buf *out, const sc_snapshot *s) {
    if (!s->commit_user || !s->base_manifest_list.name || !s->delta_manifest_list.name)
        return sc_error_set(SC_EINVAL, "snapshot %" PRIu64 " is incomplete", s->id);
    if (s->foreign) return sc_error_set(SC_EINVAL, "snapshot %" PRIu64 ": only snapcommit's own snapshots are encoded", s->id);
    /* What the reader would refuse is refused here, naming the field (not as a damaged document). */
    if ((s->changelog_manifest_list.name && sc_file_name_validate("changelogManifestList", s->changelog_manifest_list.name)) ||
        (s->index_manifest && sc_file_name_validate("indexManifest", s->index_manifest)) ||
        (s->statistics && sc_file_name_validate("statistics", s->statistics)))
        return sc_error_wrap(SC_EINVAL, "snapshot %" PRIu64, s->id);
    if (s->has_changelog_record_count && s->changelog_record_count < 0)
        return sc_error_set(SC_EINVAL, "snapshot %" PRIu64 ": changelogRecordCount %" PRId64 " is negative", s->id,
                            s->changelog_record_count);
    json_t *props = snapshot_properties(s);
    if (!props) return sc_error_set(SC_ENOMEM, "out of memory building the properties of snapshot %" PRIu64, s->id);
    /* Paimon's field order (org.apache.paimon.Snapshot), its optional members
     * omitted when absent as its NON_NULL inclusion does; properties last (the seal). */
    json_t *doc = json_object();
    int ok = doc != NULL;
#define MEMBER(name, value) (ok = ok && json_object_set_new(doc, name, value) == 0)
    MEMBER("version", json_integer(PAIMON_SNAPSHOT_VERSION));
    MEMBER("id", json_integer((json_int_t)s->id));
    MEMBER("schemaId", json_integer((json_int_t)s->schema_id));
    MEMBER("baseManifestList", json_string(s->base_manifest_list.name));
    MEMBER("baseManifestListSize", json_integer((json_int_t)s->base_manifest_list.length));
    MEMBER("deltaManifestList", json_string(s->delta_manifest_list.name));
    MEMBER("deltaManifestListSize", json_integer((json_int_t)s->delta_manifest_list.length));
    if (s->changelog_manifest_list.name) {
        MEMBER("changelogManifestList", json_string(s->changelog_manifest_list.name));
        MEMBER("changelogManifestListSize", json_integer((json_int_t)s->changelog_manifest_list.length));
    }
    if (s->index_manifest) MEMBER("indexManifest", json_string(s->index_manifest));
    MEMBER("commitUser", json_string(s->commit_user));
    MEMBER("commitIdentifier", json_integer((json_int_t)s->commit_identifier));
    MEMBER("commitKind", json_string(sc_commit_kind_name(s->commit_kind)));
    MEMBER("timeMillis", json_integer((json_int_t)s->time_millis));
    MEMBER("totalRecordCount", json_integer((json_int_t)s->total_record_count));
    MEMBER("deltaRecordCount", json_integer((json_int_t)s->delta_record_count));
    if (s->has_changelog_record_count) MEMBER("changelogRecordCount", json_integer((json_int_t)s->changelog_record_count));
    if (s->has_watermark) MEMBER("watermark", json_integer((json_int_t)s->watermark));
    if (s->statistics) MEMBER("statistics", json_string(s->statistics));
    if (ok) MEMBER("properties", props);
    else json_decref(props);
#undef MEMBER
    if (!ok) {
        json_decref(doc);
        return sc_error_set(SC_ENOMEM, "out of memory building JSON");
    }
    char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!text) return sc_error_set(SC_ENOMEM, "out of memory encoding JSON");
    size_t start = out->len;
    int rc = sc_buf_append_str(out, text);
    free(text);
    if (!rc) rc = seal_snapshot(out, start);
    if (rc) {
        out->len = start;
        return rc;
    }
    /* Never claim a document that cannot be read back: an allocation failure
     * inside the JSON library can yield a damaged text without an error. */
    sc_snapshot check;
    if (sc_snapshot_decode(&check, out->data + start, out->len - start, "the encoded snapshot") != 0) {
        out->len = start;
        return sc_error_wrap(SC_ENOMEM, "encoding snapshot %" PRIu64 " produced an unreadable document", s->id);
    }
    int same = check.id == s->id && check.watermark_count == s->watermark_count &&
               check.commit_identifier == s->commit_identifier && !check.foreign &&
               !check.watermark_archive.name == !s->watermark_archive.name &&
               !check.changelog_manifest_list.name == !s->changelog_manifest_list.name &&
               !check.index_manifest == !s->index_manifest && !check.statistics == !s->statistics &&
               check.has_changelog_record_count == !!s->has_changelog_record_count &&
               check.has_watermark == !!s->has_watermark;
    sc_snapshot_clear(&check);
    if (!same) {
        out->len = start;
        return sc_error_set(SC_ENOMEM, "encoding snapshot %" PRIu64 " lost fields", s->id);
    }
    return 0;
}

static int dump_canonical(sc_buf *out, json_t *value) {
    if (!value) return sc_error_set(SC_ENOMEM, "out of memory building JSON");
    char *text = json_dumps(value, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(value);
    if (!text) return sc_error_set(SC_ENOMEM, "out of memory encoding JSON");
    sc_buf doc = SC_BUF_INIT;
    int rc = sc_buf_append_str(&doc, text);
    free(text);
    if (!rc) rc = sc_seal_json(&doc);
    if (!rc) rc = sc_buf_append(out, doc.data, doc.len);
    sc_buf_free(&doc);
    return rc;
}

/* ---- decoding ---- */

typedef struct field_ctx {
    const char *object;
} field_ctx;

static int corrupt(const field_ctx *c, const char *field, const char *what) {
    return sc_error_set(SC_ECORRUPT, "%s: field \"%s\" %s", c->object, field, what);
}

static int get_int(const field_ctx *c, json_t *obj, const char *field, int64_t min, int64_t *out) {
    json_t *v = json_object_get(obj, field);
    if (!v) return corrupt(c, field, "is missing");
    if (!json_is_integer(v)) return corrupt(c, field, "is not an integer");
    json_int_t x = json_integer_value(v);
    if (x < min) {
        char what[96];
        snprintf(what, sizeof what, "is %" PRId64 ", below its minimum %" PRId64, (int64_t)x, min);
        return corrupt(c, field, what);
    }
    *out = (int64_t)x;
    return 0;
}

static int get_str(const field_ctx *c, json_t *obj, const char *field, size_t max_len,
                   const char **out) {
    json_t *v = json_object_get(obj, field);
    if (!v) return corrupt(c, field, "is missing");
    if (!json_is_string(v)) return corrupt(c, field, "is not a string");
    if (json_string_length(v) > max_len) return corrupt(c, field, "is too long");
    if (strlen(json_string_value(v)) != json_string_length(v))
        return corrupt(c, field, "contains a NUL byte");
    *out = json_string_value(v);
    return 0;
}

/* A decimal integer held in a string property (Paimon's properties are strings). */
static int get_prop_int(const field_ctx *c, json_t *obj, const char *field, int64_t min, int64_t *out) {
    const char *text = NULL; /* set by get_str on success; gcc -O3 cannot see it */
    int rc = get_str(c, obj, field, 20, &text);
    if (rc) return rc;
    char *end = NULL;
    errno = 0;
    long long v = *text ? strtoll(text, &end, 10) : 0;
    if (!*text || *end || errno || v < min || (text[0] == '0' && text[1]) || text[0] == '+' || text[0] == ' ')
        return corrupt(c, field, "is not a canonical decimal integer in range");
    *out = (int64_t)v;
    return 0;
}

static int get_hash(const field_ctx *c, json_t *obj, const char *field, uint8_t out[32]) {
    const char *hex = NULL;
    int rc = get_str(c, obj, field, SC_SHA256_HEX_LEN, &hex);
    if (rc) return rc;
    if (strlen(hex) != SC_SHA256_HEX_LEN || sc_hex_decode(out, SC_SHA256_LEN, hex) != 0)
        return corrupt(c, field, "is not a 64-digit hex SHA-256");
    return 0;
}

static int get_uuid(const field_ctx *c, json_t *obj, const char *field, char out[37]) {
    const char *u = NULL; /* set when get_str succeeds; gcc -O3 cannot tell */
    int rc = get_str(c, obj, field, SC_UUID_TEXT_LEN, &u);
    if (rc) return rc;
    if (!*u) return corrupt(c, field, "is empty");
    uint8_t bytes[SC_UUID_LEN];
    if (strlen(u) != SC_UUID_TEXT_LEN || sc_uuid_parse(bytes, u) != 0)
        return corrupt(c, field, "is not a UUID (8-4-4-4-12 hex digits)");
    uint8_t any = 0;
    for (size_t i = 0; i < SC_UUID_LEN; i++) any |= bytes[i];
    if (!any) return corrupt(c, field, "is the nil UUID (all zeros)");
    memcpy(out, u, SC_UUID_TEXT_LEN + 1);
    return 0;
}

/* A manifest list named by `field` with its size `size_field` (absent in Paimon <= 1.0 snapshots: 0). */
static int get_ref(const field_ctx *c, json_t *doc, const char *field, const char *size_field, sc_object_ref *out) {
    const char *name = NULL; /* set by get_str on success; -O3 cannot see it */
    int64_t length = 0;
    int rc = get_str(c, doc, field, 1024, &name);
    if (!rc && (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0))
        rc = corrupt(c, field, "is not a file name under manifest/");
    if (!rc && json_object_get(doc, size_field) && !json_is_null(json_object_get(doc, size_field)))
        rc = get_int(c, doc, size_field, 0, &length);
    if (rc) return rc;
    out->length = (uint64_t)length;
    out->name = strdup(name);
    return out->name ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
}

static json_t *parse_object(const uint8_t *data, size_t len, const char *object) {
    json_error_t err;
    json_t *doc = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, &err);
    if (!doc) {
        sc_error_set(SC_ECORRUPT, "%s: invalid JSON at byte %d: %s", object, err.position, err.text);
        return NULL;
    }
    if (!json_is_object(doc)) {
        json_decref(doc);
        sc_error_set(SC_ECORRUPT, "%s: not a JSON object", object);
        return NULL;
    }
    return doc;
}

static json_t *load_json(const uint8_t *data, size_t len, size_t max, const char *object) {
    if (len > max) {
        sc_error_set(SC_ECORRUPT, "%s: %zu bytes exceeds the %zu-byte limit", object, len, max);
        return NULL;
    }
    sc_buf body = SC_BUF_INIT;
    if (sc_unseal_json(&body, data, len, object) != 0) {
        sc_buf_free(&body);
        return NULL;
    }
    json_t *doc = parse_object(body.data, body.len, object);
    sc_buf_free(&body);
    return doc;
}

static int decode_watermarks(sc_snapshot *out, const field_ctx *c, const char *text) {
    json_error_t err;
    json_t *arr = json_loads(text, 0, &err);
    int rc = 0;
    size_t n = arr && json_is_array(arr) ? json_array_size(arr) : 0;
    if (!arr || !json_is_array(arr)) rc = corrupt(c, "snapcommit.watermarks", "is not a JSON array");
    else if (n > SC_WATERMARK_MAX_USERS) rc = corrupt(c, "snapcommit.watermarks", "has too many users");
    else if (!(out->watermarks = calloc(n ? n : 1, sizeof *out->watermarks))) rc = sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        json_t *w = json_array_get(arr, i);
        json_t *u = json_array_get(w, 0), *ident = json_array_get(w, 1), *snap = json_array_get(w, 2);
        if (!json_is_array(w) || json_array_size(w) != 3 || !json_is_string(u) || !json_is_integer(ident) ||
            !json_is_integer(snap) || json_string_length(u) == 0 || json_string_length(u) > SC_USER_MAX_LEN ||
            strlen(json_string_value(u)) != json_string_length(u) || json_integer_value(ident) < 0 ||
            json_integer_value(snap) < 1) {
            char what[128];
            snprintf(what, sizeof what, "entry %zu is not [user, identifier >= 0, snapshot >= 1]", i);
            rc = corrupt(c, "snapcommit.watermarks", what);
            break;
        }
        const char *user = json_string_value(u);
        if ((uint64_t)json_integer_value(snap) > out->id) rc = corrupt(c, "snapcommit.watermarks", "points past the snapshot");
        else if (i > 0 && strcmp(out->watermarks[i - 1].user, user) >= 0)
            rc = corrupt(c, "snapcommit.watermarks", "is not sorted by user or repeats a user");
        else if (!(out->watermarks[i].user = strdup(user))) rc = sc_error_set(SC_ENOMEM, "out of memory");
        if (rc) break;
        out->watermarks[i].identifier = (int64_t)json_integer_value(ident);
        out->watermarks[i].snapshot_id = (uint64_t)json_integer_value(snap);
        out->watermark_count = i + 1;
    }
    json_decref(arr);
    return rc;
}

int sc_watermark_archive_name_parse(uint8_t out_sha256[SC_SHA256_LEN], const char *name) {
    size_t plen = sizeof SC_WATERMARK_ARCHIVE_PREFIX - 1;
    if (strlen(name) != SC_WATERMARK_ARCHIVE_NAME_LEN || strncmp(name, SC_WATERMARK_ARCHIVE_PREFIX, plen) != 0)
        return SC_EINVAL;
    /* Lower-case only, so one archive has one name. */
    for (const char *h = name + plen; *h; h++)
        if (!((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f'))) return SC_EINVAL;
    return sc_hex_decode(out_sha256, SC_SHA256_LEN, name + plen) == 0 ? 0 : SC_EINVAL;
}

/* The optional watermark archive reference: both properties or neither. */
static int decode_archive_ref(sc_snapshot *out, const field_ctx *c, json_t *props) {
    json_t *name_v = json_object_get(props, ARCHIVE_KEY), *len_v = json_object_get(props, ARCHIVE_LENGTH_KEY);
    if (!name_v && !len_v) return 0;
    if (!name_v) return corrupt(c, ARCHIVE_KEY, "is missing while " ARCHIVE_LENGTH_KEY " is present");
    const char *name = NULL;
    int64_t length = 0;
    int rc = get_str(c, props, ARCHIVE_KEY, SC_WATERMARK_ARCHIVE_NAME_LEN, &name);
    if (!rc && sc_watermark_archive_name_parse(out->watermark_archive.sha256, name) != 0)
        rc = corrupt(c, ARCHIVE_KEY, "is not \"watermarks-\" followed by 64 lower-case hex digits");
    if (!rc) rc = get_prop_int(c, props, ARCHIVE_LENGTH_KEY, 12, &length);
    if (!rc && (uint64_t)length > SC_WATERMARK_ARCHIVE_MAX_LENGTH) rc = corrupt(c, ARCHIVE_LENGTH_KEY, "exceeds the archive's size limit");
    if (rc) return rc;
    out->watermark_archive.has_sha256 = 1;
    out->watermark_archive.length = (uint64_t)length;
    out->watermark_archive.name = strdup(name);
    return out->watermark_archive.name ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
}

/* 1 when `field` is present and not null (Paimon writes absent members as nothing, older
 * writers or other tools may write null). */
static int has_member(json_t *doc, const char *field) {
    json_t *v = json_object_get(doc, field);
    return v && !json_is_null(v);
}

/* An optional file name under a fixed directory (manifest/, statistics/): *out strdup'd or NULL. */
static int get_opt_name(const field_ctx *c, json_t *doc, const char *field, const char *dir, char **out) {
    const char *name = NULL; /* set by get_str on success; -O3 cannot see it */
    if (!has_member(doc, field)) return 0;
    int rc = get_str(c, doc, field, 1024, &name);
    if (!rc && (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)) {
        char what[64];
        snprintf(what, sizeof what, "is not a file name under %s", dir);
        rc = corrupt(c, field, what);
    }
    if (rc) return rc;
    *out = strdup(name);
    return *out ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
}

/* Paimon's optional members: changelog list, index manifest, changelog count, watermark, statistics. */
static int decode_optional(sc_snapshot *out, const field_ctx *c, json_t *doc) {
    int rc = 0;
    if (has_member(doc, "changelogManifestList"))
        rc = get_ref(c, doc, "changelogManifestList", "changelogManifestListSize", &out->changelog_manifest_list);
    json_t *props = json_object_get(doc, "properties");
    if (!rc && !out->foreign && json_object_get(props, CHANGELOG_SHA_KEY)) {
        if (!out->changelog_manifest_list.name)
            rc = corrupt(c, CHANGELOG_SHA_KEY, "is present without changelogManifestList");
        else if (!(rc = get_hash(c, props, CHANGELOG_SHA_KEY, out->changelog_manifest_list.sha256)))
            out->changelog_manifest_list.has_sha256 = 1;
    }
    if (!rc) rc = get_opt_name(c, doc, "indexManifest", "manifest/", &out->index_manifest);
    if (!rc && has_member(doc, "changelogRecordCount")) {
        rc = get_int(c, doc, "changelogRecordCount", 0, &out->changelog_record_count);
        out->has_changelog_record_count = rc == 0;
    }
    if (!rc && has_member(doc, "watermark")) {
        rc = get_int(c, doc, "watermark", INT64_MIN, &out->watermark);
        out->has_watermark = rc == 0;
    }
    if (!rc) rc = get_opt_name(c, doc, "statistics", "statistics/", &out->statistics);
    return rc;
}

/* Verify the seal of a snapcommit snapshot (see seal_snapshot). */
static int unseal_snapshot(const uint8_t *data, size_t len, const field_ctx *c) {
    size_t at;
    if (find_checksum(&at, data, len) != 0)
        return corrupt(c, CHECKSUM_KEY, "is not the document's last member (the snapshot was changed after it was written)");
    /* Compared as text: the encoder writes lower-case hex, so "A" for "a" is damage too. */
    uint8_t got[SC_SHA256_LEN];
    char hex[SC_SHA256_HEX_LEN + 1];
    uint8_t *copy = malloc(len);
    if (!copy) return sc_error_set(SC_ENOMEM, "out of memory");
    memcpy(copy, data, len);
    memset(copy + at, '0', SC_SHA256_HEX_LEN);
    sc_sha256(got, copy, len);
    free(copy);
    sc_hex_encode(hex, got, SC_SHA256_LEN);
    if (memcmp(hex, data + at, SC_SHA256_HEX_LEN) != 0)
        return sc_error_set(SC_ECORRUPT, "%s: checksum mismatch (the document was damaged or edited)", c->object);
    return 0;
}

/*
 * 1 when the text holds a member key starting "snapcommit." anywhere: a key
 * is preceded by '{' or ',' (and blanks), which a '"' inside a string value
 * never is unescaped. Looking at the text rather than at "properties" means
 * a damaged "properties" key cannot make one of our snapshots pass as
 * Paimon's (which would skip its checks).
 */
static int text_has_our_keys(const uint8_t *data, size_t len) {
    static const char needle[] = "\"snapcommit.";
    size_t n = sizeof needle - 1;
    for (size_t i = 0; i + n <= len; i++) {
        if (data[i] != '"' || memcmp(data + i, needle, n) != 0) continue;
        size_t j = i;
        while (j > 0 && (data[j - 1] == ' ' || data[j - 1] == '\n' || data[j - 1] == '\t' || data[j - 1] == '\r')) j--;
        if (j > 0 && (data[j - 1] == '{' || data[j - 1] == ',')) return 1;
    }
    return 0;
}

/* The snapcommit.* properties; `foreign` = 1 when there are none (a snapshot Paimon wrote). */
static int decode_properties(sc_snapshot *out, const field_ctx *c, json_t *doc, const uint8_t *data, size_t len) {
    json_t *props = json_object_get(doc, "properties");
    out->foreign = !text_has_our_keys(data, len);
    if (props && !json_is_null(props)) {
        if (!json_is_object(props)) return corrupt(c, "properties", "is not an object");
        const char *key;
        json_t *value;
        json_object_foreach(props, key, value) {
            if (!json_is_string(value)) return corrupt(c, "properties", "holds a value that is not a string");
        }
    }
    if (out->foreign) return 0;
    if (!props || !json_is_object(props)) return corrupt(c, "properties", "is missing from a snapshot snapcommit wrote");
    /* One of ours (its seal was checked first): every property must be there. */
    int rc = 0;
    const char *wm = NULL;
    int64_t files = 0;
    if (!rc) rc = get_uuid(c, props, "snapcommit.tableUuid", out->table_uuid);
    if (!rc) rc = get_uuid(c, props, "snapcommit.commitUuid", out->commit_uuid);
    if (!rc) rc = get_prop_int(c, props, "snapcommit.fileCount", 0, &files);
    if (!rc) {
        out->file_count = (uint64_t)files;
        json_t *p = json_object_get(props, "snapcommit.parentHash");
        if (p && !(rc = get_hash(c, props, "snapcommit.parentHash", out->parent_hash))) out->has_parent = 1;
        if (!rc && out->id == 1 && out->has_parent) rc = corrupt(c, "snapcommit.parentHash", "must be absent for snapshot 1");
        if (!rc && out->id > 1 && !out->has_parent) rc = corrupt(c, "snapcommit.parentHash", "is missing");
    }
    if (!rc && !(rc = get_hash(c, props, "snapcommit.baseManifestList.sha256", out->base_manifest_list.sha256)))
        out->base_manifest_list.has_sha256 = 1;
    if (!rc && !(rc = get_hash(c, props, "snapcommit.deltaManifestList.sha256", out->delta_manifest_list.sha256)))
        out->delta_manifest_list.has_sha256 = 1;
    if (!rc) rc = get_str(c, props, "snapcommit.watermarks", (size_t)SC_WATERMARK_MAX_USERS * (SC_USER_MAX_LEN * 6 + 64), &wm);
    if (!rc) rc = decode_watermarks(out, c, wm);
    if (!rc) rc = decode_archive_ref(out, c, props);
    return rc;
}

int sc_snapshot_decode(sc_snapshot *out, const uint8_t *data, size_t len, const char *object) {
    memset(out, 0, sizeof *out);
    if (len > SC_SNAPSHOT_MAX_BYTES)
        return sc_error_set(SC_ECORRUPT, "%s: %zu bytes exceeds the %u-byte limit", object, len, SC_SNAPSHOT_MAX_BYTES);
    json_t *doc = parse_object(data, len, object);
    if (!doc) return SC_ECORRUPT;
    field_ctx c = {object};
    int64_t version, id, ident, t, total, delta, schema;
    const char *user, *kind;
    /* Ours are sealed: check the seal before any field is believed. */
    int rc = text_has_our_keys(data, len) ? unseal_snapshot(data, len, &c) : 0;
    if (!rc) rc = get_int(&c, doc, "version", 1, &version);
    /* Paimon has no check of the version when reading; versions 1..3 share these fields. */
    if (!rc && version > PAIMON_SNAPSHOT_VERSION)
        rc = sc_error_set(SC_EUNSUPPORTED, "%s: snapshot version %" PRId64 " is newer than this build reads (%d)", object,
                          version, PAIMON_SNAPSHOT_VERSION);
    if (!rc) rc = get_int(&c, doc, "id", 1, &id);
    if (!rc) rc = get_int(&c, doc, "schemaId", 0, &schema);
    if (!rc) rc = get_str(&c, doc, "commitUser", SC_USER_MAX_LEN, &user);
    /* Paimon's batch commits use Long.MAX_VALUE; no other negative identifiers exist. */
    if (!rc) rc = get_int(&c, doc, "commitIdentifier", INT64_MIN, &ident);
    if (!rc) rc = get_str(&c, doc, "commitKind", 16, &kind);
    if (!rc && sc_commit_kind_parse(&out->commit_kind, kind) != 0)
        rc = corrupt(&c, "commitKind", "is not APPEND, COMPACT, OVERWRITE or ANALYZE");
    if (!rc) rc = get_int(&c, doc, "timeMillis", INT64_MIN, &t);
    if (!rc) rc = get_int(&c, doc, "totalRecordCount", 0, &total);
    if (!rc) rc = get_int(&c, doc, "deltaRecordCount", INT64_MIN, &delta);
    if (!rc) out->id = (uint64_t)id;
    if (!rc) rc = get_ref(&c, doc, "baseManifestList", "baseManifestListSize", &out->base_manifest_list);
    if (!rc) rc = get_ref(&c, doc, "deltaManifestList", "deltaManifestListSize", &out->delta_manifest_list);
    if (!rc) rc = decode_properties(out, &c, doc, data, len);
    if (!rc) rc = decode_optional(out, &c, doc);
    if (!rc && !out->foreign && ident < 0) rc = corrupt(&c, "commitIdentifier", "is negative");
    if (!rc) {
        out->schema_id = schema;
        out->commit_user = strdup(user);
        if (!out->commit_user) rc = sc_error_set(SC_ENOMEM, "out of memory");
        out->commit_identifier = ident;
        out->time_millis = t;
        out->total_record_count = total;
        out->delta_record_count = delta;
    }
    json_decref(doc);
    if (rc) sc_snapshot_clear(out);
    return rc;
}

/* ---- table metadata ---- */

int sc_table_meta_encode(sc_buf *out, const sc_table_meta *m) {
    json_t *doc = json_pack("{s:i, s:s, s:s, s:I}", "formatVersion", m->format_version,
                            "tableUuid", m->table_uuid, "strategy", sc_strategy_name(m->strategy),
                            "createdMillis", (json_int_t)m->created_millis);
    return dump_canonical(out, doc);
}

int sc_table_meta_decode(sc_table_meta *out, const uint8_t *data, size_t len) {
    static const char *object = SC_TABLE_META_KEY;
    memset(out, 0, sizeof *out);
    json_t *doc = load_json(data, len, SC_TABLE_META_MAX_BYTES, object);
    if (!doc) return SC_ECORRUPT;
    field_ctx c = {object};
    int64_t version = 0, created = 0; /* set when get_int succeeds; gcc -O3 cannot tell */
    const char *strategy;
    int rc = get_int(&c, doc, "formatVersion", 1, &version);
    if (!rc && (version < SC_FORMAT_VERSION_MIN || version > SC_FORMAT_VERSION))
        rc = sc_error_set(SC_EUNSUPPORTED,
                          "%s: table format version %" PRId64 " is not supported (this build "
                          "reads versions %d to %d)",
                          object, version, SC_FORMAT_VERSION_MIN, SC_FORMAT_VERSION);
    if (!rc) rc = get_uuid(&c, doc, "tableUuid", out->table_uuid);
    if (!rc) rc = get_str(&c, doc, "strategy", 32, &strategy);
    if (!rc && (sc_strategy_parse(&out->strategy, strategy) != 0 ||
                out->strategy == SC_STRATEGY_AUTO))
        rc = corrupt(&c, "strategy", "names no known strategy");
    if (!rc) rc = get_int(&c, doc, "createdMillis", 0, &created);
    if (!rc) {
        out->format_version = (int)version;
        out->created_millis = created;
    }
    json_decref(doc);
    return rc;
}
