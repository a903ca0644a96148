/*
 * snapcommit stores: bytes on storage, reached only through these wrappers.
 *
 * A sc_store wraps one backend (backend.h) and is the single place where
 * operations are counted and faults are injected. Handles are not
 * thread-safe: use one per thread (the mem backend's shared state is).
 */
#ifndef SNAPCOMMIT_STORE_H
#define SNAPCOMMIT_STORE_H

#include "snapcommit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapcommit/backend.h"
#include "snapcommit/env.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_store sc_store;

/* Operation kinds, used for counters and fault hooks. */
typedef enum sc_store_op {
    SC_OP_GET = 0,
    SC_OP_HEAD,
    SC_OP_PUT,
    SC_OP_PUT_IF_ABSENT,
    SC_OP_PUT_IF_MATCH,
    SC_OP_LIST,
    SC_OP_DELETE,
    SC_OP_COUNT
} sc_store_op;

/* Name of an operation ("get", "put_if_absent", ...). Static storage. */
SC_API const char *sc_store_op_name(sc_store_op op);

typedef struct sc_store_stats {
    uint64_t ops[SC_OP_COUNT];      /* calls that reached the backend */
    uint64_t bytes_read;
    uint64_t bytes_written;
} sc_store_stats;

/*
 * Open a store from a location, configured from the environment (as
 * sc_store_open_with_config with every field unset):
 *   /abs/or/relative/dir, file:///abs/dir   posix backend rooted at the directory
 *                                           (created by the first write, never by
 *                                           open or a read; a handle opened before
 *                                           it exists sees it once anyone creates it)
 *   mem://NAME                              process-wide in-memory store NAME
 *                                           (created on first use; tests only)
 *   s3://BUCKET[/PREFIX]                    S3 or an S3-compatible server
 * On success *out is a new handle: free it with sc_store_free().
 * Errors: SC_EINVAL (unknown scheme, empty path), SC_EIO, SC_ENOMEM.
 */
SC_API int sc_store_open(sc_store **out, const char *location);

/*
 * Per-store configuration, passed at open (sc_store_open_with_config). Two
 * stores in one process may use different endpoints and credentials: nothing
 * here is process-wide, and nothing is written to the environment.
 *
 * Precedence, field by field: a set field wins; an unset field (NULL, or -1
 * / 0 as noted) falls back to the environment variable named beside it, then
 * to the built-in default. Credentials are taken as one unit: when
 * access_key_id or secret_access_key is set, both must be, and the session
 * token comes from session_token only (AWS_SESSION_TOKEN is not mixed with
 * configured keys); when neither is set, all three come from the environment.
 *
 * Strings are borrowed for the duration of the open call only: the store
 * keeps its own copies (secrets are wiped from memory when it is freed).
 * The secret key and session token never appear in a message or log line.
 * tracker_ttl_ms applies to every backend, posix_sync to posix locations
 * only; the other fields apply to s3:// locations only and are ignored by the
 * posix and mem backends.
 *
 * Version 2 added posix_sync. A configuration of version 1 (a caller built
 * against the older header, whose struct ends at tracker_ttl_ms) is still
 * accepted: posix_sync is then not read and counts as unset.
 */
#define SC_STORE_CONFIG_VERSION 2

/*
 * How a posix store makes its writes durable (sc_store_config.posix_sync;
 * docs/operations.md weighs them). Whatever the mode, a conditional write
 * (the snapshot claim) is durable when it returns, and so is every plain put
 * that returned before it; a crash before that leaves at most objects no
 * snapshot names. The modes differ in how many journal flushes that costs.
 */
typedef enum sc_posix_sync {
    /* unset: SC_POSIX_SYNC_FS on a local disk file system (ext4, xfs, btrfs,
     * f2fs, tmpfs) under Linux 5.8 or later, SC_POSIX_SYNC_FILES on one under
     * an older kernel, SC_POSIX_SYNC_EAGER on anything else (NFS, FUSE, SMB) */
    SC_POSIX_SYNC_AUTO = 0,
    /* every put is fsynced before its name appears (one flush per object, as
     * before version 2): for shared network and FUSE file systems, where a
     * name visible to other clients must already have its bytes */
    SC_POSIX_SYNC_EAGER = 1,
    /* plain puts are published unsynced and remembered; the barrier before a
     * conditional write (or sync, or close) fsyncs each pending file, then
     * each pending directory: no other tenant's data is flushed */
    SC_POSIX_SYNC_FILES = 2,
    /* as FILES, but the barrier is one syncfs(2) of the store's file system
     * (data and directory entries in one journal commit), falling back to
     * FILES when it is unavailable or reports an error; it also flushes every
     * other writer's dirty data on that file system */
    SC_POSIX_SYNC_FS = 3,
} sc_posix_sync;
typedef struct sc_store_config {
    uint32_t version;              /* SC_STORE_CONFIG_VERSION, set by sc_store_config_init() */
    const char *endpoint;          /* AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL;
                                      default https://s3.<region>.amazonaws.com */
    const char *region;            /* AWS_REGION, AWS_DEFAULT_REGION; default us-east-1 */
    const char *access_key_id;     /* AWS_ACCESS_KEY_ID */
    const char *secret_access_key; /* AWS_SECRET_ACCESS_KEY; never in a message */
    const char *session_token;     /* AWS_SESSION_TOKEN; never in a message */
    int anonymous;                 /* 1: unsigned requests, credentials ignored; default 0 */
    int path_style;                /* -1 unset: SNAPCOMMIT_S3_PATH_STYLE; default 1 with an
                                      endpoint, 0 without */
    int tls_verify;                /* -1 unset: SNAPCOMMIT_S3_INSECURE=1 means 0; default 1.
                                      0 is for throwaway test servers only */
    const char *ca_bundle;         /* AWS_CA_BUNDLE: PEM file of trusted CAs */
    int conditional_writes;        /* -1 unset: SNAPCOMMIT_S3_CONDITIONAL_WRITES; default 1 */
    int64_t connect_timeout_ms;    /* 0 unset: SNAPCOMMIT_S3_CONNECT_TIMEOUT_MS; default 5000 */
    int64_t request_timeout_ms;    /* 0 unset: SNAPCOMMIT_S3_REQUEST_TIMEOUT_MS; default 30000 */
    int64_t tracker_ttl_ms;        /* 0 unset: SNAPCOMMIT_TRACKER_TTL_MS; default 30000 (any
                                      backend: tables using the tracker strategy) */
    /* ---- version 2 ---- */
    int posix_sync;                /* sc_posix_sync; 0 (SC_POSIX_SYNC_AUTO) unset. No
                                      environment variable: a deployment choice per store */
} sc_store_config;

/* Every field unset: the store then behaves as sc_store_open() (environment, then defaults). */
SC_API void sc_store_config_init(sc_store_config *config);

/*
 * sc_store_open with a configuration (NULL = all unset). The location picks
 * the backend as in sc_store_open. No request is made.
 * Errors: as sc_store_open; SC_EINVAL also for a config whose version is not
 * SC_STORE_CONFIG_VERSION (not initialised with sc_store_config_init), an
 * invalid value (the message names the field, never a secret's value), or
 * only one of access_key_id / secret_access_key.
 */
SC_API int sc_store_open_with_config(sc_store **out, const char *location,
                              const sc_store_config *config);

/*
 * One cheap request proving the location is usable before anything is
 * written: for s3, a ListObjectsV2 with max-keys=1 under the prefix, which
 * fails when the bucket does not exist (SC_EIO naming the bucket: buckets are
 * never created by snapcommit), the credentials are refused (SC_EAUTH) or the
 * endpoint does not answer (SC_ETRANSIENT); for posix and mem, one listing.
 * sc_table_create() runs it first.
 */
SC_API int sc_store_check(sc_store *store);

/*
 * Wrap a caller-provided backend. `ops` must outlive the handle; `self` is
 * handed to every op and to ops->close when the handle is freed (from then
 * on the handle owns it; free the handle with sc_store_free). *out is NULL
 * on failure, and `self` then stays the caller's (ops->close is not called).
 * Errors: SC_EINVAL for NULL ops, ops->version not 1 .. SC_STORE_OPS_VERSION,
 * a missing name or required operation (get, head, put, put_if_absent, list,
 * del), or SC_CAP_COMPARE_AND_SWAP without put_if_match; SC_ENOMEM.
 */
SC_API int sc_store_wrap(sc_store **out, const sc_store_ops *ops, void *self);

/* Close the backend and free the handle. Accepts NULL. */
SC_API void sc_store_free(sc_store *store);

SC_API uint32_t sc_store_caps(const sc_store *store);
SC_API const char *sc_store_backend_name(const sc_store *store);

/* Counters since open or the last reset. */
SC_API void sc_store_stats_get(sc_store_stats *out, const sc_store *store);
SC_API void sc_store_stats_reset(sc_store *store);

/*
 * Fault hook, consulted before every backend call. Return 0 to let the call
 * through; a negative code to fail it without calling the backend; or
 * SC_FAULT_LOSE_RESPONSE to run the call and then report SC_EUNKNOWN.
 */
#define SC_FAULT_LOSE_RESPONSE 1
typedef int (*sc_fault_fn)(void *ctx, sc_store_op op, const char *key, uint64_t call_index);
SC_API void sc_store_set_fault_hook(sc_store *store, sc_fault_fn fn, void *ctx);

/*
 * Time and randomness for the code working through this handle (env.h):
 * sc_table_create on it, and every table opened on it afterwards (which can
 * still change its own with sc_table_set_env). *env is copied; NULL restores
 * the real environment. The backend's own I/O is unaffected (a mem store's
 * clock is sc_mem_store_set_env).
 * Errors: SC_EINVAL (NULL store, env not initialised with sc_env_init).
 */
SC_API int sc_store_set_env(sc_store *store, const sc_env *env);

/* The wrapped operations; semantics as in backend.h. Keys are validated
 * (SC_EINVAL for empty, absolute, "."/".." segments or "//"). */
SC_API int sc_store_get(sc_store *store, uint8_t **out_data, size_t *out_len, sc_object_info *out_info,
                        const char *key);
/*
 * sc_store_get for an object the caller accepts only up to max_len bytes
 * (SIZE_MAX: no bound). A larger one is SC_ECORRUPT naming the object, its
 * size when known and max_len; nothing is returned. The built-in backends
 * stop before reading it (posix: by its size; mem: by its length; s3: the
 * transfer is cut once the body passes max_len). A backend of ops version 1
 * (no get_bounded) reads the object whole and the wrapper then refuses it.
 */
SC_API int sc_store_get_bounded(sc_store *store, uint8_t **out_data, size_t *out_len,
                                sc_object_info *out_info, const char *key, size_t max_len);
SC_API int sc_store_head(sc_store *store, sc_object_info *out_info, const char *key);
SC_API int sc_store_put(sc_store *store, sc_object_info *out_info, const char *key, const uint8_t *data,
                        size_t len);
SC_API int sc_store_put_if_absent(sc_store *store, sc_object_info *out_info, const char *key,
                                  const uint8_t *data, size_t len);
SC_API int sc_store_put_if_match(sc_store *store, sc_object_info *out_info, const char *key,
                                 const uint8_t *data, size_t len, const char *etag);
SC_API int sc_store_list(sc_store *store, sc_list_page *out, const char *prefix, const char *start_after,
                         size_t max_keys);
/* Every key under prefix, following pages. Free with sc_list_page_free(). */
SC_API int sc_store_list_all(sc_store *store, sc_list_page *out, const char *prefix);
SC_API int sc_store_delete(sc_store *store, const char *key);
/* Remove a key whether or not it exists: 0 for both (counted as a delete). For cleanups
 * that need the key gone and not whether it was there: one request less on S3. */
SC_API int sc_store_discard(sc_store *store, const char *key);
/* Make every plain put that has returned durable (see SC_CAP_DURABLE). */
SC_API int sc_store_sync(sc_store *store);
/* Overwrite an advisory object that may be lost in a crash (counted as a put). */
SC_API int sc_store_put_hint(sc_store *store, const char *key, const uint8_t *data, size_t len);
/*
 * sc_store_put, never sent again after an attempt that may have been applied (counted as a
 * put; the fault hook sees SC_OP_PUT): the object keeps the one modification time of its
 * only copy. A lost answer, a timeout or a server error is SC_EUNKNOWN, and the copy may
 * still land later. The S3 store sends it like a conditional write; backends without
 * put_once (posix, mem) never send a put twice anyway.
 */
SC_API int sc_store_put_once(sc_store *store, sc_object_info *out_info, const char *key,
                             const uint8_t *data, size_t len);

/* 1 when `key` is a valid store key, 0 otherwise. */
SC_API int sc_store_key_valid(const char *key);

/* ---- mem backend (tests and deterministic simulation only) ---- */

/* Fault kinds of the mem backend's built-in injector. */
typedef enum sc_mem_fault {
    SC_MEM_FAULT_NONE = 0,
    SC_MEM_FAULT_FAIL,          /* fail with SC_EIO, nothing applied */
    SC_MEM_FAULT_LOSE_RESPONSE, /* apply, then report SC_EUNKNOWN */
    SC_MEM_FAULT_STALL,         /* sleep stall_ms, then run normally */
} sc_mem_fault;

/*
 * Arm a one-shot fault on the mem store NAME: the nth (1-based) call of an
 * operation in `op_mask` (bit 1<<sc_store_op; 0 = every op) counted from now
 * gets `fault`. Returns SC_EINVAL when NAME is not a mem store.
 */
SC_API int sc_mem_store_arm_fault(const char *name, uint32_t op_mask, uint64_t nth, sc_mem_fault fault,
                                  unsigned stall_ms);
/* Drop a mem store's contents and faults (tests). */
SC_API void sc_mem_store_reset(const char *name);

/*
 * The storage's own environment for mem store NAME, shared by every handle on
 * it: env->now_ms stamps modification times, env->sleep_ms serves injected
 * stalls (deterministic simulation: the virtual clock, as the storage sees
 * it). *env is copied; NULL restores the real environment. It survives
 * sc_mem_store_reset().
 * Errors: SC_EINVAL (NAME is not a mem store, env not initialised with sc_env_init).
 */
SC_API int sc_mem_store_set_env(const char *name, const sc_env *env);

#ifdef __cplusplus
}
#endif
#endif
