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

/*
 * Requests on the critical path of the code working through this handle, since open or
 * the last sc_store_stats_reset: every call that reached the backend counts one, except
 * that the calls of one batch sent at once (store_batch.h) count one together. A commit reports the
 * difference as sc_commit_result.round_trips.
 */
uint64_t sc_store_rounds(const sc_store *store);
/* For sc_store_batch only: the batch's calls counted as one. */
void sc_store_rounds_set(sc_store *store, uint64_t rounds);
/*
 * A call handed to a thread of its own, off the caller's critical path (the LATEST hint
 * after a commit, strategy_file.c): counted now as one `op` of `bytes_written` (no round
 * trip), so that the caller's counters do not depend on when the thread runs; that thread
 * then calls sc_store_thread_counted_ahead(1) so that its calls are not counted again.
 */
void sc_store_count_ahead(sc_store *store, sc_store_op op, uint64_t bytes_written);
void sc_store_thread_counted_ahead(int on);
/* 1 while a fault hook is set (a batch then runs its calls one by one, in a drawn order). */
int sc_store_has_fault_hook(const sc_store *store);

#endif
