/* The environment seam: the real environment, installing a replacement, UUIDs. */
#include "base/env_internal.h"

#include <openssl/rand.h>
#include <stdio.h>

#include "base/clock.h"
#include "base/error_internal.h"

int sc_random_bytes(void *out, size_t len) {
    if (RAND_bytes(out, (int)len) != 1) /* sc-env-exempt: the real generator */
        return sc_error_set(SC_EIO, "the system random generator failed");
    return 0;
}

static int64_t real_now(void *ctx) {
    (void)ctx;
    return sc_now_ms();
}

static int64_t real_monotonic(void *ctx) {
    (void)ctx;
    return sc_monotonic_ms();
}

static void real_sleep(void *ctx, int64_t ms) {
    (void)ctx;
    sc_sleep_ms(ms);
}

static int real_random(void *ctx, void *out, size_t len) {
    (void)ctx;
    return sc_random_bytes(out, len);
}

static const sc_env real_env = {
    .version = SC_ENV_VERSION,
    .ctx = NULL,
    .now_ms = real_now,
    .monotonic_ms = real_monotonic,
    .sleep_ms = real_sleep,
    .random_bytes = real_random,
};

const sc_env *sc_env_default(void) { return &real_env; }

void sc_env_init(sc_env *env) {
    *env = (sc_env){.version = SC_ENV_VERSION};
}

int sc_env_install(sc_env *dst, const sc_env *src) {
    if (!src) {
        *dst = real_env;
        return 0;
    }
    if (src->version != SC_ENV_VERSION)
        return sc_error_set(SC_EINVAL, "environment has version %u, expected %d (initialise it with sc_env_init)",
                            (unsigned)src->version, SC_ENV_VERSION);
    sc_env e = *src;
    if (!e.now_ms) e.now_ms = real_now;
    if (!e.monotonic_ms) e.monotonic_ms = real_monotonic;
    if (!e.sleep_ms) e.sleep_ms = real_sleep;
    if (!e.random_bytes) e.random_bytes = real_random;
    *dst = e;
    return 0;
}

int sc_env_uuid_text(const sc_env *e, char out[SC_UUID_TEXT_LEN + 1]) {
    uint8_t u[16];
    int rc = sc_env_random(e, u, sizeof u);
    if (rc) return rc;
    u[6] = (u[6] & 0x0f) | 0x40; /* version 4 */
    u[8] = (u[8] & 0x3f) | 0x80; /* RFC 4122 variant */
    snprintf(out, SC_UUID_TEXT_LEN + 1,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    return 0;
}
