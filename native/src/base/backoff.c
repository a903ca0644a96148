#include "base/backoff.h"

int64_t sc_backoff_wait_ms(const sc_retry_policy *p, int retry, uint32_t random) {
    int64_t wait = p->min_wait_ms > 0 ? p->min_wait_ms : 0;
    for (int i = 0; i < retry && wait < p->max_wait_ms && wait <= INT64_MAX / 2; i++) wait *= 2;
    if (wait > p->max_wait_ms) wait = p->max_wait_ms;
    int64_t span = wait / 5; /* 20 % */
    return wait + (span > 0 ? (int64_t)(random % (uint64_t)(span + 1)) : 0);
}
