/*
 * snapcommit store backend interface — for authors of store backends.
 *
 * A backend is a versioned table of function pointers plus capability bits
 * (compare SQLite's sqlite3_io_methods and libgit2's refdb backends). The
 * engine never calls these directly: it goes through the wrappers in
 * store.h, which count operations and host fault hooks.
 *
 * Keys are relative, '/'-separated, never start with '/', never contain
 * "." or ".." segments; the wrappers validate them before any backend call.
 *
 * Return codes (error.h): 0 on success, otherwise
 *   SC_ENOTFOUND  key absent (get, head, delete, put_if_match)
 *   SC_EEXISTS    put_if_absent found the key present (nothing written)
 *   SC_EMODIFIED  put_if_match found a different version (nothing written)
 *   SC_EUNKNOWN   the request may have been applied but the answer is lost;
 *                 conditional writes must report this instead of guessing
 *   SC_EIO, SC_EAUTH, SC_ETRANSIENT, SC_ENOMEM  as named
 * A backend records a detailed message with sc_backend_error() (below) or
 * leaves the generic one.
 */
#ifndef SNAPCOMMIT_BACKEND_H
#define SNAPCOMMIT_BACKEND_H

#include "snapcommit/export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Version of sc_store_ops. Version 2 added get_bounded and remove_created_dirs;
 * version 3 added discard and put_once (the last two members).
 * sc_store_wrap() still accepts a version-1 table, which ends at put_hint:
 * the wrapper never reads a member past it, and serves bounded reads of such
 * a backend with get and a length check afterwards (the whole object is then
 * read before it is refused).
 */
#define SC_STORE_OPS_VERSION 3

/* Capability bits: strategy choice is driven by these, never by backend type. */
enum {
    /* put_if_absent is atomic across processes (rename-without-replace, If-None-Match). */
    SC_CAP_ATOMIC_NOREPLACE = 1u << 0,
    /* put_if_absent is a conditional create on an object store (no rename). */
    SC_CAP_CONDITIONAL_CREATE = 1u << 1,
    /* put_if_match is an atomic compare-and-swap on the version tag. */
    SC_CAP_COMPARE_AND_SWAP = 1u << 2,
    /* a LIST issued after a completed write sees that write. */
    SC_CAP_LIST_AFTER_WRITE = 1u << 3,
    /* conditional writes (put_if_absent, put_if_match) are durable when they
     * return, and so is every plain put that returned before them; a plain put
     * alone may wait for the next conditional write or sync (a write barrier:
     * data and manifests first, then the pointer that publishes them). */
    SC_CAP_DURABLE = 1u << 4,
    /* the ops may be called on one `self` from several threads at once (each call
     * with its own arguments): independent requests of one commit are then sent in
     * parallel, one round trip for all of them. Without it they are sent one by one. */
    SC_CAP_CONCURRENT = 1u << 5,
};

#define SC_ETAG_MAX 80

/* Metadata of one stored object. */
typedef struct sc_object_info {
    uint64_t size;
    int64_t mtime_ms;        /* storage's modification time, ms since epoch; 0 unknown */
    char etag[SC_ETAG_MAX];  /* opaque version tag, NUL-terminated; "" when none */
} sc_object_info;

/* One page of a listing. Keys are owned by the page; free with sc_list_page_free(). */
typedef struct sc_list_page {
    char **keys;     /* ascending bytewise order */
    size_t count;
    int truncated;   /* 1 when more keys follow the last one returned */
} sc_list_page;

SC_API void sc_list_page_free(sc_list_page *page);

/*
 * Record the calling thread's error message for `code` (printf-style; NULL
 * fmt = the generic message) and return `code`, so a backend can write
 *     return sc_backend_error(SC_EIO, "reading %s: %s", key, why);
 * The message is what sc_error_message() then returns to the engine's
 * caller; name the object and the cause, on one line, without secrets.
 * At most 1023 bytes are kept.
 */
SC_API int sc_backend_error(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * The refusal of an object larger than a bounded read accepts: records
 * "<object>: <size> bytes, more than the <max_len> accepted ..." (size_known
 * 0: "more than ...", for a backend that stopped reading at the cap) and
 * returns SC_ECORRUPT. `object` names it as the backend's messages do
 * (location and key).
 */
SC_API int sc_backend_too_large(const char *object, uint64_t size, int size_known, size_t max_len);

typedef struct sc_store_ops {
    int version; /* SC_STORE_OPS_VERSION */
    const char *name;
    uint32_t caps;

    /* Read a whole object. *out_data is malloc()ed (free() it); may be NULL when size 0. */
    int (*get)(void *self, uint8_t **out_data, size_t *out_len, sc_object_info *out_info,
               const char *key);
    /* Object metadata without the body. */
    int (*head)(void *self, sc_object_info *out_info, const char *key);
    /* Unconditional, atomic (all-or-nothing) overwrite. out_info may be NULL. */
    int (*put)(void *self, sc_object_info *out_info, const char *key, const uint8_t *data,
               size_t len);
    /* Create only if absent: SC_EEXISTS when present. */
    int (*put_if_absent)(void *self, sc_object_info *out_info, const char *key,
                         const uint8_t *data, size_t len);
    /* Replace only if the current etag equals `etag`: SC_EMODIFIED / SC_ENOTFOUND.
     * NULL when the backend lacks SC_CAP_COMPARE_AND_SWAP. */
    int (*put_if_match)(void *self, sc_object_info *out_info, const char *key,
                        const uint8_t *data, size_t len, const char *etag);
    /* Keys starting with `prefix`, strictly after `start_after` (NULL = from the start),
     * at most max_keys (> 0) of them, ascending. */
    int (*list)(void *self, sc_list_page *out, const char *prefix, const char *start_after,
                size_t max_keys);
    /* Remove a key. SC_ENOTFOUND when absent. */
    int (*del)(void *self, const char *key);
    /* Release the backend, making pending plain puts durable first. May be NULL. */
    void (*close)(void *self);
    /* Make every plain put that has returned durable. NULL when puts are durable on return. */
    int (*sync)(void *self);
    /* Overwrite an advisory object (a hint that readers verify and never trust): atomic like
     * put, but it need not be durable. NULL = put. */
    int (*put_hint)(void *self, const char *key, const uint8_t *data, size_t len);

    /* ---- version 2 ---- */

    /* get, for an object the caller accepts only up to max_len bytes: one larger is
     * refused with SC_ECORRUPT (message: the object, its size when known, max_len;
     * see sc_backend_too_large) without reading or buffering more than about
     * max_len bytes of it. NULL: the wrapper calls get and checks the length. */
    int (*get_bounded)(void *self, uint8_t **out_data, size_t *out_len, sc_object_info *out_info,
                       const char *key, size_t max_len);
    /* Take back directories this handle created, each only while it is empty, deepest
     * first: those whose key path starts with `prefix` ("" = every one, plus any root
     * the handle created). Called when a table creation fails and after the
     * capability probe, so that a failed init leaves nothing behind. Best effort: no
     * error is reported. NULL for backends that create no directories (object stores). */
    void (*remove_created_dirs)(void *self, const char *prefix);

    /* ---- version 3 ---- */

    /* Remove a key whether or not it exists (0 for both): for cleanups that only need
     * the key gone, where del's SC_ENOTFOUND would cost a backend a look first (an S3
     * DELETE answers alike for both). NULL: the wrapper calls del and takes
     * SC_ENOTFOUND as done. */
    int (*discard)(void *self, const char *key);
    /* put, sent at most once after an attempt that may have been applied: a lost answer, a
     * timeout, a broken connection or a server error is SC_EUNKNOWN, never a resend (as for
     * the conditional writes). So the object has exactly one modification time, that of the
     * only copy that can land: for writes whose mtime a protocol judges (the tracker's). An
     * attempt provably not applied (no byte sent, a throttling refusal) may be sent again.
     * NULL: the wrapper calls put, which is exact for a backend that never sends a put twice. */
    int (*put_once)(void *self, sc_object_info *out_info, const char *key, const uint8_t *data,
                    size_t len);
} sc_store_ops;

#ifdef __cplusplus
}
#endif
#endif
