#include "base/backoff.h"

int64_t sc_backoff_wait_ms(const sc_retry_policy *p, int retry, uint32_t random) {
    int64_t wait = p->min_wait_ms > 0 ? p->min_wait_ms : 0;
    for (int i = 0; i < retry && wait < p->max_wait_ms && wait <= INT64_MAX / 2; i++) wait *= 2;
    if (wait > p->max_wait_ms) wait = p->max_wait_ms;
    int64_t span = wait / 5; /* 20 % */
    return wait + (span > 0 ? (int64_t)(random % (uint64_t)(span + 1)) : 0);
}

int64_t sc_backoff_lost_wait_ms(const sc_retry_policy *p, int lost, uint64_t contention, int64_t window_ms,
                                uint32_t random) {
    int64_t unit = p->min_wait_ms > 0 ? p->min_wait_ms : 0;
    if (window_ms > unit) unit = window_ms;
    int64_t cap = p->max_wait_ms > 0 ? p->max_wait_ms : 0;
    if (contention < 1) contention = 1;
    if (lost < 1) lost = 1;
    /* min(unit * (contention + 1), cap) without overflowing: one slot per writer seen, and ours */
    uint64_t slots = contention < UINT64_MAX ? contention + 1 : contention;
    int64_t span = unit == 0 ? 0 : slots > (uint64_t)(cap / unit) ? cap : unit * (int64_t)slots;
    span /= lost;
    return (int64_t)(random % (uint64_t)(span + 1));
}
