#include "base/cache.h"

#include <stdlib.h>
#include <string.h>

typedef struct cache_slot {
    char *name;
    uint8_t sha256[SC_SHA256_LEN];
    void *object;
    size_t weight;
    sc_cache_free_fn free_fn;
    uint64_t used; /* last-use tick, 0 = empty */
} cache_slot;

struct sc_cache {
    cache_slot *slots;
    size_t count;
    size_t max_objects;
    size_t weight;
    size_t max_weight;
    uint64_t tick;
};

int sc_cache_new(sc_cache **out, size_t max_weight, size_t max_objects) {
    sc_cache *c = calloc(1, sizeof *c);
    if (!c || !(c->slots = calloc(max_objects, sizeof *c->slots))) {
        free(c);
        return -2; /* SC_ENOMEM; the cache is optional, callers may go on without it */
    }
    c->max_objects = max_objects;
    c->max_weight = max_weight;
    *out = c;
    return 0;
}

static void slot_drop(sc_cache *c, size_t i) {
    cache_slot *s = &c->slots[i];
    s->free_fn(s->object);
    free(s->name);
    c->weight -= s->weight;
    c->slots[i] = c->slots[--c->count];
}

void sc_cache_free(sc_cache *c) {
    if (!c) return;
    while (c->count) slot_drop(c, 0);
    free(c->slots);
    free(c);
}

void *sc_cache_get(sc_cache *c, const char *name, const uint8_t sha256[SC_SHA256_LEN]) {
    if (!c) return NULL;
    for (size_t i = 0; i < c->count; i++) {
        cache_slot *s = &c->slots[i];
        if (strcmp(s->name, name) == 0 && memcmp(s->sha256, sha256, SC_SHA256_LEN) == 0) {
            s->used = ++c->tick;
            return s->object;
        }
    }
    return NULL;
}

void sc_cache_put(sc_cache *c, const char *name, const uint8_t sha256[SC_SHA256_LEN], void *object,
                  size_t weight, sc_cache_free_fn free_fn) {
    char *copy = c && weight <= c->max_weight ? strdup(name) : NULL;
    if (!copy) {
        free_fn(object);
        return;
    }
    while (c->count && (c->count == c->max_objects || c->weight + weight > c->max_weight)) {
        size_t oldest = 0;
        for (size_t i = 1; i < c->count; i++)
            if (c->slots[i].used < c->slots[oldest].used) oldest = i;
        slot_drop(c, oldest);
    }
    cache_slot *s = &c->slots[c->count++];
    s->name = copy;
    memcpy(s->sha256, sha256, SC_SHA256_LEN);
    s->object = object;
    s->weight = weight;
    s->free_fn = free_fn;
    s->used = ++c->tick;
    c->weight += weight;
}
