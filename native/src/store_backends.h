/*
 * Built-in store backends (internal): constructors used by sc_store_open()
 * and test helpers. Each constructor fills the (ops, self) pair that
 * sc_store_wrap() takes; ops->close releases self.
 *
 * Backends trust their arguments: keys and list prefixes are validated by
 * the wrappers in store.c before any backend call.
 */
#ifndef SC_STORE_BACKENDS_H
#define SC_STORE_BACKENDS_H

#include <stdint.h>

#include "snapcommit/backend.h"

/* Longest valid key, in bytes (NUL excluded). */
#define SC_STORE_KEY_MAX 1024

/*
 * POSIX directory backend rooted at `root`. A missing root is not created
 * here: every key reads as absent until the first write creates the root
 * with its parents (so read-only use never creates directories). A FIFO,
 * device, socket or empty directory at a key, or a symbolic link leading
 * out of the root, is refused with SC_ECORRUPT (never read, never
 * blocking). Names of files whose name starts with ".tmp-" are reserved for
 * in-flight writes: such keys are refused (SC_EINVAL) and never listed.
 * Errors: SC_EINVAL (empty root), SC_EIO, SC_ENOMEM.
 */
int sc_posix_store_create(const sc_store_ops **ops, void **self, const char *root);

/*
 * The process-wide mem store NAME, created empty on first use. Every handle
 * on NAME shares its contents and armed faults; contents live until the
 * process exits or sc_mem_store_reset(NAME).
 * Errors: SC_EINVAL (empty name), SC_ENOMEM.
 */
int sc_mem_store_create(const sc_store_ops **ops, void **self, const char *name);

/*
 * Every key of mem store NAME, ascending, in one page, bypassing counters
 * and faults (tests: snapshot the contents). Free with sc_list_page_free().
 * Errors: SC_EINVAL (no mem store NAME), SC_ENOMEM.
 */
int sc_mem_store_keys(sc_list_page *out, const char *name);

struct sc_store;
/*
 * The tracker TTL configured for this store: sc_store_config.tracker_ttl_ms
 * of the open call, else SNAPCOMMIT_TRACKER_TTL_MS (its documented default);
 * *out 0 when neither is set (the tracker then uses its own default).
 * Errors: SC_EINVAL naming the variable when it is not an integer > 1 (*out 0).
 */
int sc_store_tracker_ttl(int64_t *out, const struct sc_store *store);

/* The handle's environment (sc_store_set_env; the real one by default). Owned by the handle. */
struct sc_env;
const struct sc_env *sc_store_env(const struct sc_store *store);

#endif
