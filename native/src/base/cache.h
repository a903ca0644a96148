/*
 * Cache of decoded immutable metadata (internal). Manifests and manifest
 * lists never change once written and are pinned by name + SHA-256, so a
 * table handle may keep what it decoded: a writer re-checking the same
 * partitions commit after commit then reads only what is new.
 * Bounded by a total weight (records held); least recently used goes first.
 */
#ifndef SC_CACHE_H
#define SC_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"

typedef struct sc_cache sc_cache;
typedef void (*sc_cache_free_fn)(void *object);

int sc_cache_new(sc_cache **out, size_t max_weight, size_t max_objects);
void sc_cache_free(sc_cache *cache);
/* The object cached under (name, sha256), or NULL. Borrowed until the next put. */
void *sc_cache_get(sc_cache *cache, const char *name, const uint8_t sha256[SC_SHA256_LEN]);
/* Take ownership of `object`; on failure (or when it is too heavy) it is freed. */
void sc_cache_put(sc_cache *cache, const char *name, const uint8_t sha256[SC_SHA256_LEN], void *object,
                  size_t weight, sc_cache_free_fn free_fn);

#endif
