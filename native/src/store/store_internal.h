/* The store wrapper's internal interface (store.c), for layers above the store. */
#ifndef SC_STORE_INTERNAL_H
#define SC_STORE_INTERNAL_H

#include <stdint.h>

#include "snapcommit/store.h"

/*
 * The tracker TTL configured for this store: sc_store_config.tracker_ttl_ms
 * of the open call, else SNAPCOMMIT_TRACKER_TTL_MS (its documented default);
 * *out 0 when neither is set (the tracker then uses its own default).
 * Errors: SC_EINVAL naming the variable when it is not an integer > 1 (*out 0).
 */
int sc_store_tracker_ttl(int64_t *out, const sc_store *store);

/*
 * Take back the directories this handle created (posix; other backends keep
 * no directories), each only while empty, deepest first: those whose key
 * path starts with `prefix` ("metadata/probe-<uuid>/"), and with prefix ""
 * every one plus the root and its parents if this handle made them. Used
 * when a table creation fails (and after the capability probe), so a failed
 * init leaves nothing behind. Best effort.
 */
void sc_store_remove_created_dirs(sc_store *store, const char *prefix);

/* The backend's own state behind the handle (the `self` of its ops), for tests of a
 * built-in backend (store_backends.h). Owned by the handle. */
void *sc_store_backend_self(sc_store *store);

/* The handle's environment (sc_store_set_env; the real one by default). Owned by the handle. */
struct sc_env;
const struct sc_env *sc_store_env(const sc_store *store);

#endif
