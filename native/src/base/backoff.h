/* Retry waits after a lost claim (internal). */
#ifndef SC_BACKOFF_H
#define SC_BACKOFF_H

#include <stdint.h>

#include "snapcommit/types.h"

/*
 * Wait before the next attempt of a commit whose claims were lost `lost`
 * times (>= 1), while `contention` (>= 1) commits of others landed during
 * its last attempt, whose claim window lasted `window_ms`. The losers of
 * one round spread over one slot per writer seen (and one for ourselves),
 * a slot being the longer of the window and min_wait: the span is
 * min(slot * (contention + 1), max_wait), divided by `lost`, and the wait
 * is uniform over 0..span, chosen by `random`. Spreading keeps the losers
 * from colliding again in a herd; dividing by `lost` brings a commit that
 * lost often back sooner than one that lost once (loser first).
 */
int64_t sc_backoff_lost_wait_ms(const sc_retry_policy *policy, int lost, uint64_t contention, int64_t window_ms,
                                uint32_t random);

/*
 * Wait before retry number `retry` (0-based) after a claim whose outcome is
 * unknown (the store did not answer): min(min_wait * 2^retry, max_wait) plus
 * a jitter of 0..20 % of that (Paimon's RetryWaiter). Doubling backs off
 * from a store in trouble, which a lost claim does not indicate.
 */
int64_t sc_backoff_wait_ms(const sc_retry_policy *policy, int retry, uint32_t random);

#endif
