/* Retry waits after a lost claim (internal). */
#ifndef SC_BACKOFF_H
#define SC_BACKOFF_H

#include <stdint.h>

#include "snapcommit/types.h"

/*
 * Wait before the next attempt of a commit whose claims were lost `lost`
 * times (>= 1), while `contention` (>= 1) commits of others landed during
 * its last attempt. The window grows with the contention observed,
 * min(min_wait * contention, max_wait), and shrinks with the claims this
 * commit already lost: window / lost. The wait is uniform over the upper
 * half of that span, chosen by `random`. A commit that lost often therefore
 * comes back sooner than one that lost once (loser first), and writers that
 * collided do not collide again in lock-step.
 */
int64_t sc_backoff_lost_wait_ms(const sc_retry_policy *policy, int lost, uint64_t contention, uint32_t random);

/*
 * Wait before retry number `retry` (0-based) after a claim whose outcome is
 * unknown (the store did not answer): min(min_wait * 2^retry, max_wait) plus
 * a jitter of 0..20 % of that (Paimon's RetryWaiter). Doubling backs off
 * from a store in trouble, which a lost claim does not indicate.
 */
int64_t sc_backoff_wait_ms(const sc_retry_policy *policy, int retry, uint32_t random);

#endif
