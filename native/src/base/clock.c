/* The real clocks and sleep: the defaults of the environment seam (env.c). */
#include "base/clock.h"

#include <time.h>

static int64_t ms_of(const struct timespec *ts) {
    return (int64_t)ts->tv_sec * 1000 + ts->tv_nsec / 1000000;
}

int64_t sc_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* sc-env-exempt: the real clock */
    return ms_of(&ts);
}

/* Boot time rather than plain monotonic time: a fence measured across a
 * suspend must count the suspend (the tracker's storage-time anchor). */
int64_t sc_monotonic_ms(void) {
    struct timespec ts;
#ifdef CLOCK_BOOTTIME
    if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0) /* sc-env-exempt: the real clock */
#endif
        clock_gettime(CLOCK_MONOTONIC, &ts); /* sc-env-exempt: the real clock */
    return ms_of(&ts);
}

void sc_sleep_ms(int64_t ms) {
    if (ms <= 0) return;
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) { /* sc-env-exempt: the real sleep */
    }
}
