/*
 * The real clocks and sleep (internal). Library code with a table or a store
 * reads time through its sc_env (env_internal.h), whose defaults these are;
 * only the S3 transport and tests call them directly.
 */
#ifndef SC_CLOCK_H
#define SC_CLOCK_H

#include <stdint.h>

/* Wall clock, ms since the epoch. */
int64_t sc_now_ms(void);
/* Elapsed ms that never go back and keep counting while the machine is
 * suspended (CLOCK_BOOTTIME where available, else CLOCK_MONOTONIC). */
int64_t sc_monotonic_ms(void);
/* Sleep ms (<= 0: return at once), resuming after signals. */
void sc_sleep_ms(int64_t ms);

#endif
