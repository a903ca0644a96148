/* Retry waits after a lost claim (internal). */
#ifndef SC_BACKOFF_H
#define SC_BACKOFF_H

#include <stdint.h>

#include "snapcommit/types.h"

/*
 * Wait before retry number `retry` (0-based): min(min_wait * 2^retry, max_wait)
 * plus a jitter of 0..20 % of that, chosen by `random` (Paimon's RetryWaiter).
 * Jitter keeps two writers that collided from colliding again in lockstep.
 */
int64_t sc_backoff_wait_ms(const sc_retry_policy *policy, int retry, uint32_t random);

#endif
