/*
 * The environment seam: every clock reading, sleep and random byte the
 * engine, the strategies and the mem store use comes through a sc_env.
 *
 * By default that is the real environment (the system clocks, nanosleep and
 * OpenSSL's RAND_bytes). An embedder that wants deterministic tests installs
 * its own functions — a virtual clock, virtual sleeps, seeded randomness —
 * per store handle (sc_store_set_env: sc_table_create on it, and tables opened
 * on it afterwards), per table (sc_table_set_env) and per mem store
 * (sc_mem_store_set_env: the storage's own clock, which stamps mtimes). The
 * deterministic simulation (tests/sim) runs this way.
 *
 * The environment is not process-wide: two tables in one process may run on
 * two clocks. A sc_env is copied when installed; `ctx` is borrowed and must
 * outlive every handle using it. The functions are called on the thread doing
 * the work, with no lock of the library held.
 *
 * Not routed through the seam, because they need the real world: the S3
 * backend's request signing time and its transport retry waits, and the
 * random names of the posix backend's temporary files.
 */
#ifndef SNAPCOMMIT_ENV_H
#define SNAPCOMMIT_ENV_H

#include "snapcommit/export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SC_ENV_VERSION 1

/*
 * A member left NULL means the real one. sc_env_init() sets every member to
 * NULL and the version: initialise with it, then set what you replace.
 */
typedef struct sc_env {
    uint32_t version; /* SC_ENV_VERSION, set by sc_env_init() */
    void *ctx;        /* handed to every function below */
    /* Wall-clock time, ms since the epoch: snapshot timeMillis, table creation time. */
    int64_t (*now_ms)(void *ctx);
    /* Elapsed time in ms, never going back and counting through a suspend
     * (real: CLOCK_BOOTTIME where the system has it, else CLOCK_MONOTONIC):
     * commit timeouts and elapsed_ms, the tracker's storage-time fences. */
    int64_t (*monotonic_ms)(void *ctx);
    /* Wait ms (<= 0: return at once): commit backoff, the tracker's hint
     * retries, mem store stalls. */
    void (*sleep_ms)(void *ctx, int64_t ms);
    /* Fill out with len random bytes; 0, or a negative SC_ code. UUIDs (of
     * tables, commits, manifests, tracker attempts and probes: concurrent
     * writers must never draw the same) and backoff jitter. */
    int (*random_bytes)(void *ctx, void *out, size_t len);
} sc_env;

/* Version set, every member NULL: the real environment. */
SC_API void sc_env_init(sc_env *env);

#ifdef __cplusplus
}
#endif
#endif
