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
int sc_posix_store_create(const sc_store_ops **ops, void **self, const char *root, int sync_mode);

/*
 * The write barrier of a posix store, for tests. `sync_mode` above is an
 * sc_posix_sync (store.h); SC_POSIX_SYNC_AUTO is resolved when the root is
 * first opened, by its file system.
 */
typedef struct sc_posix_sync_stats {
    int mode;              /* the mode in force (AUTO until the root exists) */
    uint64_t barriers;     /* barriers that had something to make durable */
    uint64_t file_syncs;   /* fsync() of files (pending puts, claim temp files, eager puts) */
    uint64_t dir_syncs;    /* fsync() of directories */
    uint64_t fs_syncs;     /* syncfs() calls */
    unsigned pending_files; /* puts published but not yet synced */
    unsigned pending_dirs;  /* directories with unsynced entries */
} sc_posix_sync_stats;
void sc_posix_store_sync_stats(sc_posix_sync_stats *out, const void *self);

/*
 * Called before each fsync()/syncfs() the store makes, with `call` "file",
 * "dir" or "fs" and the path it syncs (relative to the root; "" the root).
 * Returning an errno value makes that call fail with it, unmade (injected
 * faults); 0 lets it run. NULL removes the hook.
 */
typedef int (*sc_posix_sync_hook)(void *ctx, const char *call, const char *path);
void sc_posix_store_set_sync_hook(void *self, sc_posix_sync_hook fn, void *ctx);

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
