/*
 * snapcommit error codes.
 *
 * Every public function returns 0 (SC_OK) or one negative code from the table
 * below. The table is an X-macro so that names, one-line messages and the
 * enum can never drift apart. Codes from lower layers (the store) are passed
 * up unchanged; the engine adds its own only where it decides something.
 *
 * The detailed message of the last failure (naming the object, the offset,
 * the conflicting files, ...) is kept per thread: see sc_error_message().
 */
#ifndef SNAPCOMMIT_ERROR_H
#define SNAPCOMMIT_ERROR_H

#include "snapcommit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, one-line message) */
#define SC_ERROR_TABLE(X)                                                              \
    X(SC_OK, 0, "success")                                                             \
    X(SC_EINVAL, -1, "invalid argument")                                               \
    X(SC_ENOMEM, -2, "out of memory")                                                  \
    X(SC_EIO, -3, "storage I/O error")                                                 \
    X(SC_ENOTFOUND, -4, "object not found")                                            \
    X(SC_EEXISTS, -5, "object already exists (conditional create lost)")               \
    X(SC_EMODIFIED, -6, "object changed since it was read (compare-and-swap lost)")    \
    X(SC_EUNKNOWN, -7, "outcome unknown: the request may or may not have been applied") \
    X(SC_ECORRUPT, -8, "corrupt or truncated metadata")                                \
    X(SC_ECONFLICT, -9, "commit conflict: changes are no longer valid, not retried")   \
    X(SC_ECOMMITTED, -10, "already committed: nothing written")                        \
    X(SC_ERETRIES, -11, "commit retries exhausted")                                    \
    X(SC_ETIMEOUT, -12, "commit timeout exceeded")                                     \
    X(SC_EUNSUPPORTED, -13, "the store cannot honour this operation or strategy")      \
    X(SC_ETABLEEXISTS, -14, "a table already exists at this location")                 \
    X(SC_ENOTABLE, -15, "no table at this location")                                   \
    X(SC_ELIMIT, -16, "a configured limit was exceeded")                               \
    X(SC_EAUTH, -17, "storage refused the credentials")                                \
    X(SC_ETRANSIENT, -18, "transient storage error (throttled or unavailable)")        \
    X(SC_EFAULT, -19, "injected fault")

typedef enum sc_error_code {
#define SC_X_ENUM(name, value, msg) name = value,
    SC_ERROR_TABLE(SC_X_ENUM)
#undef SC_X_ENUM
} sc_error_code;

/* Symbolic name of a code ("SC_ECONFLICT"); "SC_E?" for unknown codes. Static storage. */
SC_API const char *sc_error_name(int code);

/* One-line description of a code. Static storage, never NULL. */
SC_API const char *sc_strerror(int code);

/*
 * Detailed message of the last failure on the calling thread, or the
 * one-line description when none was recorded. Valid until the next
 * snapcommit call on the same thread. Thread-safe (thread-local storage).
 */
SC_API const char *sc_error_message(void);

/* Forget the calling thread's last message. */
SC_API void sc_error_clear(void);

#ifdef __cplusplus
}
#endif
#endif
