/* Snapshot documents and table metadata as canonical JSON. */
#include "format/snapshot.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/head_record.h"
#include "format/seal.h"

#define SNAPSHOT_VERSION 1
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

/* ---- encoding ---- */

static json_t *object_ref_json(const sc_object_ref *r) {
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_hex_encode(hex, r->sha256, SC_SHA256_LEN);
    return json_pack("{s:s, s:s, s:I}", "name", r->name, "sha256", hex, "length",
                     (json_int_t)r->length);
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

int sc_snapshot_encode(sc_buf *out, const sc_snapshot *s) {
    if (!s->commit_user || !s->base_manifest_list.name || !s->delta_manifest_list.name)
        return sc_error_set(SC_EINVAL, "snapshot %" PRIu64 " is incomplete", s->id);
    json_t *wm = json_array();
    if (!wm) return sc_error_set(SC_ENOMEM, "out of memory building JSON");
    for (size_t i = 0; i < s->watermark_count; i++) {
        /* A watermark silently left out would let that user's replays through: fail instead. */
        json_t *w = json_pack("{s:s, s:I, s:I}", "user", s->watermarks[i].user, "identifier",
                              (json_int_t)s->watermarks[i].identifier, "snapshot",
                              (json_int_t)s->watermarks[i].snapshot_id);
        if (!w || json_array_append_new(wm, w) != 0) {
            json_decref(wm);
            return sc_error_set(SC_ENOMEM, "out of memory encoding the watermark of user %zu", i);
        }
    }
    char parent[SC_SHA256_HEX_LEN + 1];
    if (s->has_parent) sc_hex_encode(parent, s->parent_hash, SC_SHA256_LEN);
    json_t *doc = json_pack(
        "{s:i, s:I, s:I, s:s, s:s, s:s, s:I, s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o}",
        "version", SNAPSHOT_VERSION, "id", (json_int_t)s->id, "schemaId", (json_int_t)s->schema_id,
        "tableUuid", s->table_uuid, "commitUuid", s->commit_uuid, "commitUser", s->commit_user,
        "commitIdentifier", (json_int_t)s->commit_identifier, "commitKind",
        sc_commit_kind_name(s->commit_kind), "timeMillis", (json_int_t)s->time_millis,
        "totalRecordCount", (json_int_t)s->total_record_count, "deltaRecordCount",
        (json_int_t)s->delta_record_count, "fileCount", (json_int_t)s->file_count, "parentHash",
        s->has_parent ? json_string(parent) : json_null(), "baseManifestList",
        object_ref_json(&s->base_manifest_list), "deltaManifestList",
        object_ref_json(&s->delta_manifest_list), "watermarks", wm);
    size_t start = out->len;
    int rc = dump_canonical(out, doc);
    if (rc) return rc;
    /* Never claim a document that cannot be read back: an allocation failure
     * inside the JSON library can yield a damaged text without an error. */
    sc_snapshot check;
    if (sc_snapshot_decode(&check, out->data + start, out->len - start, "the encoded snapshot") != 0) {
        out->len = start;
        return sc_error_wrap(SC_ENOMEM, "encoding snapshot %" PRIu64 " produced an unreadable document", s->id);
    }
    int same = check.id == s->id && check.watermark_count == s->watermark_count &&
               check.commit_identifier == s->commit_identifier;
    sc_snapshot_clear(&check);
    if (!same) {
        out->len = start;
        return sc_error_set(SC_ENOMEM, "encoding snapshot %" PRIu64 " lost fields", s->id);
    }
    return 0;
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

static int get_ref(const field_ctx *c, json_t *doc, const char *field, sc_object_ref *out) {
    json_t *o = json_object_get(doc, field);
    if (!o) return corrupt(c, field, "is missing");
    if (!json_is_object(o)) return corrupt(c, field, "is not an object");
    const char *name;
    int64_t length;
    int rc = get_str(c, o, "name", 1024, &name);
    if (!rc) rc = get_hash(c, o, "sha256", out->sha256);
    if (!rc) rc = get_int(c, o, "length", 0, &length);
    if (rc) return sc_error_wrap(rc, "in \"%s\"", field);
    out->length = (uint64_t)length;
    out->name = strdup(name);
    return out->name ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
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
    json_error_t err;
    json_t *doc = json_loadb((const char *)body.data, body.len, JSON_REJECT_DUPLICATES, &err);
    sc_buf_free(&body);
    if (!doc) {
        sc_error_set(SC_ECORRUPT, "%s: invalid JSON at byte %d: %s", object, err.position,
                     err.text);
        return NULL;
    }
    if (!json_is_object(doc)) {
        json_decref(doc);
        sc_error_set(SC_ECORRUPT, "%s: not a JSON object", object);
        return NULL;
    }
    return doc;
}

static int decode_watermarks(sc_snapshot *out, const field_ctx *c, json_t *doc) {
    json_t *arr = json_object_get(doc, "watermarks");
    if (!arr) return corrupt(c, "watermarks", "is missing");
    if (!json_is_array(arr)) return corrupt(c, "watermarks", "is not an array");
    size_t n = json_array_size(arr);
    if (n > SC_WATERMARK_MAX_USERS) return corrupt(c, "watermarks", "has too many users");
    out->watermarks = calloc(n ? n : 1, sizeof *out->watermarks);
    if (!out->watermarks) return sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_t *w = json_array_get(arr, i);
        const char *user;
        int64_t ident, snap;
        if (!json_is_object(w)) return corrupt(c, "watermarks", "holds a non-object");
        int rc = get_str(c, w, "user", SC_USER_MAX_LEN, &user);
        if (!rc) rc = get_int(c, w, "identifier", 0, &ident);
        if (!rc) rc = get_int(c, w, "snapshot", 1, &snap);
        if (rc) return sc_error_wrap(rc, "watermark %zu", i);
        if ((uint64_t)snap > out->id) return corrupt(c, "watermarks", "points past the snapshot");
        if (i > 0 && strcmp(out->watermarks[i - 1].user, user) >= 0)
            return corrupt(c, "watermarks", "is not sorted by user or repeats a user");
        out->watermarks[i].user = strdup(user);
        if (!out->watermarks[i].user) return sc_error_set(SC_ENOMEM, "out of memory");
        out->watermarks[i].identifier = ident;
        out->watermarks[i].snapshot_id = (uint64_t)snap;
        out->watermark_count = i + 1;
    }
    return 0;
}

int sc_snapshot_decode(sc_snapshot *out, const uint8_t *data, size_t len, const char *object) {
    memset(out, 0, sizeof *out);
    json_t *doc = load_json(data, len, SC_SNAPSHOT_MAX_BYTES, object);
    if (!doc) return SC_ECORRUPT;
    field_ctx c = {object};
    int64_t version, id, ident, t, total, delta, files, schema;
    const char *user, *kind;
    int rc = get_int(&c, doc, "version", 0, &version);
    if (!rc && version != SNAPSHOT_VERSION)
        rc = sc_error_set(SC_ECORRUPT, "%s: unsupported snapshot version %" PRId64, object,
                          version);
    if (!rc) rc = get_int(&c, doc, "id", 1, &id);
    if (!rc) rc = get_int(&c, doc, "schemaId", 0, &schema);
    if (!rc) rc = get_uuid(&c, doc, "tableUuid", out->table_uuid);
    if (!rc) rc = get_uuid(&c, doc, "commitUuid", out->commit_uuid);
    if (!rc) rc = get_str(&c, doc, "commitUser", SC_USER_MAX_LEN, &user);
    if (!rc) rc = get_int(&c, doc, "commitIdentifier", 0, &ident);
    if (!rc) rc = get_str(&c, doc, "commitKind", 16, &kind);
    if (!rc && sc_commit_kind_parse(&out->commit_kind, kind) != 0)
        rc = corrupt(&c, "commitKind", "is not APPEND, COMPACT or OVERWRITE");
    if (!rc) rc = get_int(&c, doc, "timeMillis", 0, &t);
    if (!rc) rc = get_int(&c, doc, "totalRecordCount", 0, &total);
    if (!rc) rc = get_int(&c, doc, "deltaRecordCount", INT64_MIN, &delta);
    if (!rc) rc = get_int(&c, doc, "fileCount", 0, &files);
    if (!rc) {
        out->id = (uint64_t)id;
        json_t *p = json_object_get(doc, "parentHash");
        if (!p) rc = corrupt(&c, "parentHash", "is missing");
        else if (json_is_null(p)) out->has_parent = 0;
        else if (!(rc = get_hash(&c, doc, "parentHash", out->parent_hash))) out->has_parent = 1;
        if (!rc && out->id == 1 && out->has_parent)
            rc = corrupt(&c, "parentHash", "must be null for snapshot 1");
        if (!rc && out->id > 1 && !out->has_parent)
            rc = corrupt(&c, "parentHash", "is null but the snapshot has a parent");
    }
    if (!rc) rc = get_ref(&c, doc, "baseManifestList", &out->base_manifest_list);
    if (!rc) rc = get_ref(&c, doc, "deltaManifestList", &out->delta_manifest_list);
    if (!rc) rc = decode_watermarks(out, &c, doc);
    if (!rc) {
        out->schema_id = schema;
        out->commit_user = strdup(user);
        if (!out->commit_user) rc = sc_error_set(SC_ENOMEM, "out of memory");
        out->commit_identifier = ident;
        out->time_millis = t;
        out->total_record_count = total;
        out->delta_record_count = delta;
        out->file_count = (uint64_t)files;
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
    if (!rc && version != SC_FORMAT_VERSION)
        rc = sc_error_set(SC_EUNSUPPORTED,
                          "%s: table format version %" PRId64 " is not supported (this build "
                          "reads version %d)",
                          object, version, SC_FORMAT_VERSION);
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
