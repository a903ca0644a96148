/*
 * Built-in store backends (internal): constructors used by sc_store_open()
 * and test helpers. The backends include this header to check their own
 * constructors; nothing here leads back to store.c (store_internal.h is the
 * wrapper's own header), so store.c depends on its backends, never the reverse. Each constructor fills the (ops, self) pair that
 * sc_store_wrap() takes; ops->close releases self.
 *
 * Backends trust their arguments: keys and list prefixes are validated by
 * the wrappers in store.c before any backend call.
 */
#ifndef SC_STORE_BACKENDS_H
#define SC_STORE_BACKENDS_H

#include <stdint.h>

#include "base/store_contract.h"
#include "snapcommit/backend.h"

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

#endif
