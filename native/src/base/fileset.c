/* Open-addressing hash map keyed by a file's identity bytes. */
#include "base/fileset.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error_internal.h"

typedef struct slot {
    uint8_t *key; /* NULL = empty; TOMBSTONE = removed */
    size_t key_len;
    uint64_t hash;
    size_t value;
} slot;

static uint8_t tombstone_marker;
#define TOMBSTONE (&tombstone_marker)

struct sc_fileset {
    slot *slots;
    size_t cap; /* power of two */
    size_t used; /* live + tombstones */
    size_t live;
};

/* Identity bytes: varint-free, unambiguous: len(partition) ‖ partition ‖ bucket ‖ file. */
static int identity(sc_buf *out, const sc_file_entry *f) {
    out->len = 0;
    int rc = sc_buf_append_u64be(out, f->partition.len);
    if (!rc && f->partition.len) rc = sc_buf_append(out, f->partition.data, f->partition.len);
    if (!rc) rc = sc_buf_append_u32be(out, (uint32_t)f->bucket);
    if (!rc) rc = sc_buf_append_str(out, f->file ? f->file : "");
    return rc;
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

int sc_fileset_new(sc_fileset **out) {
    sc_fileset *s = calloc(1, sizeof *s);
    if (!s) return sc_error_set(SC_ENOMEM, "out of memory");
    s->cap = 64;
    s->slots = calloc(s->cap, sizeof *s->slots);
    if (!s->slots) {
        free(s);
        return sc_error_set(SC_ENOMEM, "out of memory");
    }
    *out = s;
    return 0;
}

void sc_fileset_free(sc_fileset *s) {
    if (!s) return;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i].key && s->slots[i].key != TOMBSTONE) free(s->slots[i].key);
    free(s->slots);
    free(s);
}

/* Index of the slot holding key, or of the first free slot for it (*found = 0). */
static size_t probe(const sc_fileset *s, const uint8_t *key, size_t len, uint64_t h, int *found) {
    size_t mask = s->cap - 1, i = (size_t)h & mask, first_free = SIZE_MAX;
    for (;;) {
        slot *sl = &s->slots[i];
        if (!sl->key) {
            *found = 0;
            return first_free != SIZE_MAX ? first_free : i;
        }
        if (sl->key == TOMBSTONE) {
            if (first_free == SIZE_MAX) first_free = i;
        } else if (sl->hash == h && sl->key_len == len && memcmp(sl->key, key, len) == 0) {
            *found = 1;
            return i;
        }
        i = (i + 1) & mask;
    }
}

static int grow(sc_fileset *s) {
    if (s->cap > SIZE_MAX / 2 / sizeof(slot)) return sc_error_set(SC_ELIMIT, "file set too large");
    size_t ncap = s->live * 4 > s->cap ? s->cap * 2 : s->cap; /* rehash drops tombstones */
    slot *old = s->slots;
    size_t ocap = s->cap;
    s->slots = calloc(ncap, sizeof *s->slots);
    if (!s->slots) {
        s->slots = old;
        return sc_error_set(SC_ENOMEM, "out of memory");
    }
    s->cap = ncap;
    s->used = s->live;
    for (size_t i = 0; i < ocap; i++) {
        if (!old[i].key || old[i].key == TOMBSTONE) continue;
        int found;
        size_t j = probe(s, old[i].key, old[i].key_len, old[i].hash, &found);
        s->slots[j] = old[i];
    }
    free(old);
    return 0;
}

int sc_fileset_put(sc_fileset *s, const sc_file_entry *f, size_t value, size_t *out_existing) {
    sc_buf key = SC_BUF_INIT;
    int rc = identity(&key, f);
    if (rc) goto done;
    if ((s->used + 1) * 2 > s->cap && (rc = grow(s)) != 0) goto done;
    uint64_t h = fnv1a(key.data, key.len);
    int found;
    size_t i = probe(s, key.data, key.len, h, &found);
    if (found) {
        if (out_existing) *out_existing = s->slots[i].value;
        rc = SC_EEXISTS;
        goto done;
    }
    if (!s->slots[i].key) s->used++;
    s->slots[i] = (slot){key.data, key.len, h, value};
    s->live++;
    key.data = NULL; /* ownership moved into the slot */
done:
    sc_buf_free(&key);
    return rc;
}

static int lookup(const sc_fileset *s, const sc_file_entry *f, size_t *out_index) {
    sc_buf key = SC_BUF_INIT;
    int rc = identity(&key, f);
    if (rc) return rc;
    int found;
    *out_index = probe(s, key.data, key.len, fnv1a(key.data, key.len), &found);
    sc_buf_free(&key);
    return found ? 0 : SC_ENOTFOUND;
}

int sc_fileset_get(const sc_fileset *s, const sc_file_entry *f, size_t *out_value) {
    size_t i;
    int rc = lookup(s, f, &i);
    if (!rc && out_value) *out_value = s->slots[i].value;
    return rc;
}

int sc_fileset_remove(sc_fileset *s, const sc_file_entry *f, size_t *out_value) {
    size_t i;
    int rc = lookup(s, f, &i);
    if (rc) return rc;
    if (out_value) *out_value = s->slots[i].value;
    free(s->slots[i].key);
    s->slots[i].key = TOMBSTONE;
    s->live--;
    return 0;
}
