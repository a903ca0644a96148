/*
 * The environment seam inside the library (public type: snapcommit/env.h).
 * Handles keep a complete sc_env by value (every member set), so a call
 * through it never checks for NULL.
 */
#ifndef SC_ENV_INTERNAL_H
#define SC_ENV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"
#include "snapcommit/env.h"

/* The real environment (clock.c, sc_random_bytes). Static storage. */
const sc_env *sc_env_default(void);

/*
 * Install `src` into *dst: members left NULL take the real ones; src NULL
 * means the real environment. *dst is unchanged on error.
 * Errors: SC_EINVAL (version is not SC_ENV_VERSION: not initialised with sc_env_init).
 */
int sc_env_install(sc_env *dst, const sc_env *src);

static inline int64_t sc_env_now_ms(const sc_env *e) { return e->now_ms(e->ctx); }
static inline int64_t sc_env_monotonic_ms(const sc_env *e) { return e->monotonic_ms(e->ctx); }
static inline void sc_env_sleep_ms(const sc_env *e, int64_t ms) { e->sleep_ms(e->ctx, ms); }
static inline int sc_env_random(const sc_env *e, void *out, size_t len) {
    return e->random_bytes(e->ctx, out, len);
}

/* A version-4 UUID as text (37 bytes with NUL) from 16 bytes of e's randomness. */
int sc_env_uuid_text(const sc_env *e, char out[SC_UUID_TEXT_LEN + 1]);

/* The system's random generator (OpenSSL RAND_bytes): the default, and the
 * source of names no test needs to replay (posix temporary files). */
int sc_random_bytes(void *out, size_t len);

#endif
