/* Live-file state of a snapshot, merged from its pinned manifests. */
#include "engine/state.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cache.h"
#include "base/error_internal.h"
#include "base/fileset.h"
#include "base/vec.h"
#include "format/binary_row.h"
#include "format/file_index.h"
#include "format/partition.h"
#include "store/store_batch.h"

static int bytes_cmp_qsort(const void *a, const void *b) {
    return sc_bytes_compare(*(const sc_bytes *)a, *(const sc_bytes *)b);
}

static int add_partitions(sc_bytes **items, size_t *n, size_t *cap, const sc_entry_vec *v) {
    if (!v || v->count == 0) return 0;
    int rc;
    /* *n + v->count cannot wrap: both count objects already in memory. */
    SC_VEC_RESERVE(rc, *items, *cap, *n + v->count, v->count, "a commit's partitions");
    if (rc) return rc;
    for (size_t i = 0; i < v->count; i++) (*items)[(*n)++] = v->items[i].file.partition;
    return 0;
}

int sc_partition_set_build(sc_partition_set *out, const sc_entry_vec *a, const sc_entry_vec *b) {
    out->items = NULL;
    out->count = 0;
    size_t cap = 0;
    int rc = add_partitions(&out->items, &out->count, &cap, a);
    if (!rc) rc = add_partitions(&out->items, &out->count, &cap, b);
    if (rc) {
        sc_partition_set_free(out);
        return rc;
    }
    if (out->count == 0) return 0;
    qsort(out->items, out->count, sizeof *out->items, bytes_cmp_qsort);
    size_t w = 1;
    for (size_t r = 1; r < out->count; r++)
        if (sc_bytes_compare(out->items[r], out->items[w - 1]) != 0) out->items[w++] = out->items[r];
    out->count = w;
    return 0;
}

void sc_partition_set_free(sc_partition_set *set) {
    free(set->items);
    set->items = NULL;
    set->count = 0;
}

/* Index of the first member >= key. */
static size_t lower_bound(const sc_partition_set *s, sc_bytes key) {
    size_t lo = 0, hi = s->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc_bytes_compare(s->items[mid], key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int sc_partition_set_has(const sc_partition_set *s, sc_bytes p) {
    size_t i = lower_bound(s, p);
    return i < s->count && sc_bytes_compare(s->items[i], p) == 0;
}

int sc_partition_set_add(sc_partition_set *s, sc_bytes p) {
    size_t i = lower_bound(s, p);
    if (i < s->count && sc_bytes_compare(s->items[i], p) == 0) return 0;
    sc_bytes *grown = realloc(s->items, (s->count + 1) * sizeof *grown);
    if (!grown) return sc_error_set(SC_ENOMEM, "out of memory");
    memmove(grown + i + 1, grown + i, (s->count - i) * sizeof *grown);
    grown[i] = p;
    s->items = grown;
    s->count++;
    return 0;
}


/*
 * Fetch manifest/<name> and check its length and SHA-256 against the
 * reference. Paimon's own snapshots and lists pin no hash (sha256 NULL), and
 * snapshots of Paimon <= 1.0 no length (0): then only what is known is checked.
 */
/* What a read of a pinned object came to: `rc` and the bytes as the GET answered; the
 * object must have exactly `length` bytes (0: any) and, when `sha256` is set, that hash. */
static int pinned_verdict(const char *name, int rc, const uint8_t *data, size_t len, const uint8_t *sha256,
                          uint64_t length) {
    if (rc == SC_ENOTFOUND)
        return sc_error_set(SC_ECORRUPT, "%s: referenced by a snapshot but missing from storage",
                            name);
    if (rc) return sc_error_wrap(rc, "reading %s", name);
    if (length && len != length)
        return sc_error_set(SC_ECORRUPT, "%s: length %zu, expected %" PRIu64 " (truncated or replaced)",
                            name, len, length);
    uint8_t got[SC_SHA256_LEN];
    if (sha256) sc_sha256(got, data, len);
    if (sha256 && memcmp(got, sha256, SC_SHA256_LEN) != 0)
        return sc_error_set(SC_ECORRUPT, "%s: SHA-256 does not match the snapshot's reference", name);
    return 0;
}

/* The largest read of a pinned object: its exact length (a longer object is damage,
 * refused unread), or the object limit when no length is pinned. */
static size_t pinned_cap(const sc_table *t, uint64_t length) {
    return length == 0 ? t->limits.max_object_len : length < SIZE_MAX ? (size_t)length : SIZE_MAX - 1;
}

static int fetch_pinned(uint8_t **out_data, size_t *out_len, sc_table *t, const char *name,
                        const uint8_t *sha256, uint64_t length) {
    uint8_t *data = NULL;
    size_t len = 0;
    char key[SC_MANIFEST_PATH_MAX + 16];
    sc_manifest_key(key, sizeof key, name);
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, pinned_cap(t, length));
    if ((rc = pinned_verdict(name, rc, data, len, sha256, length)) != 0) {
        free(data);
        return rc;
    }
    *out_data = data;
    *out_len = len;
    return 0;
}

/*
 * The two kinds of pinned metadata: how to decode one, copy it out and free
 * it. Both go through one cached loader, since they are immutable and named
 * by their hash.
 */
typedef struct pinned_kind {
    size_t size; /* of the decoded vector */
    int (*decode)(void *vec, const uint8_t *data, size_t len, const sc_table *t, const char *name);
    size_t (*count)(const void *vec);
    int (*append)(void *out, const void *vec); /* deep copies of every item */
    void (*free)(void *vec);                   /* the vector and its items */
    char tag;                                  /* its cache keys: "<tag>:<name>" */
} pinned_kind;

/*
 * The handle's cache holds lists, manifests and watermark archives (replay.c)
 * side by side, each a different decoded type, and any name is a valid
 * manifest name: a key carries the kind, so that a list that names another
 * object as a manifest (with its hash) gets those bytes decoded as a
 * manifest, and refused, instead of that object's decoded form read as
 * records. NULL (not cached) for a name too long for the buffer.
 */
static const char *pinned_key(char *buf, size_t cap, char tag, const char *name) {
    int n = snprintf(buf, cap, "%c:%s", tag, name);
    return n > 0 && (size_t)n < cap ? buf : NULL;
}
#define PINNED_KEY_CAP (SC_MANIFEST_PATH_MAX + 16)

static int list_decode(void *v, const uint8_t *d, size_t n, const sc_table *t, const char *name) {
    return sc_paimon_list_decode(v, d, n, &t->limits, name);
}
static size_t list_count(const void *v) { return ((const sc_manifest_file_vec *)v)->count; }
static int list_append(void *out, const void *v) {
    const sc_manifest_file_vec *in = v;
    int rc = 0;
    for (size_t i = 0; !rc && i < in->count; i++) rc = sc_manifest_file_vec_push(out, &in->items[i]);
    return rc;
}
static void list_free(void *v) {
    sc_manifest_file_vec_free(v);
    free(v);
}

/*
 * A manifest's records against the table's schema, once per decode: every
 * reader (files, conflict checks, fsck, upkeep) then holds rows that decode,
 * and a row that does not fit (a schema edited under the table, damage) is
 * reported naming the manifest and the record, not later as a bare row error.
 * Partition keys and their types never change across a Paimon table's
 * schemas, so the current schema judges every record; so do the trimmed
 * primary key's, which the conflict checks compare.
 */
/* One record against the schema (check_records); `i` its index in manifest `name`. */
static int check_record(const sc_table *t, const sc_file_entry *f, const char *name, uint64_t i) {
    const sc_table_schema *s = &t->schema;
    int rc = sc_row_validate(f->partition.data, f->partition.len, s->partition_types, s->partition_key_count, "partition");
    if (!rc && s->primary_key_count) {
        rc = sc_row_validate(f->min_key.data, f->min_key.len, s->trimmed_key_types, s->trimmed_key_count, "min_key");
        if (!rc) rc = sc_row_validate(f->max_key.data, f->max_key.len, s->trimmed_key_types, s->trimmed_key_count, "max_key");
    }
    if (rc) {
        char file[128];
        sc_bytes_describe(file, sizeof file, (sc_bytes){(const uint8_t *)f->file, strlen(f->file)});
        return sc_error_wrap(rc, "manifest/%s: record %" PRIu64 " (%s), read with schema/schema-%" PRId64, name, i, file, s->id);
    }
    return 0;
}

static int check_records(const sc_table *t, const sc_entry_vec *v, const char *name) {
    int rc = 0;
    for (size_t i = 0; !rc && i < v->count; i++) rc = check_record(t, &v->items[i].file, name, i);
    return rc;
}

static int manifest_decode(void *v, const uint8_t *d, size_t n, const sc_table *t, const char *name) {
    int rc = sc_paimon_manifest_decode(v, d, n, &t->limits, name);
    return rc ? rc : check_records(t, v, name);
}
static size_t manifest_count(const void *v) { return ((const sc_entry_vec *)v)->count; }
static int manifest_append(void *out, const void *v) {
    const sc_entry_vec *in = v;
    int rc = 0;
    /* Copies without the input rules: these are the table's own records, Paimon's included. */
    for (size_t i = 0; !rc && i < in->count; i++) rc = sc_entry_vec_push_copy(out, in->items[i].kind, &in->items[i].file);
    return rc;
}
/* A cached manifest: its records first (so it reads as an sc_entry_vec), then, built on
 * first use, its record positions sorted by identity hash (file_index.h). */
typedef struct hash_pos {
    uint64_t hash;
    size_t at;
} hash_pos;

typedef struct cached_manifest {
    sc_entry_vec records;
    hash_pos *by_hash;
} cached_manifest;

static void manifest_free(void *v) {
    cached_manifest *m = v;
    sc_entry_vec_free(&m->records);
    free(m->by_hash);
    free(m);
}

static const pinned_kind list_kind = {sizeof(sc_manifest_file_vec), list_decode, list_count, list_append, list_free,
                                      'L'};
static const pinned_kind manifest_kind = {sizeof(cached_manifest), manifest_decode, manifest_count, manifest_append,
                                          manifest_free, 'M'};

/* Append the decoded contents of a pinned object to `out`, from the cache when there. */
static int load_pinned(void *out, sc_table *t, const pinned_kind *kind, const char *name,
                       const uint8_t *sha256, uint64_t length) {
    /* Names are unique and objects immutable, so an unpinned object is cached by name alone. */
    static const uint8_t unpinned[SC_SHA256_LEN];
    const uint8_t *cache_hash = sha256 ? sha256 : unpinned;
    char kbuf[PINNED_KEY_CAP];
    const char *ckey = pinned_key(kbuf, sizeof kbuf, kind->tag, name);
    void *cached = ckey ? sc_cache_get(t->cache, ckey, cache_hash) : NULL;
    void *fresh = NULL;
    int rc = 0;
    if (!cached) {
        uint8_t *data = NULL; /* set: gcc cannot see that fetch_pinned fails with rc != 0 */
        size_t len = 0;
        if ((rc = fetch_pinned(&data, &len, t, name, sha256, length)) != 0) return rc;
        fresh = calloc(1, kind->size);
        rc = fresh ? kind->decode(fresh, data, len, t, name) : sc_error_set(SC_ENOMEM, "out of memory");
        free(data);
        cached = fresh;
    }
    if (!rc) rc = kind->append(out, cached);
    if (fresh && !rc && ckey) sc_cache_put(t->cache, ckey, cache_hash, fresh, kind->count(fresh) + 1, kind->free);
    else if (fresh) kind->free(fresh);
    return rc;
}

static int size_vec_push(sc_size_vec *v, size_t value) {
    int rc;
    SC_VEC_RESERVE(rc, v->items, v->cap, v->count + 1, 16, "record positions");
    if (rc) return rc;
    v->items[v->count++] = value;
    return 0;
}

void sc_size_vec_free(sc_size_vec *v) {
    free(v->items);
    memset(v, 0, sizeof *v);
}

static int by_hash_order(const void *pa, const void *pb) {
    const hash_pos *a = pa, *b = pb;
    if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

static int size_order(const void *pa, const void *pb) {
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return a < b ? -1 : a > b;
}

static uint64_t record_hash(const sc_manifest_entry *e) {
    return sc_file_index_hash(e->file.partition, e->file.bucket, e->file.file);
}

int sc_state_find_records(sc_size_vec *out, const sc_entry_vec **out_records, sc_entry_vec *holder, sc_table *t,
                          const sc_manifest_file *meta, const uint64_t *hashes, size_t count) {
    memset(holder, 0, sizeof *holder);
    *out_records = NULL;
    out->count = 0;
    if (meta->size < 0) return sc_error_set(SC_ECORRUPT, "manifest/%s: negative size in its manifest list", meta->name);
    static const uint8_t unpinned[SC_SHA256_LEN];
    const uint8_t *cache_hash = meta->has_sha256 ? meta->sha256 : unpinned;
    char kbuf[PINNED_KEY_CAP];
    const char *ckey = pinned_key(kbuf, sizeof kbuf, manifest_kind.tag, meta->name);
    cached_manifest *cached = ckey ? sc_cache_get(t->cache, ckey, cache_hash) : NULL;
    int rc = 0;
    if (!cached) {
        /* Load it the usual way (which caches it), then look again. */
        if ((rc = sc_state_load_manifest(holder, t, meta)) != 0) return rc;
        cached = ckey ? sc_cache_get(t->cache, ckey, cache_hash) : NULL;
    }
    if (!cached) {
        /* Too big to cache: one pass over the copy in `holder`. */
        *out_records = holder;
        for (size_t i = 0; !rc && i < holder->count; i++) {
            uint64_t h = record_hash(&holder->items[i]);
            for (size_t j = 0; j < count; j++)
                if (hashes[j] == h) {
                    rc = size_vec_push(out, i);
                    break;
                }
        }
        return rc;
    }
    sc_entry_vec_free(holder);
    const sc_entry_vec *records = &cached->records;
    if (!cached->by_hash && records->count) {
        /* Built once per cached manifest: later commits touching it pay O(log n) per file. */
        hash_pos *ix = malloc(records->count * sizeof *ix);
        if (!ix) return sc_error_set(SC_ENOMEM, "out of memory indexing manifest/%s", meta->name);
        for (size_t i = 0; i < records->count; i++) ix[i] = (hash_pos){record_hash(&records->items[i]), i};
        qsort(ix, records->count, sizeof *ix, by_hash_order);
        cached->by_hash = ix;
    }
    for (size_t j = 0; !rc && j < count; j++) {
        size_t lo = 0, hi = records->count;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cached->by_hash[mid].hash < hashes[j]) lo = mid + 1;
            else hi = mid;
        }
        for (size_t i = lo; !rc && i < records->count && cached->by_hash[i].hash == hashes[j]; i++)
            rc = size_vec_push(out, cached->by_hash[i].at);
    }
    /* In record order (a file's ADD before its DELETE), each position once. */
    if (!rc && out->count > 1) {
        qsort(out->items, out->count, sizeof *out->items, size_order);
        size_t w = 1;
        for (size_t r = 1; r < out->count; r++)
            if (out->items[r] != out->items[w - 1]) out->items[w++] = out->items[r];
        out->count = w;
    }
    *out_records = records;
    return rc;
}

int sc_state_load_list(sc_manifest_file_vec *out, sc_table *t, const sc_object_ref *ref) {
    return load_pinned(out, t, &list_kind, ref->name, ref->has_sha256 ? ref->sha256 : NULL, ref->length);
}

int sc_state_load_manifest(sc_entry_vec *out, sc_table *t, const sc_manifest_file *meta) {
    if (meta->size < 0) return sc_error_set(SC_ECORRUPT, "manifest/%s: negative size in its manifest list", meta->name);
    return load_pinned(out, t, &manifest_kind, meta->name, meta->has_sha256 ? meta->sha256 : NULL, (uint64_t)meta->size);
}

/* ---- prefetch: pinned objects fetched together on a concurrent store ---- */

/* One object to fetch: its name and its pins, as the sequential read would check them. */
typedef struct prefetch_item {
    const char *name;
    const uint8_t *sha256; /* NULL: not pinned by hash */
    uint64_t length;
} prefetch_item;

/* A prefetch under way: the calls picked and what each must match. */
typedef char prefetch_key[SC_MANIFEST_PATH_MAX + 16];
struct sc_state_prefetch {
    const pinned_kind *kind;
    size_t count;
    sc_store_call calls[SC_STATE_PREFETCH_OBJECTS];
    prefetch_key keys[SC_STATE_PREFETCH_OBJECTS];
    char *names[SC_STATE_PREFETCH_OBJECTS];
    uint8_t sha256[SC_STATE_PREFETCH_OBJECTS][SC_SHA256_LEN];
    int pinned[SC_STATE_PREFETCH_OBJECTS];
    uint64_t length[SC_STATE_PREFETCH_OBJECTS];
};

/*
 * The GETs of `items` that the cache lacks, within the batch's bounds (objects of unknown
 * length and those beyond the bounds are left to the ordinary read). NULL when there is
 * nothing to fetch, the store takes requests one at a time, or memory is short.
 */
static sc_state_prefetch *prefetch_begin(sc_table *t, const pinned_kind *kind, const prefetch_item *items, size_t n) {
    static const uint8_t unpinned[SC_SHA256_LEN];
    if (!t->cache || !(sc_store_caps(t->store) & SC_CAP_CONCURRENT)) return NULL;
    sc_state_prefetch *p = NULL; /* about 60 KB: on the heap, not on a caller's (JNI) stack */
    uint64_t bytes = 0;
    for (size_t i = 0; i < n && (!p || p->count < SC_STATE_PREFETCH_OBJECTS); i++) {
        const prefetch_item *it = &items[i];
        char kbuf[PINNED_KEY_CAP];
        const char *ckey = pinned_key(kbuf, sizeof kbuf, kind->tag, it->name);
        if (!ckey || it->length == 0 || it->length > SC_STATE_PREFETCH_BYTES - bytes) continue;
        if (sc_cache_get(t->cache, ckey, it->sha256 ? it->sha256 : unpinned)) continue;
        int dup = 0;
        for (size_t j = 0; p && j < p->count && !dup; j++) dup = strcmp(p->names[j], it->name) == 0;
        if (dup) continue;
        if (!p && !(p = calloc(1, sizeof *p))) break;
        size_t k = p->count;
        if (!(p->names[k] = strdup(it->name))) break;
        sc_manifest_key(p->keys[k], sizeof p->keys[k], it->name);
        p->calls[k] = (sc_store_call){.op = SC_OP_GET, .key = p->keys[k], .max_len = (size_t)it->length};
        p->pinned[k] = it->sha256 != NULL;
        if (it->sha256) memcpy(p->sha256[k], it->sha256, SC_SHA256_LEN);
        p->length[k] = it->length;
        p->count++;
        bytes += it->length;
    }
    if (p && p->count == 0) {
        free(p);
        p = NULL;
    }
    if (p) p->kind = kind;
    return p;
}

sc_store_call *sc_state_prefetch_calls(sc_state_prefetch *p, size_t *out_count) {
    *out_count = p ? p->count : 0;
    return p ? p->calls : NULL;
}

/*
 * After the batch: each answer checked exactly as fetch_pinned does (length, SHA-256),
 * decoded and cached. A hint only: an object that fails any of this is left out, and the
 * ordinary read that follows fetches it again and reports what is wrong, as it would have
 * without the prefetch (an expiration under the read included).
 */
void sc_state_prefetch_end(sc_state_prefetch *p, sc_table *t) {
    static const uint8_t unpinned[SC_SHA256_LEN];
    if (!p) return;
    for (size_t i = 0; i < p->count; i++) {
        sc_store_call *c = &p->calls[i];
        uint8_t got[SC_SHA256_LEN];
        if (c->rc == 0 && c->out_data) sc_sha256(got, c->out_data, c->out_len);
        if (c->rc == 0 && c->out_data && c->out_len == p->length[i] &&
            (!p->pinned[i] || memcmp(got, p->sha256[i], SC_SHA256_LEN) == 0)) {
            const uint8_t *hash = p->pinned[i] ? p->sha256[i] : unpinned;
            char kbuf[PINNED_KEY_CAP];
            const char *ckey = pinned_key(kbuf, sizeof kbuf, p->kind->tag, p->names[i]);
            void *fresh = calloc(1, p->kind->size);
            if (fresh && p->kind->decode(fresh, c->out_data, c->out_len, t, p->names[i]) == 0)
                sc_cache_put(t->cache, ckey, hash, fresh, p->kind->count(fresh) + 1, p->kind->free);
            else if (fresh)
                p->kind->free(fresh);
        }
        sc_store_call_clear(c);
        free(p->names[i]);
    }
    free(p);
    sc_error_clear(); /* nothing of this is anyone's error: the reads that follow report */
}

/* The GETs of `items` the cache lacks in one batch of their own. */
static void prefetch(sc_table *t, const pinned_kind *kind, const prefetch_item *items, size_t n) {
    sc_state_prefetch *p = prefetch_begin(t, kind, items, n);
    if (!p) return;
    if (sc_store_batch(t->store, &t->env, p->calls, p->count) != 0) sc_error_clear(); /* nothing sent: no data, skipped */
    sc_state_prefetch_end(p, t);
}

void sc_state_prefetch_lists(sc_table *t, const sc_object_ref *const *refs, size_t n) {
    prefetch_item items[SC_STATE_PREFETCH_OBJECTS];
    size_t k = 0;
    for (size_t i = 0; i < n && k < SC_STATE_PREFETCH_OBJECTS; i++)
        if (refs[i] && refs[i]->name)
            items[k++] = (prefetch_item){refs[i]->name, refs[i]->has_sha256 ? refs[i]->sha256 : NULL, refs[i]->length};
    prefetch(t, &list_kind, items, k);
}

/* The manifests among `metas` a prefetch takes: what the walks would stream unkept stays
 * unkept (a big manifest is read as before), SC_STATE_PREFETCH_RECORDS in all. */
static size_t manifest_items(prefetch_item *items, const sc_manifest_file *const *metas, size_t n) {
    size_t k = 0;
    uint64_t records = 0;
    for (size_t i = 0; i < n && k < SC_STATE_PREFETCH_OBJECTS; i++) {
        const sc_manifest_file *m = metas[i];
        if (m->size <= 0 || m->added < 0 || m->deleted < 0) continue;
        uint64_t r = (uint64_t)m->added + (uint64_t)m->deleted;
        if (r > SC_STATE_KEEP_RECORDS || r > SC_STATE_PREFETCH_RECORDS - records) continue;
        records += r;
        items[k++] = (prefetch_item){m->name, m->has_sha256 ? m->sha256 : NULL, (uint64_t)m->size};
    }
    return k;
}

void sc_state_prefetch_manifests(sc_table *t, const sc_manifest_file *const *metas, size_t n) {
    prefetch_item items[SC_STATE_PREFETCH_OBJECTS];
    prefetch(t, &manifest_kind, items, manifest_items(items, metas, n));
}

sc_state_prefetch *sc_state_prefetch_manifests_begin(sc_table *t, const sc_manifest_file *const *metas, size_t n) {
    prefetch_item items[SC_STATE_PREFETCH_OBJECTS];
    return prefetch_begin(t, &manifest_kind, items, manifest_items(items, metas, n));
}

int sc_state_cached_list(sc_manifest_file_vec *out, sc_table *t, const sc_object_ref *ref) {
    static const uint8_t unpinned[SC_SHA256_LEN];
    char kbuf[PINNED_KEY_CAP];
    const char *ckey = ref->name ? pinned_key(kbuf, sizeof kbuf, list_kind.tag, ref->name) : NULL;
    void *cached = ckey && t->cache ? sc_cache_get(t->cache, ckey, ref->has_sha256 ? ref->sha256 : unpinned) : NULL;
    if (!cached) return 0;
    int rc = list_append(out, cached);
    return rc ? rc : 1;
}

int sc_state_meta_may_hold(const sc_table *t, const sc_manifest_file *m, const sc_partition_set *filter) {
    if (!filter) return 1;
    sc_bytes min = {m->partition_min, m->partition_min_len}, max = {m->partition_max, m->partition_max_len};
    for (size_t i = 0; i < filter->count; i++) {
        int may;
        sc_partition_stats_may_hold(&may, &t->schema, min, max, filter->items[i]);
        if (may) return 1;
    }
    return 0;
}

/* ---- one record at a time: memory that does not grow with the table ---- */

typedef struct each_ctx {
    const sc_table *t;
    const char *name;
    sc_state_record_fn fn;
    void *ctx;
} each_ctx;

static int each_checked(void *c, sc_entry_kind kind, const sc_file_entry *f, uint64_t index) {
    each_ctx *e = c;
    int rc = check_record(e->t, f, e->name, index);
    return rc ? rc : e->fn(e->ctx, kind, f);
}

int sc_state_each_record(sc_table *t, const sc_manifest_file *meta, int keep, sc_state_record_fn fn, void *ctx) {
    if (meta->size < 0) return sc_error_set(SC_ECORRUPT, "manifest/%s: negative size in its manifest list", meta->name);
    static const uint8_t unpinned[SC_SHA256_LEN];
    const uint8_t *cache_hash = meta->has_sha256 ? meta->sha256 : unpinned;
    char kbuf[PINNED_KEY_CAP];
    const char *ckey = pinned_key(kbuf, sizeof kbuf, manifest_kind.tag, meta->name);
    cached_manifest *m = ckey ? sc_cache_get(t->cache, ckey, cache_hash) : NULL;
    int rc = 0;
    if (m) { /* nothing below inserts into the cache: the records stay valid */
        for (size_t i = 0; !rc && i < m->records.count; i++) rc = fn(ctx, m->records.items[i].kind, &m->records.items[i].file);
        return rc;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    if ((rc = fetch_pinned(&data, &len, t, meta->name, meta->has_sha256 ? meta->sha256 : NULL, (uint64_t)meta->size)) != 0)
        return rc;
    if (keep && ckey && t->cache) {
        /* Decoded whole, handed over, then cached for the next pass or commit. */
        cached_manifest *fresh = calloc(1, sizeof *fresh);
        rc = fresh ? manifest_decode(fresh, data, len, t, meta->name) : sc_error_set(SC_ENOMEM, "out of memory");
        free(data);
        for (size_t i = 0; !rc && i < fresh->records.count; i++)
            rc = fn(ctx, fresh->records.items[i].kind, &fresh->records.items[i].file);
        if (!rc) sc_cache_put(t->cache, ckey, cache_hash, fresh, fresh->records.count + 1, manifest_free);
        else if (fresh) manifest_free(fresh);
        return rc;
    }
    each_ctx e = {t, meta->name, fn, ctx};
    rc = sc_paimon_manifest_each(data, len, &t->limits, meta->name, each_checked, &e);
    free(data);
    return rc;
}

/*
 * The live-file walk (sc_state_live_each). A file's records alternate ADD,
 * DELETE, ADD, ... in a sound table, and its ADD is live when no DELETE
 * follows it. Passes over the manifests, each one record at a time:
 *  1. every record: a map of the files ever deleted, with how many times (as
 *     large as the deletes), and the identity hashes (8 bytes) of every ADD;
 *     a hash met twice marks a file added twice, a file re-added after its
 *     delete (a level change) or a collision;
 *  2. only the manifests whose file index may hold a deleted file or a
 *     repeated hash (all those without an index): the ADD/DELETE alternation
 *     of every deleted file, exactly, and the files of a repeated hash that
 *     were never deleted, which must be distinct;
 *  3. with a callback: every ADD not followed by a DELETE of its file, in
 *     record order, the order sc_state_live_files gives.
 * Damage is found before the first callback: a caller printing the files
 * prints nothing for a damaged table, as before.
 */
typedef struct deleted_file {
    uint64_t hash;
    uint32_t deletes; /* DELETE records of the file (pass 1) */
    uint32_t seen;    /* DELETE records met so far (pass 3) */
    uint8_t live;     /* pass 2: after the records so far */
} deleted_file;

typedef struct live_walk {
    sc_table *t;
    const sc_snapshot *snap;
    const sc_partition_set *filter;
    sc_fileset *deleted; /* identity -> index in `files` */
    deleted_file *files;
    size_t nfiles, files_cap;
    uint64_t *hashes; /* pass 1: every ADD's */
    size_t nhashes, hashes_cap;
    uint64_t *targets; /* sorted, unique: the deleted files' and the repeated hashes */
    size_t ntargets;
    uint64_t *repeated; /* sorted, unique: the repeated hashes */
    size_t nrepeated;
    sc_fileset *distinct; /* pass 2: files of a repeated hash never deleted */
    uint64_t adds, deleted_adds, deleted_live;
    sc_state_live_fn emit;
    void *ctx;
} live_walk;

static int walk_in(const live_walk *w, const sc_file_entry *f) {
    return !w->filter || sc_partition_set_has(w->filter, f->partition);
}

static int walk_scan(void *c, sc_entry_kind kind, const sc_file_entry *f) {
    live_walk *w = c;
    if (!walk_in(w, f)) return 0;
    int rc;
    uint64_t h = sc_file_index_hash(f->partition, f->bucket, f->file);
    if (kind == SC_ENTRY_ADD) {
        SC_VEC_RESERVE(rc, w->hashes, w->hashes_cap, w->nhashes + 1, 1024, "live file hashes");
        if (!rc) w->hashes[w->nhashes++] = h;
        w->adds++;
        return rc;
    }
    size_t at;
    rc = sc_fileset_put(w->deleted, f, w->nfiles, &at);
    if (rc == SC_EEXISTS) {
        w->files[at].deletes++;
        return 0;
    }
    if (!rc) SC_VEC_RESERVE(rc, w->files, w->files_cap, w->nfiles + 1, 64, "deleted files");
    if (!rc) w->files[w->nfiles++] = (deleted_file){h, 1, 0, 0};
    return rc;
}

static int has_hash(const uint64_t *v, size_t n, uint64_t h) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < h) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo] == h;
}

static int walk_check(void *c, sc_entry_kind kind, const sc_file_entry *f) {
    live_walk *w = c;
    if (!walk_in(w, f)) return 0;
    size_t at;
    if (sc_fileset_get(w->deleted, f, &at) != 0) {
        /* Never deleted: it must be added once (pass 1 saw its hash repeated, or nothing to do). */
        if (!has_hash(w->repeated, w->nrepeated, sc_file_index_hash(f->partition, f->bucket, f->file))) return 0;
        int rc = sc_fileset_put(w->distinct, f, 0, NULL);
        if (rc == SC_EEXISTS) return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": manifests add %s twice", w->snap->id, f->file);
        return rc;
    }
    deleted_file *d = &w->files[at];
    if (kind == SC_ENTRY_ADD) {
        if (d->live) return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": manifests add %s twice", w->snap->id, f->file);
        d->live = 1;
        w->deleted_adds++;
        return 0;
    }
    if (!d->live)
        return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": manifests delete %s, which is not live", w->snap->id, f->file);
    d->live = 0;
    return 0;
}

static int walk_emit(void *c, sc_entry_kind kind, const sc_file_entry *f) {
    live_walk *w = c;
    if (!walk_in(w, f)) return 0;
    size_t at;
    if (sc_fileset_get(w->deleted, f, &at) != 0) return w->emit(w->ctx, f);
    if (kind == SC_ENTRY_DELETE) {
        w->files[at].seen++;
        return 0;
    }
    /* Live when no DELETE of it is still to come. */
    return w->files[at].seen == w->files[at].deletes ? w->emit(w->ctx, f) : 0;
}

static int u64_order(const void *pa, const void *pb) {
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Sort `v` and keep each value once (with `repeated_only`, only values met twice or more). */
static size_t u64_unique(uint64_t *v, size_t n, int repeated_only) {
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, u64_order);
    size_t w = 0;
    for (size_t r = 0; r < n;) {
        size_t e = r + 1;
        while (e < n && v[e] == v[r]) e++;
        if (!repeated_only || e - r > 1) v[w++] = v[r];
        r = e;
    }
    return w;
}

/* 1 when manifest `m` may hold a record whose hash is in w->targets: without a usable
 * file index, always. */
static int walk_may_hold_target(const live_walk *w, const sc_manifest_file *m) {
    sc_file_index ix;
    if (!m->file_index || sc_file_index_decode(&ix, m->file_index, m->file_index_len, m->name) != 0) {
        sc_error_clear();
        return 1;
    }
    for (size_t i = 0; i < w->ntargets; i++)
        if (sc_file_index_may_contain(&ix, w->targets[i])) return 1;
    return 0;
}

/* One pass of the walk over the manifests of `metas` that `filter` may hold (with
 * `targeted`, only those that may hold a target). */
static int walk_pass(live_walk *w, const sc_manifest_file_vec *metas, int keep, int targeted, sc_state_record_fn fn) {
    int rc = 0;
    for (size_t i = 0; !rc && i < metas->count; i++) {
        const sc_manifest_file *m = &metas->items[i];
        if (!sc_state_meta_may_hold(w->t, m, w->filter) || (targeted && !walk_may_hold_target(w, m))) continue;
        rc = sc_state_each_record(w->t, m, keep, fn, w);
    }
    return rc;
}

int sc_state_live_each(uint64_t *out_count, sc_table *t, const sc_snapshot *snap, const sc_partition_set *filter,
                       sc_state_live_fn emit, void *ctx) {
    live_walk w = {.t = t, .snap = snap, .filter = filter, .emit = emit, .ctx = ctx};
    sc_manifest_file_vec metas = {0};
    int rc = sc_state_load_list(&metas, t, &snap->base_manifest_list);
    if (!rc) rc = sc_state_load_list(&metas, t, &snap->delta_manifest_list);
    /* A small table is decoded once and kept for the passes after the first; a big one is
     * read again on each pass, never held. */
    uint64_t records = 0;
    for (size_t i = 0; i < metas.count; i++) records += (uint64_t)metas.items[i].added + (uint64_t)metas.items[i].deleted; /* each >= 0: decoded */
    int keep = records <= SC_STATE_KEEP_RECORDS;
    if (!rc) rc = sc_fileset_new(&w.deleted);
    if (!rc) rc = sc_fileset_new(&w.distinct);
    if (!rc) rc = walk_pass(&w, &metas, keep, 0, walk_scan);
    if (!rc) {
        w.nrepeated = u64_unique(w.hashes, w.nhashes, 1);
        w.repeated = w.hashes; /* the array now holds the repeated hashes only */
        uint64_t *shrunk = realloc(w.hashes, (w.nrepeated ? w.nrepeated : 1) * sizeof *w.hashes);
        if (shrunk) w.hashes = w.repeated = shrunk;
        w.ntargets = w.nrepeated + w.nfiles;
        if (!(w.targets = malloc((w.ntargets ? w.ntargets : 1) * sizeof *w.targets))) rc = sc_error_set(SC_ENOMEM, "out of memory");
    }
    if (!rc) {
        memcpy(w.targets, w.repeated, w.nrepeated * sizeof *w.targets);
        for (size_t i = 0; i < w.nfiles; i++) w.targets[w.nrepeated + i] = w.files[i].hash;
        w.ntargets = u64_unique(w.targets, w.ntargets, 0);
        if (w.ntargets) rc = walk_pass(&w, &metas, keep, 1, walk_check);
    }
    for (size_t i = 0; !rc && i < w.nfiles; i++) w.deleted_live += w.files[i].live;
    if (!rc && emit) rc = walk_pass(&w, &metas, keep, 0, walk_emit);
    if (!rc && out_count) *out_count = w.adds - w.deleted_adds + w.deleted_live;
    sc_fileset_free(w.distinct);
    sc_fileset_free(w.deleted);
    free(w.files);
    free(w.hashes);
    free(w.targets);
    sc_manifest_file_vec_free(&metas);
    return rc;
}

/* Records of every manifest in the list `ref` that may hold `filter`'s partitions. */
/* The manifests of `metas` that may hold `filter`'s partitions, in one batch on a concurrent
 * store (a hint: the reads that follow report). */
static void prefetch_holding(sc_table *t, const sc_manifest_file_vec *metas, const sc_partition_set *filter) {
    const sc_manifest_file *pick[SC_STATE_PREFETCH_OBJECTS];
    size_t np = 0;
    for (size_t i = 0; i < metas->count && np < SC_STATE_PREFETCH_OBJECTS; i++)
        if (sc_state_meta_may_hold(t, &metas->items[i], filter)) pick[np++] = &metas->items[i];
    if (np > 1) sc_state_prefetch_manifests(t, pick, np);
}

static int load_records(sc_entry_vec *out, sc_table *t, const sc_object_ref *ref,
                        const sc_partition_set *filter) {
    sc_manifest_file_vec metas = {0};
    int rc = sc_state_load_list(&metas, t, ref);
    if (!rc) prefetch_holding(t, &metas, filter);
    for (size_t i = 0; !rc && i < metas.count; i++) {
        if (!sc_state_meta_may_hold(t, &metas.items[i], filter)) continue;
        sc_entry_vec records = {0};
        rc = sc_state_load_manifest(&records, t, &metas.items[i]);
        for (size_t j = 0; !rc && j < records.count; j++) {
            const sc_manifest_entry *e = &records.items[j];
            if (filter && !sc_partition_set_has(filter, e->file.partition)) continue;
            rc = sc_entry_vec_push_copy(out, e->kind, &e->file);
        }
        sc_entry_vec_free(&records);
    }
    sc_manifest_file_vec_free(&metas);
    return rc;
}

int sc_state_delta_records(sc_entry_vec *out, sc_table *t, const sc_snapshot *snap,
                           const sc_partition_set *filter) {
    return load_records(out, t, &snap->delta_manifest_list, filter);
}

int sc_state_delta_each(sc_table *t, const sc_snapshot *snap, sc_state_record_fn fn, void *ctx) {
    sc_manifest_file_vec metas = {0};
    int rc = sc_state_load_list(&metas, t, &snap->delta_manifest_list);
    uint64_t records = 0;
    for (size_t i = 0; i < metas.count; i++) records += (uint64_t)metas.items[i].added + (uint64_t)metas.items[i].deleted; /* each >= 0: decoded */
    for (size_t i = 0; !rc && i < metas.count; i++)
        rc = sc_state_each_record(t, &metas.items[i], records <= SC_STATE_KEEP_RECORDS, fn, ctx);
    sc_manifest_file_vec_free(&metas);
    return rc;
}

static int ignore_record(void *ctx, sc_entry_kind kind, const sc_file_entry *f) {
    (void)ctx, (void)kind, (void)f;
    return 0;
}

/*
 * A big delta's pinned manifests from metas->items[*at] on, as many as one batch takes
 * (SC_STATE_PREFETCH_OBJECTS, SC_STATE_PREFETCH_BYTES): nothing keeps their records, so
 * each is checked by its length and SHA-256, pinned by the snapcommit writer that encoded
 * it from checked records, which prove these are those bytes. Decoding them again (2-3 us
 * a record) made the first commit after a bulk load cost the load, and one GET after
 * another a round trip per manifest on S3. *at is left on the last manifest taken.
 */
static int verify_pinned(sc_table *t, const sc_manifest_file_vec *metas, size_t *at) {
    struct {
        sc_store_call calls[SC_STATE_PREFETCH_OBJECTS];
        char keys[SC_STATE_PREFETCH_OBJECTS][SC_MANIFEST_PATH_MAX + 16];
        const sc_manifest_file *taken[SC_STATE_PREFETCH_OBJECTS];
    } *b = calloc(1, sizeof *b); /* about 50 KB: on the heap, not on a caller's (JNI) stack */
    if (!b) return sc_error_set(SC_ENOMEM, "out of memory");
    size_t n = 0;
    uint64_t bytes = 0;
    for (size_t i = *at; i < metas->count && n < SC_STATE_PREFETCH_OBJECTS; i++) {
        const sc_manifest_file *m = &metas->items[i];
        uint64_t size = (uint64_t)m->size; /* >= 0: decoded */
        if (!m->has_sha256 || size == 0 || (n && size > SC_STATE_PREFETCH_BYTES - bytes)) break;
        sc_manifest_key(b->keys[n], sizeof b->keys[n], m->name);
        b->calls[n] = (sc_store_call){.op = SC_OP_GET, .key = b->keys[n], .max_len = pinned_cap(t, size)};
        b->taken[n++] = m;
        bytes += size < SC_STATE_PREFETCH_BYTES ? size : SC_STATE_PREFETCH_BYTES;
        *at = i;
    }
    int rc = sc_store_batch(t->store, &t->env, b->calls, n);
    for (size_t k = 0; k < n; k++) {
        if (!rc) {
            const sc_store_call *c = &b->calls[k];
            rc = pinned_verdict(b->taken[k]->name, c->rc ? sc_store_call_error(c) : 0, c->out_data, c->out_len,
                                b->taken[k]->sha256, (uint64_t)b->taken[k]->size);
        }
        sc_store_call_clear(&b->calls[k]);
    }
    free(b);
    return rc;
}

int sc_state_check_delta(sc_table *t, const sc_snapshot *snap) {
    static const uint8_t unpinned[SC_SHA256_LEN];
    sc_manifest_file_vec metas = {0};
    int rc = sc_state_load_list(&metas, t, &snap->delta_manifest_list);
    /* A delta of the usual size is kept for the conflict check and the merges that may
     * read it next; a big one (a bulk load) is never held: checked by its pins a batch at
     * a time (verify_pinned), or, unpinned (Paimon's), one record at a time. */
    uint64_t records = 0;
    for (size_t i = 0; i < metas.count; i++) records += (uint64_t)metas.items[i].added + (uint64_t)metas.items[i].deleted; /* each >= 0: decoded */
    int keep = records <= SC_STATE_KEEP_RECORDS;
    for (size_t i = 0; !rc && i < metas.count; i++) {
        const sc_manifest_file *meta = &metas.items[i];
        char kbuf[PINNED_KEY_CAP];
        const char *ckey = pinned_key(kbuf, sizeof kbuf, manifest_kind.tag, meta->name);
        /* Cached (by name, and by hash when pinned): this handle wrote it, or read and checked it. */
        if (ckey && sc_cache_get(t->cache, ckey, meta->has_sha256 ? meta->sha256 : unpinned)) continue;
        /* A pin without a length (0, which no Avro file has) is not its writer's: such a
         * manifest is decoded, and its read bounded by the object limit alone, one at a time. */
        if (!keep && meta->has_sha256 && meta->size > 0) rc = verify_pinned(t, &metas, &i);
        else rc = sc_state_each_record(t, meta, keep, ignore_record, NULL);
        if (rc) rc = sc_error_wrap(rc, "the delta of snapshot %" PRIu64, snap->id); /* the message names the manifest */
    }
    sc_manifest_file_vec_free(&metas);
    return rc;
}

int sc_state_live_files(sc_entry_vec *out, sc_table *t, const sc_snapshot *snap,
                        const sc_partition_set *filter) {
    sc_entry_vec records = {0};
    sc_fileset *live = NULL;
    char *alive = NULL;
    /* Both lists' manifests in one batch (load_records would make one per list). */
    sc_manifest_file_vec metas = {0};
    int rc = sc_state_load_list(&metas, t, &snap->base_manifest_list);
    if (!rc) rc = sc_state_load_list(&metas, t, &snap->delta_manifest_list);
    if (!rc) prefetch_holding(t, &metas, filter);
    sc_manifest_file_vec_free(&metas);
    if (!rc) rc = load_records(&records, t, &snap->base_manifest_list, filter);
    if (!rc) rc = load_records(&records, t, &snap->delta_manifest_list, filter);
    if (!rc) rc = sc_fileset_new(&live);
    if (!rc && records.count && !(alive = calloc(records.count, 1)))
        rc = sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < records.count; i++) {
        const sc_manifest_entry *e = &records.items[i];
        size_t prev;
        if (e->kind == SC_ENTRY_ADD) {
            rc = sc_fileset_put(live, &e->file, i, NULL);
            if (rc == SC_EEXISTS)
                rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": manifests add %s twice",
                                  snap->id, e->file.file);
            else if (!rc) alive[i] = 1;
        } else {
            rc = sc_fileset_remove(live, &e->file, &prev);
            if (rc == SC_ENOTFOUND)
                rc = sc_error_set(SC_ECORRUPT,
                                  "snapshot %" PRIu64 ": manifests delete %s, which is not live",
                                  snap->id, e->file.file);
            else if (!rc) alive[prev] = 0;
        }
    }
    for (size_t i = 0; !rc && i < records.count; i++)
        if (alive[i]) rc = sc_entry_vec_push_copy(out, SC_ENTRY_ADD, &records.items[i].file);
    free(alive);
    sc_fileset_free(live);
    sc_entry_vec_free(&records);
    return rc;
}

/* Decode what this handle just wrote and cache it as a later read would (the
 * same decoder, so the records are exactly those a GET would give). */
static void remember_pinned(sc_table *t, const pinned_kind *kind, const char *name, const uint8_t sha256[SC_SHA256_LEN],
                            const uint8_t *data, size_t len) {
    char kbuf[PINNED_KEY_CAP];
    const char *ckey = pinned_key(kbuf, sizeof kbuf, kind->tag, name);
    if (!t->cache || !ckey || sc_cache_get(t->cache, ckey, sha256)) return;
    void *fresh = calloc(1, kind->size);
    if (!fresh) return;
    if (kind->decode(fresh, data, len, t, name) != 0) {
        sc_error_clear(); /* best effort: a later read decodes it again and reports */
        kind->free(fresh);
        return;
    }
    sc_cache_put(t->cache, ckey, sha256, fresh, kind->count(fresh) + 1, kind->free);
}

void sc_state_remember_list(sc_table *t, const sc_object_ref *ref, const uint8_t *data, size_t len) {
    if (ref->has_sha256) remember_pinned(t, &list_kind, ref->name, ref->sha256, data, len);
}

void sc_state_remember_manifest(sc_table *t, const sc_object_ref *ref, const uint8_t *data, size_t len) {
    if (ref->has_sha256) remember_pinned(t, &manifest_kind, ref->name, ref->sha256, data, len);
}

int sc_state_expired_under(uint64_t *out_earliest, sc_table *t, uint64_t id, int *rc) {
    *out_earliest = 0;
    if (*rc != SC_ENOTFOUND && *rc != SC_ECORRUPT) return 0;
    /* Reading EARLIEST may clear or replace the pending error: keep why the read failed. */
    char message[1024];
    snprintf(message, sizeof message, "%s", sc_error_message());
    int erc = t->strategy->earliest(t, out_earliest);
    if (erc) {
        /* Missing because expired, or damaged? Unknown until EARLIEST reads again: a
         * failed read of it is the store's fault to report, never corruption. */
        char why[512];
        snprintf(why, sizeof why, "%s", sc_error_message());
        *rc = sc_error_set(erc, "%s; reading snapshot/EARLIEST to tell an expiration from damage failed: %s", message, why);
        return 0;
    }
    sc_error_set(*rc, "%s", message);
    return *out_earliest > id;
}

int sc_state_read_retained(sc_table *t, uint64_t id, const char *what, sc_state_read_fn read, void *ctx) {
    uint64_t cur = id, earliest = 0;
    for (int attempt = 0;; attempt++) {
        int rc = id ? 0 : t->strategy->latest(t, &cur);
        if (!rc) rc = read(ctx, t, cur);
        if (rc == SC_STATE_READ_AGAIN) {
            /* Passed by an expiration below `cur` (replay.c): for the message, where history starts now. */
            if (t->strategy->earliest(t, &earliest) != 0) sc_error_clear();
            if (id) return sc_error_set(SC_ETRANSIENT, "%s: snapshot %" PRIu64 " was passed by an expiration while it "
                                                       "was read; run it again", what, id);
        } else if (!rc || !cur || !sc_state_expired_under(&earliest, t, cur, &rc)) {
            return rc;
        }
        /* EARLIEST moves before anything is deleted (expire.c): what went missing was expired. */
        if (id)
            return sc_error_set(SC_ENOTFOUND, "%s: snapshot %" PRIu64 " has expired (history now starts at %" PRIu64
                                              "): an expiration removed it before or while it was read",
                                what, id, earliest);
        if (attempt == SC_STATE_READ_RESTARTS)
            return sc_error_set(SC_ETRANSIENT, "%s: expirations removed the latest snapshot (or one it is read with) "
                                               "while it was read, %d times in a row (history now starts at %" PRIu64 "); run it again",
                                what, attempt + 1, earliest);
        sc_error_clear();
    }
}
