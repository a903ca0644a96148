/*
 * Avro object container files: our own framing and block codecs around
 * libavro's datum decoder/encoder (avro_container.h).
 *
 * libavro trusts the lengths inside a datum (it mallocs a bytes value's
 * claimed length before reading it), so every datum is first walked here
 * against the writer schema with every length, count and index checked
 * against the bytes that are left; libavro then decodes exactly that slice.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <zlib.h>
#include <zstd.h>

#include "base/error_internal.h"
#include "base/hash.h"
#include "base/vec.h"
#include "format/avro_container.h"

#define SYNC_LEN 16
/* Nesting the walker follows before calling a datum corrupt: Paimon's
 * records nest three deep; recursive schemas could otherwise blow the stack. */
#define MAX_DEPTH 32
/* Uncompressed bytes per block we write (Avro Java's default sync interval). */
#define WRITE_BLOCK_LEN (64u * 1024u)

static const uint8_t MAGIC[4] = {'O', 'b', 'j', 1};

/* ---- bounded cursor ---- */

typedef struct cursor {
    const uint8_t *p;
    size_t pos, end;
} cursor;

/* Zig-zag varint of at most `max_bytes` bytes (5 for int, 10 for long). */
static int cur_zigzag(int64_t *out, cursor *c, int max_bytes) {
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; i++) {
        if (c->pos >= c->end) return -1;
        uint8_t b = c->p[c->pos++];
        if (i == 9 && (b & 0x7e)) return -1; /* bits beyond 64 */
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
            if (max_bytes == 5 && (*out < INT32_MIN || *out > INT32_MAX)) return -1;
            return 0;
        }
    }
    return -1;
}

static size_t cur_left(const cursor *c) { return c->end - c->pos; }

/* ---- the datum walker ---- */

typedef struct walk {
    const sc_decode_limits *limits;
    const char *problem; /* static text for the error message */
    int code;
} walk;

static int walk_fail(walk *w, int code, const char *problem) {
    w->code = code;
    w->problem = problem;
    return -1;
}

static int walk_len(walk *w, cursor *c, size_t *out) {
    int64_t n;
    if (cur_zigzag(&n, c, 10)) return walk_fail(w, SC_ECORRUPT, "truncated or malformed length");
    if (n < 0) return walk_fail(w, SC_ECORRUPT, "negative length");
    if ((uint64_t)n > cur_left(c)) return walk_fail(w, SC_ECORRUPT, "length runs past the block");
    *out = (size_t)n;
    return 0;
}

static int walk_value(walk *w, cursor *c, avro_schema_t s, int depth);

/* Array and map blocks: a count, a negative count followed by a byte size,
 * a zero count ending the value. */
static int walk_items(walk *w, cursor *c, avro_schema_t items, int is_map, int depth) {
    for (;;) {
        int64_t n;
        if (cur_zigzag(&n, c, 10)) return walk_fail(w, SC_ECORRUPT, "truncated array/map block count");
        if (n == 0) return 0;
        if (n < 0) {
            int64_t bytes;
            if (n == INT64_MIN) return walk_fail(w, SC_ECORRUPT, "array/map block count out of range");
            n = -n;
            if (cur_zigzag(&bytes, c, 10) || bytes < 0 || (uint64_t)bytes > cur_left(c))
                return walk_fail(w, SC_ECORRUPT, "array/map block byte size runs past the block");
        }
        if ((uint64_t)n > cur_left(c))
            return walk_fail(w, SC_ECORRUPT, "array/map block count exceeds the bytes left");
        for (int64_t i = 0; i < n; i++) {
            size_t before = c->pos;
            if (is_map) {
                size_t klen;
                if (walk_len(w, c, &klen)) return -1;
                c->pos += klen;
            }
            if (walk_value(w, c, items, depth + 1)) return -1;
            /* A zero-size item repeated 2^62 times would spin (and libavro
             * would allocate each one): Paimon's schemas have none. */
            if (c->pos == before) return walk_fail(w, SC_ECORRUPT, "array/map of zero-size items");
        }
    }
}

static int walk_value(walk *w, cursor *c, avro_schema_t s, int depth) {
    if (depth > MAX_DEPTH) return walk_fail(w, SC_ECORRUPT, "nested deeper than 32 levels");
    int64_t v;
    size_t n;
    switch (avro_typeof(s)) {
    case AVRO_NULL: return 0;
    case AVRO_BOOLEAN:
        if (!cur_left(c) || c->p[c->pos] > 1) return walk_fail(w, SC_ECORRUPT, "bad boolean");
        c->pos++;
        return 0;
    case AVRO_INT32:
        return cur_zigzag(&v, c, 5) ? walk_fail(w, SC_ECORRUPT, "truncated or malformed int") : 0;
    case AVRO_INT64:
        return cur_zigzag(&v, c, 10) ? walk_fail(w, SC_ECORRUPT, "truncated or malformed long") : 0;
    case AVRO_FLOAT:
    case AVRO_DOUBLE:
        n = avro_typeof(s) == AVRO_FLOAT ? 4 : 8;
        if (cur_left(c) < n) return walk_fail(w, SC_ECORRUPT, "truncated float/double");
        c->pos += n;
        return 0;
    case AVRO_STRING:
    case AVRO_BYTES:
        if (walk_len(w, c, &n)) return -1;
        if (n > w->limits->max_field_len)
            return walk_fail(w, SC_ELIMIT, "string/bytes value above the field length limit");
        c->pos += n;
        return 0;
    case AVRO_FIXED: {
        int64_t size = avro_schema_fixed_size(s);
        if (size < 0 || (uint64_t)size > cur_left(c)) return walk_fail(w, SC_ECORRUPT, "truncated fixed");
        c->pos += (size_t)size;
        return 0;
    }
    case AVRO_ENUM:
        if (cur_zigzag(&v, c, 5) || v < 0 || v >= avro_schema_enum_number_of_symbols(s))
            return walk_fail(w, SC_ECORRUPT, "enum index out of range");
        return 0;
    case AVRO_RECORD: {
        size_t fields = avro_schema_record_size(s);
        for (size_t i = 0; i < fields; i++)
            if (walk_value(w, c, avro_schema_record_field_get_by_index(s, (int)i), depth + 1)) return -1;
        return 0;
    }
    case AVRO_ARRAY: return walk_items(w, c, avro_schema_array_items(s), 0, depth);
    case AVRO_MAP: return walk_items(w, c, avro_schema_map_values(s), 1, depth);
    case AVRO_UNION:
        if (cur_zigzag(&v, c, 10) || v < 0 || (uint64_t)v >= avro_schema_union_size(s))
            return walk_fail(w, SC_ECORRUPT, "union branch index out of range");
        return walk_value(w, c, avro_schema_union_branch(s, (int)v), depth + 1);
    case AVRO_LINK: return walk_value(w, c, avro_schema_link_target(s), depth + 1);
    }
    return walk_fail(w, SC_ECORRUPT, "unknown schema type");
}

/* ---- block codecs ---- */

static int grow(uint8_t **buf, size_t *cap, size_t limit, const char *object, size_t at) {
    if (*cap >= limit)
        return sc_error_set(SC_ELIMIT, "%s: block at byte %zu decompresses to more than %zu bytes", object,
                            at, limit);
    size_t next = *cap > limit / 2 ? limit : *cap * 2;
    uint8_t *p = realloc(*buf, next ? next : 1);
    if (!p) return sc_error_set(SC_ENOMEM, "%s: out of memory decompressing a block", object);
    *buf = p;
    *cap = next;
    return 0;
}

static size_t first_cap(size_t in_len, size_t limit) {
    size_t cap = in_len < ((size_t)1 << 20) ? in_len * 4 + 4096 : in_len;
    return cap < limit ? cap : limit;
}

/* Raw deflate (RFC 1951, no zlib header), as Avro's "deflate" codec. */
static int inflate_block(uint8_t **out, size_t *out_len, const uint8_t *in, size_t in_len, size_t limit,
                         const char *object, size_t at) {
    if (in_len > UINT_MAX)
        return sc_error_set(SC_ELIMIT, "%s: compressed block at byte %zu above 4 GiB", object, at);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, -15) != Z_OK) return sc_error_set(SC_ENOMEM, "%s: cannot start inflate", object);
    size_t cap = first_cap(in_len, limit), len = 0;
    uint8_t *buf = malloc(cap ? cap : 1);
    int rc = buf ? 0 : sc_error_set(SC_ENOMEM, "%s: out of memory decompressing a block", object);
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)in_len;
    while (!rc) {
        if (len == cap && (rc = grow(&buf, &cap, limit, object, at))) break;
        size_t room = cap - len < UINT_MAX ? cap - len : UINT_MAX;
        zs.next_out = buf + len;
        zs.avail_out = (uInt)room;
        int z = inflate(&zs, Z_NO_FLUSH);
        len += room - zs.avail_out;
        if (z == Z_STREAM_END) {
            if (zs.avail_in)
                rc = sc_error_set(SC_ECORRUPT, "%s: block at byte %zu has %u bytes after its deflate stream",
                                  object, at, zs.avail_in);
            break;
        }
        if (z == Z_OK) continue;
        if (z == Z_BUF_ERROR && len == cap) continue; /* output full: grow */
        rc = sc_error_set(SC_ECORRUPT, "%s: block at byte %zu: %s", object, at,
                          z == Z_BUF_ERROR ? "truncated deflate stream" : "invalid deflate data");
    }
    inflateEnd(&zs);
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    *out_len = len;
    return 0;
}

static int unzstd_block(uint8_t **out, size_t *out_len, const uint8_t *in, size_t in_len, size_t limit,
                        const char *object, size_t at) {
    unsigned long long fcs = ZSTD_getFrameContentSize(in, in_len);
    if (fcs == ZSTD_CONTENTSIZE_ERROR)
        return sc_error_set(SC_ECORRUPT, "%s: block at byte %zu is not a zstd frame", object, at);
    if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs > limit)
        return sc_error_set(SC_ELIMIT, "%s: block at byte %zu claims %llu bytes, above the limit of %zu",
                            object, at, fcs, limit);
    /* A known size is only a first guess (one frame of several): the cap
     * below is what bounds the output. */
    size_t cap = fcs != ZSTD_CONTENTSIZE_UNKNOWN ? (size_t)fcs : first_cap(in_len, limit), len = 0;
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    uint8_t *buf = malloc(cap ? cap : 1);
    int rc = dctx && buf ? 0 : sc_error_set(SC_ENOMEM, "%s: out of memory decompressing a block", object);
    ZSTD_inBuffer ib = {in, in_len, 0};
    size_t hint = 1;
    while (!rc) {
        if (hint == 0 && ib.pos == ib.size) break; /* every frame complete, all input used */
        if (len == cap && (rc = grow(&buf, &cap, limit, object, at))) break;
        ZSTD_outBuffer ob = {buf, cap, len};
        size_t before_in = ib.pos;
        hint = ZSTD_decompressStream(dctx, &ob, &ib);
        size_t made = ob.pos - len;
        len = ob.pos;
        if (ZSTD_isError(hint)) {
            rc = sc_error_set(SC_ECORRUPT, "%s: block at byte %zu: zstd: %s", object, at,
                              ZSTD_getErrorName(hint));
        } else if (hint != 0 && ib.pos == ib.size && ob.pos < ob.size && !made && before_in == ib.pos) {
            rc = sc_error_set(SC_ECORRUPT, "%s: block at byte %zu: truncated zstd frame", object, at);
        }
    }
    ZSTD_freeDCtx(dctx);
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    *out_len = len;
    return 0;
}

/* ---- reading ---- */

static int meta_fail(const char *object, size_t at, const char *what) {
    return sc_error_set(SC_ECORRUPT, "%s: %s (byte %zu)", object, what, at);
}

typedef struct header {
    const uint8_t *schema;
    size_t schema_len;
    const uint8_t *codec;
    size_t codec_len;
    const uint8_t *sync;
} header;

static int read_header(header *h, cursor *c, const char *object) {
    if (c->end < sizeof MAGIC || memcmp(c->p, MAGIC, sizeof MAGIC))
        return meta_fail(object, 0, "not an Avro object container (magic)");
    c->pos = sizeof MAGIC;
    memset(h, 0, sizeof *h);
    for (;;) {
        int64_t n;
        size_t at = c->pos;
        if (cur_zigzag(&n, c, 10)) return meta_fail(object, at, "truncated metadata block count");
        if (n == 0) break;
        if (n < 0) {
            int64_t bytes;
            if (n == INT64_MIN) return meta_fail(object, at, "metadata block count out of range");
            n = -n;
            if (cur_zigzag(&bytes, c, 10) || bytes < 0 || (uint64_t)bytes > cur_left(c))
                return meta_fail(object, at, "metadata block byte size runs past the file");
        }
        /* Each entry takes at least two bytes (two lengths). */
        if ((uint64_t)n > cur_left(c) / 2) return meta_fail(object, at, "metadata count exceeds the file");
        for (int64_t i = 0; i < n; i++) {
            int64_t kl, vl;
            at = c->pos;
            if (cur_zigzag(&kl, c, 10) || kl < 0 || (uint64_t)kl > cur_left(c))
                return meta_fail(object, at, "metadata key runs past the file");
            const uint8_t *key = c->p + c->pos;
            c->pos += (size_t)kl;
            if (cur_zigzag(&vl, c, 10) || vl < 0 || (uint64_t)vl > cur_left(c))
                return meta_fail(object, at, "metadata value runs past the file");
            const uint8_t *val = c->p + c->pos;
            c->pos += (size_t)vl;
            const uint8_t **slot = NULL;
            size_t *slot_len = NULL;
            if (kl == 11 && !memcmp(key, "avro.schema", 11)) slot = &h->schema, slot_len = &h->schema_len;
            if (kl == 10 && !memcmp(key, "avro.codec", 10)) slot = &h->codec, slot_len = &h->codec_len;
            if (slot) {
                if (*slot) return meta_fail(object, at, "metadata key repeated");
                *slot = val;
                *slot_len = (size_t)vl;
            }
        }
    }
    if (!h->schema) return meta_fail(object, c->pos, "no avro.schema in the header");
    if (cur_left(c) < SYNC_LEN) return meta_fail(object, c->pos, "truncated sync marker");
    h->sync = c->p + c->pos;
    c->pos += SYNC_LEN;
    return 0;
}

typedef enum block_codec { CODEC_NULL, CODEC_DEFLATE, CODEC_ZSTD } block_codec;

static int codec_parse(block_codec *out, const header *h, const char *object) {
    static const struct {
        const char *name;
        block_codec c;
    } known[] = {{"null", CODEC_NULL}, {"deflate", CODEC_DEFLATE}, {"zstandard", CODEC_ZSTD}};
    if (!h->codec) {
        *out = CODEC_NULL; /* the spec's default */
        return 0;
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (h->codec_len == strlen(known[i].name) && !memcmp(h->codec, known[i].name, h->codec_len)) {
            *out = known[i].c;
            return 0;
        }
    char name[40];
    size_t n = h->codec_len < 32 ? h->codec_len : 32;
    for (size_t i = 0; i < n; i++) name[i] = h->codec[i] >= 0x20 && h->codec[i] < 0x7f ? (char)h->codec[i] : '?';
    name[n] = '\0';
    return sc_error_set(SC_ECORRUPT, "%s: codec \"%s%s\" is not supported (null, deflate, zstandard)", object,
                        name, h->codec_len > n ? "..." : "");
}

typedef struct reading {
    const char *object;
    const sc_decode_limits *limits;
    avro_schema_t schema;
    avro_value_iface_t *iface;
    avro_value_t value;
    int has_value;
    avro_reader_t reader;
    sc_avro_datum_fn fn;
    void *ctx;
    uint64_t index;
} reading;

static int read_block_datums(reading *r, const uint8_t *plain, size_t plain_len, int64_t count, size_t at) {
    cursor c = {plain, 0, plain_len};
    for (int64_t i = 0; i < count; i++, r->index++) {
        size_t start = c.pos;
        walk w = {r->limits, NULL, 0};
        if (walk_value(&w, &c, r->schema, 0))
            return sc_error_set(w.code, "%s: record %llu (block at byte %zu, offset %zu): %s", r->object,
                                (unsigned long long)r->index, at, start, w.problem);
        avro_reader_memory_set_source(r->reader, (const char *)plain + start, (int64_t)(c.pos - start));
        avro_value_reset(&r->value);
        if (avro_value_read(r->reader, &r->value))
            return sc_error_set(SC_ECORRUPT, "%s: record %llu (block at byte %zu): %s", r->object,
                                (unsigned long long)r->index, at, avro_strerror());
        int rc = r->fn(r->ctx, &r->value, r->index);
        if (rc) return rc;
    }
    if (c.pos != plain_len)
        return sc_error_set(SC_ECORRUPT, "%s: block at byte %zu has %zu bytes after its %lld records",
                            r->object, at, plain_len - c.pos, (long long)count);
    return 0;
}

static int read_blocks(reading *r, cursor *c, block_codec cd, const uint8_t *sync) {
    while (c->pos < c->end) {
        size_t at = c->pos;
        int64_t count, size;
        if (cur_zigzag(&count, c, 10) || cur_zigzag(&size, c, 10))
            return sc_error_set(SC_ECORRUPT, "%s: truncated block header (byte %zu)", r->object, at);
        if (count < 0 || size < 0)
            return sc_error_set(SC_ECORRUPT, "%s: negative block count or size (byte %zu)", r->object, at);
        if ((uint64_t)size > cur_left(c) || cur_left(c) - (size_t)size < SYNC_LEN)
            return sc_error_set(SC_ECORRUPT, "%s: block of %lld bytes runs past the file (byte %zu)", r->object,
                                (long long)size, at);
        if ((uint64_t)count > r->limits->max_entries - r->index)
            return sc_error_set(SC_ELIMIT, "%s: more than %llu records (block at byte %zu)", r->object,
                                (unsigned long long)r->limits->max_entries, at);
        const uint8_t *data = c->p + c->pos;
        c->pos += (size_t)size;
        if (memcmp(c->p + c->pos, sync, SYNC_LEN))
            return sc_error_set(SC_ECORRUPT, "%s: wrong sync marker after the block at byte %zu (byte %zu)",
                                r->object, at, c->pos);
        c->pos += SYNC_LEN;
        uint8_t *plain = NULL;
        size_t plain_len = (size_t)size;
        int rc = 0;
        if (cd == CODEC_NULL && plain_len > r->limits->max_object_len)
            rc = sc_error_set(SC_ELIMIT, "%s: block at byte %zu above %zu bytes", r->object, at,
                              r->limits->max_object_len);
        if (cd == CODEC_DEFLATE)
            rc = inflate_block(&plain, &plain_len, data, (size_t)size, r->limits->max_object_len, r->object, at);
        if (cd == CODEC_ZSTD)
            rc = unzstd_block(&plain, &plain_len, data, (size_t)size, r->limits->max_object_len, r->object, at);
        if (!rc) rc = read_block_datums(r, plain ? plain : data, plain_len, count, at);
        free(plain);
        if (rc) return rc;
    }
    return 0;
}

/*
 * 1 when a schema defines one named type (record, enum, fixed) twice under
 * the same full name. libavro 1.11 leaks the type it is building when it
 * meets such a redefinition, so these schemas are refused before libavro
 * parses them. Full names are qualified as libavro qualifies them: a dotted
 * name as is, else the type's "namespace" ("" = none), else the enclosing one.
 */
static int schema_redefines(json_t *j, const char *parent_ns, json_t *seen) {
    if (json_is_array(j)) { /* a union */
        size_t i;
        json_t *item;
        json_array_foreach(j, i, item) if (schema_redefines(item, parent_ns, seen)) return 1;
        return 0;
    }
    if (!json_is_object(j)) return 0;
    json_t *type = json_object_get(j, "type");
    const char *t = json_string_value(type);
    if (!t) return schema_redefines(type, parent_ns, seen);
    if (!strcmp(t, "array")) return schema_redefines(json_object_get(j, "items"), parent_ns, seen);
    if (!strcmp(t, "map")) return schema_redefines(json_object_get(j, "values"), parent_ns, seen);
    if (strcmp(t, "record") && strcmp(t, "error") && strcmp(t, "enum") && strcmp(t, "fixed")) return 0;
    const char *name = json_string_value(json_object_get(j, "name"));
    if (!name) return 0; /* libavro refuses it without leaking */
    const char *ns_given = json_string_value(json_object_get(j, "namespace"));
    const char *dot = strrchr(name, '.');
    char *ns = dot ? strndup(name, (size_t)(dot - name))
               : ns_given ? (*ns_given ? strdup(ns_given) : NULL)
               : parent_ns ? strdup(parent_ns) : NULL;
    char *full = NULL;
    if (dot || !ns) full = strdup(name);
    else if (asprintf(&full, "%s.%s", ns, name) < 0) full = NULL;
    int again = !full || json_object_get(seen, full) != NULL || json_object_set_new(seen, full, json_true()) != 0;
    free(full);
    if (!again && (!strcmp(t, "record") || !strcmp(t, "error"))) {
        size_t i;
        json_t *field;
        json_array_foreach(json_object_get(j, "fields"), i, field) {
            if (schema_redefines(json_object_get(field, "type"), ns, seen)) {
                again = 1;
                break;
            }
        }
    }
    free(ns);
    return again;
}

/* ---- parsed schemas, shared ----
 *
 * Every manifest and list carries its writer schema as JSON, and the same few
 * schemas (ours, Paimon's) recur in every file; parsing one (libavro through
 * jansson, after our own check for redefined names) cost more than decoding
 * the records. So schemas that parsed and passed the check are kept, by their
 * exact text, for the life of the process: a small fixed table, filled first
 * come, never evicted (an unknown schema past the table is parsed each time,
 * as before). libavro's reference counts are atomic, so handles on one schema
 * may be used by several threads; the table itself is guarded by a mutex.
 */
#define SCHEMA_CACHE_SLOTS 16

typedef struct schema_slot {
    char *text;
    size_t len;
    avro_schema_t schema;
    avro_value_iface_t *iface;
} schema_slot;

static schema_slot schema_cache[SCHEMA_CACHE_SLOTS];
static pthread_mutex_t schema_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static int cache_lookup(avro_schema_t *out_schema, avro_value_iface_t **out_iface, const char *text, size_t len) {
    int hit = 0;
    pthread_mutex_lock(&schema_cache_lock);
    for (size_t i = 0; i < SCHEMA_CACHE_SLOTS && schema_cache[i].text; i++) {
        if (schema_cache[i].len == len && memcmp(schema_cache[i].text, text, len) == 0) {
            *out_schema = avro_schema_incref(schema_cache[i].schema);
            *out_iface = avro_value_iface_incref(schema_cache[i].iface);
            hit = 1;
            break;
        }
    }
    pthread_mutex_unlock(&schema_cache_lock);
    return hit;
}

/* Keep a schema that parsed and passed the checks (best effort: a full table or no memory keeps nothing). */
static void cache_insert(const char *text, size_t len, avro_schema_t schema, avro_value_iface_t *iface) {
    pthread_mutex_lock(&schema_cache_lock);
    for (size_t i = 0; i < SCHEMA_CACHE_SLOTS; i++) {
        if (schema_cache[i].text) {
            if (schema_cache[i].len == len && memcmp(schema_cache[i].text, text, len) == 0) break; /* a racing insert */
            continue;
        }
        char *copy = malloc(len ? len : 1);
        if (!copy) break;
        memcpy(copy, text, len);
        schema_cache[i] = (schema_slot){copy, len, avro_schema_incref(schema), avro_value_iface_incref(iface)};
        break;
    }
    pthread_mutex_unlock(&schema_cache_lock);
}

/*
 * The schema and value class of a writer-schema text: from the table, or
 * checked (no named type defined twice: libavro leaks on that), parsed and
 * kept. The caller owns one reference to each. SC_ECORRUPT naming `object`
 * (the file, or the writer's own schema) when it does not parse.
 */
static int schema_for(avro_schema_t *out_schema, avro_value_iface_t **out_iface, const char *text, size_t len,
                      const char *object) {
    *out_schema = NULL;
    *out_iface = NULL;
    if (cache_lookup(out_schema, out_iface, text, len)) return 0;
    json_t *schema_doc = json_loadb(text, len, JSON_DECODE_ANY, NULL);
    json_t *seen = json_object();
    int rc = 0;
    if (!seen) rc = sc_error_set(SC_ENOMEM, "%s: out of memory checking the header schema", object);
    else if (schema_doc && schema_redefines(schema_doc, NULL, seen))
        rc = sc_error_set(SC_ECORRUPT, "%s: header schema defines a named type twice", object);
    json_decref(seen);
    json_decref(schema_doc);
    if (rc) return rc;
    if (avro_schema_from_json_length(text, len, out_schema)) {
        *out_schema = NULL;
        return sc_error_set(SC_ECORRUPT, "%s: header schema: %s", object, avro_strerror());
    }
    if (!(*out_iface = avro_generic_class_from_schema(*out_schema))) {
        rc = sc_error_set(SC_ECORRUPT, "%s: header schema: %s", object, avro_strerror());
        avro_schema_decref(*out_schema);
        *out_schema = NULL;
        return rc;
    }
    cache_insert(text, len, *out_schema, *out_iface);
    return 0;
}

int sc_avro_read(const uint8_t *data, size_t len, const sc_decode_limits *limits, const char *object,
                 sc_avro_datum_fn fn, void *ctx) {
    if (!object) object = "avro file";
    if ((!data && len) || !fn) return sc_error_set(SC_EINVAL, "sc_avro_read: missing argument");
    sc_decode_limits defaults;
    if (!limits) {
        sc_decode_limits_default(&defaults);
        limits = &defaults;
    }
    if (len > limits->max_object_len)
        return sc_error_set(SC_ELIMIT, "%s: %zu bytes, above the limit of %zu", object, len,
                            limits->max_object_len);
    cursor c = {data, 0, len};
    header h;
    block_codec cd = CODEC_NULL;
    int rc = read_header(&h, &c, object);
    /* The codec first: libavro is given nothing for a file we will refuse. */
    if (!rc) rc = codec_parse(&cd, &h, object);
    if (rc) return rc;
    reading r = {.object = object, .limits = limits, .fn = fn, .ctx = ctx};
    rc = schema_for(&r.schema, &r.iface, (const char *)h.schema, h.schema_len, object);
    if (rc) return rc;
    if (!rc && avro_generic_value_new(r.iface, &r.value))
        rc = sc_error_set(SC_ENOMEM, "%s: cannot create a value: %s", object, avro_strerror());
    else if (!rc)
        r.has_value = 1;
    if (!rc && !(r.reader = avro_reader_memory("", 0)))
        rc = sc_error_set(SC_ENOMEM, "%s: cannot create a reader", object);
    if (!rc) rc = read_blocks(&r, &c, cd, h.sync);
    if (r.reader) avro_reader_free(r.reader);
    if (r.has_value) avro_value_decref(&r.value);
    if (r.iface) avro_value_iface_decref(r.iface);
    if (r.schema) avro_schema_decref(r.schema);
    return rc;
}

/* ---- writing ---- */

struct sc_avro_writer {
    char *schema_json;
    int deflate;
    avro_schema_t schema;
    avro_value_iface_t *iface;
    avro_value_t value;
    int has_value;
    sc_buf plain;       /* datums of the block being filled */
    uint64_t plain_count;
    sc_buf blocks;      /* finished blocks without their sync markers */
    size_t *block_ends; /* end offset of each block in `blocks` */
    size_t block_count, block_cap;
};

static int put_long(sc_buf *b, int64_t v) {
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n] = (uint8_t)(z & 0x7f);
        z >>= 7;
        if (z) tmp[n] |= 0x80;
        n++;
    } while (z);
    return sc_buf_append(b, tmp, n);
}

static int put_bytes(sc_buf *b, const void *data, size_t len) {
    int rc = put_long(b, (int64_t)len);
    return rc ? rc : sc_buf_append(b, data, len);
}

int sc_avro_writer_new(sc_avro_writer **out, const char *schema_json, const char *codec) {
    if (!out || !schema_json || !codec) return sc_error_set(SC_EINVAL, "sc_avro_writer_new: missing argument");
    *out = NULL;
    int deflate = !strcmp(codec, "deflate");
    if (!deflate && strcmp(codec, "null"))
        return sc_error_set(SC_EINVAL, "avro writer: codec \"%s\" (only deflate and null are written)", codec);
    sc_avro_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->schema_json = strdup(schema_json))) {
        free(w);
        return sc_error_set(SC_ENOMEM, "out of memory creating an avro writer");
    }
    w->deflate = deflate;
    int rc = 0;
    if (schema_for(&w->schema, &w->iface, schema_json, strlen(schema_json), "avro writer") != 0)
        rc = sc_error_wrap(SC_EINVAL, "avro writer: schema");
    if (!rc && avro_generic_value_new(w->iface, &w->value))
        rc = sc_error_set(SC_ENOMEM, "avro writer: cannot create a value: %s", avro_strerror());
    else if (!rc)
        w->has_value = 1;
    if (rc) {
        sc_avro_writer_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

int sc_avro_writer_value(avro_value_t **out, sc_avro_writer *w) {
    if (!out || !w) return sc_error_set(SC_EINVAL, "sc_avro_writer_value: missing argument");
    avro_value_reset(&w->value);
    *out = &w->value;
    return 0;
}

static int flush_block(sc_avro_writer *w) {
    if (!w->plain_count) return 0;
    int rc = 0;
    sc_buf packed = SC_BUF_INIT;
    const uint8_t *data = w->plain.data;
    size_t len = w->plain.len;
    if (w->deflate) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        /* A window and hash table no larger than the block: the defaults (32 KB window,
         * memLevel 8) cost about 256 KB of zeroed memory per block, which a manifest of a
         * few KB never uses; the output is the same format (any raw inflate reads it). */
        int bits = 9;
        while (bits < 15 && ((size_t)1 << bits) < len) bits++;
        int mem_level = bits - 6 > 8 ? 8 : bits - 6;
        if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -bits, mem_level, Z_DEFAULT_STRATEGY) != Z_OK)
            return sc_error_set(SC_ENOMEM, "avro writer: cannot start deflate");
        uLong bound = deflateBound(&zs, (uLong)len);
        rc = sc_buf_reserve(&packed, (size_t)bound);
        if (!rc) {
            zs.next_in = (Bytef *)(uintptr_t)data;
            zs.avail_in = (uInt)len;
            zs.next_out = packed.data;
            zs.avail_out = (uInt)bound;
            if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
                rc = sc_error_set(SC_ENOMEM, "avro writer: deflate did not finish");
            packed.len = (size_t)zs.total_out;
        }
        deflateEnd(&zs);
        data = packed.data;
        len = packed.len;
    }
    if (!rc) rc = put_long(&w->blocks, (int64_t)w->plain_count);
    if (!rc) rc = put_bytes(&w->blocks, data, len);
    if (!rc) SC_VEC_RESERVE(rc, w->block_ends, w->block_cap, w->block_count + 1, 8, "avro blocks");
    if (!rc) w->block_ends[w->block_count++] = w->blocks.len;
    sc_buf_free(&packed);
    w->plain.len = 0;
    w->plain_count = 0;
    return rc;
}

int sc_avro_writer_append(sc_avro_writer *w) {
    if (!w) return sc_error_set(SC_EINVAL, "sc_avro_writer_append: missing writer");
    size_t size = 0;
    if (avro_value_sizeof(&w->value, &size))
        return sc_error_set(SC_EINVAL, "avro writer: value does not match the schema: %s", avro_strerror());
    /* Keep every block readable with default limits (and by zlib's uInt sizes). */
    if (size > WRITE_BLOCK_LEN * 1024u)
        return sc_error_set(SC_ELIMIT, "avro writer: one record of %zu bytes", size);
    int rc = sc_buf_reserve(&w->plain, size);
    if (rc) return rc;
    avro_writer_t mw = avro_writer_memory((const char *)w->plain.data + w->plain.len, (int64_t)size);
    if (!mw) return sc_error_set(SC_ENOMEM, "avro writer: cannot create a memory writer");
    if (avro_value_write(mw, &w->value) || avro_writer_tell(mw) != (int64_t)size)
        rc = sc_error_set(SC_EINVAL, "avro writer: cannot encode the record: %s", avro_strerror());
    avro_writer_free(mw);
    if (rc) return rc;
    w->plain.len += size;
    w->plain_count++;
    return w->plain.len >= WRITE_BLOCK_LEN ? flush_block(w) : 0;
}

int sc_avro_writer_finish(sc_buf *out, sc_avro_writer *w) {
    if (!out || !w) return sc_error_set(SC_EINVAL, "sc_avro_writer_finish: missing argument");
    int rc = flush_block(w);
    if (rc) return rc;
    /* The sync marker only has to be unlikely inside the data; a digest of the
     * content makes it so without a random source, and the file reproducible. */
    sc_buf seed = SC_BUF_INIT;
    uint8_t digest[SC_SHA256_LEN];
    rc = sc_buf_append_str(&seed, w->schema_json);
    if (!rc) rc = sc_buf_append(&seed, w->blocks.data, w->blocks.len);
    if (rc) {
        sc_buf_free(&seed);
        return rc;
    }
    sc_sha256(digest, seed.data, seed.len);
    sc_buf_free(&seed);
    size_t start = out->len;
    const char *codec = w->deflate ? "deflate" : "null";
    rc = sc_buf_append(out, MAGIC, sizeof MAGIC);
    if (!rc) rc = put_long(out, 2);
    if (!rc) rc = put_bytes(out, "avro.schema", 11);
    if (!rc) rc = put_bytes(out, w->schema_json, strlen(w->schema_json));
    if (!rc) rc = put_bytes(out, "avro.codec", 10);
    if (!rc) rc = put_bytes(out, codec, strlen(codec));
    if (!rc) rc = put_long(out, 0);
    if (!rc) rc = sc_buf_append(out, digest, SYNC_LEN);
    size_t from = 0;
    for (size_t i = 0; !rc && i < w->block_count; i++) {
        rc = sc_buf_append(out, w->blocks.data + from, w->block_ends[i] - from);
        if (!rc) rc = sc_buf_append(out, digest, SYNC_LEN);
        from = w->block_ends[i];
    }
    if (rc) out->len = start;
    return rc;
}

void sc_avro_writer_free(sc_avro_writer *w) {
    if (!w) return;
    if (w->has_value) avro_value_decref(&w->value);
    if (w->iface) avro_value_iface_decref(w->iface);
    if (w->schema) avro_schema_decref(w->schema);
    sc_buf_free(&w->plain);
    sc_buf_free(&w->blocks);
    free(w->block_ends);
    free(w->schema_json);
    free(w);
}
